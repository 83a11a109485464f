"""The human stand-in's optional habits: each switch on a hand-built view, the defaults
playing exactly as before the habits existed, and the calibrated preset."""
from __future__ import annotations

import hashlib
import random

import pytest

from nothanks.agents import load_preset, make_agent
from nothanks.agents.standin import HumanStandIn
from nothanks.experiments.synthetic import PRESET, standin_spec
from nothanks.rules import Action, Variant, View
from nothanks.runner import play_games

VARIANT = Variant()


def view(card: int, tokens_on_card: int, own_tokens: int = 8,
         cards: tuple[tuple[int, ...], ...] = ((), (), (), ()), cards_left: int = 15) -> View:
    """Seat 0's view of a face-up card (what a person at the table sees)."""
    return View(0, VARIANT, 0, card, tokens_on_card, own_tokens, cards, cards_left, (), 0,
                None)


def decide(view_: View, **params: float) -> Action:
    """The value rule alone (no greedy rule, no lapses), so the decision is certain."""
    agent = HumanStandIn(w_greedy=0.0, lapse=0.0, **params)
    agent.start(0, VARIANT, seed=1)
    return agent.decide(view_)


def test_defaults_play_exactly_as_the_stand_in_without_the_habits():
    """Actions of the stand-in before the habits were added (8 games, seed 3)."""
    spec = "human-standin:T=-3,low=4,lapse=0.1"
    actions = "".join("T" if d.action == "take" else "P"
                      for r in play_games(["tom0"] * 3 + [spec], 8, seed=3)
                      for d in r.decisions if d.agent == spec)
    assert len(actions) == 201
    assert hashlib.sha256(actions.encode()).hexdigest()[:16] == "18ed4476fa1f2f74"


def test_token_value_makes_tokens_worth_more_until_the_endgame():
    card = view(20, 6)  # no sequence: 20 points for 6 tokens
    assert decide(card) == Action.PASS  # 20 - 6 = 14 > T = -4
    assert decide(card, token_value=4.0) == Action.TAKE  # 20 - 24 = -4 <= -4
    late = view(20, 6, cards_left=3)
    assert decide(late, token_value=4.0, endgame=5) == Action.PASS  # tokens at face value
    assert decide(late, token_value=4.0, endgame=2) == Action.TAKE


def test_near_makes_a_card_two_away_cheaper_but_not_a_neighbour():
    gap = view(20, 5, cards=((18,), (), (), ()))
    assert decide(gap, T=0.0, token_value=3.0) == Action.PASS  # 20 - 15 = 5 > 0
    assert decide(gap, T=0.0, token_value=3.0, near=6.0) == Action.TAKE  # 5 - 6 <= 0
    far = view(20, 5, cards=((17,), (), (), ()))
    assert decide(far, T=0.0, token_value=3.0, near=6.0) == Action.PASS


def test_collect_lets_a_wanted_card_go_round_only_while_it_looks_safe():
    wanted = view(20, 3, own_tokens=8, cards=((19,), (), (), ()))  # 1 point for 3 tokens
    on = {"T": 0.0, "collect": 1.0, "collect_safe": 0.5, "reserve": 3}
    assert decide(wanted, T=0.0) == Action.TAKE  # 1 - 3 <= 0
    assert decide(wanted, **on) == Action.PASS  # 3 + 3 passes < 0.5 x 20: it comes back
    rival = view(20, 3, own_tokens=8, cards=((19,), (), (21,), ()))
    assert decide(rival, **on) == Action.TAKE  # an opponent would take it cheaply
    poor = view(20, 3, own_tokens=3, cards=((19,), (), (), ()))
    assert decide(poor, **on) == Action.TAKE  # no tokens to spare beyond the reserve
    rich = view(20, 8, own_tokens=8, cards=((19,), (), (), ()))
    assert decide(rich, **on) == Action.TAKE  # 8 + 3 >= 10: someone would take it
    agent = HumanStandIn(T=0.0, w_greedy=0.0, lapse=0.0, collect=0.5, collect_safe=0.5)
    agent.start(0, VARIANT, seed=1)
    choices = {agent.decide(wanted) for _ in range(40)}
    assert choices == {Action.TAKE, Action.PASS}  # a probability, not a rule


def test_bad_habit_values_are_refused():
    for bad in ({"collect": 1.5}, {"token_value": 0.0}, {"endgame": -1}, {"reserve": -2}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            HumanStandIn(**bad)


def test_the_calibrated_preset_loads_and_synthetic_participants_vary_around_it():
    preset = load_preset(PRESET)
    agent = make_agent(f"human-standin:preset={PRESET}")
    for key, value in preset.params.items():
        assert getattr(agent, key) == pytest.approx(float(value)), key
    rng = random.Random(4)
    specs = [standin_spec(rng) for _ in range(5)]
    assert all(s.startswith(f"human-standin:preset={PRESET},") for s in specs)
    agents = [make_agent(s) for s in specs]
    assert len({a.T for a in agents}) == 5 and all(0 <= a.critic <= 1 for a in agents)
    assert standin_spec(random.Random(4), None).count("preset") == 0  # the first set's draws
