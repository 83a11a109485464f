"""``nothanks figures`` (``make figures``): experiments -> analysis -> figures -> files.

:func:`make_figures` makes sure the thesis's simulation designs (``table7``,
``figure14``), the readings ablation (``readings``) and the higher-order experiment
(``higher-orders``) have logs in the cache
(:func:`nothanks.experiments.ensure_design`: run or resumed once, then reused), reads
the participant sessions (default ``data/synthetic``),
computes every statistic (:func:`nothanks.analysis.statistics`), draws the figures
(:func:`nothanks.figures.draw`) and writes into ``out``: each figure as PNG and PDF,
each statistics table as CSV, ``results.md`` (ours beside the thesis's numbers, the
readings ablation) and ``README.md`` (what each file is, which thesis figure, which data
and whether it is synthetic, which command). Every number carries its source, read from
the logs: ``simulation``, ``synthetic`` or ``participants``.
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
from .analysis import readings as readings_columns  # noqa: E402
from .calibrate import report_markdown  # noqa: E402
from .experiments.schema import read_table, to_pandas  # noqa: E402
from .figures import gallery  # noqa: E402
from .figures.quality import quality_figures  # noqa: E402


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
    FigureSpec("extra_higher_orders", "(new; thesis §6.1-6.2)",
               "Rank-point advantage of one ToM-k (k = 1-5) over three ToM-(k-1) and over "
               "three ToM0 on shared deals (95% paired t CIs), and how often ToM-k's move "
               "differs from ToM-(k-1)'s (95% Wilson CIs).", "higher-orders"),
    FigureSpec("extra_quality_table7_ev_loss", "(new; thesis Figure 7)",
               "Move quality in Table 7 games: EV loss of the chosen move (expected rank "
               "points given up, by information-set MCTS) per agent type, 95% CIs.",
               "table7"),
    FigureSpec("extra_quality_table7_skip_to_collect", "(new; thesis §3.3)",
               "Skip-to-collect passes of ToM1/ToM2 (passes where their own ToM0 said take): "
               "how often the pass was valued at least as high as the take.", "table7"),
    FigureSpec("extra_quality_participants_ev_loss", "(new; thesis Figure 7)",
               "Move quality in the participant sessions: EV loss per player type.",
               "participants"),
    FigureSpec("extra_quality_participants_participants", "(new)",
               "EV loss of each participant's free moves (95% CIs).", "participants"),
    FigureSpec("extra_quality_participants_skip_to_collect", "(new; thesis §3.3)",
               "Skip-to-collect passes of the ToM1/ToM2 opponents in the participant "
               "sessions: how often the pass was valued at least as high as the take.",
               "participants"),
    FigureSpec("extra_quality_participants_marked_bad", "(new; thesis Figure 7)",
               "EV loss of the opponent moves participants marked as bad vs unmarked ones.",
               "participants"),
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
    readings: ReadingsTables | None = None
    sources: dict[str, str] = field(default_factory=dict)
    higher_orders: OrdersLog | None = None


@dataclass
class OrdersLog:
    """The two tables of the higher-orders log its table reads (its 2.3 million decisions
    with every column, and its predictions and recalls, would take gigabytes)."""

    games: pd.DataFrame
    decisions: pd.DataFrame


@dataclass
class ReadingsTables:
    """The four tables of the readings log its ablation table reads
    (:class:`nothanks.analysis.readings.ReadingsLog`), decisions and recalls with only the
    columns it reads: the whole log (5 million decisions, 12 million recalls, 9 million
    predictions, every column) took most of the figures' 11 GB peak memory."""

    conditions: pd.DataFrame
    games: pd.DataFrame
    decisions: pd.DataFrame
    recalls: pd.DataFrame


def finished_tables(directory: Path, columns: dict[str, tuple[str, ...] | None]
                    ) -> dict[str, pd.DataFrame]:
    """Tables of a finished (compacted) run, each file checked against the schema, each
    with only the named columns (``None``: all of them)."""
    if not ex.is_complete(directory):
        raise ex.LogError(f"{directory}: not a finished run (run it again to resume)")
    tables = {}
    for name, kept in columns.items():
        table = read_table(directory / f"{name}.parquet", name)
        tables[name] = to_pandas(table if kept is None else table.select(list(kept)))
    return tables


def load_readings(directory: Path) -> ReadingsTables:
    """The tables and columns :class:`ReadingsTables` keeps of a finished readings run."""
    return ReadingsTables(**finished_tables(directory, {
        "conditions": None, "games": None, "decisions": readings_columns.DECISION_COLUMNS,
        "recalls": readings_columns.RECALL_COLUMNS}))


#: Columns of the higher-orders decisions that :func:`nothanks.analysis.orders_table` reads.
ORDERS_DECISION_COLUMNS = ("condition", "deal", "turn", "focal", "action", "own_tom0_action")


def load_orders(directory: Path) -> OrdersLog:
    """The games and the needed decision columns of a finished higher-orders run."""
    return OrdersLog(**finished_tables(directory, {
        "games": None, "decisions": ORDERS_DECISION_COLUMNS}))


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
- **Intervals and flags**: shares carry 95% Wilson intervals, means 95% t-intervals.
  Flags say in which direction a test is significant: `higher`/`lower` (the higher-order
  model's rank points against the comparison) or `n.s.`, after a Holm correction within
  one family (all points of the RT sweep; each kind of simulation test).
- **Sources**: every table has a `source` column (`token_recalls`: `data_source`) read
  from the log: `simulation` (models only), `synthetic` (stand-ins played the
  participants' seat) or `participants`. Figures drawn from synthetic sessions say
  "SYNTHETIC — not data" in the image.
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
- **Readings** (`tables/readings.csv`): per reading, ToM1 vs 3 x ToM0 and ToM2 vs 3 x
  ToM1: win share of the focal model, and its margin = rank points minus the opponents'
  mean per deal (paired t CI), also against the default reading on the same deals. How
  often ToM2's move differs from ToM1's: the focal players of ToM2 vs 3 x ToM1 and of the
  control ToM1 vs 3 x ToM1 see the same states until their first differing decision, so
  the per-decision rate = diverging deals / decisions compared up to and including the
  first divergence (Wilson CI). Recall accuracy: share of exact recalls, and share of leaf
  recalls in which an older leaf beat the newest.
- **Higher orders** (`tables/higher_orders.csv`, design `higher-orders`): per table,
  the focal ToM-k's share of first places (Wilson CI), its rank points minus its
  opponents' mean per deal (paired t CI), its gain over ToM-(k-1) against the same
  opponents on the same deals (paired t CI), and how often its move differs from
  ToM-(k-1)'s: k = 1 against the model's own ToM0 retrieval at every decision; k >= 2
  from ToM-k and ToM-(k-1) against three ToM0 on the same deals, up to the first
  divergence (Wilson CI).
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
    readings = ex.ensure_design("readings", cache, games, jobs, progress, quick)
    higher = ex.ensure_design("higher-orders", cache, games, jobs, progress, quick)
    people = ex.ensure_participants(participants, cache, quick)
    sources = {"table7": str(table7), "figure14": str(figure14), "readings": str(readings),
               "higher-orders": str(higher)}
    if people is not None:
        sources["participants"] = str(people)
    return FigureLogs(ex.load_cached(table7), ex.load_cached(figure14),
                      ex.load_cached(people) if people else None,
                      load_readings(readings), sources, load_orders(higher))


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


#: Folder of the shipped calibration studies (``nothanks calibrate`` output folders).
CALIBRATION = Path("data/calibration")


def make_figures(out: Path, cache: Path, *, participants: Path | None = None,
                 games: int | None = None, quick: bool = False, jobs: int | None = None,
                 progress: bool = True, command: str = "nothanks figures",
                 calibration: Path | None = CALIBRATION) -> FigureReport:
    """Run the whole pipeline; see the module docstring. ``command`` is quoted in the
    README as the command that made the files; the held-out checks of the calibration
    studies in ``calibration`` (if any) close ``results.md``."""
    timer = _Timer()
    with timer("data"):
        data = load_logs(cache, participants=participants, games=games, quick=quick,
                         jobs=jobs, progress=progress)
    with timer("statistics"):
        stats = an.statistics(data.table7, data.figure14, data.participants, data.readings)
        if data.higher_orders is not None:
            stats["higher_orders"] = an.orders_table(data.higher_orders.games,
                                                     data.higher_orders.decisions)
    with timer("move quality"):
        quality = grade_moves(data, cache, quick)
        for name, graded in quality.items():
            stats[f"quality_{name}"] = an.ev_loss_table(graded, "agent_label")
    with timer("figures"):
        figures = gallery.draw(
            stats, instances=ex.instance_table(), history=ex.token_memory_history(),
            history_title=f"Token memory of ToM2 (seat 0) against three ToM1, seed "
                          f"{ex.TRACE_SEED}")
        for name, graded in quality.items():
            figures.update({f"extra_quality_{name}_{stem.removeprefix('quality_')}": fig
                            for stem, fig in quality_figures(graded).items()})
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
        results_md.write_text(_results_markdown(results, stats.get("readings"),
                                                stats.get("higher_orders"))
                              + _quality_markdown(quality)
                              + report_markdown(calibration))
        written.append(results_md)
        readme = out / "README.md"
        readme.write_text(_readme(figures, stats, results, data, command))
        written.append(readme)
    return FigureReport(out, written, timer.seconds)


#: Search budget per graded decision in ``make figures`` (``--quick``: QUICK_QUALITY).
QUALITY_ITERATIONS = 1000
QUICK_QUALITY = 100
#: Table 7 games graded (a reproducible sample: every decision costs one search);
#: participant sessions are graded in full.
QUALITY_TABLE7_GAMES = 200


def grade_moves(data: FigureLogs, cache: Path, quick: bool = False) -> dict[str, pd.DataFrame]:
    """Move quality (EV of take and pass by information-set MCTS) of a Table 7 sample and
    of every participant decision; estimates are cached per decision in
    ``cache/move-quality``, so a rebuild searches only new decisions."""
    budget = {"iterations": QUICK_QUALITY if quick else QUALITY_ITERATIONS, "seed": 0,
              "cache": cache / "move-quality"}
    graded = {"table7": an.move_quality(data.table7, games=2 if quick else
                                        QUALITY_TABLE7_GAMES, **budget)}
    if data.participants is not None:
        graded["participants"] = an.move_quality(data.participants,
                                                 games=2 if quick else None, **budget)
    return graded


def _quality_markdown(quality: dict[str, pd.DataFrame]) -> str:
    titles = {"table7": "Move quality: Table 7 games (a sample)",
              "participants": "Move quality: participant sessions"}
    return "".join("\n" + an.quality_section(graded, titles[name]) + "\n"
                   for name, graded in quality.items())


def _metadata(suffix: str) -> dict:
    # fixed metadata keep the committed files byte-stable across rebuilds
    if suffix == "pdf":
        return {"CreationDate": None, "Producer": "nothanks"}
    return {"Software": "nothanks"}


def _results_markdown(results: pd.DataFrame, readings: pd.DataFrame | None = None,
                      higher_orders: pd.DataFrame | None = None) -> str:
    banner = an.results_banner(results)
    text = ("# Results beside the thesis\n\n" + (banner + "\n" if banner else "") +
            "Generated by `nothanks figures`; thesis values are quoted from the section "
            "given. Welch tests compare the opponents' rows (3 per game) with the focal "
            "model's (1 per game), the reading that reproduces the thesis's df of about "
            "850-910; the per-game-mean reading and a one-sample test against parity "
            "are listed too (see `nothanks.analysis.welch_rank_points`). Tests are "
            "oriented as in the thesis: lower order (or parity) minus higher order; flags "
            "say whether the higher-order model scored `higher` or `lower` (Holm-corrected "
            "within each family of tests) or `n.s.`. Paired tests on shared deals compare "
            "two focal models deal by deal (see README.md). Shares carry 95% Wilson "
            "intervals, means 95% t-intervals. `source` says where each number comes "
            "from.\n\n" + markdown_table(results) + "\n")
    if readings is not None:
        text += ("\n## Readings\n\nEach open reading of the thesis alone "
                 "(docs/models.md, \"Readings\"; design `readings`), every table on the same "
                 "deals. Margin: the focal model's rank points minus its opponents' mean, per "
                 "deal (95% t CI; > 0 favours the focal model); vs default: the margin minus "
                 "the default reading's on the same deals. \"ToM2 move differs\": the "
                 "per-decision rate at which ToM2's move differs from ToM1's (ToM2 vs 3 x ToM1 "
                 "against the control ToM1 vs 3 x ToM1 on the same deals: diverging deals / "
                 "decisions compared up to and including the first divergence). Shares with "
                 "95% Wilson intervals.\n\n"
                 + markdown_table(an.readings_rows(readings)) + "\n\n"
                 + an.readings_conclusion(readings) + "\n")
    if higher_orders is not None:
        text += ("\n## Higher orders\n\nOne ToM-k (k = 1-5) against three ToM-(k-1) and "
                 "against three ToM0 (design `higher-orders`), every table on the same "
                 "deals. Advantage: the focal model's rank points minus its opponents' mean, "
                 "per deal (95% paired t CI); gain over ToM(k-1): ToM-k's rank points minus "
                 "ToM-(k-1)'s against the same opponents on the same deals; move differs: "
                 "ToM1 against its own ToM0 retrieval, ToM-k (k >= 2) against ToM-(k-1) "
                 "facing three ToM0 on the same deals, up to the first divergence (95% "
                 "Wilson CIs). Source: "
                 f"{higher_orders['source'].iloc[0]}.\n\n"
                 + markdown_table(an.orders_rows(higher_orders)) + "\n\n"
                 + an.orders_conclusion(higher_orders) + "\n")
    return text


def _readme(figures: dict[str, Figure], stats: dict[str, pd.DataFrame],
            results: pd.DataFrame, data: FigureLogs, command: str) -> str:
    describe = {
        "table7": f"design `table7` ({_games(data.table7)} games), `{data.sources['table7']}`",
        "figure14": f"design `figure14` ({_games(data.figure14)} games), "
                    f"`{data.sources['figure14']}`",
        "participants": (f"participant sessions in `{data.sources.get('participants')}` "
                         f"({_participants(data.participants)})"),
        "higher-orders": f"design `higher-orders` ({_games(data.higher_orders)} games), "
                         f"`{data.sources.get('higher-orders')}`"
                         if data.higher_orders is not None else "—",
        "instances": "`nothanks/agents/cognitive/data/instances.csv` (the models' loader)",
        "one game": f"one game played in the pipeline (`{','.join(ex.TRACE_PLAYERS)}`, "
                    f"seed {ex.TRACE_SEED})",
    }
    sources = _figure_sources(stats)
    lines = [
        "# Figures",
        "",
        "Generated by `" + command + "` (`make figures`); do not edit by hand. Each figure "
        "is written as PNG and PDF; the statistics behind them are in `tables/*.csv` and "
        "`results.md`. Simulations are cached in the `--cache` folder (one directory per "
        "design and hash; delete it to re-simulate after changing the models).",
        "",
        "| file | thesis | shows | data | source |",
        "| --- | --- | --- | --- | --- |",
    ]
    for spec in FIGURES:
        if spec.stem not in figures:
            continue
        lines.append(f"| [`{spec.stem}.png`]({spec.stem}.png), [`pdf`]({spec.stem}.pdf) | "
                     f"{spec.thesis} | {spec.caption} | {describe[spec.data]} | "
                     f"{sources.get(spec.data, '—')} |")
    synthetic = [s.stem for s in FIGURES
                 if s.stem in figures and sources.get(s.data) == "synthetic"]
    if synthetic:
        lines += ["", f"**{an.SYNTHETIC_LABEL}**: " + ", ".join(f"`{m}`" for m in synthetic)
                  + " are drawn from synthetic participants (stand-in agents in the "
                  "participants' seat), not from people; each image carries that label."]
    missing = [s.stem for s in FIGURES if s.stem not in figures]
    if missing:
        lines += ["", "Not drawn (no data): " + ", ".join(f"`{m}`" for m in missing)]
    lines += ["", "## How the statistics are read", "", NOTES.rstrip()]
    lines += ["", "## Tables", ""]
    lines += [f"- [`tables/{name}.csv`](tables/{name}.csv)" for name in stats]
    banner = an.results_banner(results)
    lines += ["", "## Results beside the thesis", ""] + ([banner] if banner else [])
    lines += [markdown_table(results), ""]
    return "\n".join(lines)


def _figure_sources(stats: dict[str, pd.DataFrame]) -> dict[str, str]:
    """FigureSpec.data -> the source the statistics tables record for it."""
    tables = {"participants": "participant_rank_shares", "table7": "simulation_rank_shares",
              "figure14": "rt_sweep", "higher-orders": "higher_orders"}
    sources = {data: str(stats[name]["source"].iloc[0])
               for data, name in tables.items() if name in stats}
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


__all__ = ["FIGURES", "NOTES", "FigureLogs", "FigureReport", "FigureSpec", "OrdersLog",
           "load_logs", "load_orders", "make_figures", "markdown_table"]
