"""bayes-tom: legal, reproducible games; its posterior finds the opponents' models."""
from __future__ import annotations

import numpy as np
import pytest

from nothanks.agents import AgentSpecError, make_agent
from nothanks.play.match import Match
from nothanks.rules import Variant

SMALL = Variant(removed=14)  # 19 cards: short games


def test_bayes_tom_plays_legal_reproducible_games_and_logs_like_a_model():
    first = Match(["bayes-tom", "tom0", "heuristic", "random"], SMALL, seed=4).run()
    again = Match(["bayes-tom", "tom0", "heuristic", "random"], SMALL, seed=4).run()
    assert [d.move() for d in first.decisions] == [d.move() for d in again.decisions]
    assert first.labels[0] == "bayes-tom" and first.tom_orders[0] is None
    mine = [d for d in first.decisions if d.seat == 0 and not d.forced]
    assert mine and all("predictions" in d.info for d in mine)
    assert set(mine[-1].info["opponent_models"]) == {1, 2, 3}


@pytest.mark.parametrize(("opponent", "model"), [("heuristic", "heuristic"),
                                                 ("random", "random")])
def test_the_posterior_moves_toward_the_opponents_true_model(opponent, model):
    """Over 8 short games (24 opponents), at least 80% end with the true model most
    probable at over 0.6 (from the prior 0.2); one game's three can miss (a heuristic
    opponent's moves can all be ToM0's too: ~92% of 90 opponents are found, either noise
    stream)."""
    found = 0
    for seed in range(8):
        agent = make_agent("bayes-tom")
        Match([agent, opponent, opponent, opponent], SMALL, seed=seed).run()
        posteriors = agent.posteriors()
        found += sum(max(posteriors[seat], key=posteriors[seat].get) == model
                     and posteriors[seat][model] > 0.6 for seat in (1, 2, 3))
    assert found >= 0.8 * 24
    frame = agent.posterior_frame()
    assert len(frame) == len(agent.history) * 5 and set(frame["seat"]) == {1, 2, 3}


def test_carry_starts_the_next_game_from_the_pooled_posterior():
    fresh, carried = make_agent("bayes-tom"), make_agent("bayes-tom:carry=true,floor=0.02")
    for agent in (fresh, carried):
        for seed in (1, 2):
            Match([agent, "random", "random", "random"], SMALL, seed=seed).run(record=False)
    assert np.allclose(np.exp(fresh._log_prior), 0.2)
    prior = np.exp(carried._log_prior)
    assert prior[carried.models.index("random")] > 0.5 and prior.min() >= 0.02 - 1e-12


@pytest.mark.parametrize(("spec", "message"), [
    ("bayes-tom:models=ToM0+ToM9", "models='ToM0\\+ToM9' is invalid"),
    ("bayes-tom:predict=vote", "predict='vote' is unknown"),
    ("bayes-tom:lapse=0", "lapse=0.0 is invalid"),
    ("bayes-tom:k=2", "has no parameter 'k'"),
])
def test_bad_bayes_tom_parameters_say_what_is_valid(spec, message):
    with pytest.raises(AgentSpecError, match=message):
        make_agent(spec)


def test_inference_reads_the_observed_card_whoever_moved_first():
    """Learning from a move uses that move's card: not a crash before bayes-tom's first
    decision, and not the categories of the card it last decided on."""
    from nothanks.rules import Passed, Took, sequence_category
    agent = make_agent("bayes-tom")
    checked = []
    observe = agent.observe

    def checking(event):
        before = list(agent._cards)
        observe(event)
        if isinstance(event, (Passed, Took)) and event.seat != agent.seat:
            checked.append(all(category == sequence_category(before[seat], event.card)
                               for seat, category in agent._categories.items()))

    agent.observe = checking
    Match(["tom0", agent, "heuristic", "tom0"], SMALL, seed=3).run()
    assert len(checked) > 10 and all(checked)
