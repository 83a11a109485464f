"""``nothanks verify``: check an experiment or participant directory and say how to repair it.

Checks, without changing anything: the manifest, every finished chunk's parts (or the
merged tables) against their recorded checksums, the schema and row counts of every
table (as :func:`~nothanks.experiments.load` does), and completeness.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .log import experiment_dirs, load
from .schema import LogError
from .store import DAMAGED, ExperimentDir, read_manifest


@dataclass
class VerifyReport:
    """What was found in one directory, and what to do about it."""

    path: Path
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    repair: str = ""

    @property
    def ok(self) -> bool:
        return not self.problems

    def render(self) -> str:
        head = f"{self.path}: {'OK' if self.ok else f'{len(self.problems)} problem(s)'}"
        lines = [head, *(f"  - {p}" for p in self.problems), *(f"  · {n}" for n in self.notes)]
        if self.repair and not self.ok:
            lines.append(f"  repair: {self.repair}")
        return "\n".join(lines)


def verify(path: str | Path) -> list[VerifyReport]:
    """One report per experiment directory at or under ``path``."""
    try:
        directories = experiment_dirs(path)
    except LogError as exc:
        return [VerifyReport(Path(path), [str(exc)])]
    return [verify_one(directory) for directory in directories]


def verify_one(path: Path) -> VerifyReport:
    report = VerifyReport(path)
    try:
        manifest = read_manifest(path)
    except LogError as exc:
        report.problems.append(str(exc))
        report.repair = "the manifest is needed to resume; restore it or start the run over"
        return report
    store = ExperimentDir(path, manifest)
    session = manifest["participant"] is not None
    damaged = store.problems()
    report.problems += [str(d) for d in damaged]
    missing = store.missing_chunks()
    games = manifest["games"]
    absent = sum(b - a for a, b in missing)
    if not damaged:
        try:
            load(path, allow_incomplete=True)
        except LogError as exc:
            report.problems.append(str(exc))
    if absent:
        report.notes.append(f"{games - absent} of {games} games finished; {absent} to play")
    else:
        report.notes.append(f"all {games} games finished"
                            + ("" if manifest["compacted"] else "; parts not merged yet"))
    if (path / DAMAGED).exists():
        report.notes.append(f"files set aside earlier by a repair are in {path / DAMAGED}")
    if session:
        report.repair = (
            "restart the session with the same participant id: damaged games are set aside "
            "and played again" if not manifest["compacted"] else
            "restore the damaged merged table from a backup: a participant's games cannot "
            "be played again")
    else:
        report.repair = (f"re-run the same command (nothanks run <its design> --out {path}): "
                         "damaged chunks are set aside and their games played again, with "
                         "the same results")
    return report
