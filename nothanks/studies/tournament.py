"""Rated tournaments: every agent of a pool against every other, on shared deals.

A tournament is a pool of agent specs, a table size (4 seats) and a number of deals.
Its *tables* are the subsets of the pool with one pool member per seat: every subset
(the full round-robin) or, for large pools, a balanced sample of them
(:func:`plan_tables`). Each deal of a table is played four times, once per cyclic
rotation of the seats, so every member sits in every seat once per deal.

A tournament is run as an ordinary :class:`~nothanks.experiments.design.Design`
(:meth:`Tournament.design`): one condition per table and rotation, with the seating
fixed inside the condition (``rotate = false``). Because a design seeds game *i* of
every condition from the root seed and *i* alone, deal *i* is the same cards (and the
same per-seat agent seeds) at every table and in every rotation: tables are compared
on common random numbers. Running, resuming, Dask and verification are those of
:func:`~nothanks.experiments.run.run_design`; ratings are computed from the log by
:mod:`nothanks.analysis.ratings`.

TOML layout (``nothanks/studies/tournaments/*.toml``)::

    name = "tournament"
    description = "..."
    seed = 2026          # root seed of the deals
    deals = 2            # deals per table, each played in every seat rotation
    tables = 55          # optional: a balanced sample of this many tables (default: all)
    seats = 4            # players per table (default 4)
    pool = ["random", "heuristic:T=0", "tom1", ...]
"""
from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np

from ..agents import AgentSpecError, agent_parameters, parse_spec
from ..agents.spec import convert_value, resolve_params
from ..experiments.design import Design, DesignError, Table, read_toml
from ..rules import Variant

#: Folder of the shipped tournaments (``nothanks tournament --list``).
TOURNAMENTS_DIR = Path(__file__).resolve().parent / "tournaments"
#: Keys of a tournament TOML file.
_KEYS = {"name", "description", "seed", "deals", "tables", "seats", "pool"}


class TournamentError(DesignError):
    """A tournament is malformed; the message says which key, what was wrong and what
    would be valid."""


@dataclass(frozen=True)
class Tournament:
    """A pool of agent specs, the table size, how many tables and deals; see the module
    docstring. ``tables=None`` plays every subset of the pool (a full round-robin)."""

    name: str
    pool: tuple[str, ...]
    deals: int = 1
    seed: int = 0
    tables: int | None = None
    seats: int = 4
    description: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "pool", tuple(self.pool))
        _check(self)

    @cached_property
    def lineups(self) -> tuple[tuple[int, ...], ...]:
        """The tables as sorted tuples of pool indices, in playing order."""
        return plan_tables(len(self.pool), self.seats, self.tables, self.seed)

    @property
    def games(self) -> int:
        """Games the tournament plays: tables x rotations x deals."""
        return len(self.lineups) * self.seats * self.deals

    @cached_property
    def design(self) -> Design:
        """The design that plays the tournament: one condition per table and rotation
        (condition index = table x seats + rotation), no further seat rotation."""
        tables = []
        for number, lineup in enumerate(self.lineups):
            players = [self.pool[i] for i in lineup]
            for shift in range(self.seats):
                rotated = players[shift:] + players[:shift]
                tables.append(Table(f"table {number} rotation {shift}", tuple(rotated)))
        return Design(name=self.name, tables=tuple(tables), games=self.deals, seed=self.seed,
                      rotate=False, variant=Variant(players=self.seats),
                      description=self.description or f"tournament of {len(self.pool)} agents")

    def balance(self) -> dict[str, int]:
        """How evenly the tables spread the pool: tables per member and tables per pair
        of members (min and max of each)."""
        members = np.zeros(len(self.pool), int)
        pairs: dict[tuple[int, int], int] = dict.fromkeys(
            itertools.combinations(range(len(self.pool)), 2), 0)
        for lineup in self.lineups:
            members[list(lineup)] += 1
            for pair in itertools.combinations(lineup, 2):
                pairs[pair] += 1
        counts = list(pairs.values())
        return {"tables_per_member_min": int(members.min()),
                "tables_per_member_max": int(members.max()),
                "tables_per_pair_min": min(counts), "tables_per_pair_max": max(counts)}

    def describe(self) -> str:
        """One paragraph: pool, tables (all or sampled), deals, rotations, games."""
        every = math.comb(len(self.pool), self.seats)
        sample = ("every" if self.tables is None or self.tables == every
                  else f"a balanced sample of {len(self.lineups)} of the")
        b = self.balance()
        return (f"{len(self.pool)} agents, {sample} {every} tables of {self.seats} "
                f"({len(self.lineups)} tables; each agent at {b['tables_per_member_min']}-"
                f"{b['tables_per_member_max']} tables, each pair together at "
                f"{b['tables_per_pair_min']}-{b['tables_per_pair_max']}), {self.deals} "
                f"deal(s) per table, each in all {self.seats} seat rotations: "
                f"{self.games} games")

    def with_options(self, **changes: object) -> Tournament:
        """A copy with some fields changed (e.g. ``deals``, ``tables``, ``pool``)."""
        data = {k: getattr(self, k) for k in
                ("name", "pool", "deals", "seed", "tables", "seats", "description")}
        return Tournament(**(data | changes))

    def to_dict(self) -> dict:
        """Plain data (TOML-able) that recreates the tournament."""
        data = {"name": self.name, "description": self.description, "seed": self.seed,
                "deals": self.deals, "seats": self.seats, "pool": list(self.pool)}
        return data | ({"tables": self.tables} if self.tables is not None else {})


def plan_tables(pool_size: int, seats: int = 4, tables: int | None = None,
                seed: int = 0) -> tuple[tuple[int, ...], ...]:
    """Which pool members sit together: every ``seats``-subset of ``range(pool_size)``
    in lexicographic order, or a balanced sample of ``tables`` of them.

    The sample is built greedily and is deterministic in ``seed``: each next table is
    the unused subset whose members have sat at the fewest tables so far (sum of their
    counts), then whose pairs have met least (sum of pair counts), ties broken by a
    seeded random order. So every member plays about ``tables x seats / pool_size``
    tables and every pair meets about equally often (see :meth:`Tournament.balance`).
    """
    every = list(itertools.combinations(range(pool_size), seats))
    if tables is None or tables == len(every):
        return tuple(every)
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(every))  # the seeded tie-break
    members = np.zeros(pool_size, int)
    pairs = np.zeros((pool_size, pool_size), int)
    chosen: list[tuple[int, ...]] = []
    free = np.ones(len(every), bool)
    subsets = np.array(every)
    pair_index = list(itertools.combinations(range(seats), 2))
    for _ in range(tables):
        member_load = members[subsets].sum(axis=1)
        pair_load = sum(pairs[subsets[:, a], subsets[:, b]] for a, b in pair_index)
        keys = np.where(free, member_load * 10_000 + pair_load, np.iinfo(np.int64).max)
        best = min(np.flatnonzero(keys == keys.min()), key=lambda i: order[i])
        free[best] = False
        lineup = every[best]
        chosen.append(lineup)
        members[list(lineup)] += 1
        for a, b in itertools.combinations(lineup, 2):
            pairs[a, b] += 1
            pairs[b, a] += 1
    return tuple(chosen)


def _check(t: Tournament) -> None:
    where = f"tournament {t.name!r}"
    for key in ("deals", "seed", "seats"):
        value = getattr(t, key)
        if isinstance(value, bool) or not isinstance(value, int):
            raise TournamentError(f"{where}: {key!r} must be a whole number, got {value!r}")
    if t.deals < 1:
        raise TournamentError(f"{where}: 'deals' must be at least 1 (got {t.deals})")
    if t.seed < 0:
        raise TournamentError(f"{where}: 'seed' must be >= 0 (got {t.seed})")
    if not 3 <= t.seats <= 7:
        raise TournamentError(f"{where}: 'seats' must be 3 to 7, the player counts of "
                              f"No Thanks! (got {t.seats})")
    if not all(isinstance(s, str) and s.strip() for s in t.pool):
        raise TournamentError(f"{where}: 'pool' must be a list of agent-spec strings, got "
                              f"{list(t.pool)!r}")
    if len(t.pool) < t.seats:
        raise TournamentError(f"{where}: the pool has {len(t.pool)} agent(s) "
                              f"({', '.join(t.pool) or 'none'}); a table of {t.seats} needs "
                              f"at least {t.seats} different agents")
    canonical: dict[tuple, str] = {}
    for spec in t.pool:
        try:
            key = agent_identity(spec)
        except AgentSpecError as exc:
            raise TournamentError(f"{where}: pool entry {spec!r}: {exc}") from None
        if key in canonical:
            raise TournamentError(f"{where}: pool entries {canonical[key]!r} and {spec!r} "
                                  "are the same agent; give each agent once")
        canonical[key] = spec
    every = math.comb(len(t.pool), t.seats)
    if t.tables is not None and (isinstance(t.tables, bool) or not isinstance(t.tables, int)
                                 or not 1 <= t.tables <= every):
        raise TournamentError(f"{where}: 'tables' must be a whole number from 1 to {every} "
                              f"(the {t.seats}-subsets of a pool of {len(t.pool)}), or left "
                              f"out for all of them; got {t.tables!r}")


def agent_identity(spec: str) -> tuple:
    """What makes two specs the same agent: its name and every parameter value, defaults
    and presets filled in (``heuristic``, ``heuristic:T=0`` and ``heuristic:T=0.0`` are
    one agent). Raises :class:`AgentSpecError` for an unknown agent or parameter."""
    parsed = parse_spec(spec)
    values = dict(agent_parameters(parsed.name))
    for key, value in resolve_params(parsed).items():
        if key not in values:
            raise AgentSpecError(f"agent {parsed.name!r} has no parameter {key!r}; valid: "
                                 f"{', '.join(values) or 'none'}")
        values[key] = convert_value(value, values[key], f"parameter {key}")
    return (parsed.name, tuple(sorted((k, repr(v)) for k, v in values.items())))


# ------------------------------------------------------------------------ loading
def shipped_tournaments() -> dict[str, Path]:
    """Shipped tournament names and their files."""
    return {p.stem: p for p in sorted(TOURNAMENTS_DIR.glob("*.toml"))}


def tournament_from_dict(data: Mapping, source: str = "<tournament>") -> Tournament:
    """A :class:`Tournament` from plain data (a parsed TOML file); :class:`TournamentError`
    for an unknown or missing key or a bad value."""
    unknown = sorted(set(data) - _KEYS)
    if unknown:
        raise TournamentError(f"{source}: unknown key(s) {unknown}; valid keys: "
                              f"{sorted(_KEYS)}")
    for key in ("name", "pool"):
        if key not in data:
            raise TournamentError(f"{source}: missing required key {key!r}")
    pool = data["pool"]
    if not isinstance(pool, list):
        raise TournamentError(f"{source}: 'pool' must be a list of agent specs, got {pool!r}")
    tables = data.get("tables")
    if tables == "all":
        tables = None
    return Tournament(name=str(data["name"]), pool=tuple(pool), deals=data.get("deals", 1),
                      seed=data.get("seed", 0), tables=tables, seats=data.get("seats", 4),
                      description=str(data.get("description", "")).strip())


def load_tournament(name_or_path: str | Path | Tournament) -> Tournament:
    """A shipped tournament by name, or a tournament file by path, parsed and checked;
    :class:`TournamentError` for an unknown name or a bad file."""
    if isinstance(name_or_path, Tournament):
        return name_or_path
    shipped = shipped_tournaments()
    path = shipped.get(str(name_or_path), Path(name_or_path))
    if not path.is_file():
        raise TournamentError(f"no tournament {str(name_or_path)!r}: not a shipped "
                              f"tournament ({', '.join(shipped)}) and no such file")
    return tournament_from_dict(read_toml(path, TournamentError), str(path))


def pool_from_text(text: str | Sequence[str]) -> tuple[str, ...]:
    """Agent specs from ``'random;heuristic:T=-3;tom1'`` (``;`` between agents, since a
    spec's parameters are separated by commas), or a list of specs as they are."""
    items = text.split(";") if isinstance(text, str) else list(text)
    return tuple(s.strip() for s in items if s.strip())


def run_tournament(tournament: Tournament | str | Path, out: str | Path, **options):
    """Run (or resume) the tournament's games into experiment directory ``out``; the
    options are those of :func:`~nothanks.experiments.run.run_design` (``jobs``,
    ``client``, ``progress``...)."""
    from ..experiments.run import run_design
    return run_design(load_tournament(tournament).design, out, **options)
