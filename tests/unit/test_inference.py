"""Order inference: the posterior arithmetic, lapses, state reconstruction, seeds."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from nothanks.agents import make_agent
from nothanks.agents.cognitive.likelihood import (
    bayes_update,
    lapse_mix,
    normalised_prior,
    sample_decisions,
)
from nothanks.experiments import Design, load
from nothanks.experiments.design import Schedule, Table
from nothanks.play.match import Match
from nothanks.rules import Variant
from nothanks.studies.inference import (
    InferenceError,
    add_posterior,
    confusion_matrix,
    infer_order,
    play_simulated_player,
    zero_vs_higher,
)

#: Short games (13 cards) against ToM0 and heuristic tables, two blocks of two.
SMALL = Variant(removed=20)
MINI = Design(
    name="mini-inference", seed=5, rotate=True, variant=SMALL,
    tables=(Table("T0", ("human", "tom0", "tom0", "tom0"), 0),
            Table("H", ("human", "heuristic", "heuristic", "heuristic"), 0)),
    schedule=Schedule(("T0", "H", "T0", "H"), (1, 1, 2, 2), (1,)),
)


def _frame(p_take: dict[str, list[float]], actions: list[str], blocks: list[int]):
    rows = []
    for i, (action, block) in enumerate(zip(actions, blocks, strict=True)):
        for model, values in p_take.items():
            rows.append({"participant": "P1", "decision": i, "block": block, "action": action,
                         "forced": False, "model": model, "p_take": values[i]})
    return pd.DataFrame(rows)


def test_posterior_update_matches_the_hand_computed_case():
    # A takes with 0.8, B with 0.2; moves take, take, pass; no lapse
    frame = _frame({"A": [0.8] * 3, "B": [0.2] * 3}, ["take", "take", "pass"], [1, 1, 1])
    out = add_posterior(frame, ["A", "B"], lapse=0.0)
    a = out[out["model"] == "A"].sort_values("decision")["posterior"].to_numpy()
    assert a == pytest.approx([0.8, 0.64 / 0.68, 0.128 / 0.16])
    b = out[out["model"] == "B"].sort_values("decision")["posterior"].to_numpy()
    assert a + b == pytest.approx(np.ones(3))
    assert out.loc[out["model"] == "A", "loglik"].sum() == pytest.approx(
        2 * math.log(0.8) + math.log(0.2))


def test_block_posterior_restarts_and_a_prior_weights_the_start():
    frame = _frame({"A": [0.8] * 3, "B": [0.2] * 3}, ["take", "take", "take"], [1, 1, 2])
    out = add_posterior(frame, ["A", "B"], lapse=0.0, prior={"A": 1, "B": 3})
    a = out[out["model"] == "A"].sort_values("decision")
    # prior 1/4: after one take 0.2/(0.2+0.15)
    assert a["posterior"].iloc[0] == pytest.approx(0.2 / 0.35)
    assert a["block_posterior"].iloc[2] == pytest.approx(a["posterior"].iloc[0])
    assert a["posterior"].iloc[2] > a["block_posterior"].iloc[2]


def test_lapse_mixing_and_a_forced_take_are_what_they_say():
    assert lapse_mix(1.0, 0.1) == pytest.approx(0.95)
    assert lapse_mix(0.0, 0.1) == pytest.approx(0.05)
    assert lapse_mix(0.5, 0.3) == pytest.approx(0.5)
    with pytest.raises(ValueError, match="not a probability"):
        lapse_mix(0.5, 1.5)
    # with a lapse, a move no model predicts does not zero a posterior
    frame = _frame({"A": [1.0, 1.0], "B": [0.0, 0.0]}, ["pass", "take"], [1, 1])
    frame.loc[frame["decision"] == 1, "forced"] = True
    out = add_posterior(frame, ["A", "B"], lapse=0.1)
    first = out[out["decision"] == 0].set_index("model")["posterior"]
    assert first["A"] == pytest.approx(0.05 / 1.0)
    forced = out[out["decision"] == 1].set_index("model")
    assert (forced["likelihood"] == 1.0).all()
    assert forced["posterior"]["A"] == pytest.approx(first["A"])
    with pytest.raises(ValueError, match="lapse rate > 0"):
        bayes_update(np.log([0.5, 0.5]), np.array([-np.inf, -np.inf]))
    with pytest.raises(ValueError, match="unknown model"):
        normalised_prior(["A"], {"Z": 1.0})


def test_sampling_a_models_choice_leaves_its_game_undisturbed():
    """Re-deciding every state with fresh noise must not change a single later move or
    recall: the sampled model plays the same game as an untouched one."""
    def play(sample: bool):
        agents = [make_agent("tom1"), "tom0", "tom0", "tom0"]
        match = Match(agents, SMALL, seed=7)
        rng = np.random.default_rng(0)
        while not match.over:
            if sample and match.to_move == 0:
                sample_decisions(match.agents[0], match.game.view(0), 5, rng)
            match.step()
        history = match.agents[0].token_memory.history_frame()
        return [d.move() for d in match.decisions], history
    plain, with_samples = play(False), play(True)
    assert plain[0] == with_samples[0]
    pd.testing.assert_frame_equal(plain[1], with_samples[1])


def test_sampling_after_a_decision_leaves_the_next_recall_at_that_time_undisturbed():
    """A model that decided, was sampled with fresh noise and decides again at the same
    model time recalls what it recalled the first time (its token memory's noise drawn at
    that time comes back with the restored random state)."""
    def recalls(sample: bool):
        match = Match([make_agent("tom2"), "tom0", "tom0", "tom0"], SMALL, seed=3)
        rng = np.random.default_rng(0)
        out = []
        while not match.over:
            if match.to_move == 0:
                agent, view = match.agents[0], match.game.view(0)
                agent.decide(view)
                if sample:
                    sample_decisions(agent, view, 3, rng)
                agent.decide(view)
                out.append([tuple(r) for r in agent.token_memory.history[-3:]])
            match.step()
        return out
    assert recalls(True) == recalls(False)


@pytest.fixture(scope="module")
def mini_log(tmp_path_factory):
    out = tmp_path_factory.mktemp("players")
    play_simulated_player("sim-tom0-01", out, "tom0", 0.05, MINI)
    play_simulated_player("sim-heuristic-01", out, "heuristic", 0.0, MINI)
    return load(out)


def test_inference_replays_every_logged_decision_and_is_reproducible(mini_log):
    first = infer_order(mini_log, samples=8, seed=3, practice=True)
    logged = mini_log.decisions[mini_log.decisions["player_kind"] == "human"]
    models = first.models
    assert len(first.decisions) == len(logged) * len(models)
    mine = first.decisions[first.decisions["model"] == "ToM0"].sort_values(
        ["participant", "decision"])
    want = logged.sort_values(["participant", "game_id", "turn"])
    assert mine["card"].tolist() == want["card"].astype(int).tolist()
    assert mine["tokens_before"].tolist() == want["tokens_before"].astype(int).tolist()
    again = infer_order(mini_log, samples=8, seed=3, practice=True)
    pd.testing.assert_frame_equal(first.decisions, again.decisions)
    other = infer_order(mini_log, samples=8, seed=4, practice=True)
    assert not np.allclose(first.decisions["p_take"], other.decisions["p_take"])
    # common random numbers: ToM2 makes ToM1's moves (default reading), so the two get
    # the same estimate at every decision and the posterior cannot split them
    by_model = first.decisions.pivot_table(index=["participant", "decision"],
                                           columns="model", values="p_take")
    assert (by_model["ToM1"] == by_model["ToM2"]).all()
    # a deterministic heuristic player without lapses is recovered with certainty
    maps = first.map_orders().set_index("participant")
    assert maps.loc["sim-heuristic-01", "map_model"] == "heuristic"
    assert maps.loc["sim-heuristic-01", "map_posterior"] > 0.99
    table = confusion_matrix(first)
    assert set(table["true"]) == {"ToM0", "heuristic"}
    assert (table["source"] == "synthetic").all()
    assert zero_vs_higher(first)["players"] == 1
    group = first.group()
    assert group["map_count"].sum() == 2 and (group["ci_low"] <= group["map_share"]).all()
    assert (first.blocks()["block"].dropna().unique() == [1, 2]).all()


def test_a_log_that_does_not_replay_fails_naming_game_and_turn(mini_log):
    bad = load.__globals__["Log"](**{k: v.copy() for k, v in mini_log.tables().items()})
    rows = bad.decisions.index[(bad.decisions["player_kind"] == "human")
                               & (bad.decisions["participant"] == "sim-tom0-01")]
    bad.decisions.loc[rows[3], "tokens_on_card"] += 1
    with pytest.raises(InferenceError, match="game .* turn .*: tokens on card: logged"):
        infer_order(bad, "sim-tom0-01", samples=2, practice=True)
    with pytest.raises(InferenceError, match="not in the log"):
        infer_order(mini_log, "P99", samples=2)
    with pytest.raises(InferenceError, match="tokens='psychic'"):
        infer_order(mini_log, samples=2, tokens="psychic")
    with pytest.raises(InferenceError, match=r"candidate ToM\d: .*project_self"):
        infer_order(mini_log, samples=2, params={"project_self": "maybe"})
