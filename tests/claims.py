"""Every number with a 95% interval in the prose is found in a committed table.

A *claim* is a value followed by its interval, ``x [a, b]`` (``41.4% [37.2%, 45.8%]``,
``+0.042 [+0.027, +0.057]``, ``33.7% [31.6, 35.8]``), in README.md, docs/*.md,
figures/results.md or a study's results.md. A claim is backed when one row of a
committed CSV table (``git ls-files '*.csv'``) holds three cells that print as the
claim's three numbers at the claim's precision: as written, or as a share printed in
percent (x 100). The tables a document may draw from are named in :data:`SOURCES`
(globs; a document not named there may draw from any committed table). A stale number,
one a rebuild changed in its table but not in the text, is then not found and
``tests/unit/test_claims.py`` fails, naming the file, line and claim.
"""
from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from fnmatch import fnmatch
from functools import cache
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
#: The prose whose claims are checked (globs relative to the repository). The texts
#: ``nothanks.report.rendered`` renders from their tables (figures/results.md, ...) are
#: checked whole by comparing them with the render instead.
PROSE = ("README.md", "docs/*.md", "figures/studies/*/results.md")
#: Known claims no committed table backs yet, one per line: ``path | claim | why``.
LEDGER = ROOT / "tests" / "claims_unbacked.txt"

_NUMBER = r"[-+−]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"
#: ``value[%] [low[%], high[%]]`` with at most a space, or a line break and its indent,
#: between value and bracket, or a difference's unit (``+22.5 pp [+7.5, +37.5]``,
#: ``percentage points``, ``points``).
CLAIM = re.compile(rf"(?<![\w.])(?P<v>{_NUMBER})(?P<pv>%?)"
                   r"(?: (?:pp|percentage points|points)(?= ?\[))?(?:\n[ \t]*|\s?)"
                   rf"\[(?P<l>{_NUMBER})(?P<pl>%?),\s*(?P<h>{_NUMBER})(?P<ph>%?)\]")


@dataclass(frozen=True)
class Claim:
    """One ``x [a, b]`` in a document."""
    path: str
    line: int
    text: str
    numbers: tuple[str, str, str]
    percent: bool

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.text}"


def _value(text: str) -> float:
    return float(text.replace("−", "-").replace(",", ""))


def _decimals(text: str) -> int:
    return len(text.split(".", 1)[1]) if "." in text else 0


def claims_in(text: str, path: str = "<text>") -> list[Claim]:
    """Every claim of ``text`` (one Markdown document), also one a line break splits
    (``35.4% [22.9%,`` / ``47.9%]``): its text with the break read as one space, its
    line the one it starts on."""
    found = []
    for m in CLAIM.finditer(text):
        found.append(Claim(path, text.count("\n", 0, m.start()) + 1, " ".join(m.group(0).split()),
                           (m["v"], m["l"], m["h"]), bool(m["pv"] or m["pl"] or m["ph"])))
    return found


#: Committed CSV files that are raw samples, not tables a claim quotes: a placebo pool's
#: per-set p-values (thousands of rows of numbers in [0, 1] would back a short claim by
#: chance; their rates are in ``data/placebo/*_rates.csv``), the self-play evaluation's
#: player-games (its table is ``data/selfplay/eval/summary.csv``).
RAW = ("data/placebo/random.csv", "data/placebo/tom0.csv", "data/placebo/paired_deals.csv",
       "data/selfplay/eval/games.csv")


@cache
def committed_tables(root: Path = ROOT) -> dict[str, np.ndarray]:
    """Every committed CSV table's numeric cells (rows x columns, NaN elsewhere), but
    the raw samples of :data:`RAW`."""
    names = subprocess.run(["git", "ls-files", "*.csv"], cwd=root, capture_output=True,
                           text=True, check=True).stdout.split()
    tables = {}
    for name in names:
        if name in RAW:
            continue
        try:
            frame = pd.read_csv(root / name, low_memory=False)
        except (pd.errors.ParserError, pd.errors.EmptyDataError):  # a list, or empty
            continue
        numeric = frame.apply(pd.to_numeric, errors="coerce").to_numpy(float)
        if numeric.size and np.isfinite(numeric).any():
            tables[name] = numeric
    return tables


def _hits(cells: np.ndarray, printed: str, scale: float) -> np.ndarray:
    """Cells of ``cells`` that print as ``printed`` after x ``scale``."""
    tolerance = 0.5 * 10.0 ** -_decimals(printed) * (1 + 1e-9) + 1e-12
    return np.abs(cells * scale - _value(printed)) <= tolerance


def backed_by(claim: Claim, tables: dict[str, np.ndarray]) -> str | None:
    """The first table with a row that holds the claim's interval in two adjacent cells
    (low, high: the ``ci_low, ci_high`` of every table) and its value in another cell,
    each printing as the claim prints it; None when no table has one."""
    scales = (100.0, 1.0) if claim.percent else (1.0, 100.0)
    value, low, high = claim.numbers
    for name, cells in tables.items():
        if cells.shape[1] < 3:
            continue
        for scale in scales:
            bounds = _hits(cells[:, :-1], low, scale) & _hits(cells[:, 1:], high, scale)
            rows = bounds.any(axis=1)
            if rows.any() and _hits(cells[rows], value, scale).any(axis=1).any():
                return name
    return None


#: The committed tables each document's claims come from (globs; ``*`` also crosses
#: folders); a study's results.md draws from its own ``tables/``; other documents (the
#: README) from any committed table. Naming the sources keeps a claim from being
#: "backed" by a chance match elsewhere (a 200-game share and its Wilson interval recur
#: in unrelated tables).
SOURCES: dict[str, tuple[str, ...]] = {
    "docs/learning.md": ("figures/studies/learning/tables/*.csv", "data/learning/*.csv"),
    "docs/thesis-results.md": ("figures/tables/*.csv", "data/placebo/*_rates.csv",
                               "figures/studies/*/tables/*.csv", "data/benchmarks/*.csv"),
    "docs/models.md": ("figures/tables/*.csv", "figures/studies/*/tables/*.csv"),
    "docs/calibration.md": ("data/calibration/*.csv", "figures/tables/*.csv",
                            "data/benchmarks/*.csv"),
    "docs/alphazero.md": ("data/selfplay/*.csv",),
    "docs/ismcts.md": ("data/benchmarks/*.csv", "figures/tournament/*.csv",
                       "figures/studies/move-quality/tables/*.csv", "data/move-quality/*.csv"),
    "docs/openspiel.md": ("data/benchmarks/*.csv",),
    "docs/tournament.md": ("figures/tournament/*.csv",),
    "docs/higher-orders.md": ("figures/studies/higher-orders/tables/*.csv",),
    "docs/readings.md": ("figures/studies/readings/tables/*.csv",),
    "docs/fitting.md": ("data/fitting/*.csv",),
    "docs/which-order.md": ("figures/inference/*.csv", "data/fitting/*.csv"),
}


def tables_for(path: str, tables: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The tables ``path``'s claims may come from (:data:`SOURCES`)."""
    globs = SOURCES.get(path)
    if globs is None and fnmatch(path, "figures/studies/*/results.md"):
        globs = (str(Path(path).parent / "tables" / "*.csv"),)
    if globs is None:
        return tables
    return {k: v for k, v in tables.items() if any(fnmatch(k, g) for g in globs)}


def prose(root: Path = ROOT) -> list[Path]:
    """The documents of :data:`PROSE` that are not rendered from their tables."""
    from nothanks.report.rendered import rendered
    whole = {p.resolve() for p in rendered(root)}
    return sorted({p for g in PROSE for p in root.glob(g) if p.resolve() not in whole})


def ledger(path: Path = LEDGER) -> set[tuple[str, str]]:
    """The (path, claim) pairs of the ledger of known unbacked claims."""
    entries = set()
    for line in path.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            where, claim, _why = (part.strip() for part in line.split(" | ", 2))
            entries.add((where, claim))
    return entries


def unbacked(paths=None, root: Path = ROOT) -> list[Claim]:
    """Every claim of the prose (``paths``, default :func:`prose`) no table backs."""
    tables = committed_tables(root)
    if paths is None:
        paths = prose(root)
    missing = []
    for path in paths:
        rel = str(Path(path).resolve().relative_to(root))
        own = tables_for(rel, tables)
        for claim in claims_in(Path(path).read_text(), rel):
            if backed_by(claim, own) is None:
                missing.append(claim)
    return missing
