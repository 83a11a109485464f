"""ACT-R utility learning (nothanks.actr.ProceduralMemory; docs/actr.md, "Utility
learning"): the difference learning equation, reward propagation with the time discount,
the clearing reward, noisy conflict resolution, ACT-R's defaults and the errors."""
from __future__ import annotations

import inspect
import math

import numpy as np
import pytest

from nothanks.actr import CLEAR, ProceduralMemory


def test_defaults_are_act_r_7s():
    defaults = {name: p.default for name, p in
                inspect.signature(ProceduralMemory).parameters.items() if name != "productions"}
    assert defaults == {"alpha": 0.2, "egs": 0.0, "iu": 0.0, "ut": None, "ul": False,
                        "er": False, "utilities": None, "seed": None}
    memory = ProceduralMemory(["a", "b"])
    assert memory.utilities == {"a": 0.0, "b": 0.0}


def test_difference_learning_with_the_time_since_selection():
    memory = ProceduralMemory(["a"], ul=True)
    memory.select()
    memory.advance(1.0)
    (update,) = memory.reward(10)
    assert (update.production, update.elapsed, update.effective) == ("a", 1.0, 9.0)
    assert memory.utility("a") == pytest.approx(0.2 * 9.0)  # U <- U + alpha (R_eff - U)
    memory.select()
    memory.advance(0.5)
    memory.reward(4)
    assert memory.utility("a") == pytest.approx(1.8 + 0.2 * (3.5 - 1.8))


def test_a_reward_reaches_every_selection_since_the_last_one_in_order():
    memory = ProceduralMemory(["a", "b", "c"], ul=True, alpha=0.5)
    memory.reward(100)  # nothing selected yet: nothing learns
    assert memory.utilities == {"a": 0.0, "b": 0.0, "c": 0.0}
    for name, dt in (("a", 1.0), ("b", 2.0), ("a", 0.5)):
        assert memory.select([name]).production == name
        memory.advance(dt)
    assert [p for p, _ in memory.pending] == ["a", "b", "a"]
    updates = memory.reward(10)
    # a selected at 0 (3.5 s before), b at 1 (2.5 s), a again at 3 (0.5 s)
    assert [(u.production, u.elapsed) for u in updates] == [("a", 3.5), ("b", 2.5),
                                                            ("a", 0.5)]
    first = 0.5 * 6.5
    assert memory.utility("a") == pytest.approx(first + 0.5 * (9.5 - first))
    assert memory.utility("b") == pytest.approx(0.5 * 7.5)
    assert memory.utility("c") == 0.0  # never selected: never updated
    assert memory.pending == ()
    memory.advance(1.0)
    assert memory.reward(10) == []  # the history went with the last reward


@pytest.mark.parametrize("marker", [CLEAR, "No updates now.", True])
def test_a_non_numeric_reward_clears_the_history_without_learning(marker):
    memory = ProceduralMemory(["a", "b"], ul=True)
    memory.select(["a"])
    memory.advance(1.0)
    assert memory.reward(marker) == []
    assert memory.utilities == {"a": 0.0, "b": 0.0}
    memory.select(["b"])
    memory.advance(1.0)
    assert [u.production for u in memory.reward(5)] == ["b"]  # a's selection was cleared
    assert memory.utility("a") == 0.0 and memory.utility("b") == pytest.approx(0.8)


def test_without_utility_learning_nothing_is_remembered_or_learned():
    memory = ProceduralMemory(["a"])
    memory.select()
    assert memory.pending == ()
    with pytest.warns(RuntimeWarning, match="ul=False"):
        assert memory.reward(10) == []
    assert memory.utility("a") == 0.0


def test_a_none_reward_is_an_error_not_a_null_reward():
    with pytest.raises(ValueError, match="not None"):
        ProceduralMemory(["a"], ul=True).reward(None)


def test_noise_is_logistic_with_scale_egs_and_fresh_each_selection():
    s = 0.7
    memory = ProceduralMemory(["a", "b"], egs=s, utilities={"a": 1.0}, seed=5)
    draws = np.array([memory.select().utilities["a"] for _ in range(8_000)])
    assert draws.mean() == pytest.approx(1.0, abs=0.03)
    assert draws.var() == pytest.approx(math.pi ** 2 * s ** 2 / 3, rel=0.08)
    # the better production wins as often as the difference of two logistic draws says
    share = np.mean([memory.select().production == "a" for _ in range(2_000)])
    rng = np.random.default_rng(1)
    expected = np.mean(1.0 + rng.logistic(0, s, 200_000) > rng.logistic(0, s, 200_000))
    assert share == pytest.approx(expected, abs=0.03)


def test_without_noise_the_highest_utility_wins_and_ties_follow_er():
    memory = ProceduralMemory(["a", "b", "c"], utilities={"b": 1.0, "c": 1.0})
    assert {memory.select().production for _ in range(20)} == {"b"}  # first listed
    assert memory.select(["c", "b"]).production == "c"  # the order given breaks ties
    random_ties = ProceduralMemory(["a", "b", "c"], utilities={"b": 1.0, "c": 1.0},
                                   er=True, seed=3)
    assert {random_ties.select().production for _ in range(50)} == {"b", "c"}


def test_the_utility_threshold_keeps_low_productions_out():
    memory = ProceduralMemory(["a", "b"], ut=0.5, utilities={"b": 0.5})
    assert memory.select().production == "b"  # at the threshold: still competes
    memory.set_utility("b", 0.4)
    chosen = memory.select()
    assert chosen.production is None and chosen.utilities == {"a": 0.0, "b": 0.4}


def test_reset_restores_the_starting_utilities_and_the_same_seed_the_same_choices():
    def choices(seed: int) -> list[str]:
        memory = ProceduralMemory(["a", "b"], egs=1.0, ul=True, seed=seed)
        out = []
        for _ in range(30):
            out.append(memory.select().production)
            memory.advance(0.1)
            memory.reward(1.0 if out[-1] == "a" else 0.0)
        return out

    assert choices(4) == choices(4) and choices(4) != choices(5)
    memory = ProceduralMemory(["a", "b"], ul=True, utilities={"b": 2.0})
    memory.select()
    memory.advance(3.0)
    memory.reward(1.0)
    memory.reset()
    assert memory.utilities == {"a": 0.0, "b": 2.0}
    assert memory.time == 0.0 and memory.pending == ()


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"alpha": 0}, "alpha must be > 0"),
    ({"alpha": 1.5}, "alpha must be <= 1"),
    ({"egs": -1}, "egs must be >= 0"),
    ({"iu": math.nan}, "iu must be finite"),
    ({"utilities": {"z": 1.0}}, "no production 'z'; valid: a, b"),
])
def test_bad_parameters_say_what_is_valid(kwargs, message):
    with pytest.raises((ValueError, KeyError), match=message):
        ProceduralMemory(["a", "b"], **kwargs)


def test_bad_productions_and_clock_moves_are_refused():
    with pytest.raises(ValueError, match="at least one"):
        ProceduralMemory([])
    with pytest.raises(ValueError, match=r"repeated: \['a'\]"):
        ProceduralMemory(["a", "a"])
    memory = ProceduralMemory(["a"])
    with pytest.raises(ValueError, match="only moves forward"):
        memory.advance(-1)
    with pytest.raises(KeyError, match="no production 'b'"):
        memory.select(["b"])
