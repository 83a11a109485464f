"""The make-figures pipeline: data -> statistics -> figures, tables, README, results table.

``build(out, cache)`` runs the thesis's simulation designs (``table7``, ``figure14``) into
``cache`` unless their logs are already there (runs resume; a design's directory is named
by its hash, so ``--games`` never mixes with full runs), reads the participant sessions
(default ``data/synthetic``; generated into the cache when absent), computes every
statistic of :mod:`nothanks.analysis`, and writes into ``out``: each figure as PNG and PDF,
each statistics table as CSV, ``results.md`` (ours beside the thesis's numbers) and
``README.md`` (what each file is, which thesis figure, which data, which command).
"""
from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # the pipeline never opens windows (set before pyplot loads anywhere)

import pandas as pd
from matplotlib.figure import Figure

from .. import analysis as an
from ..analysis.thesis import THESIS
from . import plots

#: Default folder of participant sessions (the synthetic set shipped with the repository).
PARTICIPANTS = Path("data/synthetic")
#: ``--quick`` mode (tests, CI): games per condition, synthetic participants, and how many
#: of a sweep's values are kept (the first, the middle and the last).
QUICK_GAMES, QUICK_PARTICIPANTS, QUICK_SWEEP_VALUES = 4, 3, 3
#: Seed of the single game whose token memory the trace figure shows.
TRACE_SEED = 11


@dataclass(frozen=True)
class FigureSpec:
    """One output figure: file stem, the thesis figure it redraws, what data it uses."""

    stem: str
    thesis: str
    caption: str
    data: str


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
               f"{TRACE_SEED}): leaf/root activations, threshold, wrong recalls.", "one game"),
)
#: The focal designs of Figures 11-13, by (focal label, opponent label).
SIMULATION_FIGURES = {("ToM1", "ToM0"): "fig11_tom1_vs_tom0",
                      ("ToM2", "ToM0"): "fig12_tom2_vs_tom0",
                      ("ToM2", "ToM1"): "fig13_tom2_vs_tom1"}


@dataclass
class Data:
    """The logs the statistics are computed from, and where they came from."""

    table7: object  # nothanks.experiments.Log
    figure14: object
    participants: object | None
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


# ------------------------------------------------------------------------ data
def ensure_design(name: str, cache: Path, games: int | None, jobs: int | None,
                  progress: bool, quick: bool = False) -> Path:
    """The experiment directory of a shipped design in ``cache``, run (or resumed) if needed.

    ``games`` overrides the games per condition; ``quick`` also thins every sweep to
    three values. Either changes the design's hash, hence its directory.
    """
    from ..experiments import load_design, run_design
    design = load_design(name)
    if games is not None:
        design = design.with_options(games=games)
    if quick and design.sweeps:
        design = design.with_options(sweeps=tuple(
            replace(s, values=_spread(s.values, QUICK_SWEEP_VALUES)) for s in design.sweeps))
    directory = cache / f"{design.name}-{design.hash}"
    complete = _complete(directory)
    if not complete:
        run_design(design, directory, jobs=jobs, progress=progress)
    return directory


def _complete(directory: Path, sessions: int | None = None) -> bool:
    """Whether ``directory`` holds finished (compacted) logs — ``sessions`` of them if given."""
    from ..experiments.log import LogError, experiment_dirs, read_manifest
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


def ensure_participants(path: Path | None, cache: Path, quick: bool) -> Path | None:
    """The folder of participant sessions to analyse.

    ``path`` if given; else the shipped set ``data/synthetic`` (in ``--quick`` mode a
    folder in the cache linking its first few sessions); else a synthetic set generated
    into the cache (resumable); ``None`` when the experiments layer cannot make one.
    """
    if path is not None:
        if not path.exists():
            raise FileNotFoundError(f"participant folder {path} does not exist")
        return path
    count = QUICK_PARTICIPANTS if quick else 30
    if PARTICIPANTS.exists() and _complete(PARTICIPANTS):
        if not quick:
            return PARTICIPANTS
        sessions = sorted(p for p in PARTICIPANTS.iterdir() if (p / "manifest.json").exists())
        target = cache / f"participants-first-{count}"
        target.mkdir(parents=True, exist_ok=True)
        for session in sessions[:count]:
            link = target / session.name
            if not link.exists():
                link.symlink_to(session.resolve(), target_is_directory=True)
        return target
    try:
        from ..experiments.synthetic import generate
    except ModuleNotFoundError:
        return None
    target = cache / f"synthetic-{count}"
    if not _complete(target, count):
        list(generate(target, count))  # resumes: finished sessions are skipped
    return target


def load_data(cache: Path, *, participants: Path | None = None, games: int | None = None,
              quick: bool = False, jobs: int | None = None, progress: bool = True) -> Data:
    """Run what is missing and load the three logs."""
    games = QUICK_GAMES if quick and games is None else games
    if participants is not None and not participants.exists():  # fail before simulating
        raise FileNotFoundError(f"participant folder {participants} does not exist")
    cache.mkdir(parents=True, exist_ok=True)
    table7 = ensure_design("table7", cache, games, jobs, progress, quick)
    figure14 = ensure_design("figure14", cache, games, jobs, progress, quick)
    people = ensure_participants(participants, cache, quick)
    sources = {"table7": str(table7), "figure14": str(figure14)}
    if people is not None:
        sources["participants"] = str(people)
    return Data(_load(table7), _load(figure14), _load(people) if people else None, sources)


def _load(directory: Path):
    """Load a log; a cached one the current schema rejects needs re-simulating."""
    from ..experiments import LogError, load
    try:
        return load(directory)
    except LogError as exc:
        raise LogError(f"{exc}\n(if this is an old cached run, delete {directory} and run "
                       "nothanks figures again to re-simulate it)") from exc


# ------------------------------------------------------------------ statistics
def default_rt(spec: str) -> float | None:
    """The model's default retrieval threshold for specs that do not set ``rt``."""
    from ..agents import agent_parameters, parse_spec
    try:
        return float(agent_parameters(parse_spec(spec).name)["rt"])
    except Exception:  # noqa: BLE001 - a baseline agent has no threshold
        return None


def with_rt(log) -> pd.DataFrame:
    """The log's games with the swept ``rt`` of their condition."""
    sweep = log.sweep()
    if "rt" not in sweep.columns:
        raise an.AnalysisInputError("figure14 log: its conditions sweep no 'rt'")
    key = ["experiment", "design_hash", "condition"]
    return log.games.merge(sweep[key + ["rt"]], on=key, how="left")


def statistics(data: Data) -> dict[str, pd.DataFrame]:
    """Every statistic of the issue, as named tables."""
    out: dict[str, pd.DataFrame] = {}
    games7 = data.table7.games
    focal7 = an.focal_rows(games7)
    out["simulation_rank_shares"] = pd.concat(
        [an.rank_shares(part).assign(focal_label=label)
         for label, part in focal7.groupby("focal_label")], ignore_index=True)
    welch = [an.welch_rank_points(games7, sample) for sample in an.WELCH_SAMPLES]
    parity = an.parity_test(focal7).rename(columns={"agent": "b_spec", "opponent": "a_spec"})
    parity["a"], parity["b"] = "parity", parity["b_spec"].map(an.agent_label)
    out["simulation_tests"] = pd.concat([*welch, parity], ignore_index=True)
    games14 = with_rt(data.figure14)
    out["rt_sweep"] = an.rt_sweep(games14, default=default_rt)
    recalls = data.figure14.recalls
    if len(recalls):
        rt_of = games14.drop_duplicates(["game_id"]).set_index("game_id")["rt"]
        recalls = recalls.assign(model=recalls["agent"].astype(str).map(an.agent_label),
                                 rt=recalls["game_id"].map(rt_of))
        out["token_recalls"] = an.recall_summary(recalls, by=("model", "rt"))
    if data.participants is not None:
        out.update(participant_statistics(data.participants))
    return out


def participant_statistics(log) -> dict[str, pd.DataFrame]:
    """Figures 8-10, the paired tests, the mixed model and the feedback statistics."""
    out: dict[str, pd.DataFrame] = {}
    focal = an.focal_rows(log.games)
    played = an.participant_games(focal)
    out["participant_rank_shares"] = an.rank_shares(played)
    means = an.participant_means(focal)
    out["participant_means"] = means
    out["participant_tests"] = an.paired_tests(means)
    out["participant_mixed_model"] = an.participant_mixed_model(focal)
    decisions = _without_practice(log.decisions)
    predictions = log.predictions.merge(
        decisions[["participant", "game_id"]].drop_duplicates(), on=["participant", "game_id"])
    out["prediction_accuracy"] = an.prediction_accuracy(
        an.predictions_about(predictions, log.games, "human"))
    human = decisions[decisions["player_kind"] == "human"]
    out["participant_actions"] = pd.DataFrame([{
        "decisions": len(human), "pass_share": float((human["action"] == "pass").mean())}])
    marked = decisions[decisions["marked_bad"].notna()]
    if len(marked):
        out["bad_moves"] = an.bad_move_shares(marked)
        out["feedback_concentration"] = an.feedback_concentration(
            decisions.assign(marked_bad=decisions["marked_bad"].fillna(False)))
    return out


def _without_practice(frame: pd.DataFrame) -> pd.DataFrame:
    return frame[~frame["practice"].fillna(False).astype(bool)]


# -------------------------------------------------------------------- figures
def draw(stats: dict[str, pd.DataFrame], data: Data) -> dict[str, Figure]:
    """Every figure the data allow, by file stem."""
    figures: dict[str, Figure] = {}
    if "participant_rank_shares" in stats:
        figures["fig08_participant_places"] = plots.proportional_ranking(
            stats["participant_rank_shares"], "Participants' places against each model order")
        figures["fig09_participant_means"] = plots.participant_boxplots(
            stats["participant_means"])
        figures["fig10_prediction_accuracy"] = plots.prediction_accuracy_bars(
            stats["prediction_accuracy"])
    shares = stats["simulation_rank_shares"]
    for (focal, opponent), stem in SIMULATION_FIGURES.items():
        part = shares[(shares["focal_label"] == focal) & (shares["opponent_label"] == opponent)]
        if len(part):
            games = int(part["games"].iloc[0])
            figures[stem] = plots.proportional_ranking(
                part, f"One {focal} against three {opponent} ({games} games)", focal=focal)
    figures["fig14_rt_sweep"] = plots.rt_sweep_lines(stats["rt_sweep"])
    figures["extra_instance_map"] = plots.instance_map(instance_frame())
    figures["extra_token_memory"] = plots.token_memory_trace(
        token_memory_history(), f"Token memory of ToM2 (seat 0) against three ToM1, seed "
                                f"{TRACE_SEED}")
    return figures


def instance_frame() -> pd.DataFrame:
    """The shipped ToM0 instance set as a table (the models' own loader)."""
    from ..agents.cognitive import load_instances
    return pd.DataFrame([i.slots() for i in load_instances().instances])


def token_memory_history() -> pd.DataFrame:
    """The token-memory history of a ToM2 model over one game against three ToM1."""
    from ..agents import make_agent
    from ..runner import play_game
    agents = [make_agent(spec) for spec in ("tom2", "tom1", "tom1", "tom1")]
    play_game(agents, seed=TRACE_SEED, record=False)
    return agents[0].token_memory.history_frame()


# ------------------------------------------------------------- results table
def _t(row: pd.Series) -> str:
    df = f"{row['df']:.0f}" if float(row["df"]).is_integer() else f"{row['df']:.1f}"
    return (f"t({df}) = {row['t']:.2f}, {_p(row['p'])}; {row['effect']} = "
            f"{row['effect_size']:.2f}, 95% CI of difference [{row['ci_low']:.2f}, "
            f"{row['ci_high']:.2f}]")


def _p(p: float) -> str:
    return "p < 0.001" if p < 0.001 else f"p = {p:.3f}"


def _pct(value: float) -> str:
    return f"{100 * value:.1f}%"


def results_rows(stats: dict[str, pd.DataFrame]) -> list[tuple[str, str]]:
    """(statistic key as in THESIS or a new name, our value) for every statistic."""
    rows: list[tuple[str, str]] = []
    places = {1: "1st", 2: "2nd", 3: "3rd", 4: "4th"}
    if "participant_rank_shares" in stats:
        shares = stats["participant_rank_shares"]
        for r in shares.itertuples():
            rows.append((f"participants {places[r.rank]} vs {r.opponent_label}",
                         f"{_pct(r.share)} of {r.games} games"))
        for r in stats["participant_tests"].to_dict("records"):
            rows.append((f"paired t {r['a']} vs {r['b']}", _t(pd.Series(r))))
        mixed = stats["participant_mixed_model"]
        for r in mixed.to_dict("records"):
            if r["term"] == "participant variance":
                rows.append(("mixed model: participant variance", f"{r['coef']:.3f}"))
            else:
                rows.append((f"mixed model: {r['term']}",
                             (f"{r['coef']:.3f} (SE {r['se']:.3f}, z = {r['z']:.2f}, "
                             f"{_p(r['p'])}, 95% CI [{r['ci_low']:.2f}, {r['ci_high']:.2f}])")))
        for r in stats["prediction_accuracy"].itertuples():
            rows.append((f"accuracy {r.model} {r.actual}",
                         f"{_pct(r.accuracy)} [{_pct(r.ci_low)}, {_pct(r.ci_high)}] of {r.n}"))
        actions = stats["participant_actions"].iloc[0]
        rows.append(("participants' pass share",
                     f"{_pct(actions['pass_share'])} of {int(actions['decisions'])}"))
        if "bad_moves" in stats:
            for r in stats["bad_moves"].itertuples():
                rows.append((f"marked bad {r.model}",  # two decimals, as the thesis
                             f"{100 * r.share:.2f}% ({r.marked} of {r.actions} actions)"))
            c = stats["feedback_concentration"].iloc[0]
            rows.append(("marks from the top 10% of participants",
                         (f"{_pct(c['top_share'])} ({int(c['top_participants'])} of "
                         f"{int(c['participants'])} participants, {int(c['marks'])} marks)")))
            rows.append(("participants with < 10 marks", _pct(c["few_share"])))
    tests = stats["simulation_tests"]
    for r in tests.to_dict("records"):
        kind = r["test"]
        if kind == "Welch t (rows)":
            name = f"Welch t {r['a']} vs {r['b']}"
        elif kind == "Welch t (game_mean)":
            name = f"Welch t {r['a']} (per-game mean) vs {r['b']}"
        else:
            name = f"{r['b']} vs parity 1.5 (vs {an.agent_label(r['a_spec'])})"
        rows.append((name, f"{_t(pd.Series(r))}; n = {r['n_a']} vs {r['n_b']}"
                     if kind.startswith("Welch") else f"{_t(pd.Series(r))}; n = {r['n_b']}"))
    shares = stats["simulation_rank_shares"]
    for r in shares[shares["rank"] == 1].itertuples():
        rows.append((f"{r.focal_label} 1st vs {r.opponent_label}",
                     f"{_pct(r.share)} of {r.games} games"))
    sweep = stats["rt_sweep"]
    for (higher, lower), part in sweep.groupby(["higher", "lower"]):
        values = ", ".join(f"{rt:g}: {m:.2f}{'' if p < 0.05 else ' (n.s.)'}"
                           for rt, m, p in zip(part["rt"], part["mean"], part["p"], strict=True))
        rows.append((f"rt sweep {higher} vs {lower}", f"mean rank points by RT — {values}"))
    if "token_recalls" in stats:
        recalls = stats["token_recalls"]
        for (model, rt), part in recalls.groupby(["model", "rt"]):
            by = part.set_index("source")
            shares_text = ", ".join(f"{s} {_pct(by.loc[s, 'share'])}"
                                    for s in ("leaf", "root", "none") if s in by.index)
            rows.append((f"token recall {model} RT {rt:g}",
                         f"{shares_text}; mean |error| {by.loc['all', 'mean_abs_error']:.2f}"))
    return rows


def results_table(stats: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Ours beside the thesis's value (with its section) for every statistic."""
    ours = dict(results_rows(stats))
    keys = list(ours) + [k for k in THESIS if k not in ours]  # ours in section order
    return pd.DataFrame([{
        "statistic": key, "thesis": THESIS.get(key, ("—", ""))[0],
        "where": THESIS.get(key, ("", "—"))[1], "ours": ours.get(key, "not computed"),
    } for key in keys])


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
class BuildReport:
    """What a build wrote and how long its steps took."""

    out: Path
    files: list[Path]
    seconds: dict[str, float]


def build(out: Path, cache: Path, *, participants: Path | None = None,
          games: int | None = None, quick: bool = False, jobs: int | None = None,
          progress: bool = True, command: str = "nothanks figures") -> BuildReport:
    """Run the whole pipeline; see the module docstring. ``command`` is quoted in the
    README as the command that made the files."""
    timer = _Timer()
    with timer("data"):
        data = load_data(cache, participants=participants, games=games, quick=quick,
                         jobs=jobs, progress=progress)
    with timer("statistics"):
        stats = statistics(data)
    with timer("figures"):
        figures = draw(stats, data)
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
        results = results_table(stats)
        results_md = out / "results.md"
        results_md.write_text(_results_markdown(results))
        written.append(results_md)
        readme = out / "README.md"
        readme.write_text(_readme(figures, stats, results, data, command))
        written.append(readme)
    return BuildReport(out, written, timer.seconds)


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
            results: pd.DataFrame, data: Data, command: str) -> str:
    describe = {
        "table7": f"design `table7` ({_games(data.table7)} games), `{data.sources['table7']}`",
        "figure14": f"design `figure14` ({_games(data.figure14)} games), "
                    f"`{data.sources['figure14']}`",
        "participants": (f"participant sessions in `{data.sources.get('participants')}` "
                         f"({_participants(data.participants)})"),
        "instances": "`nothanks/agents/cognitive/data/instances.csv` (the models' loader)",
        "one game": f"one game played in the pipeline (`tom2,tom1,tom1,tom1`, seed {TRACE_SEED})",
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


def _games(log) -> int:
    return int(log.games["game_id"].nunique())


def _participants(log) -> str:
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


__all__ = ["FIGURES", "BuildReport", "Data", "build", "draw", "load_data", "results_table",
           "statistics"]
