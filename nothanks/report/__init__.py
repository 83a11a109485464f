"""``nothanks figures`` (``make figures``): the thesis, experiments -> analysis -> figures.

:func:`make_figures` makes sure the thesis's simulation designs (``table7``, whose
control table ToM1 vs 3 x ToM1 says whether ToM2 plays ToM1's moves, and ``figure14``)
have logs in the cache (:func:`nothanks.experiments.ensure_design`: run or resumed once,
locally or on a Dask cluster, then reused), reads the participant sessions (default
``data/synthetic``), computes the thesis's statistics
(:func:`nothanks.analysis.statistics`), draws Figures 8-14
(:func:`nothanks.figures.draw`) and writes into ``out``: each figure as PNG and PDF,
each statistics table as CSV, ``results.md`` (ours beside the thesis's numbers, and the
validity of the tests) and ``README.md`` (what each file is, which thesis figure, which
data and whether it is synthetic, which command). It grades no move. Every number
carries its source, read from the logs: ``simulation``, ``synthetic`` or
``participants``. Everything else (readings, higher orders, instance sets, learning,
move quality, ...) is :mod:`nothanks.report.studies` (``nothanks studies``).
This package is the one that imports every layer.
"""
from __future__ import annotations

import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # the pipeline never opens windows (set before pyplot loads anywhere)

import pandas as pd  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from .. import analysis as an  # noqa: E402
from .. import experiments as ex  # noqa: E402
from ..analysis.frames import markdown_table  # noqa: E402
from ..analysis.placebo import placebo_judgement as judge_placebo  # noqa: E402
from ..experiments.cache import load_finished_log  # noqa: E402
from ..figures import gallery  # noqa: E402
from ..studies.writing import PLACEBO, results_markdown, valid_tests_markdown  # noqa: E402


@dataclass(frozen=True)
class FigureSpec:
    """One output figure: file stem, the thesis figure it redraws, what data it uses."""

    stem: str
    thesis: str
    caption: str
    data: str



#: The thesis figures (Figures 8-14), in the README's order.
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
)


@dataclass
class FigureLogs:
    """The logs the thesis statistics are computed from, and where they came from."""

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
- **Shared deals**: game *i* of every condition of a design is played on the same deal
  (same seed and seating), so two focal models against the same opponents (ToM1 and
  ToM2 against three ToM0) are compared deal by deal: paired t-test and Wilcoxon
  signed-rank test of the per-deal difference of rank points, and a percentile bootstrap
  95% CI of its mean (10,000 resamples, seeded), beside the thesis's unpaired Welch tests.
  Whether a ToM2 model made ToM1's moves is counted from the logged decisions, deal by
  deal, never assumed.
- **Intervals and flags**: shares of independent games carry 95% Wilson intervals, means
  95% t-intervals; participants' shares are clustered by participant, and shares and
  means of decisions or recalls within games by game (cluster bootstrap). Flags come
  only from tests with a placebo false-positive rate near 5% (the focal model against
  parity, paired tests on shared deals) and say in which direction a test is
  significant: `higher`/`lower` (the higher-order model's rank points against the
  comparison) or `n.s.`, after a Holm correction within one family (all points of the
  RT sweep; each comparison of two orders, every flagged variant of it), or `identical
  play` where the two sides made the same moves on every shared deal.
- **Sources**: every table has a `source` column (`token_recalls`: `data_source`) read
  from the log: `simulation` (models only), `synthetic` (stand-ins played the
  participants' seat) or `participants`. Figures drawn from synthetic sessions say
  "SYNTHETIC — not data" in the image.
- **Simulations**: Welch's t-test compares the opponents' rows (3 per game) with the
  focal model's (1 per game): n games give 3n vs n rows (the thesis: 1,500 vs 500; our
  table7: 6,000 vs 2,000). This reproduces the size of the thesis's df (909.8, 854.3,
  865.0; with equal variances 1,500 vs 500 rows give df = 855.5, and 6,000 vs 2,000 about
  3,430); comparing with the opponents' per-game mean instead gives df of about 1.22(n - 1)
  whatever the data, since rank points sum to 6 per game. Both readings ignore that one
  game's points are dependent and over-reject on tables of identical players (results.md,
  "Valid tests"); the one-sample test of the focal model against parity (1.5) does not,
  and only it and the paired tests on shared deals flag.
- **Tests are oriented as in the thesis**: lower order (or parity) minus higher order, so
  t < 0 when the higher order scores more (README.md, docs and results.md use this
  sign). Effect sizes: Cohen's d (pooled SD) for Welch and one-sample tests, d_z for
  paired tests; 95% CIs are of the mean difference.
- **Predictions** (Figure 10): a model's prediction of the participant's action on the
  current card is scored against the participant's next action on that card; predictions
  whose card was taken before the participant acted are left out.
- **Token recalls**: leaf (exact count), root (class values), none (defaults 3/8/11); the
  error is the mean |candidate - true count| over the candidates the model used.
- **Figure 14**: our retrieval thresholds (RT -2.5 ... 0.5) differ from the thesis's
  (about -15 ... -11): our token chunks' activations (base-level learning with decay
  d = 0.5 on a simulated clock of 2 s per turn, noise s = 0.1) lie around -1 to -2, so
  recall changes between RT -2 and 0; the thesis does not say what puts its activations
  on its scale. Compare shapes, not RT values (results.md, "Figure 14's
  RT scale"). Its trends are least-squares slopes of the higher order's rank points (one
  value per game) on RT with 95% t-intervals; its flags are the model against parity.
"""


#: The designs the thesis build plays (the studies reuse their logs from the cache), with
#: the tables and columns of each that the statistics read (None: every column; the
#: other tables are left empty: their decisions, predictions and recalls are most of a
#: log's rows, and loading them all took most of a warm build).
THESIS_TABLES: dict[str, dict[str, tuple[str, ...] | None]] = {
    "table7": {"experiments": None, "conditions": None, "games": None,
               "decisions": ("condition", "deal", "turn", "focal", "action")},
    "figure14": {"experiments": None, "conditions": None, "games": None, "recalls": None},
}
#: The names of the thesis's designs, in the order the build plays them.
THESIS_DESIGNS = tuple(THESIS_TABLES)


def load_logs(cache: Path, *, participants: Path | None = None, games: int | None = None,
              quick: bool = False, jobs: int | None = None, progress: bool = True,
              scheduler: str | None = None) -> FigureLogs:
    """Run what is missing of ``table7`` and ``figure14`` (locally, or on the Dask
    scheduler at ``scheduler``) and load them and the participant sessions;
    ``participants`` (a folder of sessions) is loaded first, so a bad one stops before
    any simulation and before the cache is made
    (:func:`~nothanks.experiments.check_participants`)."""
    games = ex.QUICK_GAMES if quick and games is None else games
    given = None if participants is None else ex.check_participants(participants)
    cache.mkdir(parents=True, exist_ok=True)
    table7, figure14 = (ex.ensure_design(name, cache, games, jobs, progress, quick,
                                         scheduler=scheduler) for name in THESIS_DESIGNS)
    people = ex.ensure_participants(participants, cache, quick)
    sources = {"table7": str(table7), "figure14": str(figure14)}
    if people is not None:
        sources["participants"] = str(people)
    return FigureLogs(load_finished_log(table7, THESIS_TABLES["table7"]),
                      load_finished_log(figure14, THESIS_TABLES["figure14"]),
                      given if given is not None else ex.load_cached(people) if people
                      else None, sources)


# ---------------------------------------------------------------------- write
@dataclass
class FigureReport:
    """What a build wrote and how long its steps took (seconds by step)."""

    out: Path
    files: list[Path]
    seconds: dict[str, float]


#: Folder of the shipped calibration studies (``nothanks calibrate`` output folders).
CALIBRATION = Path("data/calibration")


def make_figures(out: Path, cache: Path, *, participants: Path | None = None,
                 games: int | None = None, quick: bool = False, jobs: int | None = None,
                 progress: bool = True, command: str = "nothanks figures",
                 placebo: Path | None = PLACEBO, scheduler: str | None = None
                 ) -> FigureReport:
    """Build the thesis; see the package docstring. ``command`` is quoted in the README as
    the command that made the files; ``placebo`` holds the placebo tables results.md's
    "Valid tests" reads; ``scheduler``: simulate on that Dask scheduler."""
    timer = Timer()
    with timer("data"):
        data = load_logs(cache, participants=participants, games=games, quick=quick,
                         jobs=jobs, progress=progress, scheduler=scheduler)
    with timer("statistics"):
        flagging = an.flagging_tests(judge_placebo(placebo) if placebo is not None else {})
        stats = an.statistics(data.table7, data.figure14, data.participants, flagging)
    with timer("figures"):
        figures = gallery.draw(stats)
    with timer("write"):
        results = an.results_table(stats)
        written = write_set(out, figures, stats,
                            results_markdown(results, placebo)
                            + valid_tests_markdown(stats, placebo),
                            _readme(figures, stats, results, data, command))
    return FigureReport(out, written, timer.seconds)


def write_set(out: Path, figures: Mapping[str, Figure], stats: Mapping[str, pd.DataFrame],
              results: str, readme: str) -> list[Path]:
    """Write one build's set into ``out`` (created): every figure as PNG and PDF (fixed
    metadata, so a rebuild of the same numbers is byte-identical), every table as
    ``tables/<name>.csv``, ``results.md`` and ``README.md``; the paths written."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "tables").mkdir(exist_ok=True)
    written: list[Path] = []
    for stem, fig in figures.items():
        for suffix in ("png", "pdf"):
            path = out / f"{stem}.{suffix}"
            fig.savefig(path, metadata=_metadata(suffix))
            written.append(path)
    for name, table in stats.items():
        path = out / "tables" / f"{name}.csv"
        table.to_csv(path, index=False, float_format="%.6g")
        written.append(path)
    for name, text in (("results.md", results), ("README.md", readme)):
        (out / name).write_text(text)
        written.append(out / name)
    return written


def _metadata(suffix: str) -> dict:
    # fixed metadata keep the committed files byte-stable across rebuilds
    if suffix == "pdf":
        return {"CreationDate": None, "Producer": "nothanks"}
    return {"Software": "nothanks"}


def _figure_notes(stats: Mapping[str, pd.DataFrame]) -> dict[str, str]:
    """Notes appended to figure captions: whether ToM2 made ToM1's moves, measured."""
    notes = {}
    moves = stats.get("shared_deal_moves")
    if moves is not None:
        for r in moves.to_dict("records"):
            if r["identical_deals"] != r["deals"]:
                continue
            if (r["a"], r["b"], r["opponent"]) == ("ToM1", "ToM2", "ToM0"):
                notes["fig12_tom2_vs_tom0"] = (
                    f" ToM2 made ToM1's moves on {r['deals']} of {r['deals']} shared "
                    "deals under the shipped monotone instance set: this figure "
                    "repeats Figure 11.")
            if (r["a"], r["b"], r["opponent"]) == ("ToM1", "ToM2", "ToM1"):
                notes["fig13_tom2_vs_tom1"] = (
                    f" ToM2 made the moves of ToM1 in its seat (table7's control ToM1 vs "
                    f"3 x ToM1) on {r['deals']} of {r['deals']} shared deals "
                    f"({int(r['decisions_compared'])} decisions compared) under the "
                    "shipped monotone instance set: this is a table of identical players.")
    same = stats.get("participant_identical_play")
    if same is not None and len(same):
        r = same.iloc[0]
        if r["identical_deals"] == r["deals"]:
            for stem in ("fig08_participant_places", "fig09_participant_means",
                         "fig10_prediction_accuracy"):
                notes[stem] = (f" ToM2 made ToM1's moves on {r['deals']} of {r['deals']} "
                               "shared participant deals under the shipped monotone "
                               "instance set: its bars repeat ToM1's.")
    return notes


def _readme(figures: Mapping[str, Figure], stats: Mapping[str, pd.DataFrame],
            results: pd.DataFrame, data: FigureLogs, command: str) -> str:
    """The thesis folder's README.md."""
    describe = {
        "table7": f"design `table7` ({_games(data.table7)} games, its control table "
                  f"included), `{data.sources['table7']}`",
        "figure14": f"design `figure14` ({_games(data.figure14)} games), "
                    f"`{data.sources['figure14']}`",
        "participants": (f"participant sessions in `{data.sources.get('participants')}` "
                         f"({_participants(data.participants)})"),
    }
    banner = an.results_banner(results)
    text = readme_text("Figures", command, FIGURES, figures, stats, describe, NOTES,
                       figure_notes=_figure_notes(stats), build="make figures")
    text += ("\n## Beyond the thesis\n\nThe readings, higher orders, instance sets, "
             "learning, move quality and the other studies are built by `make studies` "
             "(`nothanks studies`) into `studies/` (its README.md lists them), one folder "
             "each.\n")
    return (text + "\n## Results beside the thesis\n\n" + (banner + "\n" if banner else "")
            + markdown_table(results) + "\n")


def readme_text(title: str, command: str, specs: Sequence[FigureSpec],
                figures: Mapping[str, Figure], stats: Mapping[str, pd.DataFrame],
                describe: Mapping[str, str], notes: str = "", *,
                figure_notes: Mapping[str, str] | None = None,
                build: str = "make studies") -> str:
    """A build folder's README.md: the figures drawn (those of ``specs`` in ``figures``)
    with what each shows, its data (``describe[spec.data]``, else the data's name) and the
    source its tables record, a synthetic warning where due, ``notes``, the tables."""
    sources = _figure_sources(stats)
    recorded = [str(t["source"].iloc[0]) for t in stats.values()
                if "source" in t.columns and len(t)]
    fallback = recorded[0] if len(set(recorded)) == 1 else "—"  # one source: the build's
    figure_notes = figure_notes or {}
    lines = [
        f"# {title}",
        "",
        "Generated by `" + command + f"` (`{build}`); do not edit by hand. Each figure "
        "is written as PNG and PDF; the statistics behind them are in `tables/*.csv` and "
        "`results.md`. Simulations are cached in the `--cache` folder (one directory per "
        "design and hash; delete it to re-simulate after changing the models).",
        "",
    ]
    drawn = [spec for spec in specs if spec.stem in figures]
    if drawn:
        lines += ["| file | thesis | shows | data | source |",
                  "| --- | --- | --- | --- | --- |"]
    for spec in drawn:
        lines.append(f"| [`{spec.stem}.png`]({spec.stem}.png), [`pdf`]({spec.stem}.pdf) | "
                     f"{spec.thesis} | {spec.caption}{figure_notes.get(spec.stem, '')} | "
                     f"{describe.get(spec.data, spec.data)} | "
                     f"{sources.get(spec.data, fallback)} |")
    synthetic = [s.stem for s in drawn if sources.get(s.data) == "synthetic"]
    if synthetic:
        lines += ["", f"**{an.SYNTHETIC_LABEL}**: " + ", ".join(f"`{m}`" for m in synthetic)
                  + " are drawn from synthetic participants (stand-in agents in the "
                  "participants' seat), not from people; each image carries that label."]
    missing = [s.stem for s in specs if s.stem not in figures]
    if missing and build == "make figures":
        lines += ["", "Not drawn (no data): " + ", ".join(f"`{m}`" for m in missing)]
    if notes:
        lines += ["", "## How the statistics are read", "", notes.rstrip()]
    if stats:
        lines += ["", "## Tables", ""]
        lines += [f"- [`tables/{name}.csv`](tables/{name}.csv)" for name in stats]
    return "\n".join(lines) + "\n"


def _figure_sources(stats: Mapping[str, pd.DataFrame]) -> dict[str, str]:
    """FigureSpec.data -> the source the statistics tables record for it (the first of
    its candidate tables the build made)."""
    tables = {"participants": ("participant_rank_shares", "quality_participants"),
              "table7": ("simulation_rank_shares", "quality_table7"),
              "figure14": ("rt_sweep",), "higher-orders": ("higher_orders",),
              "instance-sets": ("instance_sets",),
              "figure14-instance-sets": ("rt_sweep_by_set",),
              "learning": ("learning_slopes",), "learning-long": ("learning_long_slopes",),
              "learning-tom": ("learning_tom_slopes",)}
    sources = {data: str(stats[name]["source"].iloc[0])
               for data, names in tables.items()
               for name in reversed(names) if name in stats}
    return {**sources, "one game": "simulation", "instances": "model (instance set)"}


def _games(log: ex.Log) -> int:
    return int(log.games["game_id"].nunique())


def _participants(log: ex.Log | None) -> str:
    if log is None:
        return "none"
    synthetic = bool(log.games["synthetic"].any())
    count = log.games["participant"].nunique()
    return f"{count} participants" + (", synthetic stand-ins, not real people" if synthetic
                                      else "")


class Timer:
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




__all__ = ["CALIBRATION", "FIGURES", "NOTES", "PLACEBO", "THESIS_DESIGNS", "THESIS_TABLES",
           "FigureLogs", "FigureReport", "FigureSpec", "Timer", "load_logs", "make_figures",
           "markdown_table", "readme_text", "write_set"]
