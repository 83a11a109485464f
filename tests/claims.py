"""Every number with a 95% interval in the prose is found in a committed table.

A *claim* is a value followed by its interval, ``x [a, b]`` (``41.4% [37.2%, 45.8%]``,
``+0.042 [+0.027, +0.057]``, ``33.7% [31.6, 35.8]``), in README.md, docs/*.md,
figures/results.md or a study's results.md. A claim is backed when one row of a
committed CSV table (``git ls-files '*.csv'``) holds three cells that print as the
claim's three numbers at the claim's precision: as written, or as a share printed in
percent (x 100). The tables a document may draw from are named in :data:`SOURCES`
(globs; a document not named there may draw from any committed table). A stale number,
one a rebuild changed in its table but not in the text, is then not found and
``tests/test_claims.py`` fails, naming the file, line and claim.
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
#: The prose whose claims are checked (globs relative to the repository).
PROSE = ("README.md", "docs/*.md", "figures/results.md", "figures/studies/*/results.md")

_NUMBER = r"[-+−]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"
#: ``value[%] [low[%], high[%]]`` with nothing but spaces between value and bracket.
CLAIM = re.compile(rf"(?<![\w.])(?P<v>{_NUMBER})(?P<pv>%?)\s?\[(?P<l>{_NUMBER})(?P<pl>%?),"
                   rf"\s*(?P<h>{_NUMBER})(?P<ph>%?)\]")


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
    """Every claim of ``text`` (one Markdown document)."""
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        for m in CLAIM.finditer(line):
            found.append(Claim(path, number, m.group(0), (m["v"], m["l"], m["h"]),
                               bool(m["pv"] or m["pl"] or m["ph"])))
    return found


@cache
def committed_tables(root: Path = ROOT) -> dict[str, np.ndarray]:
    """Every committed CSV table's numeric cells (rows x columns, NaN elsewhere)."""
    names = subprocess.run(["git", "ls-files", "*.csv"], cwd=root, capture_output=True,
                           text=True, check=True).stdout.split()
    tables = {}
    for name in names:
        try:
            frame = pd.read_csv(root / name, low_memory=False)
        except pd.errors.ParserError:  # an instance set (a commented list), not a table
            continue
        numeric = frame.apply(pd.to_numeric, errors="coerce").to_numpy(float)
        if numeric.size and np.isfinite(numeric).any():
            tables[name] = numeric
    return tables


def _matches(cells: np.ndarray, printed: str, scale: float) -> np.ndarray:
    """Rows of ``cells`` with a cell that prints as ``printed`` after x ``scale``."""
    tolerance = 0.5 * 10.0 ** -_decimals(printed) * (1 + 1e-9) + 1e-12
    return (np.abs(cells * scale - _value(printed)) <= tolerance).any(axis=1)


def backed_by(claim: Claim, tables: dict[str, np.ndarray]) -> str | None:
    """The first table with a row holding the claim's three numbers, or None."""
    scales = (100.0, 1.0) if claim.percent else (1.0, 100.0)
    for name, cells in tables.items():
        for scale in scales:
            rows = np.ones(len(cells), bool)
            for printed in claim.numbers:
                rows &= _matches(cells, printed, scale)
                if not rows.any():
                    break
            else:
                return name
    return None


#: The committed tables each document's claims come from (globs); documents not named
#: draw from any committed table.
SOURCES: dict[str, tuple[str, ...]] = {
    "figures/results.md": ("figures/tables/*.csv", "data/placebo/*.csv"),
}


def tables_for(path: str, tables: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The tables ``path``'s claims may come from (:data:`SOURCES`)."""
    globs = SOURCES.get(path)
    if globs is None and fnmatch(path, "figures/studies/*/results.md"):
        globs = (str(Path(path).parent / "tables" / "*.csv"),)
    if globs is None:
        return tables
    return {k: v for k, v in tables.items() if any(fnmatch(k, g) for g in globs)}


def unbacked(paths=None, root: Path = ROOT) -> list[Claim]:
    """Every claim of the prose (``paths``, default :data:`PROSE`) no table backs."""
    tables = committed_tables(root)
    if paths is None:
        paths = sorted({p for g in PROSE for p in root.glob(g)})
    missing = []
    for path in paths:
        rel = str(Path(path).resolve().relative_to(root))
        own = tables_for(rel, tables)
        for claim in claims_in(Path(path).read_text(), rel):
            if backed_by(claim, own) is None:
                missing.append(claim)
    return missing
