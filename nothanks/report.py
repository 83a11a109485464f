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
from .analysis import instance_sets, learning, placebo  # noqa: E402
from .analysis import readings as readings_columns  # noqa: E402
from .analysis.frames import markdown_table  # noqa: E402
from .experiments.schema import read_table, to_pandas  # noqa: E402
from .figures import gallery  # noqa: E402
from .figures.instance_sets import (  # noqa: E402
    instance_set_dose_response,
    rt_sweep_by_set_lines,
)
from .figures.learning import learning_curves, states_over_games_lines  # noqa: E402
from .figures.quality import quality_figures  # noqa: E402
from .studies.calibration import report_markdown  # noqa: E402
from .studies.move_quality import move_quality  # noqa: E402


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
               "differs from ToM-(k-1)'s (95% CIs clustered by deal).", "higher-orders"),
    FigureSpec("extra_instance_sets", "(new; thesis §3.2, §5.2)",
               "What one more order gains, by ToM0 instance set: ToM2 - ToM1 against three "
               "ToM0 and three ToM1, ToM3 - ToM2 against three ToM2, rank points per "
               "shared deal (95% paired t CIs) against the share of the monotone set's "
               "no-sequence actions flipped; the thesis reconstructions at the left.",
               "instance-sets"),
    FigureSpec("extra_fig14_instance_sets", "(new; thesis Figure 14)",
               "Figure 14's ToM2 curves under the default set and two sets that let ToM2 "
               "differ from ToM1 (flip 8%, thesis-linear), on the same deals (95% "
               "t-intervals).", "figure14-instance-sets"),
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
    FigureSpec("extra_learning_curves", "(new; thesis §6.2, seed 002)",
               "Learning over trials of 10 games: the focal player's mean rank points at each "
               "game of a trial for the utility learner, its no-learning control, the "
               "instance-based learner and the fixed ToM1, per opponent table, on the same "
               "deals (bands: 95% CIs over 200 trials).", "learning"),
    FigureSpec("extra_learning_utilities", "(new; seed 002 Figure 6)",
               "The utility learner's strategy utilities at the end of each game of a trial, "
               "per opponent table (mean over trials, 95% bands).", "learning"),
    FigureSpec("extra_learning_long_curves", "(new; thesis §6.2)",
               "Learning over trials of 50 games (utility, no learning, ibl; 40 trials).",
               "learning-long"),
    FigureSpec("extra_learning_tom_curves", "(new; thesis §6.2)",
               "learning-tom (ToM0 instances stored from the opponents' moves, from an empty "
               "set) at k = 1 and 2 beside the fixed ToM1 and ToM2 over trials of 50 games.",
               "learning-tom"),
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
    instance_sets: InstanceSetsLog | None = None
    figure14_sets: ex.Log | None = None
    learning: dict[str, ex.Log] = field(default_factory=dict)


@dataclass
class InstanceSetsLog:
    """The tables of the instance-sets log its table reads (decisions: four columns)."""

    conditions: pd.DataFrame
    games: pd.DataFrame
    decisions: pd.DataFrame


#: Columns of the instance-sets decisions that :func:`instance_sets_table` reads.
INSTANCE_SETS_DECISION_COLUMNS = ("condition", "deal", "turn", "focal", "action")


def load_instance_sets(directory: Path) -> InstanceSetsLog:
    """The tables and columns :class:`InstanceSetsLog` keeps of a finished run."""
    return InstanceSetsLog(**finished_tables(directory, {
        "conditions": None, "games": None, "decisions": INSTANCE_SETS_DECISION_COLUMNS}))


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
- **Readings** (`tables/readings.csv`): per reading, ToM1 vs 3 x ToM0 and ToM2 vs 3 x
  ToM1: win share of the focal model, and its margin = rank points minus the opponents'
  mean per deal (paired t CI), also against the default reading on the same deals. How
  often ToM2's move differs from ToM1's: the focal players of ToM2 vs 3 x ToM1 and of the
  control ToM1 vs 3 x ToM1 see the same states until their first differing decision, so
  the per-decision rate = diverging deals / decisions compared up to and including the
  first divergence (95% CI clustered by deal). Recall accuracy: share of exact recalls,
  and share of leaf recalls in which an older leaf beat the newest.
- **Higher orders** (`tables/higher_orders.csv`, design `higher-orders`): per table,
  the focal ToM-k's share of first places (Wilson CI), its rank points minus its
  opponents' mean per deal (paired t CI), its gain over ToM-(k-1) against the same
  opponents on the same deals (paired t CI), and how often its move differs from
  ToM-(k-1)'s: k = 1 against the model's own ToM0 retrieval at every decision; k >= 2
  from ToM-k and ToM-(k-1) against three ToM0 on the same deals, up to the first
  divergence (both with 95% CIs clustered by deal).
- **Figure 14**: our retrieval thresholds (RT -2.5 ... 0.5) differ from the thesis's
  (about -15 ... -11): our token chunks' activations (base-level learning with decay
  d = 0.5 on a simulated clock of 2 s per turn, noise s = 0.1) lie around -1 to -2, so
  recall changes between RT -2 and 0; the thesis does not say what puts its activations
  on its scale. Compare shapes, not RT values (results.md, "Figure 14's
  RT scale"). Its trends are least-squares slopes of the higher order's rank points (one
  value per game) on RT with 95% t-intervals; its flags are the model against parity.
"""


def load_logs(cache: Path, *, participants: Path | None = None, games: int | None = None,
              quick: bool = False, jobs: int | None = None, progress: bool = True
              ) -> FigureLogs:
    """Run what is missing and load the logs; ``participants`` (a folder of sessions) is
    loaded first, so a bad one stops before any simulation and before the cache is
    made (:func:`~nothanks.experiments.check_participants`)."""
    games = ex.QUICK_GAMES if quick and games is None else games
    given = None if participants is None else ex.check_participants(participants)
    cache.mkdir(parents=True, exist_ok=True)
    table7 = ex.ensure_design("table7", cache, games, jobs, progress, quick)
    figure14 = ex.ensure_design("figure14", cache, games, jobs, progress, quick)
    readings = ex.ensure_design("readings", cache, games, jobs, progress, quick)
    higher = ex.ensure_design("higher-orders", cache, games, jobs, progress, quick)
    sets = ex.ensure_design("instance-sets", cache, games, jobs, progress, quick)
    sets14 = ex.ensure_design("figure14-instance-sets", cache, games, jobs, progress, quick)
    learned = {name: ex.ensure_design(name, cache, games, jobs, progress, quick)
               for name in LEARNING_DESIGNS}
    people = ex.ensure_participants(participants, cache, quick)
    sources = {"table7": str(table7), "figure14": str(figure14), "readings": str(readings),
               "higher-orders": str(higher), "instance-sets": str(sets),
               "figure14-instance-sets": str(sets14),
               **{name: str(path) for name, path in learned.items()}}
    if people is not None:
        sources["participants"] = str(people)
    return FigureLogs(ex.load_cached(table7), ex.load_cached(figure14),
                      given if given is not None else ex.load_cached(people) if people
                      else None,
                      load_readings(readings), sources, load_orders(higher),
                      load_instance_sets(sets), ex.load_cached(sets14),
                      {name: ex.load_cached(path) for name, path in learned.items()})


#: The learning designs ``nothanks figures`` runs (tables labelled ``ARM vs OPPONENTS``).
LEARNING_DESIGNS = ("learning", "learning-long", "learning-tom")
#: Arms of the learning-tom design whose moves are compared on shared deals.
DIVERGENCE_ARMS = (("learning-ToM1", "learning-ToM2"), ("ToM1", "ToM2"))


def learning_statistics(logs: dict[str, ex.Log]) -> dict[str, pd.DataFrame]:
    """The tables of every learning design (:func:`nothanks.analysis.learning.learning_tables`,
    named ``<design>_<table>``) and, for ``learning-tom``, how often ToM2's moves differ
    from ToM1's on shared deals (learned and shipped instance sets)."""
    stats: dict[str, pd.DataFrame] = {}
    for name, log in logs.items():
        trial = learning.trial_length(log.experiments)
        prefix = name.replace("-", "_")
        tables = learning.learning_tables(log.games, log.conditions, log.learning, trial)
        for key, table in tables.items():
            stats[f"{prefix}_{key.removeprefix('learning_')}"] = table.assign(
                source=an.data_source(log.games))
        if name == "learning-tom":
            rows = []
            arms = {learning.arm_and_panel(t): int(c)
                    for c, t in zip(log.conditions["condition"], log.conditions["table"],
                                    strict=True)}
            for panel in dict.fromkeys(p for _, p in arms):
                for a, b in DIVERGENCE_ARMS:
                    if (a, panel) in arms and (b, panel) in arms:
                        rows.append({"panel": panel, "lower": a, "higher": b,
                                     **learning.trial_divergence(
                                         log.decisions, arms[(a, panel)], arms[(b, panel)],
                                         trial)})
            stats["learning_tom_divergence"] = pd.DataFrame(rows).assign(
                source=an.data_source(log.games))
    return stats


def learning_figures(stats: dict[str, pd.DataFrame]) -> dict[str, Figure]:
    """The learning figures of the tables :func:`learning_statistics` made."""
    figures: dict[str, Figure] = {}
    for prefix, stem in (("learning", "extra_learning_curves"),
                         ("learning_long", "extra_learning_long_curves"),
                         ("learning_tom", "extra_learning_tom_curves")):
        if f"{prefix}_curves" in stats:
            figures[stem] = learning_curves(stats[f"{prefix}_curves"])
    states = stats.get("learning_states")
    if states is not None and (states["key"] == "utilities").any():
        utilities = states[(states["key"] == "utilities") & (states["arm"] == "utility")]
        figures["extra_learning_utilities"] = states_over_games_lines(utilities, "utility")
    return figures


def learning_results(stats: dict[str, pd.DataFrame]) -> str:
    """The results.md sections of the learning designs."""
    text = ""
    for prefix, title in (("learning", "Learning from experience: trials of 10 games"),
                          ("learning_long", "Learning over trials of 50 games"),
                          ("learning_tom", "learning-tom: ToM0 instances learned from "
                                           "opponents")):
        tables = {f"learning_{suffix}": stats[f"{prefix}_{suffix}"]
                  for suffix in ("curves", "slopes", "paired", "states", "final")
                  if f"{prefix}_{suffix}" in stats}
        text += learning.learning_markdown(tables or None, title)
    divergence = stats.get("learning_tom_divergence")
    if divergence is not None and len(divergence):
        text += ("\nDoes a learned instance set let ToM2 differ from ToM1? On shared deals, "
                 "trial by trial, up to the first differing move (before it both saw, and "
                 "learned, the same; cluster-bootstrap CIs over trials):\n\n"
                 "| opponents | lower | higher | trials | diverged | decisions | rate per "
                 "decision [95% CI] | first game |\n| --- | --- | --- | --- | --- | --- | --- "
                 "| --- |\n")
        for _, r in divergence.iterrows():
            text += (f"| {r['panel']} | {r['lower']} | {r['higher']} | {r['trials']} | "
                     f"{r['diverged_trials']} | {r['decisions_compared']} | "
                     f"{r['difference_rate']:.4f} [{r['ci_low']:.4f}, {r['ci_high']:.4f}] | "
                     f"{r['first_game'] + 1:.1f} |\n")
    return text


# ---------------------------------------------------------------------- write
@dataclass
class FigureReport:
    """What :func:`make_figures` wrote and how long its steps took."""

    out: Path
    files: list[Path]
    seconds: dict[str, float]


#: Folder of the shipped calibration studies (``nothanks calibrate`` output folders).
CALIBRATION = Path("data/calibration")
#: Folder of the placebo tables (``python -m nothanks.studies.placebo --summarize``).
PLACEBO = Path("data/placebo")


def make_figures(out: Path, cache: Path, *, participants: Path | None = None,
                 games: int | None = None, quick: bool = False, jobs: int | None = None,
                 progress: bool = True, command: str = "nothanks figures",
                 calibration: Path | None = CALIBRATION,
                 placebo: Path | None = PLACEBO, grader: str | None = None,
                 checkpoint: Path | None = None) -> FigureReport:
    """Run the whole pipeline; see the module docstring. ``command`` is quoted in the
    README as the command that made the files; the held-out checks of the calibration
    studies in ``calibration`` (if any) close ``results.md``; ``grader`` and
    ``checkpoint`` choose who grades move quality (:func:`grade_moves`)."""
    timer = _Timer()
    with timer("data"):
        data = load_logs(cache, participants=participants, games=games, quick=quick,
                         jobs=jobs, progress=progress)
    with timer("statistics"):
        stats = an.statistics(data.table7, data.figure14, data.participants, data.readings)
        if data.higher_orders is not None:
            stats["higher_orders"] = an.orders_table(data.higher_orders.games,
                                                     data.higher_orders.decisions)
        if data.instance_sets is not None:
            stats["instance_sets"] = instance_sets.instance_sets_table(
                data.instance_sets.games, data.instance_sets.decisions,
                data.instance_sets.conditions)
        if data.figure14_sets is not None:
            stats["rt_sweep_by_set"] = instance_sets.rt_sweep_by_set(data.figure14_sets,
                                                                     data.figure14)
        stats.update(learning_statistics(data.learning))
    with timer("move quality"):
        quality = grade_moves(data, cache, quick, grader=grader, checkpoint=checkpoint)
        for name, graded in quality.items():
            stats[f"quality_{name}"] = an.ev_loss_table(graded, "agent_label")
    with timer("figures"):
        figures = gallery.draw(
            stats, instances=ex.instance_table(), history=ex.token_memory_history(),
            history_title=f"Token memory of ToM2 (seat 0) against three ToM1, seed "
                          f"{ex.TRACE_SEED}")
        if "instance_sets" in stats:
            figures["extra_instance_sets"] = instance_set_dose_response(stats["instance_sets"])
        if "rt_sweep_by_set" in stats:
            figures["extra_fig14_instance_sets"] = rt_sweep_by_set_lines(
                stats["rt_sweep_by_set"])
        for name, graded in quality.items():
            figures.update({f"extra_quality_{name}_{stem.removeprefix('quality_')}": fig
                            for stem, fig in quality_figures(graded).items()})
        figures.update(learning_figures(stats))
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
                              + valid_tests_markdown(stats, placebo)
                              + instance_sets.instance_sets_markdown(
                                  stats.get("instance_sets"), stats.get("rt_sweep_by_set"))
                              + learning_results(stats)
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
#: Who grades the moves in ``make figures`` (``nothanks figures --grader`` overrides it):
#: IS-MCTS unless the self-play value network meets the bar set in advance, Spearman
#: >= 0.8 between the two graders' EV losses on a held-out sample
#: (``benchmarks/grader_agreement.py``; docs/alphazero.md, "Fast grader").
QUALITY_GRADER = "ismcts"


def grade_moves(data: FigureLogs, cache: Path, quick: bool = False, *,
                grader: str | None = None, checkpoint: Path | None = None
                ) -> dict[str, pd.DataFrame]:
    """Move quality (EV of take and pass by information-set MCTS, or by a self-play value
    network with ``grader="network"``; default :data:`QUALITY_GRADER`) of a Table 7 sample
    and of every participant decision; estimates are cached per decision in
    ``cache/move-quality``, so a rebuild grades only new decisions."""
    budget = {"iterations": QUICK_QUALITY if quick else QUALITY_ITERATIONS, "seed": 0,
              "cache": cache / "move-quality", "grader": grader or QUALITY_GRADER,
              "checkpoint": checkpoint}
    graded = {"table7": move_quality(data.table7, games=2 if quick else
                                        QUALITY_TABLE7_GAMES, **budget)}
    if data.participants is not None:
        graded["participants"] = move_quality(data.participants,
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
            "given. **Sign of t**: every t is the first-named side minus the second, as in "
            "the thesis: lower order (or the opponents, or parity 1.5) minus higher order "
            "(or the focal model), so t < 0 when the higher-order or focal model scores "
            "more; in the participants' paired tests (participants' rank points against "
            "the first-named order minus against the second) t > 0 when participants "
            "score less against the higher order. **Flags** come only from tests whose "
            "false-positive rate on tables of identical players is about 5% (section "
            "\"Valid tests\" below): the focal model against parity 1.5 (one value per "
            "game) and paired tests on shared deals; `higher`/`lower` say how the "
            "higher-order model scored (Holm-corrected within each comparison: every "
            "flagged variant of one comparison is one family) or `n.s.`; `identical "
            "play` marks a comparison whose two sides made the same moves on every shared "
            "deal (no test is informative there). The thesis's Welch test (the opponents' "
            "3 rows per game against the focal model's 1; with n games its df is about "
            "1.7n: ~855 at the thesis's 500, ~3,500 at our 2,000) rejects a true null "
            "about 9% of the time at 5%: it is reported as \"thesis's test: no flag\", "
            "and at the thesis's size (blocks of 500 of our deals), never as a t from "
            "2,000 games beside the thesis's t from 500; the per-game-mean Welch reading "
            "over-rejects too. Shares of independent games carry 95% Wilson intervals; "
            "shares and means of participants' games or decisions are clustered by "
            "participant, of decisions and recalls within games by game (cluster "
            "bootstrap); means of independent games carry 95% t-intervals. `source` says "
            "where each number comes from.\n\n" + markdown_table(results) + "\n")
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


def placebo_tables(folder: Path | None) -> list[tuple[dict, pd.DataFrame]]:
    """The placebo pools' settings and rates (``<name>.json`` and ``<name>.csv`` in
    ``folder``, written by ``python -m nothanks.studies.placebo --summarize``)."""
    import json
    if folder is None or not Path(folder).is_dir():
        return []
    out = []
    for meta_path in sorted(Path(folder).glob("*.json")):
        table = pd.read_csv(meta_path.with_suffix(".csv"))
        out.append((json.loads(meta_path.read_text()), placebo.placebo_rates(table)))
    return out


def valid_tests_markdown(stats: dict[str, pd.DataFrame], folder: Path | None = PLACEBO
                         ) -> str:
    """results.md's "Valid tests" section: the placebo rates of every test we report, the
    thesis's Welch tests corrected, the thesis's comparisons at comparable sizes, and
    Figure 14's RT scale."""
    text = ["", "## Valid tests", "",
            "**Placebo calibration.** Each test we report was run on tables of four "
            "identical players, one seat called focal, in sets of the thesis's size (500 "
            "games; the participant test: 30 players x 7 games per condition, the "
            "thesis's design): every rejection is a false positive. Rank points sum to 6 "
            "in every game, so the opponents' mean is (6 - focal)/3 and the thesis's "
            "Welch difference is (4/3)(1.5 - focal mean): with equal variances its "
            "standard error is understated by sqrt(4/3) and |t| inflated about 1.155x, "
            "which makes a nominal 5% test reject about 8.9% of the time. Rates with "
            "exact binomial 95% CIs; SD of t is 1 for a valid t; a test flags in the "
            "table above only if its rate is within [4%, 6%]. Regenerate: `python -m "
            "nothanks.studies.placebo` (module docstring), then `--summarize` into "
            "`data/placebo/`.", ""]
    pools = placebo_tables(folder)
    if not pools:
        text += ["(No placebo tables in `data/placebo/`.)", ""]
    for meta, rates in pools:
        replay = (f"; the paired-deals tests on the first {meta['replay_sets']} sets, "
                  "whose deals were replayed with other agent seeds"
                  if meta.get("replay_sets") else "")
        describe = (f"**{meta['spec']} x 4** (`{meta['spec']}` in every seat, seed "
                    f"{meta['seed']}): {meta['sets']} sets of {meta['set_games']} games "
                    f"({meta['games']:,} games){replay}. {meta.get('note', '')}".rstrip())
        text += [placebo.placebo_markdown(rates, describe), ""]
    text += ["**The thesis's Welch tests, corrected.** Each rows-Welch t(df) of §5.2.2 "
             "turned into the valid test of the same null on the same games (the focal "
             "model against parity, t(499)): the factor (3/4)sqrt(1 + r/3) at the "
             "opponents'/focal variance ratio r that the reported Welch df implies "
             "(`nothanks.analysis.placebo.corrected_welch`).", "",
             placebo.corrected_markdown(placebo.corrected_thesis_table()), ""]
    if "simulation_tests" in stats:
        text += ["**Comparable statistics.** The thesis's comparisons at its own sample "
                 "size: its t beside ours on disjoint blocks of 500 of our deals, and "
                 "effect sizes with 95% CIs (d = (focal mean - 1.5)/SD with the thesis's "
                 "sign, i.e. (1.5 - mean)/SD: negative when the focal model scores more; "
                 "the thesis's is implied by its corrected t, d = t/sqrt(500)).", "",
                 placebo.comparable_markdown(placebo.comparable_table(
                     stats["simulation_tests"], stats.get("thesis_size_tests"))), ""]
    text += ["**Figure 14's RT scale.** The thesis sweeps the token memory's retrieval "
             "threshold over about -15 ... -11 (§5.3, Fig. 14); we sweep -2.5 ... 0.5. "
             "Our token chunks' activations (base-level learning, decay 0.5, 2 s of "
             "simulated time per turn, noise 0.1) lie around -1 to -2, so recall fails "
             "between RT -2 and 0 (the token-recall rows above: exact recall from 100% at "
             "-2.5 to 0% at 0); the thesis does not state what puts its activations near "
             "-13. The two axes are different scales of the same mechanism: compare the "
             "shapes (flat, falling, dip-then-rise), not the RT values. The `trend` of "
             "each sweep row is a least-squares slope of the higher order's rank points "
             "(one value per game) on RT with its 95% t-interval.", ""]
    return "\n".join(text)


def _figure_notes(stats: dict[str, pd.DataFrame]) -> dict[str, str]:
    """Notes appended to figure captions: whether ToM2 made ToM1's moves, measured."""
    notes = {}
    moves = stats.get("shared_deal_moves")
    if moves is not None:
        for r in moves.to_dict("records"):
            if ((r["a"], r["b"], r["opponent"]) == ("ToM1", "ToM2", "ToM0")
                    and r["identical_deals"] == r["deals"]):
                notes["fig12_tom2_vs_tom0"] = (
                    f" ToM2 made ToM1's moves on {r['deals']} of {r['deals']} shared "
                    "deals under the shipped monotone instance set: this figure "
                    "repeats Figure 11.")
    readings = stats.get("readings")
    if readings is not None and (readings["reading"] == "default").any():
        r = readings.set_index("reading").loc["default"]
        if r["tom2_differs"] == 0:
            notes["fig13_tom2_vs_tom1"] = (
                f" ToM2's move never differed from ToM1's ({int(r['tom2_decisions_compared'])}"
                " decisions compared on shared deals, readings design) under the shipped "
                "monotone instance set: this is a table of identical players.")
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
        "instances": "`nothanks/agents/cognitive/data/monotone.csv`, the default instance "
                     "set (the models' loader)",
        "instance-sets": f"design `instance-sets`, `{data.sources.get('instance-sets')}`",
        "figure14-instance-sets": "designs `figure14-instance-sets` and `figure14`, "
                                  f"`{data.sources.get('figure14-instance-sets')}`",
        **{name: f"design `{name}` ({_games(log)} games), `{data.sources.get(name)}`"
           for name, log in data.learning.items()},
        "one game": f"one game played in the pipeline (`{','.join(ex.TRACE_PLAYERS)}`, "
                    f"seed {ex.TRACE_SEED})",
    }
    sources = _figure_sources(stats)
    notes = _figure_notes(stats)
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
                     f"{spec.thesis} | {spec.caption}{notes.get(spec.stem, '')} | "
                     f"{describe[spec.data]} | "
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
              "figure14": "rt_sweep", "higher-orders": "higher_orders",
              "instance-sets": "instance_sets", "figure14-instance-sets": "rt_sweep_by_set",
              "learning": "learning_slopes", "learning-long": "learning_long_slopes",
              "learning-tom": "learning_tom_slopes"}
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
