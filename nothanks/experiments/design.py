"""Experiment designs: who sits at the table, how many games, sweeps, schedule and seed.

A design is a small TOML file (or the same thing built in Python). It expands to a
deterministic list of *conditions* (a table of agent specs plus the variant, after
applying one combination of the parameter sweeps) and a deterministic sequence of
*games*, each with a global position. Game *i* of every condition is played on the same
deal: its seed (hence the cards dealt and every agent's randomness) and its seating
depend only on the root seed and *i* (common random numbers), so conditions are
compared on the same deals and paired tests can use the per-deal differences. A game's
result never depends on which worker plays it or in what order.

TOML layout (every key is documented in ``data/README.md``)::

    name = "table7"
    description = "..."
    seed = 2018            # root seed
    games = 500            # games per condition (designs without a schedule)
    rotate = true          # rotate the table's roles over the seats game by game
    human = "human-standin"  # optional: who plays a "human" seat outside a session
    trial = 10             # optional: games per trial; a trial's games are played in order
                           # by the same agents (learning carries over), fresh at each trial

    [variant]              # optional rules variant (nothanks.rules.Variant fields)
    players = 4

    [[tables]]
    label = "ToM1 vs ToM0"
    players = ["tom0", "tom0", "tom0", "tom1"]   # agent specs, one per role
    focal = 3              # optional role index of the focal player

    [[sweeps]]             # optional; several sweeps are crossed with each other
    parameter = "rt"
    values = [-8.0, -6.0]
    agents = ["tom1", "tom2"]   # or "focal", "opponents", "all"

    [schedule]             # optional: an explicit order of games over the tables
    tables = ["ToM0", "ToM1", ...]   # one table label per game
    blocks = [1, 1, ...]             # block number of each game
    practice_blocks = [1]
"""
from __future__ import annotations

import bisect
import hashlib
import itertools
import json
import tomllib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from functools import cached_property
from pathlib import Path

from ..agents import AgentSpec, AgentSpecError, agent_parameters, make_agent, parse_spec
from ..play.runner import game_seed, seating
from ..rules import Variant, VariantError
from ..rules.seeding import MAX_SEED

#: The spec that marks the participant's seat in a design (played by a person in a
#: ParticipantSession, or by the design's ``human`` stand-in spec in a plain run).
HUMAN = "human"
#: Folder of the shipped designs (``nothanks run --list``).
DESIGNS_DIR = Path(__file__).resolve().parent / "designs"
#: Sweep targets that are not agent names.
SWEEP_TARGETS = ("focal", "opponents", "all")

SweepValue = int | float | str | bool


class DesignError(ValueError):
    """A design is malformed; the message names the file, the key and what is valid."""


@dataclass(frozen=True)
class Table:
    """The players of one table, as agent specs in role order (role = index)."""

    label: str
    players: tuple[str, ...]
    focal: int | None = None


@dataclass(frozen=True)
class Sweep:
    """Set ``parameter`` to each of ``values`` on the targeted players (``agents``)."""

    parameter: str
    values: tuple[SweepValue, ...]
    agents: str | tuple[str, ...] = "all"


@dataclass(frozen=True)
class Schedule:
    """An explicit order of games: the table label and block number of each game."""

    tables: tuple[str, ...]
    blocks: tuple[int, ...]
    practice_blocks: tuple[int, ...] = ()


@dataclass(frozen=True)
class Condition:
    """One table after applying one combination of sweep values."""

    index: int
    label: str
    table: str
    players: tuple[str, ...]
    focal: int | None
    sweep: tuple[tuple[str, SweepValue], ...]
    games: int


@dataclass(frozen=True)
class PlannedGame:
    """Everything that fixes one game: its position, condition, seed and seating."""

    position: int
    condition: int
    occurrence: int  # index of this game among the games of its condition: its deal
    seed: int
    block: int | None
    practice: bool
    roles: tuple[int, ...]  # role index of the player at each seat


@dataclass(frozen=True)
class Design:
    """A declarative experiment; see the module docstring for the TOML form."""

    name: str
    tables: tuple[Table, ...]
    games: int = 1
    seed: int = 0
    rotate: bool = True
    variant: Variant = field(default_factory=Variant)
    sweeps: tuple[Sweep, ...] = ()
    schedule: Schedule | None = None
    human: str | None = None
    description: str = ""
    #: Games per trial (``None``: no trials). Deals ``k*trial .. (k+1)*trial - 1`` of a
    #: condition form its trial ``k``: played in order by the same agent objects, which are
    #: built fresh at the start of every trial (learning agents with ``carry=true`` carry
    #: what they learned from game to game within a trial, never across trials).
    trial: int | None = None

    def __post_init__(self) -> None:
        _check_design(self)
        self.conditions  # noqa: B018 - expands the sweeps now, so their errors show early

    # ---------------------------------------------------------------- expansion
    @cached_property
    def conditions(self) -> tuple[Condition, ...]:
        """Tables × sweep combinations, in table order then sweep order."""
        combos = list(itertools.product(*[s.values for s in self.sweeps]))
        counts = self._schedule_counts()
        out: list[Condition] = []
        for table in self.tables:
            for combo in combos:
                players = tuple(
                    _apply_sweeps(spec, role, table, self.sweeps, combo)
                    for role, spec in enumerate(table.players)
                )
                sweep = tuple((s.parameter, v) for s, v in zip(self.sweeps, combo, strict=True))
                label = table.label + "".join(f" | {k}={v}" for k, v in sweep)
                games = counts[table.label] if counts is not None else self.games
                out.append(Condition(len(out), label, table.label, players, table.focal,
                                     sweep, games))
        return tuple(out)

    def _schedule_counts(self) -> dict[str, int] | None:
        if self.schedule is None:
            return None
        return {t.label: self.schedule.tables.count(t.label) for t in self.tables}

    @cached_property
    def total_games(self) -> int:
        """Games over all conditions (each condition's ``games`` summed)."""
        return sum(c.games for c in self.conditions)

    @cached_property
    def _starts(self) -> list[int]:
        """First position of each condition (designs without a schedule)."""
        return list(itertools.accumulate((c.games for c in self.conditions), initial=0))

    @cached_property
    def _scheduled(self) -> list[tuple[int, int]]:
        """(condition, occurrence) of each position (designs with a schedule)."""
        assert self.schedule is not None
        index = {c.table: c.index for c in self.conditions}
        seen: dict[int, int] = {}
        out = []
        for label in self.schedule.tables:
            cond = index[label]
            out.append((cond, seen.get(cond, 0)))
            seen[cond] = seen.get(cond, 0) + 1
        return out

    def game(self, position: int) -> PlannedGame:
        """The game at ``position`` (0-based) of the design; ``IndexError`` outside
        ``0 .. total_games - 1``."""
        if not 0 <= position < self.total_games:
            raise IndexError(f"design {self.name!r} has games 0 to {self.total_games - 1}; "
                             f"asked for {position}")
        block, practice = None, False
        if self.schedule is not None:
            cond, occurrence = self._scheduled[position]
            block = self.schedule.blocks[position]
            practice = block in self.schedule.practice_blocks
        else:
            cond = bisect.bisect_right(self._starts, position) - 1
            occurrence = position - self._starts[cond]
        players = self.conditions[cond].players
        roles = seating(players, occurrence) if self.rotate else list(range(len(players)))
        return PlannedGame(position, cond, occurrence, game_seed(self.seed, occurrence),
                           block, practice, tuple(roles))

    def plan(self, start: int = 0, stop: int | None = None) -> Iterator[PlannedGame]:
        """Games ``start`` to ``stop - 1`` (default: to the end), lazily."""
        stop = self.total_games if stop is None else min(stop, self.total_games)
        return (self.game(p) for p in range(start, stop))

    # ---------------------------------------------------------------- identity
    def to_dict(self) -> dict:
        """Plain data (TOML/JSON-able) that recreates the design with :meth:`from_dict`."""
        data: dict = {
            "name": self.name, "description": self.description, "seed": self.seed,
            "games": self.games, "rotate": self.rotate,
            "variant": {k: v for k, v in asdict(self.variant).items() if v is not None},
            "tables": [
                {"label": t.label, "players": list(t.players)}
                | ({"focal": t.focal} if t.focal is not None else {})
                for t in self.tables
            ],
            "sweeps": [
                {"parameter": s.parameter, "values": list(s.values),
                 "agents": s.agents if isinstance(s.agents, str) else list(s.agents)}
                for s in self.sweeps
            ],
        }
        if self.schedule is not None:
            data["schedule"] = {"tables": list(self.schedule.tables),
                                "blocks": list(self.schedule.blocks),
                                "practice_blocks": list(self.schedule.practice_blocks)}
        if self.human is not None:
            data["human"] = self.human
        if self.trial is not None:  # absent otherwise: older designs keep their hash
            data["trial"] = self.trial
        return data

    @cached_property
    def hash(self) -> str:
        """Short SHA-256 of everything that affects results (the description excluded)."""
        data = self.to_dict()
        data.pop("description")
        text = json.dumps(data, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def with_options(self, **changes: object) -> Design:
        """A copy with some fields changed (e.g. ``games``, ``seed``, ``human``)."""
        return replace(self, **changes)

    @classmethod
    def from_dict(cls, data: Mapping, source: str = "<design>") -> Design:
        """The design a parsed TOML mapping describes (``source`` names it in errors).

        Raises:
            DesignError: an unknown or missing key, or a bad value; the message names
                ``source``, the key and what would be valid.
        """
        return _parse(data, source)

    def validate_agents(self) -> None:
        """Build and start every agent spec once, so unknown agents, bad parameters or an
        instance file that does not fit the deck fail before a run."""
        checked: set[str] = set()
        for cond in self.conditions:
            for role, spec in enumerate(cond.players):
                if spec == HUMAN:
                    if self.human is None:
                        continue
                    spec = self.human
                if spec in checked:
                    continue
                checked.add(spec)
                try:
                    agent = make_agent(spec)
                    agent.start(role, self.variant, 0)  # e.g. instances vs deck
                except (AgentSpecError, ValueError) as exc:
                    raise DesignError(
                        f"design {self.name!r}, condition {cond.label!r}, role {role}: {exc}"
                    ) from None
                if agent.carries and self.trial is None:
                    raise DesignError(
                        f"design {self.name!r}, condition {cond.label!r}, role {role}: "
                        f"{spec!r} carries what it learns from game to game, so its games "
                        "must be played in order: give the design 'trial = N' (games per "
                        "trial), or use carry=false")

    @cached_property
    def learns(self) -> bool:
        """Whether any agent of the design learns from experience (its runs then log the
        ``learning`` table)."""
        return any(make_agent(spec).learns for spec in self.agent_specs())

    def agent_specs(self) -> set[str]:
        """Every agent spec the design seats (the human role's stand-in included)."""
        return {self.human if spec == HUMAN else spec for c in self.conditions
                for spec in c.players if spec != HUMAN or self.human is not None}

    def trial_of(self, plan: PlannedGame) -> tuple[int, int] | None:
        """``(trial, game within the trial)`` of a planned game; ``None`` without trials."""
        if self.trial is None:
            return None
        return divmod(plan.occurrence, self.trial)

    @property
    def has_human(self) -> bool:
        """Whether any table seats the human role."""
        return any(HUMAN in t.players for t in self.tables)


# ------------------------------------------------------------------------ parsing
_TOP_KEYS = {"name", "description", "seed", "games", "rotate", "variant", "tables", "sweeps",
             "schedule", "human", "trial"}


def _parse(data: Mapping, source: str) -> Design:
    def fail(message: str) -> DesignError:
        return DesignError(f"{source}: {message}")

    unknown = sorted(set(data) - _TOP_KEYS)
    if unknown:
        raise fail(f"unknown key(s) {unknown}; valid keys: {sorted(_TOP_KEYS)}")
    for key in ("name", "tables"):
        if key not in data:
            raise fail(f"missing required key {key!r}")
    try:
        name = _typed(data, "name", str)
    except DesignError as exc:
        raise fail(str(exc)) from None
    tables_data = data["tables"]
    if not isinstance(tables_data, list) or not tables_data:
        raise fail("'tables' must be a non-empty list of [[tables]] entries")
    tables = []
    for i, t in enumerate(tables_data):
        where = f"{source}: tables[{i}]"
        if not isinstance(t, Mapping):
            raise DesignError(f"{where} must be a table with 'label' and 'players'")
        extra = sorted(set(t) - {"label", "players", "focal"})
        if extra:
            raise DesignError(f"{where}: unknown key(s) {extra}; valid: label, players, focal")
        if "players" not in t:
            raise DesignError(f"{where}: missing required key 'players' (a list of agent specs)")
        players = t["players"]
        if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
            raise DesignError(f"{where}: 'players' must be a list of agent-spec strings")
        focal = t.get("focal")
        if focal is not None and not isinstance(focal, int):
            raise DesignError(f"{where}: 'focal' must be a role index (an integer)")
        tables.append(Table(str(t.get("label", " vs ".join(players))), tuple(players), focal))
    sweeps = []
    for i, s in enumerate(data.get("sweeps", [])):
        where = f"{source}: sweeps[{i}]"
        if not isinstance(s, Mapping) or "parameter" not in s or "values" not in s:
            raise DesignError(f"{where} must have 'parameter' and 'values' (and optional 'agents')")
        extra = sorted(set(s) - {"parameter", "values", "agents"})
        if extra:
            raise DesignError(f"{where}: unknown key(s) {extra}; valid: parameter, values, agents")
        agents = s.get("agents", "all")
        if isinstance(agents, list):
            agents = tuple(agents)
        if not isinstance(s["values"], list):
            raise DesignError(f"{where}: 'values' must be a list, got {s['values']!r}")
        sweeps.append(Sweep(str(s["parameter"]), tuple(s["values"]), agents))
    schedule = None
    if "schedule" in data:
        sd = data["schedule"]
        where = f"{source}: schedule"
        if not isinstance(sd, Mapping) or "tables" not in sd or "blocks" not in sd:
            raise DesignError(f"{where} must have 'tables' and 'blocks' lists")
        schedule = Schedule(tuple(sd["tables"]), tuple(sd["blocks"]),
                            tuple(sd.get("practice_blocks", ())))
    variant_options = data.get("variant", {})
    if not isinstance(variant_options, Mapping):
        raise fail("'variant' must be a table of Variant options")
    try:
        variant = Variant.from_options(dict(variant_options))
    except (VariantError, TypeError) as exc:
        raise fail(f"[variant]: {exc}") from None
    try:
        return Design(
            name=name, tables=tuple(tables),
            games=_typed(data, "games", int, 1),
            seed=_typed(data, "seed", int, 0),
            rotate=_typed(data, "rotate", bool, True),
            variant=variant, sweeps=tuple(sweeps), schedule=schedule,
            human=data.get("human"), description=str(data.get("description", "")).strip(),
            trial=_typed(data, "trial", int) if "trial" in data else None,
        )
    except DesignError as exc:
        raise DesignError(f"{source}: {exc}") from None


def _typed(data: Mapping, key: str, kind: type, default: object = None):
    """``data[key]`` checked to be of ``kind`` (the caller adds where it came from)."""
    value = data.get(key, default)
    if value is None:
        raise DesignError(f"missing required key {key!r}")
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise DesignError(f"{key!r} must be {_KIND_NAMES.get(kind, kind.__name__)}, got "
                          f"{value!r}")
    return value


_KIND_NAMES = {int: "an integer", str: "a string", bool: "true or false"}


def _check_design(d: Design) -> None:
    """Structural checks every design passes, however it was built."""
    if not d.name or any(c.isspace() for c in d.name):
        raise DesignError(f"design name {d.name!r} must be non-empty without spaces")
    if d.games < 1:
        raise DesignError(f"'games' must be at least 1 (got {d.games})")
    if not 0 <= d.seed <= MAX_SEED:
        raise DesignError(f"'seed' must be a non-negative integer (got {d.seed}); valid: "
                          f"0 to {MAX_SEED} (2**63 - 1)")
    labels = [t.label for t in d.tables]
    if len(set(labels)) != len(labels):
        raise DesignError(f"table labels must be unique; got {labels}")
    for t in d.tables:
        if len(t.players) != d.variant.players:
            raise DesignError(
                f"table {t.label!r} seats {len(t.players)} players but the variant has "
                f"{d.variant.players}; give one agent spec per seat or set [variant] players"
            )
        if t.focal is not None and not 0 <= t.focal < len(t.players):
            raise DesignError(f"table {t.label!r}: focal={t.focal} is not a role index; "
                              f"valid: 0 to {len(t.players) - 1}")
        for spec in t.players:
            try:
                parse_spec(spec)
            except AgentSpecError as exc:
                raise DesignError(f"table {t.label!r}: {exc}") from None
    names = {parse_spec(p).name for t in d.tables for p in t.players}
    seen_params = set()
    for s in d.sweeps:
        where = f"sweep over {s.parameter!r}"
        if s.parameter in seen_params:
            raise DesignError(f"{where}: the parameter is swept twice; merge the value lists")
        seen_params.add(s.parameter)
        if not s.values:
            raise DesignError(f"{where}: 'values' is empty; give at least one value")
        if not all(isinstance(v, (int, float, str, bool)) for v in s.values):
            raise DesignError(f"{where}: values must be numbers, strings or booleans; "
                              f"got {list(s.values)!r}")
        if len(set(s.values)) != len(s.values):
            raise DesignError(f"{where}: values repeat: {list(s.values)!r}")
        if isinstance(s.agents, str):
            if s.agents not in SWEEP_TARGETS:
                raise DesignError(f"{where}: agents={s.agents!r} is not valid; valid: "
                                  f"{', '.join(SWEEP_TARGETS)} or a list of agent names")
            if s.agents in ("focal", "opponents") and any(t.focal is None for t in d.tables):
                raise DesignError(f"{where}: agents={s.agents!r} needs 'focal' on every table")
        else:
            missing = sorted(set(s.agents) - names)
            if missing:
                raise DesignError(f"{where}: agents {missing} sit at no table; agents in this "
                                  f"design: {sorted(names)}")
    if d.schedule is not None:
        sc = d.schedule
        if len(sc.tables) != len(sc.blocks) or not sc.tables:
            raise DesignError(f"schedule: 'tables' ({len(sc.tables)}) and 'blocks' "
                              f"({len(sc.blocks)}) must be non-empty lists of equal length")
        unknown = sorted(set(sc.tables) - set(labels))
        if unknown:
            raise DesignError(f"schedule names unknown table(s) {unknown}; tables: {labels}")
        if d.sweeps:
            raise DesignError("a design with a schedule cannot also have sweeps")
        if not all(isinstance(b, int) for b in sc.blocks):
            raise DesignError("schedule: 'blocks' must be integers")
        bad = sorted(set(sc.practice_blocks) - set(sc.blocks))
        if bad:
            raise DesignError(f"schedule: practice_blocks {bad} are not blocks of the schedule")
    if d.trial is not None:
        if isinstance(d.trial, bool) or not isinstance(d.trial, int) or d.trial < 1:
            raise DesignError(f"'trial' must be a whole number of games >= 1 (got {d.trial!r})")
        if d.schedule is not None:
            raise DesignError("a design with a schedule cannot also have trials")
        if d.games % d.trial:
            raise DesignError(
                f"'games' ({d.games}) must be a multiple of 'trial' ({d.trial}): every trial "
                f"is whole; e.g. games = {d.games - d.games % d.trial or d.trial}")
    if d.human is not None:
        try:
            parse_spec(d.human)
        except AgentSpecError as exc:
            raise DesignError(f"human: {exc}") from None


def _targets(sweep: Sweep, role: int, table: Table, spec: str) -> bool:
    if spec == HUMAN:
        return False
    if sweep.agents == "all":
        return True
    if sweep.agents == "focal":
        return role == table.focal
    if sweep.agents == "opponents":
        return role != table.focal
    return parse_spec(spec).name in sweep.agents


def _apply_sweeps(spec: str, role: int, table: Table, sweeps: Sequence[Sweep],
                  combo: Sequence[SweepValue]) -> str:
    """``spec`` with every targeting sweep's parameter set to its value in ``combo``."""
    parsed = parse_spec(spec)
    params = dict(parsed.params)
    for sweep, value in zip(sweeps, combo, strict=True):
        if not _targets(sweep, role, table, spec):
            continue
        if sweep.parameter in params:
            raise DesignError(f"sweep over {sweep.parameter!r}: table {table.label!r} role "
                              f"{role} ({spec!r}) already sets it; remove one of the two")
        try:
            known = agent_parameters(parsed.name)
        except AgentSpecError:
            known = None  # unknown agents are reported by validate_agents with context
        if known is not None and sweep.parameter not in known:
            raise DesignError(
                f"sweep over {sweep.parameter!r}: agent {parsed.name!r} (table "
                f"{table.label!r}, role {role}) has no such parameter; valid: "
                f"{', '.join(known) or 'none'}")
        params[sweep.parameter] = str(value).lower() if isinstance(value, bool) else str(value)
    return str(AgentSpec(parsed.name, params))


# ------------------------------------------------------------------------ loading
def shipped_designs() -> dict[str, Path]:
    """Shipped design names and their files."""
    return {p.stem: p for p in sorted(DESIGNS_DIR.glob("*.toml"))}


def load_design(name_or_path: str | Path | Design) -> Design:
    """A shipped design by name, or a design file by path, parsed and checked (a
    :class:`Design` is returned as it is); :class:`DesignError` for an unknown name or
    a bad file."""
    if isinstance(name_or_path, Design):
        return name_or_path
    path = Path(name_or_path)
    shipped = shipped_designs()
    if str(name_or_path) in shipped:
        path = shipped[str(name_or_path)]
    elif not path.exists():
        raise DesignError(f"no design {str(name_or_path)!r}: not a shipped design "
                          f"({', '.join(shipped)}) and no such file")
    return _parse(read_toml(path, DesignError), str(path))


def read_toml(path: Path, error: type[Exception]) -> dict:
    """The TOML file at ``path``; a syntax error is raised as ``error`` naming the file."""
    try:
        return tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as exc:
        raise error(f"{path}: not valid TOML: {exc}") from None
