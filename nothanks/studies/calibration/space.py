"""The search space of a calibration study: the free parameters and the study options
that name them.

Contract:

- :data:`PARAMETERS` holds every free parameter by name: its range (or choices), its
  default and the reason for the range; :data:`MODEL_PARAMETERS`,
  :data:`PROFILE_PARAMETERS` and :data:`STANDIN_PARAMETERS` are the studies' usual sets.
- :func:`split_params` turns a point (name -> value) into what plays it: the ToM seats'
  spec parameters, the stand-in's, and the instance rule's.
- :func:`parse_start`, :func:`parse_fixed` and :func:`parse_weights` read the command
  line's ``NAME=VALUE`` lists (``--start``, ``--fixed``, ``--weights``), and
  :func:`split_names` its comma-separated lists of names;
  :func:`typed_value` reads one value (a whole number, a number, else the text).
- Every bad name or value raises :class:`CalibrationError`, which says which option was
  wrong and what would be valid.

The helpers without a leading underscore that are not in the package's ``__all__``
(:func:`pick_names`, :func:`params_hash`, :func:`typed_value`) are shared by the
package's modules: internal to :mod:`nothanks.studies.calibration`.
"""
from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ...agents.cognitive import generate_instances as gi

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
        """One line: name, group, range (or choices), default and reason."""
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
#: Free parameters of the stand-in study (the human stand-in's).
STANDIN_PARAMETERS = tuple(n for n, p in PARAMETERS.items() if p.group == "standin")


def pick_names(names: Sequence[str], table: Mapping, what: str) -> tuple[str, ...]:
    """``names`` without repeats, in order, each a key of ``table``.

    Raises:
        CalibrationError: a name is not in ``table`` (the error lists the valid ones).
    """
    unknown = [n for n in names if n not in table]
    if unknown:
        raise CalibrationError(f"unknown {what} {', '.join(map(repr, unknown))}; valid: "
                               f"{', '.join(table)}")
    return tuple(dict.fromkeys(names))


# ------------------------------------------------------------------ points
def split_params(params: Mapping[str, object], model_preset: str | None = None
                 ) -> tuple[dict[str, str], dict[str, str], dict[str, float]]:
    """Spec parameters of the ToM seats and of the stand-in, and the instance rule's.

    Args:
        params: a point, name (of :data:`PARAMETERS`) -> value; ``None`` leaves a model
            or stand-in parameter at its default.
        model_preset: a preset the ToM seats start from (``preset=`` in their spec).

    Returns:
        ``(model, standin, rule)``: the ToM seats' and the stand-in's spec parameters
        (values as text) and the instance rule's parameters.
    """
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


def params_hash(params: Mapping[str, object]) -> str:
    """A short hash of a point (name -> value), the same for the same values in any order:
    the name of the folder that point plays in."""
    text = json.dumps({k: params[k] for k in sorted(params)}, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def typed_value(value: str) -> object:
    """``value`` as an ``int`` if it is a whole number, else a ``float`` if it is a number,
    else the text itself."""
    for kind in (int, float):
        try:
            return kind(value)
        except ValueError:
            pass
    return value


def split_names(text: str) -> list[str]:
    """A comma-separated list (``"a, b,,c"``) as its non-empty items, stripped."""
    return [n.strip() for n in text.split(",") if n.strip()]


def parse_start(text: str | None) -> list[dict[str, object]]:
    """``--start "T=-1,low=3;T=0,low=2"`` as points (one per ``;``-separated part; values
    typed by :func:`typed_value`). ``None`` or empty text: no point.

    Raises:
        CalibrationError: an item is not ``NAME=VALUE``.
    """
    points = []
    for part in (text or "").split(";"):
        values = {}
        for item in split_names(part):
            name, sep, value = item.partition("=")
            if not sep or not name.strip():
                raise CalibrationError(
                    f"--start {item!r}: give NAME=VALUE pairs, e.g. T=-1,low=3")
            values[name.strip()] = typed_value(value.strip())
        if values:
            points.append(values)
    return points


def parse_fixed(text: str | None) -> dict[str, object]:
    """``--fixed "greed=0.43,low=3"`` as parameter values (one point, no ``;``).

    Raises:
        CalibrationError: the text holds a ``;`` or an item that is not ``NAME=VALUE``.
    """
    if text and ";" in text:
        raise CalibrationError(f"--fixed {text!r}: give one set of NAME=VALUE pairs, no ';'")
    points = parse_start(text)
    return points[0] if points else {}


def parse_weights(text: str | None) -> dict[str, float]:
    """``--weights "human_vs_tom0=2"`` as target weights (target name -> positive float).

    Raises:
        CalibrationError: a weight is not a positive number.
    """
    weights = {}
    for name, value in parse_fixed(text).items():
        if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
            raise CalibrationError(f"--weights {name}={value!r}: give a positive number, "
                                   "e.g. human_vs_tom0=2")
        weights[name] = float(value)
    return weights
