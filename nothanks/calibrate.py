"""Fit free parameters to the thesis's published numbers (``nothanks calibrate``).

The thesis's instance file and tuned parameters were never published, so some of our
choices are free. A *study* searches them with Optuna (TPE sampler) for the values that
bring named *targets* — numbers the thesis reports, each with its section — closest:

* a trial draws one value per free parameter (:data:`PARAMETERS`: range and reason);
  the instance rule's parameters generate an instance file into the trial's folder
  (``generate_instances``: the rule stays a stated rule, never hand-edited instances);
* the trial is played through the experiment runner (:func:`nothanks.experiments.run_design`,
  local processes or a Dask client) in stages of growing size (common random numbers:
  every trial plays the same deals); after each stage the loss so far is reported and a
  hopeless trial is pruned (median pruner);
* the loss is a weighted sum of squared distances of each fitted target's value from
  its thesis range, in units of the target's ``scale`` (:data:`TARGETS`);
* the study lives in an Optuna storage (SQLite in the output folder by default), so it
  resumes after Ctrl-C, a crash or a kill and can be extended with more trials; a trial
  that was interrupted is queued again with the same parameters, its finished stages
  are kept and its unfinished stage is resumed (:func:`nothanks.experiments.run_design`);
* a trial's point is proposed from the seed, the number of finished trials and their
  results alone (never from the state of the process), and never repeats a finished
  point: a resumed, extended or interrupted study proposes what an uninterrupted one
  would; the study's settings are fixed by its first trial that begins to play.

:func:`evaluate` measures every target (fitted and held out) for given parameters on a
seed the fit never used, with 95% intervals; :func:`heldout_table` puts the thesis, the
defaults and the fit side by side. The best parameters are written as a preset
(``nothanks/agents/presets``) that any spec can use: ``tom1:preset=thesis-fit``.
This is top-level orchestration: it imports the experiments, analysis and agents.
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import math
import shutil
import sys
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from . import analysis as an
from . import experiments as ex
from .agents import AgentSpec
from .agents.cognitive import generate_instances as gi
from .agents.cognitive.instance_sets import perturb
from .experiments.design import Design, Table
from .files import atomic_write_bytes

#: Games per condition and trial a real study should play (the deals are paired).
DEFAULT_GAMES = 2000
#: Fractions of the games after which a trial reports its loss (the last is 1).
DEFAULT_STAGES = (0.25, 1.0)
#: Targets fitted unless others are named; the rest are predictions (held out).
DEFAULT_FIT = ("tom1_share", "older_chunk_rate")
#: Targets only reported by default: predictions of the fit.
DEFAULT_HELDOUT = ("tom2_share", "tom1_welch_t", "tom2_welch_t", "fig14_tom1_slope")
#: The thesis's reading of its Welch tests: 500 games per pairing (§5.2.2).
THESIS_GAMES = 500
#: Retrieval thresholds of the Figure 14 shape target: the ends of the ``figure14``
#: design's sweep (leaf recalled almost always / almost never with the defaults).
FIG14_RTS = (-2.5, 0.5)
#: Who a parameter belongs to.
GROUPS = ("instances", "model", "standin")


class CalibrationError(ValueError):
    """A study option that cannot work (says which, and what would be valid)."""


# ------------------------------------------------------------------ parameters
@dataclass(frozen=True)
class Parameter:
    """One free parameter: its range (or choices), its default and why that range."""

    name: str
    group: str  # instances (the instance rule), model (every ToM seat), standin
    default: float | int | str | None
    reason: str
    low: float = 0.0
    high: float = 1.0
    log: bool = False
    integer: bool = False
    choices: tuple[str, ...] = ()

    def distribution(self):
        """The Optuna distribution of this parameter's range (or choices)."""
        from optuna.distributions import (
            CategoricalDistribution,
            FloatDistribution,
            IntDistribution,
        )
        if self.choices:
            return CategoricalDistribution(list(self.choices))
        if self.integer:
            return IntDistribution(int(self.low), int(self.high))
        return FloatDistribution(self.low, self.high, log=self.log)

    def suggest(self, trial) -> float | int | str:
        """This parameter's value in ``trial`` (drawn, or the value queued for it)."""
        if self.choices:
            return trial.suggest_categorical(self.name, list(self.choices))
        if self.integer:
            return trial.suggest_int(self.name, int(self.low), int(self.high))
        return trial.suggest_float(self.name, self.low, self.high, log=self.log)

    def describe(self) -> str:
        what = ("{" + ", ".join(self.choices) + "}" if self.choices
                else f"[{self.low:g}, {self.high:g}]" + (" log" if self.log else "")
                + (" int" if self.integer else ""))
        return f"{self.name:16s} {self.group:9s} {what:22s} default {self.default!r}: {self.reason}"


#: Every free parameter by name: range, default and the reason for the range.
PARAMETERS: dict[str, Parameter] = {p.name: p for p in (
    Parameter("fraction", "instances", gi.FRACTION, low=0.2, high=0.5,
              reason="no-sequence take rule, tokens needed per card point (§3.2): below 0.2 "
                     "ToM0 takes a 35 for 7 tokens, above 0.5 it waits for 18, beyond any "
                     "reasonable play"),
    Parameter("low_tokens", "instances", gi.LOW_TOKENS, low=0, high=8, integer=True,
              reason="supply below which fewer tokens are needed (§3.2); 0 = never, up to "
                     "8, the middle of Table 5's 'sufficient' class"),
    Parameter("flip", "instances", 0.0, low=0.0, high=0.2,
              reason="share of the rule's no-sequence actions flipped, a seeded "
                     "perturbation (instance_sets.flip_no_sequence, seed INSTANCE_SEED): "
                     "the thesis's hand-made set need not be monotone, and only a "
                     "non-monotone ToM0 choice lets ToM2 differ from ToM1 (docs/models.md)"),
    Parameter("jitter", "instances", 0, low=0, high=3, integer=True,
              reason="seeded shift of each no-sequence column's take boundary by up to "
                     "this many tokens (instance_sets.jitter_thresholds): a hand-made set "
                     "need not follow one formula"),
    Parameter("s", "model", 0.1, low=0.02, high=0.3, log=True,
              reason="activation noise (§1.1.2), tuned but unpublished in the thesis; up to "
                     "the Swift core's 0.25 and a little beyond"),
    Parameter("token_s", "model", None, low=0.02, high=0.3, log=True,
              reason="a separate noise for the token memory (reading switch; default: s)"),
    Parameter("leaf_penalty", "model", 0.5, low=0.0, high=1.5,
              reason="extra penalty on leaf chunks (§3.4.2: the class is easier to recall); "
                     "above 1.5 leaves fail at almost every update"),
    Parameter("d", "model", 0.5, low=0.3, high=0.8,
              reason="base-level decay around ACT-R's standard 0.5"),
    Parameter("time_per_turn", "model", 2.0, low=0.5, high=4.0, log=True,
              reason="model seconds per turn (§3.4.3: chunks decay with turns); only its "
                     "ratio to the decay matters"),
    Parameter("candidate_rule", "model", "all", choices=("all", "any"),
              reason="reading switch: how several candidate counts combine (Table 5)"),
    Parameter("thresholds", "model", "split", choices=("split", "shared"),
              reason="reading switch: one retrieval threshold for both memories or two"),
    Parameter("token_chunks", "model", "new", choices=("new", "merge"),
              reason="reading switch: a new chunk per update (§3.4.3) or ACT-R merging"),
    Parameter("T", "standin", -4.0, low=-10.0, high=3.0,
              reason="stand-in value rule: take iff points gained - tokens <= T"),
    Parameter("greed", "standin", 0.45, low=0.2, high=0.9,
              reason="stand-in greedy rule: take iff tokens >= greed x card"),
    Parameter("w_greedy", "standin", 0.2, low=0.0, high=0.6,
              reason="stand-in: probability of deciding by the greedy rule"),
    Parameter("lapse", "standin", 0.05, low=0.0, high=0.2,
              reason="stand-in: probability of a coin-flip decision"),
    Parameter("low", "standin", 3, low=0, high=6, integer=True,
              reason="stand-in: supply below which T rises by 2 per missing token"),
    Parameter("token_value", "standin", 1.0, low=1.0, high=6.0,
              reason="stand-in: points a token on the card is worth (tokens buy passes); "
                     "1 = face value, 6 = takes a 30 for 5 tokens"),
    Parameter("endgame", "standin", 0, low=0, high=12, integer=True,
              reason="stand-in: cards face down at which a token is worth 1 point again "
                     "(0 = never; 12 = the last half of the 24 cards)"),
    Parameter("near", "standin", 0.0, low=0.0, high=8.0,
              reason="stand-in: points off a card two away from one of its own (a gap)"),
    Parameter("collect", "standin", 0.0, low=0.0, high=1.0,
              reason="stand-in: probability of letting a wanted, safe card go round"),
    Parameter("collect_safe", "standin", 0.35, low=0.15, high=0.7,
              reason="stand-in: a card is safe while tokens + a round < collect_safe x "
                     "card (the ToM0 rule's 0.35 lies inside)"),
    Parameter("reserve", "standin", 3, low=0, high=6, integer=True,
              reason="stand-in: tokens it keeps before letting cards go round"),
    Parameter("poor", "standin", -1, low=-1, high=8, integer=True,
              reason="stand-in: with a tally of the opponents' tokens from the public "
                     "moves, one counted below this takes cards more cheaply (-1 = no "
                     "tally; 8 = most of the 11 starting tokens)"),
    Parameter("slip", "standin", 0.1, low=0.0, high=0.3,
              reason="stand-in: probability a counted token move is off by one (0 = a "
                     "perfect count; 0.3 = a rough one)"),
    Parameter("deny", "standin", 0.0, low=0.0, high=4.0,
              reason="stand-in: points off a card next to an opponent's card (taken "
                     "before they get it free)"),
)}
#: Seed of the instance family's perturbations in a study (fixed, so a trial's instance
#: set is a function of its flip rate and jitter alone; docs/calibration.md).
INSTANCE_SEED = 1
#: Free parameters of the model study (everything but the stand-ins').
MODEL_PARAMETERS = tuple(n for n, p in PARAMETERS.items()
                         if p.group != "standin" and n not in ("flip", "jitter"))
#: Free parameters of the whole-profile study: the model's and the instance family's.
PROFILE_PARAMETERS = (*MODEL_PARAMETERS, "flip", "jitter")
STANDIN_PARAMETERS = tuple(n for n, p in PARAMETERS.items() if p.group == "standin")


# ------------------------------------------------------------------ tables and metrics
def _tom_table(focal: int, opponents: int, rt: float | None = None) -> Callable:
    def players(model: Mapping[str, str], standin: Mapping[str, str]) -> tuple[str, ...]:
        focal_params = dict(model) | ({"rt": str(rt)} if rt is not None else {})
        return (*[str(AgentSpec(f"tom{opponents}", dict(model)))] * 3,
                str(AgentSpec(f"tom{focal}", focal_params)))
    return players


def _human_table(opponents: int) -> Callable:
    def players(model: Mapping[str, str], standin: Mapping[str, str]) -> tuple[str, ...]:
        return (*[str(AgentSpec(f"tom{opponents}", dict(model)))] * 3,
                str(AgentSpec("human-standin", dict(standin))))
    return players


#: Retrieval thresholds of the ToM2 dip-then-rise target (thesis Figure 14: ToM2 vs
#: ToM1 lowest in the middle of the sweep): the ends and the middle of the design's sweep.
FIG14_DIP_RTS = (-2.5, -1.0, 0.5)

#: Every table a target may need: label -> players (focal last) from the parameters.
TABLES: dict[str, Callable] = {
    "ToM1 vs ToM0": _tom_table(1, 0),
    "ToM2 vs ToM0": _tom_table(2, 0),
    "ToM2 vs ToM1": _tom_table(2, 1),
    "ToM1 vs ToM1": _tom_table(1, 1),
    **{f"ToM1 vs ToM0 rt={rt:g}": _tom_table(1, 0, rt) for rt in FIG14_RTS},
    **{f"ToM2 vs ToM1 rt={rt:g}": _tom_table(2, 1, rt) for rt in FIG14_DIP_RTS},
    **{f"human vs ToM{k}": _human_table(k) for k in (0, 1, 2)},
}


@dataclass(frozen=True)
class Measure:
    """A measured value with its 95% interval and what it rests on."""

    value: float
    low: float = math.nan
    high: float = math.nan
    n: int = 0
    note: str = ""


def _condition_games(log: ex.Log, label: str) -> pd.DataFrame:
    conditions = log.conditions.loc[log.conditions["label"] == label]
    key = ["experiment", "design_hash", "condition"]
    return log.games.merge(conditions[key], on=key)


def _focal(log: ex.Log, label: str) -> pd.DataFrame:
    return an.focal_rows(_condition_games(log, label))


def first_share(log: ex.Log, label: str) -> Measure:
    """Share of games the focal player finished first (ties count), Wilson interval."""
    focal = _focal(log, label)
    wins, n = int((focal["rank"] == 1).sum()), len(focal)
    return Measure(wins / n, *an.wilson_interval(wins, n), n=n)


def welch_t(log: ex.Log, label: str) -> Measure:
    """The thesis's Welch t (opponents' rows vs the focal's) scaled to its 500 games.

    At a fixed effect t grows with the square root of the games, so ``t × √(500/n)``
    is comparable with the thesis's t at any n; the interval is the 95% t-interval of
    the mean difference scaled the same way (t × bound / difference).
    """
    row = an.welch_rank_points(_condition_games(log, label), "rows").iloc[0]
    scale = math.sqrt(THESIS_GAMES / row["n_b"])
    per_point = row["t"] / row["difference"] if row["difference"] else math.nan
    return Measure(row["t"] * scale, row["ci_low"] * per_point * scale,
                   row["ci_high"] * per_point * scale, n=int(row["n_b"]),
                   note=f"t({row['df']:.1f}) = {row['t']:.2f} at {int(row['n_b'])} games")


def _focal_key(log: ex.Log, label: str) -> pd.DataFrame:
    return _focal(log, label)[["experiment", "design_hash", "game_id", "seat"]]


def older_chunk_rate(log: ex.Log, label: str) -> Measure:
    """Share of the focal model's leaf recalls at decisions won by an older leaf."""
    recalls = log.recalls.merge(_focal_key(log, label),
                                on=["experiment", "design_hash", "game_id", "seat"])
    leaf = recalls["leaf_is_newest"].dropna().astype(bool)
    older, n = int((~leaf).sum()), len(leaf)
    if n == 0:
        return Measure(math.nan, note="no leaf recalls")
    return Measure(older / n, *an.wilson_interval(older, n), n=n)


def pass_share(log: ex.Log, label: str) -> Measure:
    """Share of the focal player's decisions that were passes."""
    decisions = log.decisions.merge(_focal_key(log, label),
                                    on=["experiment", "design_hash", "game_id", "seat"])
    passes, n = int((decisions["action"] == "pass").sum()), len(decisions)
    return Measure(passes / n, *an.wilson_interval(passes, n), n=n)


def rt_slope(log: ex.Log, label: str) -> Measure:
    """Focal mean rank points at the highest minus the lowest RT of :data:`FIG14_RTS`
    (negative: a downward trend over RT), with a normal 95% interval (same deals at
    both thresholds, so the interval is conservative)."""
    low, high = (_focal(log, f"{label} rt={rt:g}")["rank_points"].to_numpy(float)
                 for rt in FIG14_RTS)
    diff = float(high.mean() - low.mean())
    half = 1.96 * math.sqrt(high.var(ddof=1) / len(high) + low.var(ddof=1) / len(low))
    return Measure(diff, diff - half, diff + half, n=len(high),
                   note=f"{high.mean():.3f} at rt={FIG14_RTS[1]:g} vs {low.mean():.3f} at "
                        f"rt={FIG14_RTS[0]:g}")


def edge_over_control(log: ex.Log, label: str) -> Measure:
    """Focal rank points of ``label`` (ToM2 vs 3 x ToM1) minus its control's (ToM1 vs
    3 x ToM1) on the same deals: what the second order adds against the same opponents
    (paired t 95% interval)."""
    control = label.replace("ToM2 vs", "ToM1 vs", 1)
    # a trial's stages are experiments of their own, each numbering its deals from 0:
    # a deal is (experiment, deal), and each side one condition across the stages
    games = pd.concat([_condition_games(log, lab).assign(condition=side)
                       for side, lab in enumerate((label, control))], ignore_index=True)
    games["deal"] = pd.factorize(pd.MultiIndex.from_frame(games[["experiment", "deal"]]))[0]
    row = an.paired_conditions(games, 0, 1, resamples=1000)
    return Measure(row["difference"], row["ci_low"], row["ci_high"], n=int(row["deals"]),
                   note=f"paired t = {row['t']:.2f}, p = {row['p']:.3g}"
                   if math.isfinite(row["t"]) else "identical play on every deal")


def lower_places(log: ex.Log, label: str) -> Measure:
    """The largest of the focal player's shares of 2nd, 3rd and 4th place (Wilson
    interval of that place); the thesis's "each below 25%" holds when it is < 0.25."""
    focal = _focal(log, label)
    n = len(focal)
    counts = {place: int((focal["rank"] == place).sum()) for place in (2, 3, 4)}
    place = max(counts, key=counts.get)
    return Measure(counts[place] / n, *an.wilson_interval(counts[place], n), n=n,
                   note=f"place {place}")


def rt_dip(log: ex.Log, label: str) -> Measure:
    """Focal mean rank points at the middle RT of :data:`FIG14_DIP_RTS` minus the lower
    of the two ends (negative: a dip then a rise, thesis Figure 14's ToM2 curve), with a
    normal 95% interval."""
    low, mid, high = (_focal(log, f"{label} rt={rt:g}")["rank_points"].to_numpy(float)
                      for rt in FIG14_DIP_RTS)
    end = low if low.mean() <= high.mean() else high
    diff = float(mid.mean() - end.mean())
    half = 1.96 * math.sqrt(mid.var(ddof=1) / len(mid) + end.var(ddof=1) / len(end))
    return Measure(diff, diff - half, diff + half, n=len(mid),
                   note=" / ".join(f"{x.mean():.3f}" for x in (low, mid, high))
                   + f" at rt = {', '.join(f'{r:g}' for r in FIG14_DIP_RTS)}")


# ------------------------------------------------------------------ targets
@dataclass(frozen=True)
class Target:
    """A number the thesis reports, as a range our measured value should fall into.

    The loss term is ``weight × (distance outside [low, high] / scale)²``: zero inside
    the range, and ``scale`` says how far off counts as one unit of misfit.
    """

    name: str
    source: str
    thesis: str
    measure: Callable[[ex.Log, str], Measure]
    table: str
    low: float | None
    high: float | None
    scale: float
    weight: float = 1.0
    tables: tuple[str, ...] = ()
    percent: bool = True

    @property
    def needs(self) -> tuple[str, ...]:
        return self.tables or (self.table,)

    def loss(self, value: float) -> float:
        if not math.isfinite(value):
            return 100.0 * self.weight
        below = self.low - value if self.low is not None and value < self.low else 0.0
        above = value - self.high if self.high is not None and value > self.high else 0.0
        return self.weight * ((below + above) / self.scale) ** 2

    def show(self, m: Measure) -> str:
        fmt = (lambda v: f"{100 * v:.1f}%") if self.percent else (lambda v: f"{v:.2f}")
        if not math.isfinite(m.value):
            return "n/a"
        text = fmt(m.value)
        if math.isfinite(m.low):
            text += f" [{fmt(m.low)}, {fmt(m.high)}]"
        return text


def _share_target(name: str, table: str, thesis: str, source: str, low: float | None,
                  high: float | None, scale: float = 0.02) -> Target:
    return Target(name, source, thesis, first_share, table, low, high, scale)


HUMAN_TABLES = ("human vs ToM0", "human vs ToM1", "human vs ToM2")


def _pass_share_all(log: ex.Log, label: str) -> Measure:
    """Pass share over every human table present (the thesis pools the participants)."""
    parts = [pass_share(log, t) for t in HUMAN_TABLES
             if (log.conditions["label"] == t).any()]
    passes = sum(round(p.value * p.n) for p in parts)
    n = sum(p.n for p in parts)
    return Measure(passes / n, *an.wilson_interval(passes, n), n=n)



#: Every target by name: the thesis's number, its section and the range fitted to.
TARGETS: dict[str, Target] = {t.name: t for t in (
    _share_target("tom1_share", "ToM1 vs ToM0", "over 48%", "§5.2.2, Table 7, Fig. 11",
                  0.48, None),
    _share_target("tom2_share", "ToM2 vs ToM0", "over 48%", "§5.2.2, Table 7, Fig. 12",
                  0.48, None),
    Target("tom1_welch_t", "§5.2.2, Fig. 11", "t(909.8) = -15.8", welch_t, "ToM1 vs ToM0",
           -15.8, -15.8, scale=2.0, percent=False),
    Target("tom2_welch_t", "§5.2.2, Fig. 12", "t(854.3) = -14.2", welch_t, "ToM2 vs ToM0",
           -14.2, -14.2, scale=2.0, percent=False),
    Target("older_chunk_rate", "§3.4.3 ('unless in the rare case')", "rare (read: <= 5%)",
           older_chunk_rate, "ToM1 vs ToM0", None, 0.05, scale=0.01),
    Target("fig14_tom1_slope", "§5.3, Fig. 14", "slight downward trend (read: -0.15 to 0 "
           "rank points)", rt_slope, "ToM1 vs ToM0", -0.15, 0.0, scale=0.05,
           tables=tuple(f"ToM1 vs ToM0 rt={rt:g}" for rt in FIG14_RTS), percent=False),
    Target("tom2_edge", "§5.2.2, Fig. 13", "ToM2 above ToM1 (t = -2.0), about +0.1 rank "
           "points (read: +0.05 to +0.2)", edge_over_control, "ToM2 vs ToM1", 0.05, 0.2,
           scale=0.05, tables=("ToM2 vs ToM1", "ToM1 vs ToM1"), percent=False),
    Target("tom1_lower_places", "§5.2.2, Fig. 11", "2nd-4th each below 25%", lower_places,
           "ToM1 vs ToM0", None, 0.25, scale=0.02),
    Target("tom2_lower_places", "§5.2.2, Fig. 12", "2nd-4th each below 25%", lower_places,
           "ToM2 vs ToM0", None, 0.25, scale=0.02),
    Target("fig14_tom2_dip", "§5.3, Fig. 14", "ToM2 vs ToM1 dips then rises over RT (read: "
           "the middle below both ends)", rt_dip, "ToM2 vs ToM1", None, 0.0, scale=0.05,
           tables=tuple(f"ToM2 vs ToM1 rt={rt:g}" for rt in FIG14_DIP_RTS), percent=False),
    _share_target("human_vs_tom0", "human vs ToM0", "36.2%", "§5.1.2, Fig. 8", 0.362, 0.362,
                  0.03),
    _share_target("human_vs_tom1", "human vs ToM1", "17.7%", "§5.1.2, Fig. 8", 0.177, 0.177,
                  0.03),
    _share_target("human_vs_tom2", "human vs ToM2", "14.8%", "§5.1.2, Fig. 8", 0.148, 0.148,
                  0.03),
    Target("human_pass_share", "§5.1.2", "about 80%", _pass_share_all, "human vs ToM0", 0.78,
           0.82, scale=0.03, tables=HUMAN_TABLES),
)}
#: The thesis's whole simulation profile (issue: fit it with the instance family).
PROFILE_TARGETS = ("tom1_share", "tom2_share", "tom2_edge", "tom1_lower_places",
                   "tom2_lower_places", "fig14_tom2_dip")
#: The stand-in study's targets (thesis Figure 8 and the pass share).
STANDIN_TARGETS = ("human_vs_tom0", "human_vs_tom1", "human_vs_tom2", "human_pass_share")


def _pick(names: Sequence[str], table: Mapping, what: str) -> tuple[str, ...]:
    unknown = [n for n in names if n not in table]
    if unknown:
        raise CalibrationError(f"unknown {what} {', '.join(map(repr, unknown))}; valid: "
                               f"{', '.join(table)}")
    return tuple(dict.fromkeys(names))


# ------------------------------------------------------------------ trials
def split_params(params: Mapping[str, object], model_preset: str | None = None
                 ) -> tuple[dict[str, str], dict[str, str], dict[str, float]]:
    """Spec parameters of the ToM seats and of the stand-in, and the instance rule's."""
    model: dict[str, str] = {"preset": model_preset} if model_preset else {}
    standin: dict[str, str] = {}
    rule: dict[str, float] = {}
    for name, value in params.items():
        group = PARAMETERS[name].group
        if group == "instances":
            rule[name] = value
        elif value is not None:
            (model if group == "model" else standin)[name] = str(value)
    return model, standin, rule


#: What a study writes into its folder (``{name}``: the study's name): replaced as one
#: set when a shipped study is updated (``nothanks calibrate --update-shipped``).
STUDY_FILES = ("study.db", "trials", "trials.csv", "summary.md", "history.png",
               "importances.png", "{name}.toml", "{name}-instances.csv", "heldout",
               "heldout.md", "heldout.csv", "heldout.json")


def write_instances(rule: Mapping[str, float], path: Path) -> Path:
    """The instance file of the rule with these parameters (the generator's own code),
    perturbed by the family's ``flip`` and ``jitter`` (seed :data:`INSTANCE_SEED`) when
    they are given and not zero."""
    rule = {"fraction": gi.FRACTION, "low_tokens": gi.LOW_TOKENS} | dict(rule)
    ops = {k: float(rule[k]) for k in ("flip", "jitter") if float(rule.get(k) or 0) > 0}
    header = ("ToM0 instances for No Thanks! (thesis §3.2), generated for a calibration "
              "trial by\nnothanks.agents.cognitive.generate_instances.generate("
              f"fraction={rule['fraction']!r}, low_tokens={rule['low_tokens']!r})")
    instances = gi.generate(fraction=float(rule["fraction"]), low_tokens=int(rule["low_tokens"]))
    if ops:
        header += ("\nthen nothanks.agents.cognitive.instance_sets.perturb("
                   f"{ops!r}, seed={INSTANCE_SEED})")
        instances = perturb(instances, ops, INSTANCE_SEED)
    text = gi.render(instances, header)
    if not path.exists() or path.read_text() != text:
        atomic_write_bytes(text.encode("utf-8"), path)
    return path


def trial_design(params: Mapping[str, object], targets: Sequence[str], folder: Path,
                 games: int, seed: int, name: str, model_preset: str | None = None) -> Design:
    """The design one trial (or one evaluation) plays: every table its targets need."""
    model, standin, rule = split_params(params, model_preset)
    if rule:
        model["instances"] = str(write_instances(rule, folder / "instances.csv"))
    labels = dict.fromkeys(t for name_ in targets for t in TARGETS[name_].needs)
    tables = tuple(Table(label, TABLES[label](model, standin), 3) for label in labels)
    return Design(name=name, tables=tables, games=games, seed=seed, rotate=True)


def measure(log: ex.Log, targets: Sequence[str]) -> dict[str, Measure]:
    return {name: TARGETS[name].measure(log, TARGETS[name].table) for name in targets}


def total_loss(measured: Mapping[str, Measure]) -> float:
    return float(sum(TARGETS[n].loss(m.value) for n, m in measured.items()))


def stage_games(games: int, stages: Sequence[float]) -> list[int]:
    """Games per condition of each stage (they add up to ``games``)."""
    ends = sorted({max(1, round(f * games)) for f in stages} | {games})
    return [b - a for a, b in zip([0, *ends[:-1]], ends, strict=True)]


def _params_hash(params: Mapping[str, object]) -> str:
    text = json.dumps({k: params[k] for k in sorted(params)}, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


@dataclass
class Study:
    """What :func:`calibrate` did: the Optuna study and where its outputs are."""

    study: object
    out: Path
    files: list[Path] = field(default_factory=list)
    seconds_per_trial: float = math.nan
    fixed: dict[str, object] = field(default_factory=dict)

    @property
    def best_params(self) -> dict[str, object]:
        """The best trial's values, with the values held fixed during the study."""
        return self.fixed | dict(self.study.best_trial.params)


def calibrate(out: str | Path, *, params: Sequence[str] = MODEL_PARAMETERS,
              targets: Sequence[str] = DEFAULT_FIT, heldout: Sequence[str] = DEFAULT_HELDOUT,
              trials: int = 20, games: int = DEFAULT_GAMES, seed: int = 2018,
              stages: Sequence[float] = DEFAULT_STAGES, storage: object = None,
              study_name: str = "thesis-fit", model_preset: str | None = None,
              weights: Mapping[str, float] | None = None, jobs: int | None = 1, client=None,
              progress: bool = True, command: str = "",
              start: Mapping[str, object] | Sequence[Mapping[str, object]] | None = None,
              fixed: Mapping[str, object] | None = None) -> Study:
    """Run (or resume, or extend) a study until it has ``trials`` finished trials.

    Args:
        params: free parameters (names of :data:`PARAMETERS`); the others keep defaults.
        targets: fitted targets (names of :data:`TARGETS`); ``heldout`` are only reported.
        games: games per condition per trial (the issue's 2,000 for a real study).
        seed: root seed of the fit; stage *i* plays the deals of ``seed + i``.
        stages: fractions of ``games`` after which a trial reports and may be pruned.
        storage: an Optuna storage URL or storage object (default: SQLite ``study.db``
            in ``out``).
        model_preset: a preset the ToM seats start from (e.g. when fitting stand-ins).
        jobs, client: how each trial's games are played (as :func:`run_design`).
        start: values of some free parameters the new study tries first (one mapping,
            or several tried in order; Optuna's ``enqueue_trial``; the others are
            drawn), e.g. points a pilot search found.
        fixed: values of parameters that are not free in this study (e.g. a stand-in's
            base rules kept at an earlier fit's values while its habits are searched);
            parameters neither free nor fixed keep their defaults. The preset gets both.
    """
    try:
        import optuna
        from optuna.trial import TrialState
    except ModuleNotFoundError:
        raise CalibrationError("calibration needs Optuna: pip install 'nothanks[calibrate]'"
                               ) from None
    params = _pick(params, PARAMETERS, "parameter")
    targets = _pick(targets, TARGETS, "target")
    heldout = tuple(t for t in _pick(heldout, TARGETS, "target") if t not in targets)
    if not params or not targets:
        raise CalibrationError("give at least one parameter and one target to fit")
    if trials < 1 or games < 1:
        raise CalibrationError(f"trials={trials}, games={games}: both must be >= 1")
    if not stages or not all(0 < f <= 1 for f in stages):
        raise CalibrationError(f"stages={list(stages)}: give fractions in (0, 1]")
    fixed = {n: (_typed(v) if isinstance(v, str) else v) for n, v in (fixed or {}).items()}
    _pick(list(fixed), PARAMETERS, "fixed parameter")
    if both := [n for n in fixed if n in params]:
        raise CalibrationError(f"{', '.join(both)}: both free and fixed; give each once")
    weights = dict(weights or {})
    _pick(list(weights), TARGETS, "target")
    targets_used = {n: TARGETS[n] for n in targets}
    for name, w in weights.items():
        targets_used[name] = _with_weight(TARGETS[name], w)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    storage = storage or f"sqlite:///{(out / 'study.db').resolve()}"
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    settings = {"params": list(params), "targets": list(targets), "games": games,
                "seed": seed, "stages": list(stages), "model_preset": model_preset,
                "weights": weights, **({"fixed": fixed} if fixed else {})}
    points = [start] if isinstance(start, Mapping) else list(start or ())
    for point in points:
        _pick(list(point), {n: None for n in params}, "start parameter (not a free one)")
    study = _open_study(study_name, storage, settings)
    _requeue_interrupted(study, params)
    if not study.trials:
        for point in points:
            study.enqueue_trial(dict(point))
    per_stage = stage_games(games, stages)
    space = {name: PARAMETERS[name].distribution() for name in params}
    startup = min(8, trials)

    def objective(trial) -> float:
        values = fixed | {name: PARAMETERS[name].suggest(trial) for name in params}
        folder = out / "trials" / _params_hash(values)
        folder.mkdir(parents=True, exist_ok=True)
        trial.set_user_attr("folder", str(folder.relative_to(out)))
        begun = time.perf_counter()
        loss = math.nan
        for stage, n in enumerate(per_stage):
            design = trial_design(values, targets, folder, n, seed + stage,
                                  f"{study_name}-stage{stage}", model_preset)
            if stage == 0:
                _begin(study, trial, design, settings)
            ex.run_design(design, folder / f"stage{stage}", jobs=jobs, client=client,
                          progress=False)
            # the stages played so far (a later stage's folder may hold an interrupted
            # attempt's games: it is resumed when the trial gets there)
            log = ex.load([folder / f"stage{i}" for i in range(stage + 1)])
            measured = measure(log, targets)
            loss = float(sum(targets_used[k].loss(m.value) for k, m in measured.items()))
            trial.set_user_attr("metrics", {k: m.value for k, m in measured.items()})
            trial.set_user_attr("seconds", time.perf_counter() - begun)
            trial.report(loss, stage)
            if stage < len(per_stage) - 1 and trial.should_prune():
                raise optuna.TrialPruned()
        return loss

    bar = _bar(trials, _finished(study), progress, study_name)
    try:
        while _finished(study) < trials:
            if not study.get_trials(deepcopy=False, states=(TrialState.WAITING,)):
                study.enqueue_trial(_propose(study, space, seed, startup))
            _run_trial(study, objective)
            _advance(bar, study)
    finally:
        bar.close()
    result = Study(study, out, fixed=fixed)
    result.files = write_outputs(result, targets, heldout, settings, command)
    return result


def _with_weight(target: Target, weight: float) -> Target:
    from dataclasses import replace
    return replace(target, weight=weight)


def _finished(study) -> int:
    from optuna.trial import TrialState
    return len(study.get_trials(deepcopy=False,
                                states=(TrialState.COMPLETE, TrialState.PRUNED)))


def _open_study(name: str, storage: object, settings: dict):
    """The study ``name`` in ``storage``, created or resumed.

    A study none of whose trials began to play (e.g. a command that failed on a bad
    value before its first game) has measured nothing: it is started afresh, so it
    fixes no settings. A study with such a trial must be resumed with the settings it
    was started with (else its trials' losses would not compare).
    """
    import optuna

    def open_():
        return optuna.create_study(
            study_name=name, storage=storage, direction="minimize", load_if_exists=True,
            pruner=optuna.pruners.MedianPruner(n_startup_trials=4, n_warmup_steps=0))
    study = open_()
    if "settings" in study.user_attrs and _has_begun(study):
        _check_settings(study, settings)
    elif study.trials or study.user_attrs:
        optuna.delete_study(study_name=name, storage=storage)
        study = open_()
    return study


def _has_begun(study) -> bool:
    """Whether a trial of ``study`` began to play (or, in a study from before trials
    were marked, finished, reported a stage or was left running)."""
    from optuna.trial import TrialState
    return any(t.user_attrs.get("began") or t.intermediate_values or t.state in (
        TrialState.COMPLETE, TrialState.PRUNED, TrialState.RUNNING) for t in study.trials)


def _begin(study, trial, design: Design, settings: dict) -> None:
    """Mark ``trial`` as beginning to play ``design`` (its agents checked first); the
    first trial that begins fixes the study's settings."""
    design.validate_agents()
    if "settings" not in study.user_attrs:
        study.set_user_attr("settings", settings)
    trial.set_user_attr("began", True)


def _check_settings(study, settings: dict) -> None:
    """A resumed study must keep what defines its loss (else its trials don't compare)."""
    stored = study.user_attrs["settings"]
    if stored != json.loads(json.dumps(settings)):
        changed = sorted(k for k in settings if stored.get(k) != json.loads(
            json.dumps(settings[k])))
        raise CalibrationError(
            f"study {study.study_name!r} was started with other settings ({', '.join(changed)}:"
            f" {', '.join(f'{k}={stored.get(k)!r}' for k in changed)}); use them, or a new "
            "--study-name or output folder")


def _requeue_interrupted(study, params: Sequence[str]) -> None:
    """Trials left running by a killed or interrupted process: mark them failed and queue
    their parameters again (their finished stages are on disk and are reused, their
    unfinished stage is resumed). A trial interrupted before it had drawn every free
    parameter is not queued: the next proposal is the same point (:func:`_propose`).
    One process works on a study at a time; its trials run their games in parallel."""
    from optuna.trial import TrialState
    for trial in study.get_trials(deepcopy=True, states=(TrialState.RUNNING,)):
        study.tell(trial.number, state=TrialState.FAIL)
        if set(trial.params) == set(params):
            study.enqueue_trial(trial.params, skip_if_exists=False)


#: Proposals drawn for one trial before the study gives up finding a point it has not
#: finished (only a small, all-discrete space runs out).
PROPOSALS = 200


def _propose(study, space: Mapping[str, object], seed: int, startup: int) -> dict:
    """The next point to try: TPE's proposal from the study's finished trials, seeded by
    ``seed`` and their number (so a resumed or extended study proposes what an
    uninterrupted one would), redrawn until it is not a point already finished."""
    import numpy as np
    import optuna
    from optuna.trial import TrialState
    finished = study.get_trials(deepcopy=True, states=(TrialState.COMPLETE,
                                                       TrialState.PRUNED))
    seen = {_point_key(t.params) for t in finished}
    size = _space_size(space)
    if size is not None and len(seen) >= size:
        raise CalibrationError(
            f"study {study.study_name!r} has finished every one of the {size} points of its "
            f"free parameters ({', '.join(space)}); ask for at most {size} trials, or free "
            "another parameter")
    scratch = optuna.create_study(direction="minimize")  # in memory: the proposals only
    scratch.add_trials(finished)
    for attempt in range(PROPOSALS):
        words = np.random.SeedSequence([seed, len(finished), attempt]).generate_state(1)
        scratch.sampler = optuna.samplers.TPESampler(seed=int(words[0]),
                                                     n_startup_trials=startup)
        point = scratch.ask(dict(space)).params
        if _point_key(point) not in seen:
            return point
    raise CalibrationError(
        f"study {study.study_name!r}: {PROPOSALS} proposals were all points it has "
        f"finished ({len(seen)} so far); free another parameter or stop here")


def _point_key(params: Mapping[str, object]) -> str:
    return json.dumps({k: params[k] for k in sorted(params)}, default=str)


def _space_size(space: Mapping[str, object]) -> int | None:
    """How many points the space has (None: a continuous parameter, unbounded)."""
    from optuna.distributions import CategoricalDistribution, IntDistribution
    size = 1
    for dist in space.values():
        if isinstance(dist, CategoricalDistribution):
            size *= len(dist.choices)
        elif isinstance(dist, IntDistribution):
            size *= (dist.high - dist.low) // dist.step + 1
        else:
            return None
    return size


def _run_trial(study, objective: Callable) -> None:
    """Ask for the next (queued) trial, play it and tell the study how it ended. An
    interrupted trial (Ctrl-C) is left running, as a kill leaves it: the next run
    queues it again; any other error fails it and is raised."""
    import optuna
    from optuna.trial import TrialState
    trial = study.ask()
    try:
        loss = objective(trial)
    except optuna.TrialPruned:
        study.tell(trial, state=TrialState.PRUNED)
    except KeyboardInterrupt:
        raise
    except BaseException:
        study.tell(trial, state=TrialState.FAIL)
        raise
    else:
        study.tell(trial, loss)


def _bar(total: int, done: int, enabled: bool, name: str):
    from tqdm.auto import tqdm
    return tqdm(total=total, initial=done, unit="trial", desc=name, disable=not enabled,
                dynamic_ncols=True)


def _advance(bar, study) -> None:
    bar.n = _finished(study)
    with contextlib.suppress(ValueError):  # no complete trial yet
        bar.set_postfix(best=f"{study.best_value:.3g}")
    bar.refresh()


# ------------------------------------------------------------------ outputs
def trials_table(study) -> pd.DataFrame:
    """One row per trial: state, loss, parameters, measured targets, seconds."""
    rows = []
    for t in study.trials:
        rows.append({"trial": t.number, "state": t.state.name, "loss": t.value,
                     **{f"param {k}": v for k, v in t.params.items()},
                     **{k: v for k, v in t.user_attrs.get("metrics", {}).items()},
                     "seconds": t.user_attrs.get("seconds")})
    return pd.DataFrame(rows)


def write_outputs(result: Study, targets: Sequence[str], heldout: Sequence[str],
                  settings: dict, command: str) -> list[Path]:
    """trials.csv, summary.md, the best parameters as a preset, and the study's plots."""
    study, out = result.study, result.out
    files = []
    table = trials_table(study)
    table.to_csv(out / "trials.csv", index=False)
    files.append(out / "trials.csv")
    complete = table.loc[table["state"] == "COMPLETE"]
    result.seconds_per_trial = float(complete["seconds"].mean()) if len(complete) else math.nan
    if not len(complete):
        return files
    best = study.best_trial
    states = ", ".join(f"{n} {s.lower()}" for s, n in table["state"].value_counts().items())
    lines = [f"# Study {study.study_name}", "",
             f"{len(table)} trials ({states}), "
             f"{settings['games']} games per condition, seed {settings['seed']}, stages "
             f"{settings['stages']}; mean {result.seconds_per_trial:.1f} s per complete trial.",
             "", f"Best trial {best.number}: loss {best.value:.4g}", "",
             "| parameter | best | default |", "| --- | --- | --- |"]
    lines += [f"| {k} | {_fmt(v)} | {_fmt(PARAMETERS[k].default)} |"
              for k, v in best.params.items()]
    lines += [f"| {k} (fixed) | {_fmt(v)} | {_fmt(PARAMETERS[k].default)} |"
              for k, v in result.fixed.items()]
    lines += ["", "| target (fitted) | thesis | source | best trial |", "| --- | --- | --- | --- |"]
    metrics = best.user_attrs.get("metrics", {})
    for name in targets:
        t = TARGETS[name]
        lines.append(f"| {name} | {t.thesis} | {t.source} | {t.show(Measure(metrics[name]))} |")
    lines += ["", f"Held out (not fitted; see `heldout.md` once evaluated): "
                  f"{', '.join(heldout) or 'none'}.", ""]
    (out / "summary.md").write_text("\n".join(lines))
    files.append(out / "summary.md")
    files += write_preset(result.best_params, out, study.study_name, settings, best.value,
                          metrics, _finished(study), command)
    files += _plots(study, out)
    return files


def _fmt(value: object) -> str:
    return f"{value:.4g}" if isinstance(value, float) else str(value)


def write_preset(params: Mapping[str, object], out: Path, name: str, settings: dict,
                 loss: float, metrics: Mapping[str, float], trials: int,
                 command: str) -> list[Path]:
    """``NAME.toml`` (+ ``NAME-instances.csv``): copy both into ``nothanks/agents/presets``
    to ship them; ``tom1:preset=NAME`` then plays with these values."""
    model, standin, rule = split_params(params)
    values = standin if standin and not model and not rule else model
    agents = ["human-standin"] if values is standin else ["tom", "tom0", "tom1", "tom2"]
    files = []
    lines = [f"# A preset fitted by nothanks calibrate (study {name!r}); docs/calibration.md",
             f'description = "Parameters fitted to the thesis by study {name}"',
             f"agents = {json.dumps(agents)}"]
    if rule:
        csv = out / f"{name}-instances.csv"
        write_instances(rule, csv)
        files.append(csv)
        values = values | {"instances": csv.name}
        lines.append('paths = ["instances"]')
    lines += ["", "[params]"] + [f"{k} = {_toml(_typed(v))}" for k, v in values.items()]
    lines += ["", "[provenance]", f"command = {_toml(command)}", f"seed = {settings['seed']}",
              f"trials = {trials}", f"games = {settings['games']}",
              f"targets = {json.dumps(settings['targets'])}", f"loss = {loss:.6g}",
              f"model_preset = {_toml(settings.get('model_preset') or '')}"
              "  # the ToM seats' preset while fitting ('' = defaults)",
              *(["# the instance rule behind the instance file"] if rule else []),
              *[f"rule_{k} = {_toml(v)}" for k, v in rule.items()],
              "", "[provenance.reached]"]
    lines += [f"{k} = {v:.6g}" for k, v in metrics.items()]
    path = out / f"{name}.toml"
    path.write_text("\n".join(lines) + "\n")
    return [path, *files]


def _typed(value: str) -> object:
    for kind in (int, float):
        try:
            return kind(value)
        except ValueError:
            pass
    return value


def _toml(value: object) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (int, float)):
        return repr(value)
    return json.dumps(str(value))


def _plots(study, out: Path) -> list[Path]:
    """Optimisation history and parameter importances (skipped, with a note, when the
    study has too few complete trials for them)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from optuna.exceptions import ExperimentalWarning
    from optuna.visualization import matplotlib as ovm
    files = []
    for stem, draw in (("history", ovm.plot_optimization_history),
                       ("importances", ovm.plot_param_importances)):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ExperimentalWarning)
                warnings.simplefilter("ignore", UserWarning)  # "too few trials": equal bars
                ax = draw(study)
        except (ValueError, RuntimeError, ZeroDivisionError) as exc:
            print(f"calibrate: no {stem} plot ({exc})", file=sys.stderr)
            continue
        figure = ax.figure if hasattr(ax, "figure") else ax.flat[0].figure
        figure.tight_layout()
        figure.savefig(out / f"{stem}.png", dpi=120)
        plt.close(figure)
        files.append(out / f"{stem}.png")
    return files


# ------------------------------------------------------------------ held-out check
def evaluate(params: Mapping[str, object], targets: Sequence[str], out: str | Path, *,
             games: int, seed: int, jobs: int | None = 1, client=None,
             model_preset: str | None = None, progress: bool = False) -> dict[str, Measure]:
    """Every target measured for ``params`` (``{}``: the defaults) on deals of ``seed``."""
    targets = _pick(targets, TARGETS, "target")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    design = trial_design(params, targets, out, games, seed, "calibration-check",
                          model_preset)
    ex.run_design(design, out / "run", jobs=jobs, client=client, progress=progress)
    return measure(ex.load(out / "run"), targets)


def heldout_table(configs: Mapping[str, Mapping[str, Measure]], fitted: Sequence[str],
                  games: int, seed: int) -> str:
    """Markdown: target | source | thesis | one column per configuration (95% CIs)."""
    names = list(next(iter(configs.values())))
    header = "| target | role | source | thesis | " + " | ".join(configs) + " |"
    lines = [f"Evaluated on seed {seed} (not used in fitting), {games} games per condition; "
             "shares with 95% Wilson intervals, Welch t scaled to the thesis's 500 games "
             "(interval: 95% CI of the mean difference, same scale), Figure 14 slope with a "
             "normal 95% interval.", "", header,
             "| " + " | ".join(["---"] * (4 + len(configs))) + " |"]
    for name in names:
        t = TARGETS[name]
        role = "fitted" if name in fitted else "held out"
        cells = [t.show(c[name]) for c in configs.values()]
        lines.append(f"| {name} | {role} | {t.source} | {t.thesis} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def heldout_check(study_out: str | Path, params: Mapping[str, object],
                  fitted: Sequence[str], heldout: Sequence[str], *, games: int, seed: int,
                  fit_seeds: Sequence[int] = (), jobs: int | None = 1, client=None,
                  model_preset: str | None = None, label: str = "thesis-fit",
                  progress: bool = False,
                  compare: Mapping[str, Mapping[str, object]] | None = None) -> Path:
    """Defaults vs fitted parameters on an unseen seed; writes ``heldout.md``.

    ``compare``: further configurations shown between the two (name -> parameters),
    e.g. the values an earlier study shipped.
    """
    if seed in fit_seeds:
        raise CalibrationError(f"evaluation seed {seed} was used in fitting (seeds "
                               f"{', '.join(map(str, fit_seeds))}); give another")
    study_out = Path(study_out)
    targets = tuple(dict.fromkeys([*fitted, *heldout]))
    configs = {}
    for name, values in (("defaults", {}), *dict(compare or {}).items(), (label, params)):
        folder = study_out / "heldout" / f"{name}-{seed}-{games}-{_params_hash(values)}"
        configs[name] = evaluate(values, targets, folder,
                                 games=games, seed=seed, jobs=jobs, client=client,
                                 model_preset=model_preset, progress=progress)
    path = study_out / "heldout.md"
    path.write_text(heldout_table(configs, fitted, games, seed))
    rows = [{"target": n, "config": c, "value": m.value, "ci_low": m.low, "ci_high": m.high,
             "n": m.n, "note": m.note} for c, ms in configs.items() for n, m in ms.items()]
    pd.DataFrame(rows).to_csv(study_out / "heldout.csv", index=False)
    (study_out / "heldout.json").write_text(json.dumps({"seed": seed, "games": games}))
    record_check(study_out, label)
    return path


def record_check(study_out: str | Path, label: str) -> Path | None:
    """Add the held-out check's values (``heldout.csv``) to the preset's provenance."""
    study_out = Path(study_out)
    preset, table = study_out / f"{label}.toml", study_out / "heldout.csv"
    if not preset.exists() or not table.exists():
        return None
    check = json.loads((study_out / "heldout.json").read_text())
    rows = pd.read_csv(table)
    rows = rows.loc[rows["config"] == label]
    text = preset.read_text().split("\n[provenance.check]")[0].rstrip("\n")
    lines = ["", "[provenance.check]",
             "# every target on a seed the fit never used: [value, 95% low, 95% high]",
             f"seed = {check['seed']}", f"games = {check['games']}"]
    lines += [f"{r.target} = [{r.value:.6g}, {r.ci_low:.6g}, {r.ci_high:.6g}]"
              for r in rows.itertuples()]
    preset.write_text(text + "\n" + "\n".join(lines) + "\n")
    return preset


def report_markdown(folder: str | Path | None = "data/calibration") -> str:
    """The calibration section of ``results.md``: for every shipped study in ``folder``
    (a ``heldout.csv`` beside its preset), which configuration is the default and why,
    where the preset came from, and thesis | defaults | (earlier values) | preset on the
    deals the fit never used. Empty when there is no study (or ``folder`` is None)."""
    folder = Path(folder) if folder is not None else None
    studies = (sorted(p.parent for p in folder.glob("*/heldout.csv"))
               if folder is not None and folder.is_dir() else [])
    if not studies:
        return ""
    text = ["", "## Calibration: defaults and the fitted presets (source: simulation)", "",
            "The defaults stay the default: they are the values the thesis states or our "
            "documented readings of it, so every result above is reproducible without a "
            "fit. Each preset below was fitted with `nothanks calibrate` "
            "(docs/calibration.md) and is opt-in (`tom1:preset=thesis-fit`, "
            "`human-standin:preset=thesis-humans`); its columns are measured on a seed "
            "the fit never used. `role`: fitted, or held out (a prediction)."]
    for study in studies:
        text += ["", *_study_markdown(study)]
    return "\n".join(text) + "\n"


def _study_markdown(study: Path) -> list[str]:
    import tomllib
    name = study.name
    rows = pd.read_csv(study / "heldout.csv")
    check = json.loads((study / "heldout.json").read_text())
    preset_file = study / f"{name}.toml"
    meta = tomllib.loads(preset_file.read_text()) if preset_file.exists() else {}
    prov = meta.get("provenance", {})
    fitted = set(prov.get("targets", []))
    configs = list(dict.fromkeys(rows["config"]))
    stand_ins = any(t.startswith("human_") for t in rows["target"])
    lines = [f"### Preset `{name}`"
             + (" (stand-ins in the participants' seat)" if stand_ins else ""), ""]
    if stand_ins:
        lines += ["> **SYNTHETIC — not data.** Stand-in agents play the participants' seat; "
                  "the thesis column is people.", ""]
    if prov:
        lines += [f"Fitted by `{prov.get('command', '')}`: {prov.get('trials')} trials of "
                  f"{prov.get('games')} games per condition, seed {prov.get('seed')}, loss "
                  f"{prov.get('loss')}. Checked on seed {check['seed']}, {check['games']} "
                  "games per condition (95% intervals).", ""]
    lines += ["| target | role | source | thesis | " + " | ".join(configs) + " |",
              "| " + " | ".join(["---"] * (4 + len(configs))) + " |"]
    for target, group in rows.groupby("target", sort=False):
        t = TARGETS[target]
        cells = []
        for config in configs:
            r = group.loc[group["config"] == config]
            cells.append(t.show(Measure(*r[["value", "ci_low", "ci_high"]].iloc[0]))
                         if len(r) else "")
        role = "fitted" if target in fitted else "held out"
        lines.append(f"| {target} | {role} | {t.source} | {t.thesis} | " + " | ".join(cells)
                     + " |")
    return lines


def ship_preset(study_out: str | Path, name: str, presets_dir: Path | None = None) -> list[Path]:
    """Copy a study's preset (and its instance file) into the shipped presets folder."""
    from .agents.spec import PRESETS_DIR
    target = presets_dir or PRESETS_DIR
    copied = []
    for path in sorted(Path(study_out).glob(f"{name}.toml")) + sorted(
            Path(study_out).glob(f"{name}-instances.csv")):
        shutil.copy2(path, target / path.name)
        copied.append(target / path.name)
    if not copied:
        raise CalibrationError(f"{study_out}: no preset {name}.toml to ship")
    return copied


def describe() -> str:
    """The free parameters and the targets, with ranges, sources and reasons."""
    lines = ["parameters (name, group, range, default, reason):"]
    lines += ["  " + p.describe() for p in PARAMETERS.values()]
    lines.append("targets (name, table, thesis, source, range fitted to):")
    lines += [f"  {t.name:18s} {t.table:16s} {t.thesis} ({t.source}); range "
              f"[{t.low}, {t.high}], scale {t.scale}" for t in TARGETS.values()]
    return "\n".join(lines)


def seconds_estimate(seconds_per_trial: float, games: int, trials: int,
                     target_games: int = DEFAULT_GAMES, target_trials: int = 100) -> float:
    """Serial wall time of a study of ``target_trials`` × ``target_games`` from a measured
    trial (cost grows linearly with games; pruning ignored, so an upper bound)."""
    return seconds_per_trial * target_games / games * target_trials


__all__ = ["DEFAULT_FIT", "DEFAULT_GAMES", "DEFAULT_HELDOUT", "PARAMETERS", "TARGETS",
           "CalibrationError", "Measure", "Parameter", "Study", "Target", "calibrate",
           "describe", "evaluate", "heldout_check", "heldout_table", "report_markdown",
           "ship_preset",
           "trial_design", "trials_table"]
