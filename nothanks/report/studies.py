"""``nothanks studies`` (``make studies``): everything beyond the thesis figures.

Each study (:data:`STUDIES`) makes sure its designs have logs in the cache
(:func:`nothanks.experiments.ensure_design`: run or resumed once, locally or on a Dask
cluster, then reused), computes its statistics, draws its figures and writes them into
its own folder ``out/<study>`` (figures as PNG and PDF, ``tables/*.csv``, ``results.md``
and ``README.md``), replaced whole when the study is done, so studies can be built one
at a time and a stopped build keeps the studies it finished; ``out/README.md`` lists
the studies present. The thesis figures are :func:`nothanks.report.make_figures`.

Move quality grades a seeded random sample of :data:`QUALITY_SAMPLE` free decisions per
player type (``grade="sample"``) or every decision (``grade="all"``), caching every
estimate in ``cache/move-quality`` (:func:`nothanks.studies.move_quality.move_quality`).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
from matplotlib.figure import Figure

from .. import analysis as an
from .. import experiments as ex
from ..analysis import instance_sets
from ..analysis.frames import markdown_table
from ..analysis.learning import learning_statistics
from ..analysis.placebo import placebo_judgement
from ..experiments.cache import load_finished_log
from ..figures import plots
from ..figures.instance_sets import instance_set_dose_response, rt_sweep_by_set_lines
from ..figures.learning import learning_curves, states_over_games_lines
from ..figures.orders import advantage_by_order
from ..figures.quality import quality_figures
from ..outputs import replacing
from ..studies.calibration import report_markdown
from ..studies.logs import load_instance_sets, load_orders, load_readings
from ..studies.move_quality import grade_moves
from ..studies.writing import learning_results, quality_markdown
from . import (
    CALIBRATION,
    PLACEBO,
    FigureReport,
    FigureSpec,
    Timer,
    readme_text,
    write_set,
)

#: Every figure the studies draw, in their READMEs' order.
STUDY_FIGURES = (
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
               "points given up, by information-set MCTS) per agent type, 95% CIs; a seeded "
               "sample of free decisions per agent type (results.md says how many).",
               "table7"),
    FigureSpec("extra_quality_table7_skip_to_collect", "(new; thesis §3.3)",
               "Skip-to-collect passes of ToM1/ToM2 (passes where their own ToM0 said take): "
               "how often the pass was valued at least as high as the take.", "table7"),
    FigureSpec("extra_quality_participants_ev_loss", "(new; thesis Figure 7)",
               "Move quality in the participant sessions: EV loss per player type (a seeded "
               "sample of free decisions per player type, as results.md says).",
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
    FigureSpec("extra_fits_estimates", "(new)",
               "Each participant's maximum-likelihood s (ToM0, ToM1) and rt (ToM1) with 95% "
               "bootstrap intervals over games (docs/fitting.md).", "participants"),
    FigureSpec("extra_fits_vs_data", "(new)",
               "Each participant's take share by the card's net cost beside the fitted "
               "ToM1's mean P(take).", "participants"),
    FigureSpec("extra_token_memory", "(new; thesis §3.4.2)",
               f"One ToM2 model's token memory over one game against three ToM1 (seed "
               f"{ex.TRACE_SEED}): leaf/root activations, threshold, wrong recalls.", "one game"),
)


#: The designs of the learning study (tables labelled ``ARM vs OPPONENTS``).
LEARNING_DESIGNS = ("learning", "learning-long", "learning-tom")


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


#: The readings study's README notes.
READINGS_NOTES = """\
- **Readings** (`tables/readings.csv`): per reading, ToM1 vs 3 x ToM0 and ToM2 vs 3 x
  ToM1: win share of the focal model, and its margin = rank points minus the opponents'
  mean per deal (paired t CI), also against the default reading on the same deals. How
  often ToM2's move differs from ToM1's: the focal players of ToM2 vs 3 x ToM1 and of the
  control ToM1 vs 3 x ToM1 see the same states until their first differing decision, so
  the per-decision rate = diverging deals / decisions compared up to and including the
  first divergence (95% CI clustered by deal). Recall accuracy: share of exact recalls,
  and share of leaf recalls in which an older leaf beat the newest.
"""
#: The higher-orders study's README notes.
HIGHER_ORDERS_NOTES = """\
- **Higher orders** (`tables/higher_orders.csv`, design `higher-orders`): per table,
  the focal ToM-k's share of first places (Wilson CI), its rank points minus its
  opponents' mean per deal (paired t CI), its gain over ToM-(k-1) against the same
  opponents on the same deals (paired t CI), and how often its move differs from
  ToM-(k-1)'s: k = 1 against the model's own ToM0 retrieval at every decision; k >= 2
  from ToM-k and ToM-(k-1) against three ToM0 on the same deals, up to the first
  divergence (both with 95% CIs clustered by deal).
"""


# ------------------------------------------------------------------ the studies
@dataclass
class StudyInputs:
    """What a study's builder reads: the experiment directory of each of its designs,
    the participant sessions (if it reads them) and the build's options."""

    logs: dict[str, Path]
    participants: Path | None
    cache: Path
    quick: bool = False
    grade: str = "sample"
    grader: str | None = None
    checkpoint: Path | None = None
    jobs: int | None = None
    calibration: Path | None = CALIBRATION


@dataclass
class StudyOutput:
    """What a study writes: statistics tables, figures by file stem, results.md text."""

    stats: dict[str, pd.DataFrame]
    figures: dict[str, Figure]
    markdown: str


@dataclass(frozen=True)
class Study:
    """One study of ``nothanks studies``: its designs, whether it reads the participant
    sessions, how it is built, and the notes its README states."""

    name: str
    title: str
    designs: tuple[str, ...]
    build: Callable[[StudyInputs], StudyOutput]
    participants: bool = False
    notes: str = ""


def _readings(inputs: StudyInputs) -> StudyOutput:
    table = an.readings_table(load_readings(inputs.logs["readings"]))
    text = ("\n## Readings\n\nEach open reading of the thesis alone "
            "(docs/models.md, \"Readings\"; design `readings`), every table on the same "
            "deals. Margin: the focal model's rank points minus its opponents' mean, per "
            "deal (95% t CI; > 0 favours the focal model); vs default: the margin minus "
            "the default reading's on the same deals. \"ToM2 move differs\": the "
            "per-decision rate at which ToM2's move differs from ToM1's (ToM2 vs 3 x ToM1 "
            "against the control ToM1 vs 3 x ToM1 on the same deals: diverging deals / "
            "decisions compared up to and including the first divergence). Shares with "
            "95% Wilson intervals.\n\n"
            + markdown_table(an.readings_rows(table)) + "\n\n"
            + an.readings_conclusion(table) + "\n")
    return StudyOutput({"readings": table}, {}, text)


def _higher_orders(inputs: StudyInputs) -> StudyOutput:
    orders = load_orders(inputs.logs["higher-orders"])
    table = an.orders_table(orders.games, orders.decisions)
    text = ("\n## Higher orders\n\nOne ToM-k (k = 1-5) against three ToM-(k-1) and "
            "against three ToM0 (design `higher-orders`), every table on the same "
            "deals. Advantage: the focal model's rank points minus its opponents' mean, "
            "per deal (95% paired t CI); gain over ToM(k-1): ToM-k's rank points minus "
            "ToM-(k-1)'s against the same opponents on the same deals; move differs: "
            "ToM1 against its own ToM0 retrieval, ToM-k (k >= 2) against ToM-(k-1) "
            "facing three ToM0 on the same deals, up to the first divergence (95% "
            f"Wilson CIs). Source: {table['source'].iloc[0]}.\n\n"
            + markdown_table(an.orders_rows(table)) + "\n\n"
            + an.orders_conclusion(table) + "\n")
    return StudyOutput({"higher_orders": table},
                       {"extra_higher_orders": advantage_by_order(table)}, text)


def _instance_sets(inputs: StudyInputs) -> StudyOutput:
    log = load_instance_sets(inputs.logs["instance-sets"])
    # the paired-deals test flags only if its placebo in this case does not over-reject
    allowed = placebo_judgement(PLACEBO).get("paired_deals", True)
    table = instance_sets.instance_sets_table(log.games, log.decisions, log.conditions,
                                              may_flag=allowed)
    return StudyOutput({"instance_sets": table},
                       {"extra_instance_sets": instance_set_dose_response(table)},
                       instance_sets.instance_sets_markdown(table))


#: The tables :func:`nothanks.analysis.instance_sets.rt_sweep_by_set` reads of its logs.
SWEEP_TABLES: dict[str, tuple[str, ...] | None] = {"experiments": None, "conditions": None,
                                                   "games": None}


def _figure14_instance_sets(inputs: StudyInputs) -> StudyOutput:
    sets, default = (load_finished_log(inputs.logs[name], SWEEP_TABLES)
                     for name in ("figure14-instance-sets", "figure14"))
    table = instance_sets.rt_sweep_by_set(sets, default)
    return StudyOutput({"rt_sweep_by_set": table},
                       {"extra_fig14_instance_sets": rt_sweep_by_set_lines(table)},
                       instance_sets.rt_sweep_by_set_markdown(table))


def _learning(inputs: StudyInputs) -> StudyOutput:
    stats = learning_statistics({name: ex.load_cached(inputs.logs[name])
                                 for name in LEARNING_DESIGNS})
    return StudyOutput(stats, learning_figures(stats), learning_results(stats))


def _move_quality(inputs: StudyInputs) -> StudyOutput:
    people = ex.load_cached(inputs.participants) if inputs.participants else None
    quality = grade_moves(ex.load_cached(inputs.logs["table7"]), people, inputs.cache,
                          inputs.quick, grade=inputs.grade, grader=inputs.grader,
                          checkpoint=inputs.checkpoint, jobs=inputs.jobs)
    stats = {f"{kind}_{name}": table for name, graded in quality.items()
             for kind, table in an.quality_tables(graded).items()}
    figures = {f"extra_quality_{name}_{stem.removeprefix('quality_')}": fig
               for name, graded in quality.items()
               for stem, fig in quality_figures(graded).items()}
    return StudyOutput(stats, figures, quality_markdown(quality))


def _fits(inputs: StudyInputs) -> StudyOutput:
    from .fits import fits_outputs
    if inputs.participants is None:
        raise an.AnalysisInputError("the fits study reads participant sessions; none found")
    return StudyOutput(*fits_outputs(inputs.participants, inputs.cache, inputs.quick,
                                     inputs.jobs))


def _extras(inputs: StudyInputs) -> StudyOutput:
    figures = {"extra_instance_map": plots.instance_map(ex.instance_table()),
               "extra_token_memory": plots.token_memory_trace(
                   ex.token_memory_history(),
                   f"Token memory of ToM2 (seat 0) against three ToM1, seed {ex.TRACE_SEED}")}
    return StudyOutput({}, figures, report_markdown(inputs.calibration))


#: Every study, in ``make studies``' order (the cheapest first).
STUDIES: dict[str, Study] = {s.name: s for s in (
    Study("extras", "The instance map, one game's token memory and the calibration "
          "studies' held-out checks", (), _extras),
    Study("figure14-instance-sets", "Figure 14's ToM2 curves under other instance sets",
          ("figure14-instance-sets", "figure14"), _figure14_instance_sets),
    Study("higher-orders", "Higher orders of theory of mind", ("higher-orders",),
          _higher_orders, notes=HIGHER_ORDERS_NOTES),
    Study("learning", "Learning from experience", LEARNING_DESIGNS, _learning),
    Study("readings", "The thesis's open readings, one at a time", ("readings",),
          _readings, notes=READINGS_NOTES),
    Study("instance-sets", "The instance set as an experimental factor",
          ("instance-sets",), _instance_sets),
    Study("move-quality", "Move quality: what each decision was worth, by IS-MCTS",
          ("table7",), _move_quality, participants=True),
    Study("fits", "Per-participant parameter fits and random-effects model selection",
          (), _fits, participants=True),
)}


def check_studies(names: Sequence[str]) -> list[str]:
    """``names`` (every study when empty) in :data:`STUDIES`' order, duplicates dropped;
    :class:`~nothanks.experiments.DesignError` naming the unknown ones and the valid."""
    unknown = [n for n in names if n not in STUDIES]
    if unknown:
        raise ex.DesignError(f"unknown stud{'y' if len(unknown) == 1 else 'ies'} "
                             f"{', '.join(map(repr, unknown))}; valid: {', '.join(STUDIES)}")
    return [n for n in STUDIES if n in names] if names else list(STUDIES)


def make_studies(out: Path, cache: Path, names: Sequence[str] = (), *,
                 participants: Path | None = None, games: int | None = None,
                 quick: bool = False, jobs: int | None = None, scheduler: str | None = None,
                 progress: bool = True, grade: str = "sample", grader: str | None = None,
                 checkpoint: Path | None = None, calibration: Path | None = CALIBRATION,
                 command: str = "nothanks studies") -> FigureReport:
    """Build the studies ``names`` (default: all of :data:`STUDIES`) into ``out/<study>``,
    one after the other; see the module docstring.

    ``games``/``quick`` size the designs as for :func:`nothanks.experiments.ensure_design`;
    ``jobs`` local processes simulate and grade, or ``scheduler`` (a Dask scheduler's
    address) simulates; ``grade``, ``grader`` and ``checkpoint`` choose how move quality
    is graded (:func:`grade_moves`); ``command`` is quoted in each README. Returns what
    was written and the seconds each study took.
    """
    names = check_studies(names)
    games = ex.QUICK_GAMES if quick and games is None else games
    if participants is not None and not participants.exists():  # fail before simulating
        raise FileNotFoundError(f"participant folder {participants} does not exist")
    cache.mkdir(parents=True, exist_ok=True)
    timer = Timer()
    written: list[Path] = []
    for name in names:
        study = STUDIES[name]
        with timer(name):
            logs = {design: ex.ensure_design(design, cache, games, jobs, progress, quick,
                                             scheduler=scheduler)
                    for design in study.designs}
            people = (ex.ensure_participants(participants, cache, quick)
                      if study.participants else None)
            made = study.build(StudyInputs(logs, people, cache, quick, grade, grader,
                                           checkpoint, jobs, calibration))
            sources = {**{d: f"design `{d}`, `{p}`" for d, p in logs.items()},
                       **({"participants": f"participant sessions in `{people}`"}
                          if people else {})}
            with replacing(out, [name]) as staging:
                files = write_set(
                    staging / name, made.figures, made.stats,
                    f"# {study.title}\n\nGenerated by `{command}`.\n" + made.markdown,
                    readme_text(f"{study.title} (study `{name}`)", command,
                                STUDY_FIGURES, made.figures, made.stats, sources,
                                study.notes))
            written += [out / name / p.relative_to(staging / name) for p in files]
        _write_index(out, command)  # after each study: a stopped build lists what it made
    return FigureReport(out, [*written, out / "README.md"], timer.seconds)


def _write_index(out: Path, command: str) -> Path:
    """``out/README.md``: the studies built into ``out`` so far, with their titles."""
    lines = ["# Studies", "", f"Generated by `{command}` (`make studies`); each study is "
             "built alone with `nothanks studies NAME` and replaces only its own folder. "
             "The thesis figures are one folder up (`make figures`).", "",
             "| study | what | files |", "| --- | --- | --- |"]
    for name, study in STUDIES.items():
        if (out / name / "README.md").is_file():
            lines.append(f"| `{name}` | {study.title} | [{name}/README.md]({name}/README.md),"
                         f" [{name}/results.md]({name}/results.md) |")
    path = out / "README.md"
    path.write_text("\n".join(lines) + "\n")
    return path


__all__ = ["HIGHER_ORDERS_NOTES", "LEARNING_DESIGNS", "READINGS_NOTES", "STUDIES",
           "STUDY_FIGURES", "Study", "StudyInputs", "StudyOutput", "check_studies",
           "learning_figures", "make_studies"]
