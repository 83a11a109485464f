"""The ``utility`` agent (nothanks.agents.cognitive.utility; docs/agent-specs.md) and
trials of games with the same agent objects (nothanks.play.runner.play_trial): rewards by
scheme, carrying utilities across games, the learning state in every decision's info,
and that a seeded trial learns to prefer the strategy that scores better."""
from __future__ import annotations

import json

import numpy as np
import pytest

from nothanks.agents import AgentSpecError, make_agent
from nothanks.analysis.learning import final_states
from nothanks.experiments import load, run_design
from nothanks.experiments.design import Design, Table
from nothanks.experiments.rows import compact_frames
from nothanks.play.match import Match
from nothanks.play.runner import play_trial
from nothanks.rules import Variant
from nothanks.rules.seeding import game_seed

CHEAP = "strategies=T0+T30+seq"  # rules only: no ToM model to load, games in milliseconds
TABLE = ["heuristic", "heuristic:T=-2", "random:p=0.4"]


def rewards_of(agent) -> list[float]:
    """Record every reward the agent gives its procedural memory."""
    given: list[float] = []
    reward = agent.memory.reward

    def recording(value):
        given.append(value)
        return reward(value)

    agent.memory.reward = recording
    return given


@pytest.mark.parametrize("scheme", ["take", "rank"])
def test_rewards_add_up_to_the_score_change_or_are_the_rank(scheme):
    agent = make_agent(f"utility:{CHEAP},reward={scheme},rank_reward=4")
    given = rewards_of(agent)
    record = Match([*TABLE[:1], agent, *TABLE[1:]], Variant(), seed=21).run()
    score, points = record.scores[1], record.rank_points[1]
    if scheme == "rank":
        assert given == [4 * points]
    else:
        cards = Variant().cards_played
        assert len(given) == cards  # one per card settled, whoever took it
        start = -Variant().tokens  # the score before any move: no cards, starting tokens
        assert sum(given) == pytest.approx(-(score - start))
        # a card another player took costs only the tokens paid passing on it
        others = [d for d in record.decisions if d.action == "take" and d.seat != 1]
        assert others and all(given[i] <= 0 for i, d in enumerate(
            d for d in record.decisions if d.action == "take") if d.seat != 1)


def test_decision_info_is_the_learning_state_and_simulate_tables_keep_it():
    agent = make_agent(f"utility:{CHEAP}")
    assert agent.learns and not agent.carries
    record = Match([agent, *TABLE], Variant(), seed=4).run()
    own = [d for d in record.decisions if d.seat == 0]
    for d in own:
        state = d.info["learning"]
        assert set(state["utilities"]) == {"T0", "T30", "seq"}
        if d.forced:
            assert state["strategy"] is None
        else:
            assert state["strategy"] in state["utilities"]
            assert d.info["reason"].startswith(f"strategy {state['strategy']}")
    # the utilities move during the game (the take rewards), and the info shows it
    assert own[0].info["learning"] != own[-1].info["learning"]
    _, table = compact_frames([record])
    logged = [json.loads(text) for text in table[table["seat"] == 0]["learning"]]
    assert logged == [d.info["learning"] for d in own]


def test_carry_keeps_the_utilities_from_game_to_game_and_the_default_starts_afresh():
    carried = make_agent(f"utility:{CHEAP},carry=true")
    fresh = make_agent(f"utility:{CHEAP}")
    for agent in (carried, fresh):
        Match([agent, *TABLE], Variant(), seed=1).run()
    after_one = dict(carried.utilities)
    assert after_one != {"T0": 0.0, "T30": 0.0, "seq": 0.0}
    second = Match([carried, *TABLE], Variant(), seed=2).run()
    first_info = next(d.info["learning"] for d in second.decisions if d.seat == 0)
    assert first_info["utilities"] == after_one  # game 2 starts where game 1 ended
    second = Match([fresh, *TABLE], Variant(), seed=2).run()
    first_info = next(d.info["learning"] for d in second.decisions if d.seat == 0)
    assert first_info["utilities"] == {"T0": 0.0, "T30": 0.0, "seq": 0.0}


@pytest.mark.parametrize(("spec", "names"), [
    ("utility:reward=both", "reward='both' is unknown; valid: take, rank"),
    ("utility:strategies=tom3", "'tom3' is not a strategy"),
    ("utility:strategies=T0+T0", "repeats T0"),
    ("utility:strategies=T0++seq", "empty entry"),
    ("utility:egs=-1", "egs must be >= 0"),
    ("utility:alpha=0", "alpha must be > 0"),
    ("utility:time_per_turn=-1", "time_per_turn=-1.0 is invalid"),
])
def test_bad_keys_are_refused_with_what_is_valid(spec, names):
    with pytest.raises(AgentSpecError, match=names.replace("(", r"\(").replace(")", r"\)")):
        make_agent(spec)


def test_play_trial_seeds_seating_and_reproducibility():
    variant = Variant(players=3)

    def trial(seed, index, learner_carry="true"):
        agents = [make_agent(f"utility:{CHEAP},carry={learner_carry}"), "heuristic", "random"]
        return play_trial(agents, 4, seed, variant, trial=index), agents[0]

    records, learner = trial(9, 2)
    # trial 2 of 4 games: games 8-11 of the run with root seed 9
    assert [r.seed for r in records] == [game_seed(9, i) for i in range(8, 12)]
    assert [r.game_id for r in records] == [8, 9, 10, 11]
    # rotation: the learner (agent 0) sits at seat 1, 0, 2, 1 (runner.seating of 8-11)
    assert [r.agents.index(learner.spec) for r in records] == [1, 0, 2, 1]
    again, _ = trial(9, 2)
    assert [r.decisions for r in again] == [r.decisions for r in records]
    other, _ = trial(9, 3)
    assert [r.seed for r in other] != [r.seed for r in records]
    # learning carried: the learner's last game starts from utilities it learned
    last = next(d.info["learning"] for d in records[-1].decisions if d.agent == learner.spec)
    assert last["utilities"] != {"T0": 0.0, "T30": 0.0, "seq": 0.0}
    with pytest.raises(ValueError, match="seats 0 and 1"):
        play_trial([learner, learner, "random"], 1, 0, variant)
    with pytest.raises(ValueError, match="games=0"):
        play_trial(["random"] * 3, 0, 0, variant)


def _share_of(records, spec: str, strategy: str) -> float:
    chosen = [d.info["learning"]["strategy"] for r in records for d in r.decisions
              if d.agent == spec and d.info["learning"]["strategy"]]
    return float(np.mean([c == strategy for c in chosen]))


def test_a_trial_learns_to_prefer_the_strategy_that_scores_better():
    """Falsifiable: on these deals T0 (take only free cards) scores far better than T30
    (take nearly anything); learners carrying their utilities over a trial must end
    preferring T0 and choose it more in their last games than learners that start every
    game afresh on the same deals (the no-learning control), and score better there."""
    spec = "utility:strategies=T0+T30,carry={}"
    games, seed, trials = 12, 5, 6
    table = ["heuristic", "heuristic:T=-2", "random:p=0.4"]
    late = slice(games // 2, games)
    # the two strategies alone, on the same deals and seats: which one scores better
    fixed = {rule: np.mean([r.scores[0] for r in play_trial(
        [f"heuristic:T={rule[1:]}", *table], games, seed, rotate=False)])
        for rule in ("T0", "T30")}
    assert fixed["T0"] < fixed["T30"] - 10  # lower scores are better
    prefer, share, control_share, score, control_score = [], [], [], [], []
    for trial in range(trials):
        learner = make_agent(spec.format("true"))
        learned = play_trial([learner, *table], games, seed, trial=trial, rotate=False)
        fresh = make_agent(spec.format("false"))
        control = play_trial([fresh, *table], games, seed, trial=trial, rotate=False)
        prefer.append(learner.utilities["T0"] > learner.utilities["T30"])
        share.append(_share_of(learned[late], learner.spec, "T0"))
        control_share.append(_share_of(control[late], fresh.spec, "T0"))
        score.append(np.mean([r.scores[0] for r in learned[late]]))
        control_score.append(np.mean([r.scores[0] for r in control[late]]))
    assert sum(prefer) == trials
    assert np.mean(share) > 0.75 and np.mean(share) > np.mean(control_share) + 0.15
    assert np.mean(score) < np.mean(control_score) - 10


def test_a_design_with_trials_logs_the_utilities_in_the_learning_table(tmp_path):
    learner = f"utility:{CHEAP},carry=true"
    design = Design(name="utility-trials", seed=3, games=4, trial=2, tables=(
        Table("learner", (learner, *TABLE), focal=0),))
    run_design(design, tmp_path / "run", progress=False, jobs=1)
    log = load(tmp_path / "run")
    states = [json.loads(s) for s in log.learning["state"]]
    assert len(states) == log.decisions["agent"].eq(learner).sum()
    assert all(set(s["utilities"]) == {"T0", "T30", "seq"} for s in states)
    rows = log.learning.assign(utilities=[s["utilities"] for s in states])
    fresh = {"T0": 0.0, "T30": 0.0, "seq": 0.0}
    firsts = rows.sort_values("turn").groupby(["trial", "trial_game"])["utilities"].first()
    # each trial starts afresh; its second game starts from what the first one learned
    assert all(firsts[(t, 0)] == fresh for t in (0, 1))
    assert all(firsts[(t, 1)] != fresh for t in (0, 1))
    ends = final_states(log.learning, log.games)
    assert set(ends["name"]) == {"T0", "T30", "seq"} and (ends["trials"] == 2).all()


def test_play_trial_plays_the_deals_of_a_designs_trial(tmp_path):
    """Trial k of play_trial and trial k of a design with ``trial = N`` and the same seed
    are the same games: seeds, seating and every move (issue 45)."""
    learner = f"utility:{CHEAP},carry=true"
    design = Design(name="utility-trials", seed=3, games=6, trial=3, tables=(
        Table("learner", (learner, *TABLE), focal=0),))
    run_design(design, tmp_path / "run", progress=False, jobs=1)
    log = load(tmp_path / "run")
    for k in (0, 1):
        records = play_trial([learner, *TABLE], 3, design.seed, design.variant, trial=k)
        games = log.games[log.games["deal"].between(3 * k, 3 * k + 2)]
        assert sorted(set(games["seed"])) == sorted(r.seed for r in records)
        decisions = log.decisions[log.decisions["deal"].between(3 * k, 3 * k + 2)]
        logged = list(zip(decisions["seed"], decisions["seat"], decisions["card"],
                          decisions["action"], strict=True))
        played = [(r.seed, d.seat, d.card, str(d.action)) for r in records
                  for d in r.decisions]
        assert logged == played


def test_without_learning_the_utilities_stay_and_the_choices_stay_even():
    """The no-learning control (learn=false): same noisy conflict resolution among the
    starting utilities, no reward given, so nothing moves however the games go."""
    learner = make_agent(f"utility:{CHEAP},learn=false,carry=true")
    given = rewards_of(learner)
    records = play_trial([learner, *TABLE], 4, 8, rotate=False)
    assert given == [] and learner.utilities == {"T0": 0.0, "T30": 0.0, "seq": 0.0}
    states = [d.info["learning"] for r in records for d in r.decisions if d.seat == 0]
    assert all(s["utilities"] == learner.utilities for s in states)
    shares = [np.mean([s["strategy"] == name for s in states if s["strategy"]])
              for name in ("T0", "T30", "seq")]
    assert max(shares) - min(shares) < 0.2
