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
from ..analysis import placebo  # noqa: E402
from ..analysis.frames import markdown_table  # noqa: E402
from ..analysis.placebo import placebo_judgement as judge_placebo  # noqa: E402
from ..experiments.schema import TABLES, arrow_schema, read_table, to_pandas  # noqa: E402
from ..figures import gallery  # noqa: E402


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


def load_thesis_log(directory: Path, columns: dict[str, tuple[str, ...] | None]
                    ) -> ex.Log:
    """A finished run as a :class:`~nothanks.experiments.Log` holding only ``columns``
    (:func:`finished_tables`); its other tables are empty, with their schema's columns."""
    tables = finished_tables(directory, columns)
    return ex.Log(**{name: tables[name] if name in tables
                     else to_pandas(arrow_schema(name).empty_table()) for name in TABLES})



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
    return FigureLogs(load_thesis_log(table7, THESIS_TABLES["table7"]),
                      load_thesis_log(figure14, THESIS_TABLES["figure14"]),
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
#: Folder of the placebo tables (``python -m nothanks.studies.placebo --summarize``).
PLACEBO = Path("data/placebo")


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
                            _results_markdown(results, placebo)
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


def _welch_rate(folder: Path | None) -> str:
    """The thesis's Welch test's placebo rate, as results.md's header quotes it."""
    rows = [(meta, rates) for meta, rates in placebo_tables(folder)
            if "rows_welch" in set(rates["test"])]
    if not rows:
        return "no placebo table"
    meta, rates = max(rows, key=lambda item: item[0]["sets"])
    r = rates[rates["test"] == "rows_welch"].iloc[0]
    return (f"{100 * r['rate']:.1f}% [{100 * r['ci_low']:.1f}%, {100 * r['ci_high']:.1f}%] "
            f"of {r['sets']:,} placebo sets of {meta['spec']} x 4, \"Valid tests\"")


def _results_markdown(results: pd.DataFrame, placebo_folder: Path | None = PLACEBO) -> str:
    banner = an.results_banner(results)
    text = ("# Results beside the thesis\n\n" + (banner + "\n" if banner else "") +
            "Generated by `nothanks figures`; thesis values are quoted from the section "
            "given. **Sign of t**: every t is the first-named side minus the second, as in "
            "the thesis: lower order (or the opponents, or parity 1.5) minus higher order "
            "(or the focal model), so t < 0 when the higher-order or focal model scores "
            "more; in the participants' paired tests (participants' rank points against "
            "the first-named order minus against the second) t > 0 when participants "
            "score less against the higher order. **Flags** come only from tests whose "
            "false-positive rate on a placebo (identical players) is not above 5%: its "
            "Wilson 95% interval does not lie above 5% (section \"Valid tests\" below; "
            "the builds apply this rule from `data/placebo/`): the focal model against "
            "parity 1.5 (one value per game) and paired tests on shared deals (their "
            "placebo: two arms that differ only in the focal seat's noise key); "
            "`higher`/`lower` say how the "
            "higher-order model scored (Holm-corrected within each comparison: every "
            "flagged variant of one comparison is one family) or `n.s.`; `identical "
            "play` marks a comparison whose two sides made the same moves on every shared "
            "deal (no test is informative there). The thesis's Welch test (the opponents' "
            "3 rows per game against the focal model's 1; with n games its df is about "
            "1.7n: ~855 at the thesis's 500, ~3,500 at our 2,000) rejects a true null "
            f"more often than 5% at 5% ({_welch_rate(placebo_folder)}; 8.9% in theory): "
            "it is reported as \"thesis's test: no flag\", "
            "and at the thesis's size (blocks of 500 of our deals), never as a t from "
            "2,000 games beside the thesis's t from 500; the per-game-mean Welch reading "
            "over-rejects too. Shares of independent games carry 95% Wilson intervals; "
            "shares and means of participants' games or decisions are clustered by "
            "participant, of decisions and recalls within games by game (cluster "
            "bootstrap); means of independent games carry 95% t-intervals. `source` says "
            "where each number comes from.\n\n" + markdown_table(results) + "\n")
    return text


def placebo_tables(folder: Path | None) -> list[tuple[dict, pd.DataFrame]]:
    """The placebo pools' settings and rates (``<name>.json`` and ``<name>.csv`` in
    ``folder``, written by ``python -m nothanks.studies.placebo --summarize``)."""
    import json
    if folder is None or not Path(folder).is_dir():
        return []
    out = []
    for meta_path in sorted(Path(folder).glob("*.json")):
        if meta_path.stem == "paired_deals":  # the paired-deals placebo's own section
            continue
        table = pd.read_csv(meta_path.with_suffix(".csv"))
        out.append((json.loads(meta_path.read_text()), placebo.placebo_rates(table)))
    return out


def paired_placebo_section(folder: Path | None) -> list[str]:
    """The paired-deals test's placebo in the case it is used in (lines of Markdown;
    none without ``paired_deals_rates.csv`` in ``folder``)."""
    import json
    if folder is None or not (Path(folder) / "paired_deals_rates.csv").is_file():
        return []
    rates = pd.read_csv(Path(folder) / "paired_deals_rates.csv")
    meta = json.loads((Path(folder) / "paired_deals.json").read_text())
    models = "; ".join(f"`{name}`: {m['spec']} against 3 x {m['opponents']}, "
                       f"{m['paired_deals']:,} paired deals, the arms' focal rank points "
                       f"correlated {m['arms_correlation']:.2f}"
                       for name, m in meta["models"].items())
    return ["**The paired-deals test, as used.** The instance-set comparisons (and our "
            "`paired t ... (shared deals)` rows) put two arms on the same deals with the "
            "same other seats, which differ only where the focal model's moves differ. Its "
            "placebo has that shape: both arms are the same focal model, on the same deals "
            "and seating with every other seat's noise key shared, and differ only in the "
            "focal seat's noise key (seed "
            f"{meta['seed']}; {models}). A set of `deals` deals has `differing` of them "
            "played with another focal key; on the rest both arms play alike (difference "
            "exactly 0), as where the instance-set arms agree (they part on 0.4% to 42% "
            "of their 2,000 deals). Every set's paired t and Wilcoxon test at 5%; rates "
            "with Wilson 95% CIs; a set whose differences are all 0 has no test and "
            "counts as no rejection." + (f" {meta['note']}" if meta.get("note") else ""),
            "", placebo.paired_placebo_markdown(rates), ""]


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
            "Wilson 95% CIs; SD of t is 1 for a valid t. A test whose interval lies "
            "above 5% gives no flags, in the code (`nothanks.analysis.placebo.may_flag`, "
            "read by the builds from `data/placebo/`); with 1,000 sets or more a test is "
            "also called fit when its rate is within [4%, 6%]. Regenerate: `python -m "
            "nothanks.studies.placebo --plan --out data/cache/placebo` (resumable), then "
            "`--summarize` and `--summarize-paired` into `data/placebo/` (module "
            "docstring).", ""]
    pools = placebo_tables(folder)
    if not pools:
        text += ["(No placebo tables in `data/placebo/`.)", ""]
    for meta, rates in pools:
        describe = (f"**{meta['spec']} x 4** (`{meta['spec']}` in every seat, seed "
                    f"{meta['seed']}): {meta['sets']} sets of {meta['set_games']} games "
                    f"({meta['games']:,} games). {meta.get('note', '')}".rstrip())
        text += [placebo.placebo_markdown(rates, describe), ""]
    text += paired_placebo_section(folder)
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
             "between RT -2 and 0 (the token-recall rows above: leaf recall from 100% at "
             "-2.5 to 0% at 0); the thesis does not state what puts its activations near "
             "-13. The two axes are different scales of the same mechanism: compare the "
             "shapes (flat, falling, dip-then-rise), not the RT values. The `trend` of "
             "each sweep row is a least-squares slope of the higher order's rank points "
             "(one value per game) on RT with its 95% t-interval.", ""]
    return "\n".join(text)



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
           "FigureLogs", "FigureReport", "FigureSpec", "Timer", "finished_tables",
           "load_logs", "load_thesis_log", "make_figures", "markdown_table", "readme_text",
           "valid_tests_markdown", "write_set"]
