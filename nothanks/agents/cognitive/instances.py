"""The ToM0 instance set: a plain CSV file of remembered decisions (thesis §3.2).

Each row is one instance chunk with the slots of thesis Table 1::

    category,card,tokens_on_card,tokens_owned,action
    none,25,8,11,take

``category`` is ``none``, ``extension`` or ``completion``; ``action`` is ``take`` or
``pass``; the numbers are non-negative integers. Lines starting with ``#`` are comments
(a shipped file records how it was made there: the command, its parameters and seed).
The shipped sets live in ``data/NAME.csv`` (``nothanks agents`` lists them; the default is
``monotone``); :mod:`.instance_sets` resolves a name, a name with a seeded perturbation
(``monotone+flip=0.08+seed=1``) or a path: ``tom1:instances=NAME|PATH``.
"""
from __future__ import annotations

import csv
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ...rules import Action
from .state import Category

#: Folder of the shipped instance sets (``NAME.csv``).
SHIPPED_DIR = Path(__file__).with_name("data")
#: Name of the default instance set (the one a model uses when given none).
DEFAULT_SET = "monotone"
#: The default instance set's file.
DEFAULT_INSTANCES = SHIPPED_DIR / f"{DEFAULT_SET}.csv"
#: Columns of an instance file, in the order the generator writes them.
COLUMNS = ("category", "card", "tokens_on_card", "tokens_owned", "action")


class InstanceFileError(ValueError):
    """An instance file is malformed; the message names the file, the line and the fix."""


@dataclass(frozen=True, slots=True)
class Instance:
    """One remembered decision: in this state, do ``action``."""

    category: Category
    card: int
    tokens_on_card: int
    tokens_owned: int
    action: Action

    def slots(self) -> dict[str, object]:
        """The chunk slots as stored in declarative memory."""
        return {"category": str(self.category), "card": self.card,
                "tokens_on_card": self.tokens_on_card, "tokens_owned": self.tokens_owned,
                "action": str(self.action)}


@dataclass(frozen=True)
class InstanceSet:
    """A validated instance set and where it came from (a file, or a shipped set with a
    seeded perturbation: then ``source`` names both)."""

    instances: tuple[Instance, ...]
    source: str

    def __len__(self) -> int:
        return len(self.instances)

    def check_deck(self, low_card: int, high_card: int) -> None:
        """Raise :class:`InstanceFileError` if an instance's card is not in the deck
        ``low_card``..``high_card`` (such an instance could never match a real state)."""
        outside = sorted({i.card for i in self.instances if not low_card <= i.card <= high_card})
        if outside:
            raise InstanceFileError(
                f"{self.source}: instance card(s) {outside[:5]} lie outside this game's deck "
                f"{low_card}-{high_card}; valid: cards {low_card} to {high_card} (regenerate "
                "the file for this deck, or play a variant whose deck holds them)")

    def by_category(self) -> dict[Category, int]:
        """Number of instances per category."""
        counts = dict.fromkeys(Category, 0)
        for instance in self.instances:
            counts[instance.category] += 1
        return counts


def _integer(text: str, column: str, where: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise InstanceFileError(
            f"{where}: column {column!r} is {text!r}, not an integer; valid: a whole "
            "number >= 0") from None
    if value < 0:
        raise InstanceFileError(f"{where}: column {column!r} is {value}; valid: >= 0")
    return value


def _parse_row(row: dict[str, str], where: str) -> Instance:
    category, action = row["category"].strip(), row["action"].strip()
    valid_categories = [str(c) for c in Category]
    if category not in valid_categories:
        raise InstanceFileError(f"{where}: unknown category {category!r}; valid: "
                                f"{', '.join(valid_categories)}")
    if action not in ("take", "pass"):
        raise InstanceFileError(f"{where}: unknown action {action!r}; valid: take, pass")
    return Instance(Category(category), _integer(row["card"].strip(), "card", where),
                    _integer(row["tokens_on_card"].strip(), "tokens_on_card", where),
                    _integer(row["tokens_owned"].strip(), "tokens_owned", where),
                    Action(action))


def _data_lines(lines: Iterable[str]) -> Iterable[tuple[int, str]]:
    """(line number, text) of every line that is neither blank nor a comment."""
    for number, line in enumerate(lines, start=1):
        if line.strip() and not line.lstrip().startswith("#"):
            yield number, line


#: Instance sets read, by (path, modification time, size): every model loads its set,
#: and parsing ~2,000 lines costs more than a game. The last few files are kept.
_LOADED: dict[tuple[str, int, int], InstanceSet] = {}
_LOADED_KEPT = 8


def read_instance_file(path: str | Path) -> InstanceSet:
    """Read and validate an instance file; a file read before and unchanged since (same
    modification time and size) is not read again. Names of shipped sets and seeded
    perturbations are resolved by :func:`.instance_sets.load_instances`.

    Raises:
        InstanceFileError: the file is missing, lacks a column, has a bad value,
            contradicts itself, is empty, or leaves a category without instances.
    """
    path = Path(path)
    try:
        stat = path.stat()
    except OSError as exc:
        raise InstanceFileError(f"instance file {path}: cannot be read ({exc.strerror})") from None
    key = (str(path), stat.st_mtime_ns, stat.st_size)
    loaded = _LOADED.get(key)
    if loaded is None:
        loaded = _read_instances(path)
        if len(_LOADED) >= _LOADED_KEPT:
            _LOADED.pop(next(iter(_LOADED)))
        _LOADED[key] = loaded
    return loaded


def validated(instances: Iterable[Instance], source: str) -> InstanceSet:
    """An :class:`InstanceSet` of ``instances`` after the checks a file gets: not empty,
    every category present (``source`` names the set in errors)."""
    result = InstanceSet(tuple(instances), source)
    if not result.instances:
        raise InstanceFileError(f"instance set {source}: the set is empty; a model needs at "
                                "least one instance per category")
    empty = [str(c) for c, n in result.by_category().items() if n == 0]
    if empty:
        raise InstanceFileError(
            f"instance set {source}: no instances of category {', '.join(empty)}; every "
            "category needs at least one (a state of that category could otherwise only "
            "match another category's instances at a mismatch of -100)")
    return result


def _read_instances(path: Path) -> InstanceSet:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InstanceFileError(f"instance file {path}: cannot be read ({exc.strerror})") from None
    lines = list(_data_lines(text.splitlines()))
    if not lines:
        raise InstanceFileError(f"instance file {path}: no header and no instances; expected "
                                f"a header line {','.join(COLUMNS)} and one instance per line")
    header_line, header = lines[0]
    names = [name.strip() for name in next(csv.reader([header]))]
    missing = [c for c in COLUMNS if c not in names]
    if missing:
        raise InstanceFileError(
            f"{path}, line {header_line}: header lacks column(s) {', '.join(missing)}; "
            f"expected the columns {','.join(COLUMNS)} (got {','.join(names)})")
    instances: list[Instance] = []
    seen: dict[tuple, tuple[int, Action]] = {}
    for number, line in lines[1:]:
        where = f"{path}, line {number}"
        values = next(csv.reader([line]))
        if len(values) != len(names):
            raise InstanceFileError(f"{where}: {len(values)} values for {len(names)} columns "
                                    f"({','.join(names)})")
        instance = _parse_row(dict(zip(names, values, strict=True)), where)
        state = (instance.category, instance.card, instance.tokens_on_card,
                 instance.tokens_owned)
        if state in seen and seen[state][1] != instance.action:
            raise InstanceFileError(
                f"{where}: contradicts line {seen[state][0]}: the same state "
                f"{state[0]}/{state[1]}/{state[2]}/{state[3]} says {instance.action} there and "
                f"{seen[state][1]} there; keep one")
        seen[state] = (number, instance.action)
        instances.append(instance)
    if not instances:
        raise InstanceFileError(f"instance file {path}: the header is there but the set is "
                                "empty; a model needs at least one instance per category")
    return validated(instances, str(path))
