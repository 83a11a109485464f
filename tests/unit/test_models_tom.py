"""ToM0/ToM1/ToM2/ToM-k on hand-built situations, legality over many games, specs."""
from __future__ import annotations

import pytest

from nothanks.actr import ExactMatch, Linear, Weber
from nothanks.agents import AgentSpecError, agent_parameters, make_agent
from nothanks.agents.cognitive import ToMAgent
from nothanks.play.runner import play_game, play_games
from nothanks.rules import Action, Game, Variant, View

from helpers import view_of

VARIANT = Variant()


def situation(agent: ToMAgent, cards, card: int, tokens_on_card: int = 0,
              own_tokens: int = 11, seat: int = 0) -> View:
    """Start ``agent`` in ``seat`` of a fresh game and build a view of a hand-made state."""
    agent.start(seat, VARIANT, seed=1)
    return view_of(cards, card, tokens_on_card, own_tokens, seat)


def quiet(spec: str) -> ToMAgent:
    """A model with activation noise off, so decisions follow the nearest instance."""
    return make_agent(f"{spec}:s=0")


def test_tom0_takes_an_extension_card_and_passes_a_bare_high_card():
    agent = quiet("tom0")
    assert agent.decide(situation(agent, [[20], [], [], []], 21)) is Action.TAKE
    assert agent.decision_info()["reason"] == "ToM0 says take"
    assert agent.decide(situation(agent, [[5], [], [], []], 30, tokens_on_card=2)) is Action.PASS
    assert agent.decide(situation(agent, [[5], [], [], []], 30, tokens_on_card=15)) is Action.TAKE


def test_no_tokens_forces_a_take():
    agent = quiet("tom2")
    assert agent.decide(situation(agent, [[5], [], [], []], 33, own_tokens=0)) is Action.TAKE
    assert agent.decision_info()["own_tom0_action"] is None  # not consulted: forced


def test_tom1_skips_a_wanted_card_only_when_every_opponent_passes():
    agent = quiet("tom1")
    # nobody else can use 21 and everyone has 11 tokens: let it come back richer
    assert agent.decide(situation(agent, [[20], [5], [10], [30]], 21)) is Action.PASS
    info = agent.decision_info()
    assert [p["action"] for p in info["predictions"]] == ["pass"] * 3
    assert [p["seat"] for p in info["predictions"]] == [1, 2, 3]
    assert info["own_tom0_action"] == "take"
    assert "all 3 opponents predicted to pass" in info["reason"]
    # player 2 owns 22 and would take 21: take it now; player 3 is not predicted
    assert agent.decide(situation(agent, [[20], [5], [22], [30]], 21)) is Action.TAKE
    info = agent.decision_info()
    assert [(p["seat"], p["action"]) for p in info["predictions"]] == [(1, "pass"), (2, "take")]


def test_tom1_predicts_with_one_more_token_per_earlier_pass():
    agent = quiet("tom1")
    agent.traces = True
    agent.decide(situation(agent, [[20], [5], [10], [30]], 21, tokens_on_card=2))
    predictions = agent.last_trace.root.predictions
    assert [p.tokens_on_card for p in predictions] == [3, 4, 5]
    assert [p.projections[0].tokens for p in predictions] == [11, 11, 11]


def test_tom2_anticipates_a_tom1_opponents_skip():
    """Player 1 wants 21, and ToM1 in its shoes expects everyone else to pass, so it
    would skip; ToM2 predicts that skip, ToM1 (thinking ToM0) predicts a take."""
    cards = [[5], [22], [10], [30]]
    tom1, tom2 = quiet("tom1"), quiet("tom2")
    tom1.decide(situation(tom1, cards, 21))
    tom2.decide(situation(tom2, cards, 21))
    by_tom1 = {p["seat"]: p["action"] for p in tom1.decision_info()["predictions"]}
    by_tom2 = {p["seat"]: p["action"] for p in tom2.decision_info()["predictions"]}
    assert by_tom1 == {1: "take"}
    assert by_tom2 == {1: "pass", 2: "pass", 3: "pass"}


def test_tom_k_is_one_recursion():
    for k in range(4):
        agent = make_agent(f"tom:k={k},s=0")
        assert agent.k == k and agent.name == f"tom{k}"
        agent.traces = True
        # 20 tokens on 21: every player's ToM0 would take, so every projection predicts
        agent.decide(situation(agent, [[20], [5], [10], [30]], 21, tokens_on_card=20))
        depth, node = 0, agent.last_trace.root
        while node.predictions:  # follow the first projection down
            node = node.predictions[0].projections[0]
            depth += 1
        assert depth == k and node.level == 0
    assert type(make_agent("tom2")) is type(make_agent("tom:k=2")) is ToMAgent


def test_oracle_mode_sees_true_counts():
    agents = [make_agent("tom1:oracle_tokens=true"), make_agent("tom0"),
              make_agent("heuristic"), make_agent("tom2")]
    for seat, agent in enumerate(agents):
        agent.start(seat, VARIANT, seed=seat)
    game = Game(VARIANT, seed=7, listeners=[a.observe for a in agents])
    for agent in agents:
        agent.observe(game.history[0])
    checked = 0
    while not game.over:
        seat = game.seat
        action = agents[seat].decide(game.view(seat))
        if seat == 0 and game.tokens(0) > 0:
            recalled = agents[0].decision_info()["recalled_tokens"]
            assert recalled == {s: (game.tokens(s),) for s in (1, 2, 3)}
            assert {p["source"] for p in agents[0].decision_info()["predictions"]} <= {"oracle"}
            checked += 1
        game.apply(action, seat)
    assert checked > 5


def test_token_counts_come_from_memory_not_the_state():
    agent = make_agent("tom1")
    agent.start(0, VARIANT, seed=3)
    view = View(0, VARIANT, 0, 21, 0, 11, ((20,), (5,), (10,), (30,)), 10, (), 0,
                (11, 1, 1, 1))  # the (open) true counts say 1; the model never looks
    agent.decide(view)
    assert agent.decision_info()["recalled_tokens"] == {1: (11,), 2: (11,), 3: (11,)}


@pytest.mark.parametrize("players", [3, 4, 5])
def test_models_never_move_illegally(players):
    specs = ["tom0", "tom1", "tom2", "tom:k=3", "heuristic"][:players]
    variant = Variant(players=players)
    for result in play_games(specs, 12, seed=players, variant=variant):
        for decision in result.decisions:  # game.apply raises on any illegal move
            if decision.tokens_before == 0:
                assert decision.action == "take" and decision.forced
        assert sum(result.tokens) == players * variant.tokens


def test_reused_agents_reset_between_games():
    specs = ["tom2", "tom1", "tom0", "tom2:noise_mode=per_retrieval"]
    run = list(play_games(specs, 3, seed=11))
    alone = list(play_games(specs, 1, seed=11, start=2))
    assert alone[0].decisions == run[2].decisions  # records compare their infos too


def test_decision_info_keys_and_types():
    agent = make_agent("tom2")
    result = play_game([agent, make_agent("tom0"), make_agent("tom1"), make_agent("heuristic")],
                       seed=5)
    infos = [d.info for d in result.decisions if d.seat == 0]
    assert infos
    for info in infos:
        assert set(info) == {"tom_order", "model_time", "reason", "own_tom0_action", "latency",
                             "instance_failures", "predictions", "recalled_tokens",
                             "leaf_is_newest"}
        assert info["tom_order"] == 2 and isinstance(info["model_time"], float)
        assert info["latency"] > 0 and isinstance(info["instance_failures"], int)
        for prediction in info["predictions"]:
            assert set(prediction) == {"seat", "action", "tokens_assumed", "source"}
            assert prediction["source"] in {"leaf", "root", "default"}
        assert set(info["recalled_tokens"]) == {1, 2, 3}
    assert agent.instance_failures == 0


def test_decision_log_writes_to_parquet(tmp_path):
    from nothanks.experiments import compact_frames
    from nothanks.files import write_frame
    for specs in (["tom0"] * 4, ["tom2", "tom1", "tom0", "heuristic"]):
        _, decisions = compact_frames(list(play_games(specs, 2, seed=1)))
        write_frame(decisions, tmp_path / "decisions.parquet")
        assert (tmp_path / "decisions.parquet").exists()


def test_instance_failures_fall_back_and_are_counted():
    agent = make_agent("tom0:instance_rt=5")  # nothing can clear +5
    assert agent.decide(situation(agent, [[20], [], [], []], 21)) is Action.PASS
    info = agent.decision_info()
    assert info["instance_failures"] == 1 and "default pass" in info["reason"]


@pytest.mark.parametrize(("spec", "words"), [
    ("tom2:bogus=1", "has no parameter 'bogus'; valid: rt (default -2.0)"),
    ("tom2:rt=high", "'high' is not a valid float"),
    ("tom1:k=3", "has no parameter 'k'"),
    ("tom:k=-1", "valid: an integer >= 0"),
    ("tom1:noise_mode=sometimes", "valid: per_time, per_retrieval"),
    ("tom1:time_per_turn=0", "valid: > 0 seconds"),
    ("tom1:d=0", "decay"),
    ("tom1:instances=/no/such/file.csv", "cannot be read"),
])
def test_spec_errors_say_what_is_valid(spec, words):
    with pytest.raises(AgentSpecError) as error:
        make_agent(spec)
    assert words in str(error.value)


def test_every_parameter_is_listed_with_its_default():
    params = agent_parameters("tom2")
    for key in ("rt", "instance_rt", "d", "s", "mp", "leaf_penalty", "time_per_turn", "lf",
                "noise_mode", "oracle_tokens", "instances", "trace"):
        assert key in params
    assert "k" not in params and agent_parameters("tom")["k"] == 2
    agent = make_agent("tom2:rt=-1.5,trace=true,noise_mode=per_retrieval")
    assert agent.params["rt"] == -1.5 and agent.traces and agent.spec == (
        "tom2:rt=-1.5,trace=true,noise_mode=per_retrieval")


# ------------------------------------------------------------------ ToM0 retrieval
def test_tom0_retrieval_uses_the_table2_mismatch_functions():
    agent = make_agent("tom0:s=0,trace=true")
    agent.decide(situation(agent, [[20], [], [], []], 21, tokens_on_card=3, own_tokens=6))
    record = agent.last_trace.root.retrieval
    assert dict(record.request) == {"category": "extension", "card": 21,
                                    "tokens_on_card": 3, "tokens_owned": 6}
    mp = agent.params["mp"]
    reference = {"category": ExactMatch(100), "card": Linear(32), "tokens_on_card": Weber(),
                 "tokens_owned": Weber()}
    assert len(record.candidates) == len(agent.instance_set)
    for candidate in record.candidates:
        assert candidate.base_level == 0.0 and candidate.noise == 0.0
        for slot, fn in reference.items():
            expected = mp * fn(record.request[slot], candidate.chunk[slot])
            assert candidate.mismatch[slot] == pytest.approx(expected), slot
    assert Linear(32)(21, 5) == pytest.approx(-16 / 32)
    assert ExactMatch(100)("extension", "completion") == -100


# ------------------------------------------------------------------ projections per count
def walk_predictions(node):
    """Every prediction in a reasoning trace, depth first."""
    for prediction in node.predictions:
        yield prediction
        for projection in prediction.projections:
            yield from walk_predictions(projection)


def test_several_candidate_counts_project_once_each_and_pass_only_if_all_pass():
    """Long model turns make the leaf fade, so opponents are recalled by class (two
    candidate counts); each count gets its own projection and a pass needs all."""
    agent = make_agent("tom2:s=0,time_per_turn=20,trace=true")
    others = [make_agent("tom0"), make_agent("tom1"), make_agent("heuristic")]
    traces = []
    original = agent.decide

    def decide(view):
        action = original(view)
        traces.append(agent.last_trace)
        return action

    agent.decide = decide
    play_game([agent, *others], seed=0)
    mixed = 0
    for trace in traces:
        for prediction in walk_predictions(trace.root):
            actions = [p.action for p in prediction.projections]
            assert len(actions) == len(prediction.tokens_assumed)
            assert prediction.action == (Action.PASS if all(a is Action.PASS for a in actions)
                                         else Action.TAKE)
            assert [p.tokens for p in prediction.projections] == list(prediction.tokens_assumed)
            mixed += len(set(actions)) > 1
    assert mixed > 0, "no prediction whose projections disagree: the test proves nothing"
