"""A human stand-in agent and the synthetic participant data set it generates.

Until real participants have played, the analysis needs participant-shaped data. The
stand-in (:class:`nothanks.agents.standin.HumanStandIn`) is **not** a model of human
play; it is a clearly labelled placeholder with the properties the analysis must cope
with:

* people differ: each synthetic participant has personal parameters (how cheap a card
  must be before they take it, how much a token is worth to them, how readily they let
  a card go round, how careless, how fast, how critical of opponents);
* people are noisy: each decision draws one of three strategies — a *value* rule (take
  when the card's cost in points, minus the tokens on it at their worth, is at most a
  personal threshold ``T``; more readily when low on tokens), a *greedy* rule (take when
  the tokens on the card reach a ``greed`` share of the card's value) and a *lapse* (a
  coin flip) — and may let a card it wants go round to collect more tokens;
* people are slow and variable: a decision takes a log-normal time (median ``speed``
  seconds, longer when the value rule is close to indifferent);
* people mark some moves as bad: at each turn the stand-in marks, with probability
  ``critic``, each opponent whose last move was a take that cost it at least 10 points
  net, and any other opponent's last move with probability ``critic / 20``.

By default each participant's parameters are drawn around the calibrated preset
``thesis-humans`` (fitted to the thesis's human results with ``nothanks calibrate``,
docs/calibration.md); ``preset=None`` draws the uncalibrated stand-in's parameters the
set was first made with.

Decisions use the agent's seeded generator; decision times and marks use a second one,
so a stand-in decides identically in a participant session and in ``nothanks run
human-schedule --human ...``.

Generate the committed set with ``nothanks synthetic --out data/synthetic --update-shipped``
(which replaces the whole set).
"""
from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

from ..agents.standin import HumanStandIn  # noqa: F401 - re-exported for sessions and tests
from .design import Design

#: Participant ids of the synthetic set: ``synthetic-01`` ... (clearly not real people).
ID_PREFIX = "synthetic-"
#: The stand-in preset participants are drawn around by default.
PRESET = "thesis-humans"
#: Bad-move marks: ``critic`` ~ Gamma(shape, mean / shape), at most 1. A skewed draw
#: because the thesis's marks were concentrated (§5.1.2: the top 10% of participants
#: gave 38% of them, 43% gave fewer than 10); the mean aims at the thesis's 1.2% of
#: model moves marked (the shipped set's rates: docs/calibration.md).
CRITIC_SHAPE, CRITIC_MEAN = 0.7, 0.36


def _spec(values: dict[str, float | int], preset: str | None) -> str:
    items = [f"preset={preset}"] if preset else []
    items += [f"{k}={v}" if isinstance(v, int) else f"{k}={v:.2f}" for k, v in values.items()]
    return "human-standin:" + ",".join(items)


def standin_spec(rng: random.Random, preset: str | None = PRESET) -> str:
    """One synthetic participant's stand-in spec, its parameters drawn from ``rng``.

    Around ``preset`` (its values ``P``): T ~ P ± 0.75, token_value ~ P × U(0.9, 1.1),
    near ~ P × U(0.75, 1.25), collect ~ P ± 0.1 (within 0-1), lapse ~ P × U(0.5, 1.5),
    low ~ P + {-1, 0, 1} (at least 0), speed ~ U(1.5, 6) s, critic ~ Gamma (see
    :data:`CRITIC_SHAPE`); the preset's other values are shared.
    Without a preset (the uncalibrated stand-in): T ~ U(-8, -1), greed ~ U(0.3, 0.6),
    w_greedy ~ U(0, 0.4), lapse ~ U(0.01, 0.10), low ~ {2, 3, 4}, speed ~ U(1.5, 6) s,
    critic ~ U(0, 0.6).
    """
    if preset is None:
        values = {
            "T": rng.uniform(-8, -1), "greed": rng.uniform(0.3, 0.6),
            "w_greedy": rng.uniform(0, 0.4), "lapse": rng.uniform(0.01, 0.10),
            "low": rng.choice((2, 3, 4)), "speed": rng.uniform(1.5, 6.0),
            "critic": rng.uniform(0, 0.6),
        }
        return _spec(values, None)
    from ..agents import load_preset
    base = {k: float(v) for k, v in load_preset(preset).params.items()}
    values = {
        "T": base.get("T", -4.0) + rng.uniform(-0.75, 0.75),
        "token_value": max(1.0, base.get("token_value", 1.0) * rng.uniform(0.9, 1.1)),
        "near": base.get("near", 0.0) * rng.uniform(0.75, 1.25),
        "collect": min(1.0, max(0.0, base.get("collect", 0.0) + rng.uniform(-0.1, 0.1))),
        "lapse": base.get("lapse", 0.05) * rng.uniform(0.5, 1.5),
        "low": max(0, int(base.get("low", 3)) + rng.choice((-1, 0, 1))),
        "speed": rng.uniform(1.5, 6.0),
        "critic": min(1.0, rng.gammavariate(CRITIC_SHAPE, CRITIC_MEAN / CRITIC_SHAPE)),
    }
    return _spec(values, preset)


class SimulatedClock:
    """A clock the stand-in advances by its think time (wall time would be ~0 s)."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def play_session(participant_id: str, out_dir: str | Path, spec: str,
                 design: str | Path | Design = "human-schedule"):
    """Drive a ParticipantSession with a stand-in until every game is played.

    The session seats the stand-in in the participant's chair (it is started with the
    seat's seed and observes every event like the models); this loop only asks it for
    its moves, marks and think times, as a person would give them.
    """
    from .session import ParticipantSession
    clock = SimulatedClock()
    session = ParticipantSession(participant_id, out_dir, design, human=spec, clock=clock)
    standin = session.standin
    while not session.finished:
        while not session.game_over:
            if session.human_to_move:
                action = standin.decide(session.view())
                marks = standin.marks()
                clock.now += standin.think_time
                session.human_acts(action, marks=marks)
            else:
                session.step()
        session.next_game()
    return session


def generate(out_dir: str | Path, participants: int = 30, *, seed: int = 2018,
             design: str | Path | Design = "human-schedule",
             preset: str | None = PRESET) -> Iterator:
    """The synthetic participant set: ``synthetic-01`` ... each a session directory,
    the participants drawn around ``preset`` (:func:`standin_spec`).

    Resumable like any session: re-running skips finished participants and games.
    """
    rng = random.Random(seed)
    specs = [standin_spec(rng, preset) for _ in range(participants)]
    for i, spec in enumerate(specs, start=1):
        yield play_session(f"{ID_PREFIX}{i:02d}", out_dir, spec, design)
