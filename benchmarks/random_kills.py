"""Random kills of the suite's long jobs: each ends identical to an uninterrupted run.

A job (``run``, ``tournament``, ``calibrate``, ``infer``) is played once without
interruption (the reference). Then, in a fresh folder, the same command is killed with
SIGKILL at random moments ``--kills`` times in a row (each kill hits a new attempt
that resumes the previous one), and finally run to completion. The completed outputs
must equal the reference's: the game logs, leaderboards, calibration trials and preset,
inference results (only wall-clock columns such as ``started_at`` are left out). After
every kill the job's worker processes must exit by themselves (no orphans).

Kill moments are seeded (``--seed``): the reference's duration is cut into ``--kills``
equal spans and a point drawn uniformly in each; attempt *i* is killed
``point_i - point_{i-1}`` seconds after it starts. As a resumed attempt never gets
further than the time spent so far, the kills land before the job is done (unless a
later attempt runs much faster than the reference did) and cover the whole job, from its
first files to its last. (Machine load moves where a moment falls in the work; the
outcome must not depend on it.) ``train`` does not exist yet and is not covered.

Run (the first about an hour on 2 cores: 100 rounds of 20 kills, 30 s each)::

    python benchmarks/random_kills.py --job calibrate --kills 20 --games 40 --rounds 100
    python benchmarks/random_kills.py --job all --kills 30 --games 100 --seed 1

``tests/integration/test_random_kills.py`` runs every job at a small size with a few kills
(``make test``). Attempts are forked from this process (``--launch fork``, the default:
no interpreter start-up, so the kills land in the work) or started as
``python -m nothanks`` (``--launch exec``, as a user would).
"""
from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from nothanks.processes import alive, descendants, end_orphans

#: Columns that record when or how often something ran, not what it produced.
VOLATILE = ("started_at", "finished_at", "runs", "code_version", "seconds", "trial")
#: Seconds the workers of a killed attempt may take to notice and exit.
ORPHAN_SECONDS = 10.0


# ------------------------------------------------------------------ the jobs
@dataclass(frozen=True)
class Job:
    """A long command: its arguments in a work folder, and what it must produce."""

    name: str
    #: (work folder, games) -> the ``nothanks`` arguments; may write inputs into the folder
    argv: Callable[[Path, int], list[str]]
    #: work folder -> the outcome to compare (name -> frame or text)
    outcome: Callable[[Path], dict[str, object]]
    #: (inputs folder, games) -> None: inputs every run of the job reads (made once)
    prepare: Callable[[Path, int], None] | None = None


def _stable(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.drop(columns=[c for c in VOLATILE if c in frame.columns]
                      ).reset_index(drop=True)


def log_outcome(path: Path, prefix: str = "") -> dict[str, object]:
    """Every table of the experiment log at ``path`` (a run, or a folder of them)."""
    from nothanks.experiments import load
    log = load(path)
    return {f"{prefix}{name}": _stable(frame) for name, frame in log.tables().items()}


def _run_argv(work: Path, games: int) -> list[str]:
    design = work / "design.toml"
    design.write_text(f'name = "kills"\nseed = 7\ngames = {games}\nrotate = true\n'
                      '[[tables]]\nlabel = "ToM1 vs ToM0"\n'
                      'players = ["tom0", "tom0", "tom0", "tom1"]\nfocal = 3\n'
                      '[[tables]]\nlabel = "ToM2 vs ToM1"\n'
                      'players = ["tom1", "tom1", "tom1", "tom2"]\nfocal = 3\n')
    return ["run", str(design), "--out", str(work / "out"), "--jobs", "2", "--no-progress"]


def _tournament_argv(work: Path, games: int) -> list[str]:
    return ["tournament", "--pool", "random;always-pass;heuristic;tom0;tom1", "--deals",
            str(max(1, games // 20)), "--seed", "3", "--out", str(work / "out"),
            "--leaderboard", str(work / "board"), "--jobs", "2", "--no-progress"]


def _tournament_outcome(work: Path) -> dict[str, object]:
    return log_outcome(work / "out") | {
        "leaderboard": pd.read_csv(work / "board" / "leaderboard.csv")}


def _calibrate_argv(work: Path, games: int) -> list[str]:
    return ["calibrate", "--out", str(work / "out"), "--params", "fraction,s",
            "--targets", "tom1_share", "--heldout", "", "--trials", str(max(2, games // 10)),
            "--games", str(games), "--stages", "0.5,1", "--seed", "5", "--jobs", "1",
            "--no-progress"]


def _calibrate_outcome(work: Path) -> dict[str, object]:
    """The finished trials (parameters, loss, measured targets, in order), the preset,
    and every trial's games (killed attempts leave failed trials: they are the record of
    the kills, and are left out)."""
    out = work / "out"
    trials = pd.read_csv(out / "trials.csv")
    finished = trials.loc[trials["state"].isin(["COMPLETE", "PRUNED"])]
    outcome: dict[str, object] = {"trials": _stable(finished),
                                  "preset": (out / "thesis-fit.toml").read_text()}
    for folder in sorted((out / "trials").iterdir()):
        for stage in sorted(folder.glob("stage*")):
            outcome |= log_outcome(stage, f"{folder.name}/{stage.name}/")
    return outcome


def _infer_inputs(inputs: Path, games: int) -> None:
    """Simulated participants (a ToM0 and a ToM1 player, ``games`` games each against
    three ToM0 models) for ``infer`` to read."""
    from nothanks.experiments.design import Design, Schedule, Table
    from nothanks.studies.inference import simulate_players
    design = Design(name="kills-players", seed=11, rotate=True,
                    tables=(Table("ToM0", ("human", "tom0", "tom0", "tom0"), 0),),
                    schedule=Schedule(("ToM0",) * games, tuple(range(1, games + 1)), ()))
    simulate_players(inputs, types=("ToM0", "ToM1"), per_type=1, design=design)


def _infer_argv(work: Path, games: int) -> list[str]:
    return ["infer", str(work.parent / "inputs"), "--models", "ToM0,ToM1,random",
            "--samples", "2", "--processes", "2", "--cache", str(work / "cache"),
            "--out", str(work / "out")]


def _infer_outcome(work: Path) -> dict[str, object]:
    out = work / "out"
    outcome: dict[str, object] = {name: pd.read_csv(out / name) for name in
                                  ("map.csv", "blocks.csv", "group.csv")}
    return outcome | {"decisions.parquet": pd.read_parquet(out / "decisions.parquet")}


#: The long jobs (``train`` does not exist yet).
JOBS: dict[str, Job] = {job.name: job for job in (
    Job("run", _run_argv, lambda work: log_outcome(work / "out")),
    Job("tournament", _tournament_argv, _tournament_outcome),
    Job("calibrate", _calibrate_argv, _calibrate_outcome),
    Job("infer", _infer_argv, _infer_outcome, _infer_inputs),
)}


# ------------------------------------------------------------------ running and killing
def _child_main(argv: list[str], log: str) -> None:
    """A forked attempt: the command with its output in ``log``."""
    fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    from nothanks.cli import main
    code = main(argv)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code or 0)


class Attempt:
    """One start of a job's command, forked from this process or as ``python -m nothanks``."""

    def __init__(self, argv: list[str], log: Path, launch: str) -> None:
        self.begun = time.monotonic()
        if launch == "fork":
            self._process = multiprocessing.get_context("fork").Process(
                target=_child_main, args=(argv, str(log)), daemon=False)
            self._process.start()
            self.pid = self._process.pid
        else:
            with log.open("a") as handle:
                self._process = subprocess.Popen([sys.executable, "-m", "nothanks", *argv],
                                                 stdout=handle, stderr=handle)
            self.pid = self._process.pid

    def wait(self, seconds: float | None) -> int | None:
        """The exit code, or None if still running after ``seconds``."""
        if isinstance(self._process, subprocess.Popen):
            try:
                return self._process.wait(seconds)
            except subprocess.TimeoutExpired:
                return None
        self._process.join(seconds)
        return self._process.exitcode

    def kill(self) -> list[int]:
        """SIGKILL the attempt (its workers are left to exit by themselves); returns the
        pids of its descendants at the moment of the kill."""
        family = descendants(self.pid)
        if self.wait(0) is None:  # (an ended attempt is left alone: its pid may be reused)
            os.kill(self.pid, signal.SIGKILL)
        self.wait(None)  # reaped: its pid no longer holds a lock
        return family


@dataclass
class Report:
    """What a kill session did: the kills that landed and every difference found."""

    job: str
    kills: int = 0
    attempts: int = 0
    reference_seconds: float = 0.0
    seconds: float = 0.0
    moments: list[float] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def render(self) -> str:
        state = "identical to the uninterrupted run" if self.ok else "; ".join(self.problems)
        return (f"{self.job}: {self.kills} kills in {self.attempts} attempts "
                f"(reference {self.reference_seconds:.1f} s, with kills {self.seconds:.1f} s)"
                f": {state}")


def complete(job: Job, work: Path, games: int, launch: str = "fork",
             timeout: float = 600.0) -> float:
    """Run ``job`` in ``work`` to the end without a kill; its wall time in seconds."""
    work.mkdir(parents=True, exist_ok=True)
    attempt = Attempt(job.argv(work, games), work / "attempts.log", launch)
    code = attempt.wait(timeout)
    if code != 0:
        raise RuntimeError(f"{job.name} in {work} ended with {code}: "
                           f"{_tail(work / 'attempts.log')}")
    return time.monotonic() - attempt.begun


def kill_and_resume(job: Job, work: Path, games: int, kills: int, seed: int,
                    reference_seconds: float, launch: str = "fork",
                    timeout: float = 600.0) -> Report:
    """Kill ``job`` in ``work`` at ``kills`` seeded random moments, then complete it."""
    work.mkdir(parents=True, exist_ok=True)
    report = Report(job.name, reference_seconds=reference_seconds)
    spans = np.arange(kills) + np.random.default_rng(seed).uniform(0, 1, kills)
    points = spans / kills * reference_seconds
    report.moments = [float(b - a) for a, b in zip([0.0, *points[:-1]], points, strict=True)]
    log = work / "attempts.log"
    begun = time.monotonic()
    for moment in report.moments:
        attempt = Attempt(job.argv(work, games), log, launch)
        report.attempts += 1
        code = attempt.wait(moment)
        if code is not None:  # finished (or failed) before its kill moment
            if code != 0:
                report.problems.append(f"attempt {report.attempts} after {report.kills} "
                                       f"kills ended with {code}: {_tail(log)}")
                return report
            break
        family = attempt.kill()
        report.kills += 1
        deadline = time.monotonic() + ORPHAN_SECONDS
        while time.monotonic() < deadline and any(alive(p) for p in family):
            time.sleep(0.05)
        if orphans := end_orphans(family):
            report.problems.append(f"after kill {report.kills}, workers {orphans} outlived "
                                   f"their parent by {ORPHAN_SECONDS:.0f} s")
            return report
    attempt = Attempt(job.argv(work, games), log, launch)
    report.attempts += 1
    code = attempt.wait(timeout)
    report.seconds = time.monotonic() - begun
    if code != 0:
        report.problems.append(f"the completing attempt after {report.kills} kills ended "
                               f"with {code}: {_tail(log)}")
    return report


def differences(outcome: dict[str, object], reference: dict[str, object]) -> list[str]:
    """What differs between two outcomes (empty: identical)."""
    found = [f"{name}: only in one of the two" for name in sorted(set(outcome) ^ set(reference))]
    for name in sorted(set(outcome) & set(reference)):
        mine, theirs = outcome[name], reference[name]
        if isinstance(mine, pd.DataFrame):
            try:
                pd.testing.assert_frame_equal(mine, theirs, obj=name)
            except AssertionError as exc:
                found.append(str(exc).splitlines()[0] + " " + " ".join(
                    str(exc).splitlines()[1:4]))
        elif mine != theirs:
            found.append(f"{name}: differs")
    return found


def reference_run(job_name: str, root: Path, games: int, launch: str = "fork"
                  ) -> tuple[dict[str, object], float]:
    """The uninterrupted run of a job (in ``root/work``, then moved to ``root/reference``;
    its inputs, if any, made first in ``root/inputs``): its outcome and wall time."""
    job, work = JOBS[job_name], root / "work"
    if job.prepare is not None:
        job.prepare(root / "inputs", games)
    seconds = complete(job, work, games, launch)
    outcome = job.outcome(work)
    work.rename(root / "reference")
    return outcome, seconds


def session(job_name: str, root: Path, *, games: int, kills: int, seed: int,
            launch: str = "fork",
            reference: tuple[dict[str, object], float] | None = None) -> Report:
    """The whole check of one job: the reference run (unless given), the kills, the
    completion, and the comparison.

    Every run works in ``root/work`` (paths enter some outputs, e.g. a calibration
    trial's instance file, and with them the design hashes); the killed-and-completed
    folder is then moved to ``root/killed-SEED``.
    """
    outcome, seconds = reference or reference_run(job_name, root, games, launch)
    job, work = JOBS[job_name], root / "work"
    report = kill_and_resume(job, work, games, kills, seed, seconds, launch)
    if report.ok:
        report.problems += differences(job.outcome(work), outcome)
    work.rename(root / f"killed-{seed}")
    return report


def _tail(log: Path, lines: int = 3) -> str:
    text = log.read_text(errors="replace").strip().splitlines() if log.exists() else []
    return " | ".join(text[-lines:]) or "(no output)"


def warm(job_names: list[str]) -> None:
    """Import what the jobs use before forking them (each attempt then starts at once)."""
    import nothanks.cli  # noqa: F401
    import nothanks.experiments.run  # noqa: F401
    if "calibrate" in job_names:
        import matplotlib.pyplot  # noqa: F401
        import optuna
        import optuna.importance  # noqa: F401
        import optuna.visualization.matplotlib  # noqa: F401

        import nothanks.studies.calibration  # noqa: F401
        optuna.storages.RDBStorage("sqlite:///:memory:")  # SQLAlchemy and Alembic
    if "infer" in job_names:
        import nothanks.figures.inference  # noqa: F401
        import nothanks.studies.inference  # noqa: F401
    from nothanks.actr import kernel
    from nothanks.agents.cognitive import tom_kernel
    kernel.warm()
    tom_kernel.warm()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--job", default="all", choices=[*JOBS, "all"],
                        help="which long job to kill (default: all, one after another)")
    parser.add_argument("--kills", type=int, default=20,
                        help="kills in a row before the job may complete (default 20)")
    parser.add_argument("--games", type=int, default=40,
                        help="size of each job: games per condition (run, calibrate: "
                             "in games/10 trials, at least 2) or per simulated player "
                             "(infer); the tournament plays about this many games (deals "
                             "of 20)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the kill moments")
    parser.add_argument("--rounds", type=int, default=1,
                        help="kill sessions per job, seeds --seed, --seed + 1, ... "
                             "(the reference is played once)")
    parser.add_argument("--launch", choices=("fork", "exec"), default="fork",
                        help="fork attempts from this process (default) or start each "
                             "as python -m nothanks")
    parser.add_argument("--out", type=Path, default=None,
                        help="work folder (default: a new runs/random-kills-<time>)")
    args = parser.parse_args(argv)
    for name, value in (("--kills", args.kills), ("--games", args.games),
                        ("--rounds", args.rounds)):
        if value < 1:
            parser.error(f"{name} {value}: give a whole number >= 1")
    if args.seed < 0:
        parser.error(f"--seed {args.seed}: give a whole number >= 0")
    names = list(JOBS) if args.job == "all" else [args.job]
    root = args.out or Path("runs") / time.strftime("random-kills-%Y%m%d-%H%M%S")
    if root.exists() and any(root.iterdir()):
        parser.error(f"--out {root}: not empty; give a new folder")
    if args.launch == "fork":
        warm(names)
    failed = 0
    for name in names:
        reference = reference_run(name, root / name, args.games, args.launch)
        for round_ in range(args.rounds):
            report = session(name, root / name, games=args.games, kills=args.kills,
                             seed=args.seed + round_, launch=args.launch, reference=reference)
            print(report.render(), flush=True)
            failed += not report.ok
    print(json.dumps({"work": str(root), "failed": failed}))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
