"""``nothanks verify``: check any folder the suite writes and say which command repairs it.

It finds, at or below the path it is given:

* experiment directories (``manifest.json``): ``nothanks run`` output, a tournament's
  games, a calibration trial's stage or held-out check, a participant session (real or
  synthetic);
* calibration studies (``study.db``, an Optuna SQLite storage);
* ``nothanks simulate`` output (``games.parquet``, ``decisions.parquet`` and the
  ``receipt.json`` recording their checksums and the command).

Checks, without changing anything: every table against its recorded checksum (parts,
merged tables, ``conditions`` and ``experiments``), the schema and row counts of every
table (as :func:`~nothanks.experiments.load` does), and completeness. Each report names
the command, with the options the folder was written with, that repairs it;
:func:`repair` (``nothanks verify --repair``) does what a re-run would: it writes the
derived tables again and replays damaged or missing games from the manifest's design.
"""
from __future__ import annotations

import json
import os
import shlex
import sqlite3
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from ..files import release_lock
from ..outputs import STAGING, UPDATE_SHIPPED, committed_files
from .log import check as check_log
from .schema import LogError
from .store import (
    COMMAND_KEY,
    DAMAGED,
    DERIVED,
    MANIFEST,
    PARTS,
    RECEIPT,
    ExperimentDir,
    check_files,
    read_manifest,
    read_receipt,
    recorded_experiment,
    set_aside,
)

#: A calibration study's Optuna storage (SQLite), as ``nothanks calibrate`` writes it.
STUDY_DB = "study.db"
#: The two tables of ``nothanks simulate`` output.
SIMULATE_TABLES = ("games.parquet", "decisions.parquet")
#: Folders of an experiment directory that are not folders of their own.
_INSIDE = {DAMAGED, PARTS}


@dataclass
class VerifyReport:
    """What was found in one folder, and the command that repairs it.

    ``problems`` make the folder fail; ``notes`` need no repair but ask for attention
    (unfinished games, checksums an older nothanks did not record, files set aside);
    ``summary`` says what the folder holds, on the head line (e.g. "all 24 games
    finished"). A folder that is fine has neither problems nor notes."""

    path: Path
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    repair: str = ""
    kind: str = "run"
    summary: str = ""

    @property
    def ok(self) -> bool:
        """Whether no problem was found (notes do not count)."""
        return not self.problems

    def render(self) -> str:
        """The report as text: a head line, one line per problem and note, and the
        repair command when there are problems."""
        state = "OK" if self.ok else f"{len(self.problems)} problem(s)"
        head = f"{self.path} ({self.kind}): {state}" + (f"; {self.summary}" if self.summary
                                                        else "")
        lines = [head, *(f"  - {p}" for p in self.problems), *(f"  · {n}" for n in self.notes)]
        if self.repair and not self.ok:
            lines.append(f"  repair: {self.repair}")
        return "\n".join(lines)


def verify(path: str | Path) -> list[VerifyReport]:
    """One report per folder the suite writes at or under ``path`` (see the module
    docstring); one failing report if there is none."""
    path = Path(path)
    if not path.is_dir():
        what = "a file" if path.exists() else "no such directory"
        return [VerifyReport(path, [f"{path}: {what}; give a folder nothanks wrote"],
                             kind="?")]
    reports = [check(folder, kind) for folder, kind in folders(path)]
    return reports or [VerifyReport(path, [
        f"{path}: nothing nothanks writes is in it or below: no {MANIFEST} (a run, "
        f"tournament or participant session), {STUDY_DB} (a calibration study) or "
        f"{' and '.join(SIMULATE_TABLES)} (simulate output)"], kind="?")]


def folders(path: Path) -> Iterator[tuple[Path, str]]:
    """Every folder at or below ``path`` that the suite writes, with its kind (run,
    study or simulate), in sorted order (hidden folders skipped, but for a command's
    ``.staging``)."""
    for root, dirs, files in os.walk(path):
        here = Path(root)
        dirs[:] = sorted(d for d in dirs if d not in _INSIDE
                         and (d == STAGING or not d.startswith(".")))  # .git, .venv, ...
        if MANIFEST in files or (RECEIPT not in files and any(  # (one that lost it, too)
                f"{table}.parquet" in files for table in DERIVED)):
            dirs[:] = []  # an experiment directory holds no other folder of the suite
            yield here, "run"
        elif STUDY_DB in files:
            yield here, "study"
        elif RECEIPT in files or all(name in files for name in SIMULATE_TABLES):
            dirs[:] = []
            yield here, "simulate"


def check(path: Path, kind: str) -> VerifyReport:
    """The report on one folder of ``kind`` (as :func:`folders` names it)."""
    return {"run": verify_one, "study": verify_study, "simulate": verify_simulate}[kind](path)


# ----------------------------------------------------------------- experiments
def verify_one(path: Path) -> VerifyReport:
    """Check one experiment directory (a run, tournament, calibration stage or session)."""
    report = VerifyReport(path)
    try:
        manifest = read_manifest(path)
    except LogError as exc:
        lost = f"{path / MANIFEST}: missing" if not (path / MANIFEST).exists() else str(exc)
        report.problems.append(f"{lost}; nothing vouches for the folder's tables (the "
                               "manifest holds their checksums and design)")
        report.kind, report.repair = _lost_manifest_repair(path)
        return report
    store = ExperimentDir(path, manifest)
    report.kind = _run_kind(path, manifest)
    try:
        damaged = store.problems()
    except LogError as exc:  # e.g. a design that cannot be rebuilt to compare with
        report.problems.append(str(exc))
        return report
    report.problems += [str(d) for d in damaged]
    missing = store.missing_chunks()
    games = manifest["games"]
    absent = sum(b - a for a, b in missing)
    if not damaged:
        try:
            check_log(path, allow_incomplete=True)
        except LogError as exc:
            report.problems.append(str(exc))
    if absent:
        report.notes.append(f"{games - absent} of {games} games finished; {absent} to play")
    elif manifest["compacted"]:
        report.summary = f"all {games} games finished"
    else:
        report.notes.append(f"all {games} games finished; parts not merged yet")
    if unrecorded := store.unrecorded():
        report.notes.append(
            f"no checksum recorded for {', '.join(unrecorded)} (written by an older "
            f"nothanks); their rows match the manifest. `nothanks verify --repair {path}` "
            "records them")
    if (path / DAMAGED).exists():
        report.notes.append(f"files set aside earlier by a repair are in {path / DAMAGED}")
    if report.problems:  # (naming a synthetic set's seed replays its draws: only if asked)
        only_derived = bool(damaged) and all(d.derived for d in damaged)
        report.repair = _run_repair(path, manifest, report.kind, only_derived)
    return report


def _lost_manifest_repair(path: Path) -> tuple[str, str]:
    """The kind of experiment directory ``path`` whose manifest is missing or unreadable,
    and what repairs it (:func:`rebuild`: the design its experiments table records,
    played again)."""
    where = shlex.quote(str(path))
    try:
        record = recorded_experiment(path)
    except LogError as exc:
        return "run", (f"restore {path / MANIFEST} from a backup, or run the command that "
                       f"made the folder again into a new folder ({exc})")
    if record["participant"] is not None:
        return "participant session", (
            f"restore {path / MANIFEST} from a backup: a participant's games cannot be "
            "played again")
    kind = "calibration trial" if _study_of(path) is not None else "run"
    return kind, (f"nothanks verify --repair {where} (sets the folder's files aside in "
                  f"{path / DAMAGED} and plays the design its experiments.parquet records "
                  "again: the same games, the same results)")


def rebuild(path: Path, *, jobs: int | None = None, progress: bool = True) -> None:
    """Make the experiment directory ``path``, whose manifest is missing or unreadable,
    whole again: set every file aside (``damaged/<time>/``) and run the design its
    experiments table records into it again (a game depends only on its deal: the same
    results). The run's traces are kept if it kept them.

    Raises:
        LogError: the experiments table cannot say the design, or the folder is a
            participant's session (their games cannot be played again); nothing is moved.
    """
    from .run import claim_run, run_design
    record = recorded_experiment(path)
    if record["participant"] is not None:
        raise LogError(f"{path}: no readable {MANIFEST}, and a participant's games cannot be "
                       f"played again; restore {path / MANIFEST} from a backup (nothing "
                       "was changed)")
    traces = (path / "traces.parquet").exists() or (path / PARTS / "traces").exists()
    lock = claim_run(path)
    try:
        kept = set_aside(path, [p for p in path.iterdir() if p.name != DAMAGED])
    finally:
        release_lock(lock)
    print(f"{path}: its files are set aside in {kept}; playing its design again",
          file=sys.stderr)
    run_design(record["design"], path, jobs=jobs, traces=traces, progress=progress)


def _run_kind(path: Path, manifest: dict) -> str:
    if manifest["participant"] is not None:
        return "participant session"
    if _study_of(path) is not None:
        return "calibration trial"
    command = manifest.get(COMMAND_KEY) or ""
    return "tournament" if command.startswith("nothanks tournament") else "run"


def _run_repair(path: Path, manifest: dict, kind: str, only_derived: bool) -> str:
    """The command that repairs experiment directory ``path`` (see :func:`repair`)."""
    verify_repair = f"nothanks verify --repair {shlex.quote(str(path))}"
    if only_derived:
        return (f"{verify_repair} (writes conditions/experiments again from the manifest; "
                "no game is played)")
    if kind == "participant session":
        return _session_repair(path, manifest, verify_repair)
    if kind == "calibration trial":
        study = _study_of(path)
        return (f"{verify_repair} (replays this trial's damaged or missing games from the "
                f"design in its manifest; {study / STUDY_DB} keeps the trial's result); an "
                f"unfinished trial is also finished by re-running its study: "
                f"{_study_command(study)}")
    command = manifest.get(COMMAND_KEY) or _shipped_command(manifest)
    rerun = f"re-run `{_with_out(command, path)}`, or " if command else ""
    return (f"{rerun}{verify_repair} (re-runs the design its manifest holds): damaged "
            "files are set aside and their games played again, with the same results")


def _session_repair(path: Path, manifest: dict, verify_repair: str) -> str:
    participant, parent = manifest["participant"], path.parent
    if (manifest["synthetic"] and participant.startswith("synthetic-")
            and manifest["experiment"] == "human-schedule"):  # nothanks synthetic's set
        count = len(list(parent.glob("synthetic-*/" + MANIFEST)))
        seed = _synthetic_seed(parent, count)
        shown = "SEED (the seed the set was made with)" if seed is None else str(seed)
        replace = UPDATE_SHIPPED if committed_files(parent) else "--force"
        return (f"nothanks synthetic --out {shlex.quote(str(parent))} --participants {count} "
                f"--seed {shown} {replace} (makes the whole synthetic set again)")
    if manifest["compacted"]:
        return ("restore the damaged merged table from a backup: a participant's games "
                "cannot be played again")
    return (f"restart the session of {participant} in {parent} (make session, or "
            f"ParticipantSession({participant!r}, {str(parent)!r})): damaged games are "
            f"set aside and played again ({verify_repair} sets them aside now)")


def _synthetic_seed(parent: Path, count: int, default: int = 2018) -> int | None:
    """``default`` if the synthetic set in ``parent`` was made with it (its stand-ins'
    specs are those the seed draws), else None."""
    import random

    from .synthetic import ID_PREFIX, PRESET, standin_spec
    rng = random.Random(default)
    for number in range(1, count + 1):
        try:
            design = read_manifest(parent / f"{ID_PREFIX}{number:02d}")["design"]
        except LogError:
            return None
        if design.get("human") != standin_spec(rng, PRESET):
            return None
    return default


def _shipped_command(manifest: dict) -> str:
    """``nothanks run NAME --games G --seed S ...`` for a folder of a shipped design (the
    hash checked), else ''."""
    from .design import DesignError, load_design, shipped_designs
    name, found = manifest["experiment"], manifest["design"]
    if name not in shipped_designs():
        return ""
    try:
        design = load_design(name)
    except DesignError:
        return ""
    words = ["nothanks", "run", name]
    changes = {}
    for key in ("games", "seed", "human"):
        if found.get(key) is not None and found.get(key) != design.to_dict().get(key):
            changes[key] = found[key]
            words += [f"--{key}", str(found[key])]
    if design.with_options(**changes).hash != manifest["design_hash"]:
        return ""  # made by other means (e.g. thinned sweeps of a quick figures build)
    return shlex.join(words)


def _with_out(command: str, path: Path) -> str:
    """``command`` writing to ``path`` (its own --out replaced)."""
    words, out = shlex.split(command), []
    skip = False
    for word in words:
        if skip:
            skip = False
        elif word == "--out":
            skip = True
        elif not word.startswith("--out="):
            out.append(word)
    return shlex.join([*out, "--out", str(path)])


# ----------------------------------------------------------------- calibration
def _study_of(path: Path) -> Path | None:
    """The calibration study folder ``path`` is inside (trials/<hash>/stageN or
    heldout/<name>/run), else None."""
    for parent in list(path.parents)[:3]:
        if (parent / STUDY_DB).exists():
            return parent
    return None


def _study_rows(folder: Path) -> list[dict]:
    """Each study in ``folder``'s ``study.db``: name, settings and trial states."""
    uri = f"file:{(folder / STUDY_DB).resolve()}?mode=ro"
    with sqlite3.connect(uri, uri=True) as db:
        check = db.execute("PRAGMA quick_check").fetchone()[0]
        if check != "ok":
            raise sqlite3.DatabaseError(f"integrity check: {check}")
        studies = []
        for study_id, name in db.execute("SELECT study_id, study_name FROM studies"):
            attrs = dict(db.execute("SELECT key, value_json FROM study_user_attributes "
                                    "WHERE study_id = ?", (study_id,)).fetchall())
            states = dict(db.execute("SELECT state, COUNT(*) FROM trials WHERE study_id = ? "
                                     "GROUP BY state", (study_id,)).fetchall())
            studies.append({"name": name, "states": states,
                            "settings": json.loads(attrs.get("settings", "null")),
                            # (calibration.study.OPTIONS_KEY: --heldout, --start, ...)
                            "options": json.loads(attrs.get("options", "null"))})
    return studies


def _study_command(folder: Path) -> str:
    """The ``nothanks calibrate`` command that resumes the study in ``folder``, from the
    settings its storage keeps."""
    try:
        studies = _study_rows(folder)
    except sqlite3.Error:
        studies = []
    if not studies or studies[0]["settings"] is None:
        return f"the nothanks calibrate command that made it, with --out {folder}"
    study = studies[0]
    s = study["settings"]
    words = ["nothanks", "calibrate", "--out", str(folder), "--study-name", study["name"],
             "--params", ",".join(s["params"]), "--targets", ",".join(s["targets"]),
             "--games", str(s["games"]), "--seed", str(s["seed"]),
             "--stages", ",".join(f"{x:g}" for x in s["stages"])]
    if s.get("model_preset"):
        words += ["--model-preset", s["model_preset"]]
    for option, key in (("--weights", "weights"), ("--fixed", "fixed")):
        if s.get(key):
            words += [option, _pairs(s[key])]
    options = study["options"]
    if options is not None:  # (kept since issue 44: an older study.db has none)
        words += ["--heldout", ",".join(options["heldout"])]
        if options.get("start"):
            words += ["--start", ";".join(_pairs(point) for point in options["start"])]
        for option, key in (("--check-seed", "check_seed"), ("--check-games", "check_games")):
            if options.get(key) is not None:
                words += [option, str(options[key])]
    kept = sum(n for state, n in study["states"].items() if state != "FAIL")
    words += ["--trials", str(max(kept, 1))]
    if committed_files(folder):
        words.append(UPDATE_SHIPPED)
    command = shlex.join(words)
    if options is None:
        command += (" (with the --heldout, --start and --check-seed/--check-games it was "
                    "first given: this older study.db does not record them)")
    return command


def _pairs(values: dict) -> str:
    """``NAME=VALUE,...`` as ``--fixed``, ``--weights`` and a ``--start`` point take it."""
    return ",".join(f"{k}={v}" for k, v in values.items())


def verify_study(path: Path) -> VerifyReport:
    """Check a calibration study's storage (its trial folders are reported on their own,
    as experiment directories)."""
    report = VerifyReport(path, kind="calibration study")
    try:
        studies = _study_rows(path)
    except sqlite3.Error as exc:
        report.problems.append(f"{path / STUDY_DB}: cannot be read as an Optuna study "
                               f"storage ({exc})")
        report.repair = (f"restore {path / STUDY_DB} from a backup, or start the study "
                         "over in a new folder")
        return report
    if not studies:
        report.problems.append(f"{path / STUDY_DB}: holds no study")
    held = []
    for study in studies:
        states = ", ".join(f"{n} {state.lower()}" for state, n in sorted(study["states"].items()))
        held.append(f"study {study['name']!r}: {states or 'no trials'}")
        if study["settings"] is None:
            report.problems.append(f"{path / STUDY_DB}: study {study['name']!r} records no "
                                   "settings (not written by nothanks calibrate?)")
        if study["states"].get("RUNNING"):
            report.problems.append(f"study {study['name']!r}: {study['states']['RUNNING']} "
                                   "trial(s) were interrupted")
    trials = path / "trials"
    kept = len([p for p in trials.iterdir() if p.is_dir()]) if trials.is_dir() else 0
    held.append(f"{kept} trial folder(s) kept" + (
        "" if kept else " (their games are not kept with the study)"))
    report.summary = "; ".join(held)
    report.repair = f"re-run the study: {_study_command(path)}"
    return report


# -------------------------------------------------------------------- simulate
def verify_simulate(path: Path) -> VerifyReport:
    """Check ``nothanks simulate`` output: its tables against its receipt, and that they
    read and agree (every decision's game is in the games table)."""
    report = VerifyReport(path, kind="simulate output")
    try:
        receipt = read_receipt(path)
    except LogError as exc:
        receipt = None
        report.problems.append(str(exc))
    if receipt is not None:
        report.problems += [str(d) for d in check_files(path, receipt["files"])]
    elif not report.problems:
        report.notes.append(f"no {RECEIPT} (written by an older nothanks): checksums cannot "
                            "be checked, only that the tables read")
    tables: dict[str, pa.Table] = {}
    for name in SIMULATE_TABLES:
        try:
            tables[name] = pq.read_table(path / name)
        except (pa.ArrowInvalid, OSError) as exc:
            report.problems.append(f"{path / name}: cannot be read as Parquet (truncated or "
                                   f"corrupted?): {exc}")
    if len(tables) == len(SIMULATE_TABLES):
        games = set(tables["games.parquet"].column("game_id").to_pylist())
        stray = set(tables["decisions.parquet"].column("game_id").to_pylist()) - games
        if stray:
            report.problems.append(f"{path / 'decisions.parquet'}: decisions of games "
                                   f"{sorted(stray)[:5]} that are not in games.parquet")
        report.summary = f"{len(games)} games"
    command = receipt["command"] if receipt else ""
    report.repair = (f"re-run `{_with_out(command, path)} --force`" if command else
                     f"re-run the nothanks simulate command that wrote it, with --out {path} "
                     "--force")
    return report


# ---------------------------------------------------------------------- repair
def repair(path: str | Path, *, jobs: int | None = None, progress: bool = True
           ) -> list[VerifyReport]:
    """Repair every experiment directory at or under ``path`` as a re-run would, then
    verify again (the reports returned).

    Damaged ``conditions``/``experiments`` tables are written again from the manifest
    and missing checksums recorded; a run's damaged or missing games are played from the
    design its manifest holds (:func:`~nothanks.experiments.run_design`: same results);
    a participant session's damaged games are set aside for the session to play again
    (a damaged merged table of a session cannot be replayed: :class:`LogError`); a run
    whose manifest is missing or unreadable is played again from the design its
    experiments table records (:func:`rebuild`). Simulate output and calibration
    studies are re-made by their commands (the reports name them).
    """
    from .run import claim_run, run_design
    for folder, kind in folders(Path(path)):
        if kind != "run":
            continue
        try:
            manifest = read_manifest(folder)
        except LogError:
            rebuild(folder, jobs=jobs, progress=progress)
            continue
        store = ExperimentDir(folder, manifest)
        participant = manifest["participant"]
        if participant is not None:
            from .session import claim_participant
            lock = claim_participant(folder.parent, participant)
            try:
                store.repair(replay_merged=False)
            finally:
                release_lock(lock)
        elif store.missing_chunks() or any(not d.derived for d in store.problems()):
            run_design(store.design(), folder, jobs=jobs, traces=manifest["traces"],
                       progress=progress)
        else:
            lock = claim_run(folder)
            try:
                store.repair_derived()
            finally:
                release_lock(lock)
    return verify(path)
