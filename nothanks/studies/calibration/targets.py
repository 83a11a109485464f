"""The thesis's numbers a study fits (or only reports), and how a trial's games are
scored against them.

Contract:

- :data:`TARGETS` holds every target by name: the number the thesis reports, its
  section, the table of games it is measured on and the range the fit aims for.
- A measure (:func:`first_share`, :func:`welch_t`, :func:`older_chunk_rate`, ...) reads
  a loaded log (:class:`nothanks.experiments.Log`) and a table label and returns a
  :class:`Measure`: the value, its 95% interval and how many games or recalls it rests on.
- :func:`measure` measures named targets on a log; a target's loss term
  (:meth:`Target.loss`) is ``weight × (distance outside [low, high] / scale)²``, and
  :func:`total_loss` adds them up.
- :data:`TABLES` gives the players of every table a target may need (focal player last),
  from the model's and the stand-in's spec parameters.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import pandas as pd

from ... import analysis as an
from ... import experiments as ex
from ...agents import AgentSpec
from .space import PARAMETERS

#: Targets fitted unless others are named; the rest are predictions (held out).
DEFAULT_FIT = ("tom1_share", "older_chunk_rate")
#: Targets only reported by default: predictions of the fit.
DEFAULT_HELDOUT = ("tom2_share", "tom1_welch_t", "tom2_welch_t", "fig14_tom1_slope")
#: The thesis's reading of its Welch tests: 500 games per pairing (§5.2.2).
THESIS_GAMES = 500
#: Retrieval thresholds of the Figure 14 shape target: the ends of the ``figure14``
#: design's sweep (leaf recalled almost always / almost never with the defaults).
FIG14_RTS = (-2.5, 0.5)


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
        """The labels of the tables (of :data:`TABLES`) this target is measured on."""
        return self.tables or (self.table,)

    def loss(self, value: float) -> float:
        """This target's loss term for a measured ``value`` (``100 × weight`` when the
        value is not finite: nothing measured)."""
        if not math.isfinite(value):
            return 100.0 * self.weight
        below = self.low - value if self.low is not None and value < self.low else 0.0
        above = value - self.high if self.high is not None and value > self.high else 0.0
        return self.weight * ((below + above) / self.scale) ** 2

    def show(self, m: Measure) -> str:
        """``m`` as a table shows it: a percentage (or a number) and its interval;
        ``n/a`` when nothing was measured."""
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
#: The thesis's whole simulation profile (fitted with the instance family's parameters free).
PROFILE_TARGETS = ("tom1_share", "tom2_share", "tom2_edge", "tom1_lower_places",
                   "tom2_lower_places", "fig14_tom2_dip")
#: The stand-in study's targets (thesis Figure 8 and the pass share).
STANDIN_TARGETS = ("human_vs_tom0", "human_vs_tom1", "human_vs_tom2", "human_pass_share")



def measure(log: ex.Log, targets: Sequence[str]) -> dict[str, Measure]:
    """Each named target (of :data:`TARGETS`) measured on ``log``, by name."""
    return {name: TARGETS[name].measure(log, TARGETS[name].table) for name in targets}



def total_loss(measured: Mapping[str, Measure]) -> float:
    """The sum of the measured targets' loss terms (unit weights, as in :data:`TARGETS`)."""
    return float(sum(TARGETS[n].loss(m.value) for n, m in measured.items()))



def describe() -> str:
    """The free parameters and the targets, with ranges, sources and reasons."""
    lines = ["parameters (name, group, range, default, reason):"]
    lines += ["  " + p.describe() for p in PARAMETERS.values()]
    lines.append("targets (name, table, thesis, source, range fitted to):")
    lines += [f"  {t.name:18s} {t.table:16s} {t.thesis} ({t.source}); range "
              f"[{t.low}, {t.high}], scale {t.scale}" for t in TARGETS.values()]
    return "\n".join(lines)
