"""The human stand-in's optional habits: each switch on a hand-built view, the defaults
playing exactly as before the habits existed, and the calibrated preset."""
from __future__ import annotations

import hashlib
import random

import pytest

from nothanks.agents import load_preset, make_agent
from nothanks.agents.standin import HumanStandIn
from nothanks.experiments.synthetic import PRESET, standin_spec
from nothanks.play.runner import play_games
from nothanks.rules import Action, Passed, Took, Variant, View

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
    """Actions of the stand-in before the habits were added (8 games, seed 3; the ToM0
    opponents on the noise stream the record was made with)."""
    spec = "human-standin:T=-3,low=4,lapse=0.1"
    actions = "".join("T" if d.action == "take" else "P"
                      for r in play_games(["tom0:noise_stream=pcg64"] * 3 + [spec], 8, seed=3)
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


def test_the_tally_counts_opponents_tokens_from_public_moves_only():
    agent = HumanStandIn(poor=4, slip=0.0)
    agent.start(0, VARIANT, seed=1)
    for event in (Passed(0, 1, 20, 1), Passed(1, 2, 20, 2), Passed(2, 3, 20, 3),
                  Took(3, 0, 20, 3), Passed(4, 0, 5, 1), Took(5, 1, 5, 1)):
        agent.observe(event)
    assert [agent.tally(s) for s in (1, 2, 3)] == [11 - 1 + 1, 10, 10]
    sloppy = HumanStandIn(poor=4, slip=1.0)  # every counted move off by one
    sloppy.start(0, VARIANT, seed=1)
    for turn in range(5):
        sloppy.observe(Passed(turn, 1, 20, turn + 1))
    assert sloppy.tally(1) in (1, 3, 5, 7, 9, 11)  # 6 held; an odd count of errors


def counted(tokens: tuple[int, int, int], **params: float) -> HumanStandIn:
    """A stand-in at seat 0 whose tally says the three opponents hold ``tokens``."""
    agent = HumanStandIn(T=0.0, w_greedy=0.0, lapse=0.0, slip=0.0, **params)
    agent.start(0, VARIANT, seed=1)
    for seat, held in zip((1, 2, 3), tokens, strict=True):
        for turn in range(11 - held):
            agent.observe(Passed(turn, seat, 35, turn + 1))
    return agent


def test_with_the_tally_a_card_is_safe_per_opponent_and_not_before_a_poor_one():
    wanted = view(30, 3, own_tokens=8, cards=((29,), (), (), ()))
    on = {"collect": 1.0, "collect_safe": 0.35, "reserve": 3}
    # without the tally: 3 + 3 passes >= 0.35 x 30 = 10.5? no -> safe, lets it go round
    assert decide(wanted, **on) == Action.PASS
    rich = counted((11, 11, 11), poor=4, **on)
    assert rich.decide(wanted) == Action.PASS  # each opponent sees 4, 5, 6 < 10.5
    third_poor = counted((11, 11, 2), poor=4, **on)
    assert third_poor.decide(wanted) == Action.TAKE  # the third takes at 2/4 x 10.5 <= 6
    broke = counted((0, 11, 11), poor=0, **on)
    assert broke.decide(wanted) == Action.TAKE  # the next player must take it


def test_deny_makes_a_card_next_to_an_opponents_card_cheaper():
    card = view(20, 5, cards=((), (21,), (), ()))
    assert decide(card, T=0.0, token_value=3.0) == Action.PASS  # 20 - 15 = 5 > 0
    assert decide(card, T=0.0, token_value=3.0, deny=5.0) == Action.TAKE
    own = view(20, 5, cards=((21,), (), (), ()))  # its own neighbour: no denial
    assert decide(own, T=-6.0, deny=5.0) == Action.TAKE  # -1 - 5 <= -6
    assert decide(own, T=-6.5, deny=5.0) == Action.PASS  # denial would make it -11
    assert decide(view(20, 5), T=0.0, token_value=3.0, deny=5.0) == Action.PASS


def test_bad_habit_values_are_refused():
    for bad in ({"collect": 1.5}, {"token_value": 0.0}, {"endgame": -1}, {"reserve": -2},
                {"poor": -2}, {"slip": 1.2}):
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
