"""The family of ToM0 instance sets: shipped sets by name, and seeded perturbations.

The thesis's instance file was never published (thesis §3.2, §4), so the set is a free
choice and an experimental factor (docs/models.md, "Instance sets"). A model takes
``instances=NAME|PATH``:

* ``NAME``: a shipped set, ``data/NAME.csv`` (:func:`shipped_sets`; ``nothanks agents``
  lists them with their provenance line). The default is ``monotone``.
* ``NAME+op=value+...``: a shipped set after seeded perturbations, e.g.
  ``monotone+flip=0.08+seed=1``. The operations (:data:`PERTURBATIONS`) run in a fixed
  order whatever the order written, each from its own random stream of ``seed``
  (default 0), so a name fixes its instances exactly.
* anything else: the path of an instance file.

A perturbed set is a pure function of its base file and its name; :func:`write_set`
writes any set as a file that records the name it was made from.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np

from ...rules import Action
from ...rules.seeding import name_word, stream
from .instances import (
    DEFAULT_SET,
    SHIPPED_DIR,
    Instance,
    InstanceFileError,
    InstanceSet,
    read_instance_file,
    validated,
)
from .state import Category

#: Separator of a shipped set's name and its perturbations.
PERTURB_SEP = "+"


def _flip(instances: list[Instance], rate: float, rng: np.random.Generator,
          categories: tuple[Category, ...]) -> list[Instance]:
    draws = rng.random(len(instances))
    return [replace(i, action=_other(i.action))
            if i.category in categories and u < rate else i
            for i, u in zip(instances, draws, strict=True)]


def _other(action: Action) -> Action:
    return Action.PASS if action is Action.TAKE else Action.TAKE


def flip_no_sequence(instances: list[Instance], rate: float,
                     rng: np.random.Generator) -> list[Instance]:
    """Each no-sequence instance's action is flipped with probability ``rate``."""
    return _flip(instances, rate, rng, (Category.NO_SEQUENCE,))


def flip_sequence(instances: list[Instance], rate: float,
                  rng: np.random.Generator) -> list[Instance]:
    """Each extension or completion instance's action is flipped with probability
    ``rate`` (the thesis's sets always take there, §3.2)."""
    return _flip(instances, rate, rng, (Category.EXTENSION, Category.COMPLETION))


def jitter_thresholds(instances: list[Instance], spread: float,
                      rng: np.random.Generator) -> list[Instance]:
    """Shift each no-sequence column's boundary by a random whole number of tokens.

    A column is one (card, tokens owned); its boundary is the fewest tokens on the card
    at which it takes (one past its largest if it never takes). Each column draws a shift
    uniformly from ``-spread .. +spread`` (rounded to whole tokens) and then takes exactly
    at tokens on card >= boundary + shift: every column stays monotone, only where it
    turns moves.
    """
    width = int(round(spread))
    columns = sorted({(i.card, i.tokens_owned) for i in instances
                      if i.category is Category.NO_SEQUENCE})
    shifts = dict(zip(columns, rng.integers(-width, width + 1, size=len(columns)).tolist(),
                      strict=True))
    lowest_take: dict[tuple[int, int], int] = {}
    highest: dict[tuple[int, int], int] = {}
    for i in instances:
        if i.category is Category.NO_SEQUENCE:
            key = (i.card, i.tokens_owned)
            highest[key] = max(highest.get(key, 0), i.tokens_on_card)
            if i.action is Action.TAKE:
                lowest_take[key] = min(lowest_take.get(key, i.tokens_on_card), i.tokens_on_card)
    out = []
    for i in instances:
        if i.category is not Category.NO_SEQUENCE:
            out.append(i)
            continue
        key = (i.card, i.tokens_owned)
        edge = lowest_take.get(key, highest[key] + 1) + shifts[key]
        out.append(replace(i, action=Action.TAKE if i.tokens_on_card >= edge else Action.PASS))
    return out


def wait_on_sequences(instances: list[Instance], tokens: float,
                      rng: np.random.Generator) -> list[Instance]:
    """A category-specific rule: extension and completion instances with fewer than
    ``tokens`` on the card pass (let a free card go round once to collect tokens);
    the rest take. Deterministic (``rng`` unused)."""
    del rng
    return [replace(i, action=Action.PASS if i.tokens_on_card < tokens else Action.TAKE)
            if i.category is not Category.NO_SEQUENCE else i for i in instances]


Perturbation = Callable[[list[Instance], float, np.random.Generator], list[Instance]]
#: The perturbation operations by name, in the order they are applied.
PERTURBATIONS: dict[str, tuple[Perturbation, str]] = {
    "jitter": (jitter_thresholds, "shift each no-sequence column's take boundary by a "
               "uniform whole number of tokens in -J..J"),
    "seqwait": (wait_on_sequences, "extension/completion instances pass below K tokens on "
                "the card (a category-specific rule)"),
    "flip": (flip_no_sequence, "flip each no-sequence instance's action with probability R"),
    "flipseq": (flip_sequence, "flip each extension/completion instance's action with "
                "probability R"),
}


def shipped_sets() -> dict[str, Path]:
    """Name -> file of every shipped instance set."""
    return {p.stem: p for p in sorted(SHIPPED_DIR.glob("*.csv"))}


def provenance(path: Path) -> list[str]:
    """The leading comment lines of an instance file (how it was made), without ``#``."""
    lines = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("#"):
            break
        lines.append(line.lstrip("#").strip())
    return lines


def describe_sets() -> list[tuple[str, int, str]]:
    """(name, instances, the command that made it) of every shipped set, for listings."""
    rows = []
    for name, path in shipped_sets().items():
        made = [line for line in provenance(path) if line.startswith("python -m")]
        rows.append((name, len(read_instance_file(path)), made[0] if made else ""))
    return rows


def parse_set_name(text: str) -> tuple[str, dict[str, float], int] | None:
    """``(base, {operation: value}, seed)`` of a set name, or ``None`` for a path.

    A text is a name when its part before the first ``+`` is a shipped set; its
    operations must then be known and valued (errors say which are valid). A text that
    exists as a file, contains ``/`` or ends in ``.csv`` is a path.
    """
    base, *parts = text.split(PERTURB_SEP)
    if base not in shipped_sets():
        if Path(text).exists() or "/" in text or text.endswith(".csv"):
            return None  # a path: reading it says what is wrong with it
        raise InstanceFileError(
            f"instances={text!r}: neither a shipped instance set nor an existing file; "
            f"valid names: {', '.join(shipped_sets())} (optionally with perturbations, e.g. "
            f"{DEFAULT_SET}+flip=0.08+seed=1), or the path of an instance file")
    ops: dict[str, float] = {}
    seed = 0
    for part in parts:
        key, eq, value = part.partition("=")
        if not eq or (key not in PERTURBATIONS and key != "seed"):
            raise InstanceFileError(
                f"instances={text!r}: {part!r} is not a perturbation; valid: "
                + ", ".join(f"{k}=VALUE ({doc})" for k, (_, doc) in PERTURBATIONS.items())
                + ", seed=N (default 0)")
        try:
            number = float(value)
        except ValueError:
            raise InstanceFileError(f"instances={text!r}: {key}={value!r} is not a number; "
                                    f"valid: {key}=VALUE with a number, e.g. {key}=0.05"
                                    ) from None
        if key == "seed":
            if not number.is_integer() or number < 0:
                raise InstanceFileError(f"instances={text!r}: seed={value} is invalid; "
                                        "valid: a whole number >= 0")
            seed = int(number)
        elif key in ("flip", "flipseq") and not 0 <= number <= 1:
            raise InstanceFileError(f"instances={text!r}: {key}={value} is invalid; valid: "
                                    "a probability 0..1")
        elif number < 0:
            raise InstanceFileError(f"instances={text!r}: {key}={value} is invalid; valid: "
                                    ">= 0")
        else:
            ops[key] = number
    return base, ops, seed


def _stream(seed: int, operation: str) -> np.random.Generator:
    """The random stream of one operation: independent of the others and of their order."""
    return stream(seed, name_word(operation))


def perturb(instances: Iterable[Instance], ops: dict[str, float],
            seed: int = 0) -> list[Instance]:
    """``instances`` after the operations ``ops`` (:data:`PERTURBATIONS` order)."""
    out = list(instances)
    for name, (operation, _) in PERTURBATIONS.items():
        if name in ops:
            out = operation(out, ops[name], _stream(seed, name))
    return out


_PERTURBED: dict[tuple[str, tuple], InstanceSet] = {}


def load_instances(name_or_path: str | Path | None = None) -> InstanceSet:
    """The instance set a model's ``instances=`` names: ``None`` or ``""`` the default
    set, a shipped name (with perturbations) or a path.

    Raises:
        InstanceFileError: unknown name or operation, a bad value, or a bad file.
    """
    text = DEFAULT_SET if name_or_path is None or str(name_or_path) == "" else str(name_or_path)
    parsed = parse_set_name(text)
    if parsed is None:
        return read_instance_file(text)
    base, ops, seed = parsed
    base_set = read_instance_file(shipped_sets()[base])
    if not ops:
        return base_set
    key = (text, base_set.instances)
    loaded = _PERTURBED.get(key)
    if loaded is None:
        loaded = validated(perturb(base_set.instances, ops, seed), text)
        if len(_PERTURBED) >= 16:
            _PERTURBED.pop(next(iter(_PERTURBED)))
        _PERTURBED[key] = loaded
    return loaded


def is_monotone(instance_set: InstanceSet | Sequence[Instance]) -> bool:
    """Whether every (category, card, tokens owned) column of the set is monotone in
    tokens on the card: no pass above a take."""
    instances = getattr(instance_set, "instances", instance_set)
    lowest_take: dict[tuple, int] = {}
    for i in instances:
        if i.action is Action.TAKE:
            key = (i.category, i.card, i.tokens_owned)
            lowest_take[key] = min(lowest_take.get(key, i.tokens_on_card), i.tokens_on_card)
    return not any(i.action is Action.PASS
                   and i.tokens_on_card > lowest_take.get((i.category, i.card, i.tokens_owned),
                                                          10**9)
                   for i in instances)


def write_set(name_or_path: str, out: str | Path) -> Path:
    """Write the set ``name_or_path`` resolves to as an instance file at ``out``, its
    header naming the set and its base file's provenance."""
    from ...files import atomic_write_bytes
    from .generate_instances import render

    loaded = load_instances(name_or_path)
    parsed = parse_set_name(str(name_or_path))
    header = [f"ToM0 instances: the set {name_or_path!r}"]
    if parsed is not None:
        header.append(f"made by nothanks.agents.cognitive.instance_sets.write_set from "
                      f"the shipped set {parsed[0]!r}, whose provenance is:")
        header.extend("  " + line for line in provenance(shipped_sets()[parsed[0]]))
    atomic_write_bytes(render(loaded.instances, "\n".join(header)).encode("utf-8"), Path(out))
    return Path(out)
