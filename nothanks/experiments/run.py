"""Run a design: chunks of games in local processes or on a Dask cluster, resumably.

Each chunk (a contiguous range of game positions) is played by one worker
(:mod:`.workers`); a game's result depends only on its position, whichever games the
worker played before. Workers return their chunk's log tables as Parquet bytes; the
parent writes them atomically as part files as chunks finish (:mod:`.store`), keeps
only a bounded number of chunks in flight (:mod:`.backends`: memory stays flat however
many games), and on a re-run skips the chunks already on disk.
"""
from __future__ import annotations

import sys
import time
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path

from ..files import claim_lock, release_lock
from ..progress import progress_bar
from .backends import execute
from .design import Design, DesignError, load_design
from .rows import LogContext
from .store import DAMAGED, ExperimentDir


# ------------------------------------------------------------------------- running
@dataclass
class RunSummary:
    """What a call to :func:`run_design` did."""

    directory: Path
    games: int
    played: int
    skipped: int
    seconds: float
    complete: bool


def default_chunk_size(total: int, trial: int | None = None) -> int:
    """About 50 games per chunk, smaller for small designs so every worker gets work;
    with trials, a whole number of trials (a chunk never splits one)."""
    size = max(1, min(50, -(-total // 16)))
    return size if trial is None else trial * max(1, round(size / trial))


class RunError(ValueError):
    """A run option that cannot work (says which, and what would be valid)."""


class RunInUse(RunError):
    """Another live process is writing the same run directory: two writers would play
    and log the same chunks twice."""


def claim_run(out: Path) -> Path:
    """Lock ``out`` for this process (``.<name>.lock`` beside it); the lock's path."""
    out = out.resolve()
    lock = out.parent / f".{out.name}.lock"
    try:
        return claim_lock(lock, lambda holder: RunInUse(
            f"{out} is being written by process {holder} (lock {lock}); wait for that run "
            "to finish or stop it, then re-run to resume; delete the lock file only if no "
            "run is going on"))
    except OSError as exc:  # e.g. a file where a parent folder should be
        raise RunError(f"cannot create the experiment directory {out}: "
                       f"{exc.strerror or exc}") from None


def run_design(design: Design | str | Path, out: str | Path, *, jobs: int | None = None,
               client=None, chunk_size: int | None = None, traces: bool = False,
               progress: bool = True, in_flight: int | None = None,
               participant: str | None = None, command: str | None = None) -> RunSummary:
    """Run ``design`` into directory ``out``, resuming whatever is already there.

    Everything is checked before the directory is created: the design and its agents,
    the options, and a Dask scheduler given by address. On a resume, finished chunks
    are checked against their checksums first; damaged ones are discarded and replayed
    (:meth:`~nothanks.experiments.store.ExperimentDir.repair`).

    Args:
        jobs: local worker processes (default: all cores; 1 runs in this process).
        client: a ``distributed.Client`` (or its scheduler address) to run on instead.
        chunk_size: games per part file (fixed by the first run of the directory).
        traces: also log every model decision's full trace (large).
        in_flight: chunks submitted ahead (default: twice the workers); bounds memory.
        command: the command line that writes ``out`` (kept in a new folder's manifest;
            ``nothanks verify`` names it as the repair).

    Returns:
        The run's :class:`RunSummary`.

    Raises:
        DesignError: a bad design or agent spec.
        RunError: a bad option, an unreachable scheduler, or ``out`` locked or unusable.
    """
    design = load_design(design)
    design.validate_agents()
    if design.has_human and design.human is None:
        raise DesignError(
            f"design {design.name!r} seats a human; play it with a ParticipantSession, or "
            "give a stand-in to play the human seat (nothanks run --human SPEC, e.g. "
            "human-standin)")
    for name, value in (("jobs", jobs), ("chunk_size", chunk_size), ("in_flight", in_flight)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                                  or value < 1):
            raise RunError(f"{name}={value!r} is invalid; valid: a whole number >= 1 (or "
                           "leave it out for the default)")
    if design.trial is not None and chunk_size is not None and chunk_size % design.trial:
        raise RunError(f"chunk_size={chunk_size} splits the design's trials of {design.trial} "
                       f"games; valid: a multiple of {design.trial}")
    if isinstance(client, str):
        with connect(client) as own:
            return run_design(design, out, jobs=jobs, client=own, chunk_size=chunk_size,
                              traces=traces, progress=progress, in_flight=in_flight,
                              participant=participant, command=command)
    begun = time.perf_counter()
    lock = claim_run(Path(out))
    try:
        context = LogContext(design.name, design.hash, participant,
                             synthetic=design.has_human)
        directory = ExperimentDir.open(
            out, design, chunk_size or default_chunk_size(design.total_games, design.trial),
            traces=traces,
            participant=participant, synthetic=context.synthetic, command=command)
        for damage in directory.repair():
            print(f"{damage}: set aside in {directory.path / DAMAGED}; "
                  + ("written again from the design" if damage.derived else
                     "its games are played again"), file=sys.stderr)
        pending = directory.missing_chunks()
        skipped = design.total_games - sum(b - a for a, b in pending)
        backend = "dask" if client is not None else "local"
        directory.begin_run(backend=backend, workers=jobs)
        bar = progress_bar(design.total_games, unit="game", desc=design.name,
                           enabled=progress, done=skipped, smoothing=0.05)
        played = 0
        try:
            for (start, stop), parts in execute(pending, design, context, traces, jobs, client,
                                                in_flight):
                directory.write_chunk(start, stop, parts)
                played += stop - start
                bar.update(stop - start)
        except BrokenProcessPool:
            raise RunError(
                f"a worker process died (killed, or out of memory?) after {played} new games; "
                "every finished game is saved: re-run the same command to play the rest") from None
        except KeyboardInterrupt:
            bar.close()
            raise KeyboardInterrupt(  # the command line prints it as its one line
                f"interrupted after {played} new games; every finished game is saved: re-run "
                f"the same command to play the {design.total_games - skipped - played} "
                "missing games") from None
        finally:
            bar.close()
        directory.finish()
    finally:
        release_lock(lock)
    return RunSummary(directory.path, design.total_games, played, skipped,
                      time.perf_counter() - begun, True)


#: Seconds to wait for a Dask scheduler given by address before giving up.
CONNECT_TIMEOUT = 5


def connect(address: str):
    """A ``distributed.Client`` for ``address``, or a :class:`RunError` saying it is not
    reachable (within :data:`CONNECT_TIMEOUT` seconds)."""
    from distributed import Client
    try:
        return Client(address, timeout=CONNECT_TIMEOUT)
    except (OSError, TimeoutError, ValueError) as exc:
        raise RunError(f"cannot reach the Dask scheduler at {address!r} within "
                       f"{CONNECT_TIMEOUT} s ({type(exc).__name__}: {exc}); start it "
                       "(dask scheduler) or check the address, e.g. tcp://host:8786") from None




