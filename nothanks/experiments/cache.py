"""Make sure a design's log exists: run (or resume) it into a cache folder, or reuse it.

A shipped design runs into ``cache/<name>-<hash>``: the hash changes with every option
(``games``, thinned sweeps), so a quick run never mixes with a full one, and a finished
(compacted) log is reused as is. :func:`ensure_participants` does the same for the
folder of participant sessions. ``nothanks figures`` and the notebooks read their logs
through these functions.
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pandas as pd

from .design import load_design
from .log import Log, LogError, experiment_dirs, load
from .run import run_design
from .schema import TABLES, arrow_schema, read_table, to_pandas
from .store import MANIFEST, read_manifest

#: Default folder of participant sessions (the synthetic set shipped with the repository).
PARTICIPANTS = Path("data/synthetic")
#: Games per condition in quick mode (tests, CI, a first look).
QUICK_GAMES = 4
#: Synthetic participants in quick mode.
QUICK_PARTICIPANTS = 3
#: Values a sweep keeps in quick mode: the first, the middle and the last.
QUICK_SWEEP_VALUES = 3
#: Games per trial of a design with trials in quick mode (two trials of two games).
QUICK_TRIAL = 2


def ensure_design(name: str, cache: Path, games: int | None = None, jobs: int | None = None,
                  progress: bool = True, quick: bool = False, *,
                  scheduler: str | None = None) -> Path:
    """The experiment directory of a shipped design in ``cache``, run (or resumed) if needed.

    ``games`` overrides the games per condition (a design with trials: rounded up to
    whole trials); ``quick`` also thins every sweep to three values and shortens trials
    to :data:`QUICK_TRIAL` games. Either changes the design's hash, hence its directory.
    ``scheduler``: the address of a Dask scheduler to run on (instead of ``jobs`` local
    processes); a run stopped anywhere resumes with the same call.
    """
    design = load_design(name)
    if games is not None:
        trial = design.trial
        if trial is not None and quick:
            trial = min(trial, QUICK_TRIAL)
        if trial is not None:
            games = -(-games // trial) * trial
        design = design.with_options(games=games, trial=trial)
    if quick and design.sweeps:
        design = design.with_options(sweeps=tuple(
            replace(s, values=_spread(s.values, QUICK_SWEEP_VALUES)) for s in design.sweeps))
    directory = Path(cache) / f"{design.name}-{design.hash}"
    if not is_complete(directory):
        run_design(design, directory, jobs=jobs, client=scheduler, progress=progress)
    return directory


def is_complete(directory: Path, sessions: int | None = None) -> bool:
    """Whether ``directory`` holds finished (compacted) logs — ``sessions`` of them if given."""
    if not directory.exists():
        return False
    try:
        found = experiment_dirs(directory)
        return (sessions is None or len(found) == sessions) and all(
            read_manifest(d).get("compacted") for d in found)
    except (LogError, OSError, ValueError):
        return False


def _spread(values: tuple, count: int) -> tuple:
    """``count`` values spread over ``values``: the first, the last and evenly between."""
    if len(values) <= count:
        return values
    picks = sorted({round(i * (len(values) - 1) / (count - 1)) for i in range(count)})
    return tuple(values[i] for i in picks)


def ensure_participants(path: Path | None, cache: Path, quick: bool = False) -> Path | None:
    """The folder of participant sessions to analyse.

    ``path`` if given; else the shipped set ``data/synthetic`` (in quick mode a folder in
    the cache linking its first few sessions); else a synthetic set generated into the
    cache (resumable); ``None`` when the synthetic generator is not installed.
    """
    if path is not None:
        if not path.exists():
            raise FileNotFoundError(f"participant folder {path} does not exist")
        return path
    count = QUICK_PARTICIPANTS if quick else 30
    if PARTICIPANTS.exists() and is_complete(PARTICIPANTS):
        if not quick:
            return PARTICIPANTS
        sessions = sorted(p for p in PARTICIPANTS.iterdir() if (p / "manifest.json").exists())
        target = Path(cache) / f"participants-first-{count}"
        target.mkdir(parents=True, exist_ok=True)
        for session in sessions[:count]:
            link = target / session.name
            if not link.exists():
                link.symlink_to(session.resolve(), target_is_directory=True)
        return target
    try:
        from .synthetic import generate
    except ModuleNotFoundError:
        return None
    target = Path(cache) / f"synthetic-{count}"
    if not is_complete(target, count):
        list(generate(target, count))  # resumes: finished sessions are skipped
    return target


def check_participants(path: Path) -> Log:
    """The participant sessions in ``path``, loaded and validated: called before any
    work, so a folder that holds none, or a damaged or incomplete session, stops the
    command at once. The error never suggests deleting anything (people cannot play
    their games again); it names ``nothanks verify``, which says how to repair.

    Raises:
        LogError: what is wrong, in one line.
    """
    path = Path(path)
    try:
        experiment_dirs(path)
    except LogError:
        raise LogError(f"participant folder {path} holds no session (no {MANIFEST} in it or "
                       "in a folder of it); give the folder of session folders, e.g. "
                       f"{PARTICIPANTS}") from None
    try:
        return load(path)
    except LogError as exc:
        raise LogError(f"participant folder {path}: {exc} (nothing was changed; nothanks "
                       f"verify {path} says what is wrong with each session and how to "
                       "repair it)") from None


def load_cached(directory: Path) -> Log:
    """Load a log ``nothanks figures`` ran into its cache; one the current schema rejects
    (an old cached run) needs re-simulating."""
    try:
        return load(directory)
    except LogError as exc:
        raise LogError(f"{exc} (a cached run: nothanks verify --repair {directory} replays "
                       f"damaged games; a run of an older nothanks is simulated again when "
                       f"moved out of the cache, or with a new --cache)") from exc


def load_finished_tables(directory: Path, columns: dict[str, tuple[str, ...] | None]
                    ) -> dict[str, pd.DataFrame]:
    """Tables of a finished (compacted) run, each file checked against the schema, each
    with only the named columns (``None``: all of them)."""
    if not is_complete(directory):
        raise LogError(f"{directory}: not a finished run (run it again to resume)")
    tables = {}
    for name, kept in columns.items():
        table = read_table(directory / f"{name}.parquet", name)
        tables[name] = to_pandas(table if kept is None else table.select(list(kept)))
    return tables


def load_finished_log(directory: Path, columns: dict[str, tuple[str, ...] | None]
                        ) -> Log:
    """A finished run as a :class:`Log` holding only ``columns``
    (:func:`load_finished_tables`); its other tables are empty, with their schema's columns."""
    tables = load_finished_tables(directory, columns)
    return Log(**{name: tables[name] if name in tables
                     else to_pandas(arrow_schema(name).empty_table()) for name in TABLES})
