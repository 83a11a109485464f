"""Write the golden log: the tables a fixed set of runs produces, frozen on disk.

``python tests/golden/make_golden.py`` (re)writes ``tests/golden/tables/``; do so only
when a change is *meant* to change what the models do, and say so in the commit.
"""
from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent
TABLES = HERE / "tables"
#: Columns that record when or with which code a run happened, not what it did.
VOLATILE = {"started_at", "finished_at", "code_version", "runs"}


def _plain(frame: pd.DataFrame) -> pd.DataFrame:
    """A frame Parquet round-trips exactly: lists as tuples' text, volatile columns out."""
    frame = frame.drop(columns=[c for c in frame.columns if c in VOLATILE]).copy()
    for column in frame.columns:
        if frame[column].map(lambda v: isinstance(v, (list, tuple))).any():
            frame[column] = frame[column].map(
                lambda v: repr(list(v)) if isinstance(v, (list, tuple)) else v)
    return frame.reset_index(drop=True)


def produce(work: Path, figures: Path | None = None) -> dict[str, pd.DataFrame]:
    """Play the golden runs into ``work`` and return every table, keyed by name.

    ``figures``: the output folder of a ``nothanks figures --quick`` build made by this
    code already, with a ``nothanks studies --quick`` build in its ``studies`` folder
    (the test suite shares one); by default both are built into ``work``.
    """
    from nothanks.experiments import compact_frames, load, run_design
    from nothanks.experiments.synthetic import play_session
    from nothanks.play.runner import play_games

    out: dict[str, pd.DataFrame] = {}
    run_design(HERE / "golden.toml", work / "run", jobs=1, traces=True, progress=False,
               chunk_size=7)
    for name, frame in load(work / "run").tables().items():
        if len(frame):  # e.g. the learning table of a run without learners
            out[f"run_{name}"] = frame
    play_session("golden-01", work / "sessions", "human-standin")
    for name, frame in load(work / "sessions").tables().items():
        if name != "traces" and len(frame):
            out[f"session_{name}"] = frame
    games, decisions = compact_frames(list(play_games(
        ["tom1", "tom0", "heuristic", "random:p=0.3"], 6, seed=5)))
    out["simulate_games"], out["simulate_decisions"] = games, decisions
    from nothanks.report import make_figures
    from nothanks.report.studies import make_studies
    if figures is None:
        figures = make_figures(work / "figures", work / "cache", quick=True, jobs=1,
                               progress=False).out
        make_studies(figures / "studies", work / "cache", quick=True, jobs=1, progress=False)
    for path in [*sorted((figures / "tables").glob("*.csv")),
                 *sorted((figures / "studies").glob("*/tables/*.csv"))]:
        frame = pd.read_csv(path)
        if len(frame):  # an empty table (thesis-size tests need 500 games) locks nothing
            out[f"figures_{path.stem}"] = frame
    return {k: _plain(v) for k, v in out.items()}


def main() -> int:
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        tables = produce(Path(tmp))
    TABLES.mkdir(exist_ok=True)
    for old in TABLES.glob("*.parquet"):
        old.unlink()
    for name, frame in tables.items():
        frame.to_parquet(TABLES / f"{name}.parquet", index=False)
    print(f"wrote {len(tables)} tables to {TABLES}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
