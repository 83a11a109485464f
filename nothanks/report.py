"""``nothanks figures`` (``make figures``): experiments -> analysis -> figures -> files.

:func:`make_figures` makes sure the thesis's simulation designs (``table7``,
``figure14``) have logs in the cache (:func:`nothanks.experiments.ensure_design`: run or
resumed once, then reused), reads the participant sessions (default ``data/synthetic``),
computes every statistic (:func:`nothanks.analysis.statistics`), draws the figures
(:func:`nothanks.figures.draw`) and writes into ``out``: each figure as PNG and PDF,
each statistics table as CSV, ``results.md`` (ours beside the thesis's numbers) and
``README.md`` (what each file is, which thesis figure, which data, which command).
This is the one module that imports every layer.
"""
from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # the pipeline never opens windows (set before pyplot loads anywhere)

import pandas as pd  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from . import analysis as an  # noqa: E402
from . import experiments as ex  # noqa: E402
from .figures import gallery  # noqa: E402


@dataclass(frozen=True)
class FigureSpec:
    """One output figure: file stem, the thesis figure it redraws, what data it uses."""

    stem: str
    thesis: str
    caption: str
    data: str


#: Every output figure, in the README's order.
FIGURES = (
    FigureSpec("fig08_participant_places", "Figure 8",
               "Participants' final places against three ToM0, ToM1 or ToM2 models "
               "(practice block excluded); dashed line: parity 25%.", "participants"),
    FigureSpec("fig09_participant_means", "Figure 9",
               "Each participant's mean rank points (3/2/1/0) against each model order.",
               "participants"),
    FigureSpec("fig10_prediction_accuracy", "Figure 10",
               "How often ToM1 and ToM2 predicted the participant's next action on the same "
               "card, overall and by the actual action (95% Wilson intervals).",
               "participants"),
    FigureSpec("fig11_tom1_vs_tom0", "Figure 11",
               "Places of one ToM1 model against three ToM0 models.", "table7"),
    FigureSpec("fig12_tom2_vs_tom0", "Figure 12",
               "Places of one ToM2 model against three ToM0 models.", "table7"),
    FigureSpec("fig13_tom2_vs_tom1", "Figure 13",
               "Places of one ToM2 model against three ToM1 models.", "table7"),
    FigureSpec("fig14_rt_sweep", "Figure 14",
               "Mean rank points of the higher-order model against the lower order over the "
               "token memory's retrieval threshold RT (95% t-intervals).", "figure14"),
    FigureSpec("extra_instance_map", "(new; thesis §3.2)",
               "The ToM0 instance set: take/pass over card value x tokens on card, per "
               "tokens-owned level (category 'no sequence').", "instances"),
    FigureSpec("extra_token_memory", "(new; thesis §3.4.2)",
               f"One ToM2 model's token memory over one game against three ToM1 (seed "
               f"{ex.TRACE_SEED}): leaf/root activations, threshold, wrong recalls.", "one game"),
)
@dataclass
class FigureLogs:
    """The logs the statistics are computed from, and where they came from."""

    table7: ex.Log
    figure14: ex.Log
    participants: ex.Log | None
    sources: dict[str, str] = field(default_factory=dict)


#: Choices behind the numbers, stated in the generated README.
NOTES = """\
- **Rank points** 3/2/1/0; tied players share the mean of the points of the places they
  span. **Places** in the proportional rankings count a tied player at its tied place
  (rank = 1 + players strictly better), so two players tied for first both count as first.
- **Participants**: the practice block (games 1-3) is excluded from every statistic
  (bad-move feedback too). Paired t-tests use each participant's mean rank points per
  opponent order (thesis t(29)); the mixed model uses every game (`rank_points ~ opponent
  order + (1 | participant)`, statsmodels `mixedlm`, REML).
- **Simulations**: Welch's t-test compares the opponents' rows (3 per game: 1,500) with
  the focal model's (500). This reproduces the size of the thesis's df (909.8, 854.3,
  865.0; with equal variances 500 vs 1,500 rows give df = 855.5); comparing with the
  opponents' per-game mean instead gives df = 608.5 whatever the data, since rank points
  sum to 6 per game. Both readings ignore that one game's points are dependent; the
  one-sample test of the focal model against parity (1.5) does not.
- **Tests are oriented as in the thesis**: lower order (or parity) minus higher order, so
  t < 0 when the higher order scores more. Effect sizes: Cohen's d (pooled SD) for Welch
  and one-sample tests, d_z for paired tests; 95% CIs are of the mean difference.
- **Predictions** (Figure 10): a model's prediction of the participant's action on the
  current card is scored against the participant's next action on that card; predictions
  whose card was taken before the participant acted are left out.
- **Token recalls**: leaf (exact count), root (class values), none (defaults 3/8/11); the
  error is the mean |candidate - true count| over the candidates the model used.
- **Figure 14**: our retrieval thresholds differ from the thesis's (RT -15 ... -11):
  activations in our memory have another scale (see the figure14 design and
  data/README.md for the range where recall changes).
"""


def load_logs(cache: Path, *, participants: Path | None = None, games: int | None = None,
              quick: bool = False, jobs: int | None = None, progress: bool = True
              ) -> FigureLogs:
    """Run what is missing and load the three logs."""
    games = ex.QUICK_GAMES if quick and games is None else games
    if participants is not None and not participants.exists():  # fail before simulating
        raise FileNotFoundError(f"participant folder {participants} does not exist")
    cache.mkdir(parents=True, exist_ok=True)
    table7 = ex.ensure_design("table7", cache, games, jobs, progress, quick)
    figure14 = ex.ensure_design("figure14", cache, games, jobs, progress, quick)
    people = ex.ensure_participants(participants, cache, quick)
    sources = {"table7": str(table7), "figure14": str(figure14)}
    if people is not None:
        sources["participants"] = str(people)
    return FigureLogs(ex.load_cached(table7), ex.load_cached(figure14),
                      ex.load_cached(people) if people else None, sources)


def markdown_table(frame: pd.DataFrame) -> str:
    """A DataFrame as a GitHub Markdown table (no tabulate dependency)."""
    def cell(value: object) -> str:
        return str(value).replace("|", "\\|").replace("\n", " ")
    lines = ["| " + " | ".join(map(cell, frame.columns)) + " |",
             "| " + " | ".join("---" for _ in frame.columns) + " |"]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |"
              for row in frame.itertuples(index=False)]
    return "\n".join(lines)


# ---------------------------------------------------------------------- write
@dataclass
class FigureReport:
    """What :func:`make_figures` wrote and how long its steps took."""

    out: Path
    files: list[Path]
    seconds: dict[str, float]


def make_figures(out: Path, cache: Path, *, participants: Path | None = None,
                 games: int | None = None, quick: bool = False, jobs: int | None = None,
                 progress: bool = True, command: str = "nothanks figures") -> FigureReport:
    """Run the whole pipeline; see the module docstring. ``command`` is quoted in the
    README as the command that made the files."""
    timer = _Timer()
    with timer("data"):
        data = load_logs(cache, participants=participants, games=games, quick=quick,
                         jobs=jobs, progress=progress)
    with timer("statistics"):
        stats = an.statistics(data.table7, data.figure14, data.participants)
    with timer("figures"):
        figures = gallery.draw(
            stats, instances=ex.instance_table(), history=ex.token_memory_history(),
            history_title=f"Token memory of ToM2 (seat 0) against three ToM1, seed "
                          f"{ex.TRACE_SEED}")
    out.mkdir(parents=True, exist_ok=True)
    (out / "tables").mkdir(exist_ok=True)
    written: list[Path] = []
    with timer("write"):
        for stem, fig in figures.items():
            for suffix in ("png", "pdf"):
                path = out / f"{stem}.{suffix}"
                fig.savefig(path, metadata=_metadata(suffix))
                written.append(path)
        for name, table in stats.items():
            path = out / "tables" / f"{name}.csv"
            table.to_csv(path, index=False, float_format="%.6g")
            written.append(path)
        results = an.results_table(stats)
        results_md = out / "results.md"
        results_md.write_text(_results_markdown(results))
        written.append(results_md)
        readme = out / "README.md"
        readme.write_text(_readme(figures, stats, results, data, command))
        written.append(readme)
    return FigureReport(out, written, timer.seconds)


def _metadata(suffix: str) -> dict:
    # fixed metadata keep the committed files byte-stable across rebuilds
    if suffix == "pdf":
        return {"CreationDate": None, "Producer": "nothanks"}
    return {"Software": "nothanks"}


def _results_markdown(results: pd.DataFrame) -> str:
    return ("# Results beside the thesis\n\n"
            "Generated by `nothanks figures`; thesis values are quoted from the section "
            "given. Welch tests compare the opponents' rows (3 per game) with the focal "
            "model's (1 per game), the reading that reproduces the thesis's df of about "
            "850-910; the per-game-mean reading and a one-sample test against parity "
            "are listed too (see `nothanks.analysis.welch_rank_points`). Tests are "
            "oriented as in the thesis: lower order (or parity) minus higher order.\n\n"
            + markdown_table(results) + "\n")


def _readme(figures: dict[str, Figure], stats: dict[str, pd.DataFrame],
            results: pd.DataFrame, data: FigureLogs, command: str) -> str:
    describe = {
        "table7": f"design `table7` ({_games(data.table7)} games), `{data.sources['table7']}`",
        "figure14": f"design `figure14` ({_games(data.figure14)} games), "
                    f"`{data.sources['figure14']}`",
        "participants": (f"participant sessions in `{data.sources.get('participants')}` "
                         f"({_participants(data.participants)})"),
        "instances": "`nothanks/agents/cognitive/data/instances.csv` (the models' loader)",
        "one game": f"one game played in the pipeline (`{','.join(ex.TRACE_PLAYERS)}`, "
                    f"seed {ex.TRACE_SEED})",
    }
    lines = [
        "# Figures",
        "",
        "Generated by `" + command + "` (`make figures`); do not edit by hand. Each figure "
        "is written as PNG and PDF; the statistics behind them are in `tables/*.csv` and "
        "`results.md`. Simulations are cached in the `--cache` folder (one directory per "
        "design and hash; delete it to re-simulate after changing the models).",
        "",
        "| file | thesis | shows | data |",
        "| --- | --- | --- | --- |",
    ]
    for spec in FIGURES:
        if spec.stem not in figures:
            continue
        lines.append(f"| [`{spec.stem}.png`]({spec.stem}.png), [`pdf`]({spec.stem}.pdf) | "
                     f"{spec.thesis} | {spec.caption} | {describe[spec.data]} |")
    missing = [s.stem for s in FIGURES if s.stem not in figures]
    if missing:
        lines += ["", "Not drawn (no data): " + ", ".join(f"`{m}`" for m in missing)]
    lines += ["", "## How the statistics are read", "", NOTES.rstrip()]
    lines += ["", "## Tables", ""]
    lines += [f"- [`tables/{name}.csv`](tables/{name}.csv)" for name in stats]
    lines += ["", "## Results beside the thesis", "", markdown_table(results), ""]
    return "\n".join(lines)


def _games(log: ex.Log) -> int:
    return int(log.games["game_id"].nunique())


def _participants(log: ex.Log | None) -> str:
    if log is None:
        return "none"
    synthetic = bool(log.games["synthetic"].any())
    count = log.games["participant"].nunique()
    return f"{count} participants" + (", synthetic stand-ins, not real people" if synthetic
                                      else "")


class _Timer:
    """Wall-clock seconds per named pipeline step."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    @contextmanager
    def __call__(self, name: str) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[name] = time.perf_counter() - start


__all__ = ["FIGURES", "NOTES", "FigureLogs", "FigureReport", "FigureSpec", "load_logs",
           "make_figures", "markdown_table"]
