"""OpenSpiel's bots as agents (``openspiel-mcts``, ``openspiel-ismcts``;
nothanks/agents/outside.py) and what they need from ``python_no_thanks``: resampling an
information state, and states built from public events. The conformance suite
(tests/integration/test_agent_conformance.py) covers every table size, deciding from the view only,
seeds and the log for both specs."""
from __future__ import annotations

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import ismcts, mcts

from nothanks.agents import AgentSpecError, make_agent
from nothanks.integrations import openspiel as nt_openspiel
from nothanks.play.match import Match
from nothanks.rules import Game, Variant


def _mid_game(variant: Variant, seed: int, decisions: int) -> tuple[Game, object]:
    """A seeded game after ``decisions`` heuristic-ish moves, and the OpenSpiel state with
    the same (true) removed cards and public history."""
    game = Game(variant, seed)
    rng = np.random.default_rng(seed)
    for _ in range(decisions):
        legal = game.legal_actions()
        game.apply(legal[int(rng.integers(len(legal)))])
    state = nt_openspiel.state_with_removed(
        nt_openspiel.load_variant(variant), game.removed_cards,
        nt_openspiel.public_actions(variant, game.history))
    return game, state


def test_state_from_public_events_is_the_game():
    variant = Variant(players=5)
    game, state = _mid_game(variant, 3, 30)
    assert state.current_player() == game.seat
    for seat in range(variant.players):
        shown = nt_openspiel.seen(state, seat)
        view = game.view(seat)
        assert (shown.card, shown.own_tokens, shown.cards) == (view.card, view.own_tokens,
                                                              view.cards)
    with pytest.raises(ValueError, match=r"removed cards \[3, 3\] are not 9 distinct"):
        nt_openspiel.state_with_removed(state.get_game(), [3, 3], [])
    removed_again = game.removed_cards[0] - variant.low_card  # reveal a removed card
    with pytest.raises(ValueError, match=rf"action {removed_again} at step 9 \(chance\) is "
                                         "not legal"):
        nt_openspiel.state_with_removed(state.get_game(), game.removed_cards,
                                        [removed_again])


def test_resample_keeps_every_information_state_and_redraws_the_removed_cards():
    variant = Variant(players=4)
    _, state = _mid_game(variant, 8, 25)
    sampler = np.random.default_rng(1).uniform
    draws = [state.resample_from_infostate(state.current_player(), sampler)
             for _ in range(20)]
    revealed = set(state.revealed)
    for other in draws:
        assert len(set(other.removed)) == variant.removed
        assert not set(other.removed) & revealed
        assert other.history()[variant.removed:] == state.history()[variant.removed:]
        for seat in range(variant.players):
            assert (other.information_state_string(seat)
                    == state.information_state_string(seat))
    assert len({tuple(d.removed) for d in draws}) > 15  # drawn afresh, not copied


def test_openspiel_ismcts_runs_in_python_but_not_in_cpp():
    """The claim of docs/openspiel.md: OpenSpiel's Python IS-MCTS searches the game; the
    C++ ISMCTSBot reaches State::ResampleFromInfostate, which the pybind trampoline of a
    Python game does not forward (get_policy; step would crash without the GIL)."""
    variant = Variant(players=4)
    _, state = _mid_game(variant, 5, 20)
    game = state.get_game()
    rng = np.random.RandomState(0)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rng), 2.0, 8,
                           random_state=rng)
    policy = dict(bot.get_policy(state))
    assert set(policy) == set(state.legal_actions()) and sum(policy.values()) == 1
    cpp = pyspiel.ISMCTSBot(1, pyspiel.RandomRolloutEvaluator(1, 1), 2.0, 8)
    with pytest.raises(pyspiel.SpielError, match="ResampleFromInfostate"):
        cpp.get_policy(state)


@pytest.mark.parametrize("name", ["openspiel-mcts", "openspiel-ismcts"])
def test_bots_are_seeded_and_refuse_bad_budgets(name):
    fewest = 2  # the first simulation only creates the root
    spec = f"{name}:sims=3"
    table = [spec, "heuristic", spec]
    short = Variant(players=3, high_card=20, removed=4, starting_tokens=5)

    def moves(seed: int) -> list:
        record = Match(table, short, seed).run()
        return [(d.seat, d.card, d.action) for d in record.decisions if d.seat != 1]

    Match([f"{name}:sims={fewest}", "random", "random"], short, 1).run()  # decides
    assert moves(4) == moves(4)  # same seed, same moves
    assert moves(4) != moves(5)
    for bad, key in ((f"sims={fewest - 1}", "sims"), ("c=-1", "c"), ("rollouts=0", "rollouts")):
        with pytest.raises(AgentSpecError, match=rf"{key}=.* is invalid"):
            make_agent(f"{name}:{bad}")


def test_the_determinisation_draws_removed_cards_among_the_unseen_only():
    variant = Variant(players=4)
    game, true_state = _mid_game(variant, 12, 18)
    agent = make_agent("openspiel-ismcts:sims=2")
    agent.start(game.seat, variant, 9)
    for event in game.history:
        agent.observe(event)
    state = agent.determinize(np.random.RandomState(0))
    assert not set(state.removed) & set(true_state.revealed)
    assert (state.information_state_string(game.seat)
            == true_state.information_state_string(game.seat))
    assert state.removed != true_state.removed  # a guess, not the hidden cards
