"""The search's compiled stand-in for the ToM models (``rollout=model``) decides as they do."""
from __future__ import annotations

import numpy as np
import pytest

from nothanks.agents import AgentSpecError, make_agent
from nothanks.agents.cognitive.state import state_chunk
from nothanks.agents.cognitive.tom import ToMAgent
from nothanks.agents.population import CATEGORIES, PlayerKinds, tom0_take_table
from nothanks.play.match import Match
from nothanks.play.runner import play_game
from nothanks.rules import Game, Variant
from nothanks.search import kernel as k
from nothanks.search import root_state, search

SMALL = Variant(players=3, low_card=3, high_card=14, removed=3)


def test_table_matches_noise_free_tom0_retrievals():
    """Where the table says take with probability >= 1/2, a noise-free ToM0 retrieves a
    take instance (the boundary cases, where two instances match alike, may differ)."""
    variant = Variant()
    table = tom0_take_table(variant)
    assert table.shape == (3, variant.high_card + 2, 45, 45)
    memory = ToMAgent(k=0, s=0.0)._instance_dm
    rng = np.random.default_rng(0)
    agree = 0
    for _ in range(100):
        c, card = int(rng.integers(3)), int(rng.integers(3, 36))
        on, own = int(rng.integers(0, 25)), int(rng.integers(0, 30))
        chunk = memory.retrieve(state_chunk(CATEGORIES[c], card, on, own)).chunk
        agree += (chunk is not None and chunk["action"] == "take") == (table[c, card, on, own]
                                                                        >= 0.5)
    assert agree >= 97
    assert table[1, 20, 0, 11] > 0.99 and table[0, 30, 0, 11] < 0.01  # extension / none


@pytest.mark.parametrize("order", [0, 1, 2])
def test_model_decides_like_the_tom_models_with_exact_counts(order):
    """With a 0/1 table (ToM0 deterministic), the compiled ToM-k makes the decision a
    ToM-k model with exact counts and nearly noise-free retrievals makes, move by move."""
    variant = Variant()
    table = (tom0_take_table(variant) >= 0.5).astype(float)
    scratch = np.zeros((order + 1, variant.players), dtype=np.int64)
    rng = np.array([1], dtype=np.uint64)
    agents = [ToMAgent(k=order, s=0.001, oracle_tokens=True) for _ in range(4)]
    match = Match(agents, variant, seed=order)
    same = total = 0
    while not match.over:
        view = match.game.view(match.to_move)
        expected = bool(k.model_takes(root_state(view), table, order, rng, scratch))
        same += expected == (str(match.step().action) == "take")
        total += 1
    assert same >= 0.95 * total


def test_model_rollouts_end_legal_games():
    for players in (3, 5, 7):
        variant = Variant(players=players, low_card=2, high_card=20, removed=4)
        state = root_state(Game(variant, players).view(0))
        out = np.empty(2 * players)
        k.model_rollout(state, np.array([k.MODEL, k.HEURISTIC] * 3 + [k.MODEL])[:players],
                        np.zeros(players), tom0_take_table(variant), 2,
                        np.array([players], dtype=np.uint64), out,
                        np.zeros((3, players), dtype=np.int64))
        assert state[k.OVER] and sum(out[players:]) == players * (players - 1) / 2


@pytest.mark.parametrize(("spec", "kind"), [("heuristic:T=3", "heuristic"), ("tom1", "model")])
def test_player_kinds_are_inferred_from_public_moves(spec, kind):
    """After one game of four players of one kind, the observer (seat 0) takes each of
    the other three for that kind (the heuristic's thresholds differ in few states, so
    one game need not tell them apart), and itself for the model."""
    variant = Variant()
    kinds = PlayerKinds(variant, 0, tom0_take_table(variant), 2)
    Match([spec] * 4, variant, seed=2, listeners=[kinds.observe]).run(record=False)
    assert [name.split(":")[0] for name in kinds.names()] == ["model"] + [kind] * 3


@pytest.mark.parametrize("opponents", ["search", "model"])
def test_agent_with_model_playouts_is_reproducible(opponents):
    spec = f"ismcts:iterations=40,rollout=model,opponents={opponents}"

    def play(seed):
        return play_game([make_agent(spec), make_agent("heuristic"), make_agent(spec)],
                         SMALL, seed=seed)

    first, again = play(3), play(3)
    assert [d.move() for d in first.decisions] == [d.move() for d in again.decisions]
    assert [d.info for d in first.decisions] == [d.info for d in again.decisions]


def test_model_settings_are_checked():
    assert make_agent("ismcts").rollout == "model"  # the default
    with pytest.raises(AgentSpecError, match="opponents='all' is unknown; valid: search"):
        make_agent("ismcts:rollout=model,opponents=all")
    with pytest.raises(AgentSpecError, match="order=9 is invalid"):
        make_agent("ismcts:rollout=model,order=9")
    state = root_state(Game(SMALL, 1).view(0))
    with pytest.raises(ValueError, match="needs the ToM0 table of this game's variant"):
        search(state, rollout="model", table=tom0_take_table(Variant()))
    with pytest.raises(ValueError, match="opponents='model' needs rollout='model'"):
        search(state, opponents="model")
    with pytest.raises(ValueError, match="weights: each seat's row must be probabilities"):
        search(state, rollout="model", table=tom0_take_table(SMALL), kinds=[k.MODEL],
               thresholds=[0.0], weights=[[0.5]] * 3)
