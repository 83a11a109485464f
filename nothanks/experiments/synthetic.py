"""A human stand-in agent and the synthetic participant data set it generates.

Until real participants have played, the analysis needs participant-shaped data. The
stand-in is **not** a model of human play; it is a deliberately simple, clearly
labelled placeholder with the properties the analysis must cope with:

* people differ: each synthetic participant has personal parameters (how cheap a card
  must be before they take it, how careless, how fast, how critical of opponents);
* people are noisy: each decision draws one of three strategies — a *value* rule (take
  when the card's cost in points, minus the tokens on it, is at most a personal
  threshold ``T``; more readily when low on tokens), a *greedy* rule (take when the
  tokens on the card reach a ``greed`` share of the card's value) and a *lapse* (a coin
  flip);
* people are slow and variable: a decision takes a log-normal time (median ``speed``
  seconds, longer when the value rule is close to indifferent);
* people mark some moves as bad: at each turn the stand-in marks, with probability
  ``critic``, each opponent whose last move was a take that cost it at least 10 points
  net, and any other opponent's last move with probability ``critic / 20``.

Decisions use the agent's seeded generator; decision times and marks use a second one,
so a stand-in decides identically in a participant session and in ``nothanks run
human-schedule --human ...``.

Generate the committed set with ``nothanks synthetic --out data/synthetic``.
"""
from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

from ..agents.standin import HumanStandIn  # noqa: F401 - re-exported for sessions and tests
from .design import Design

#: Participant ids of the synthetic set: ``synthetic-01`` ... (clearly not real people).
ID_PREFIX = "synthetic-"





def standin_spec(rng: random.Random) -> str:
    """One synthetic participant's stand-in spec, its parameters drawn from ``rng``:
    T ~ U(-8, -1), greed ~ U(0.3, 0.6), w_greedy ~ U(0, 0.4), lapse ~ U(0.01, 0.10),
    low ~ {2, 3, 4}, speed ~ U(1.5, 6) s, critic ~ U(0, 0.6)."""
    values = {
        "T": rng.uniform(-8, -1), "greed": rng.uniform(0.3, 0.6),
        "w_greedy": rng.uniform(0, 0.4), "lapse": rng.uniform(0.01, 0.10),
        "low": rng.choice((2, 3, 4)), "speed": rng.uniform(1.5, 6.0),
        "critic": rng.uniform(0, 0.6),
    }
    return "human-standin:" + ",".join(
        f"{k}={v}" if isinstance(v, int) else f"{k}={v:.2f}" for k, v in values.items())


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
             design: str | Path | Design = "human-schedule") -> Iterator:
    """The synthetic participant set: ``synthetic-01`` ... each a session directory.

    Resumable like any session: re-running skips finished participants and games.
    """
    rng = random.Random(seed)
    specs = [standin_spec(rng) for _ in range(participants)]
    for i, spec in enumerate(specs, start=1):
        yield play_session(f"{ID_PREFIX}{i:02d}", out_dir, spec, design)
