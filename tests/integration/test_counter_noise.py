"""The counter noise stream (``noise_stream="counter"``, ``actr.counter_noise``): the
compiled kernel and the NumPy reference give the same bits, the draws are logistic, a
draw depends only on its positions, and models playing on it decide as on the default
stream (same distribution of outcomes, not the same games)."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.proportion import proportions_ztest

from nothanks.actr import DeclarativeMemory, counter_noise
from nothanks.actr import kernel as actr_kernel
from nothanks.agents import make_agent
from nothanks.kernels import reference_mode
from nothanks.play.runner import play_games
from nothanks.rules import Action

COUNTER = "noise_stream=counter"


def _positions(key: np.ndarray, start: int, count: int) -> np.ndarray:
    """The odds u/(1 − u) of the stream's positions, as the reference computes them."""
    position = np.arange(start, start + count, dtype=np.uint64)
    with np.errstate(over="ignore"):
        w = counter_noise._mix(counter_noise._mix(key[0] + position * counter_noise.GAMMA)
                               ^ key[1])
    m = (w >> np.uint64(12)).astype(np.float64)
    return (m + 0.5) / (counter_noise.HALF_BELOW_2_52 - m)


def test_kernel_and_reference_give_the_same_bits() -> None:
    compiled = actr_kernel.kernels()
    if compiled is None:
        pytest.skip("numba is not installed: only the NumPy reference runs")
    rng = np.random.default_rng(7)
    for case in range(60):
        key = counter_noise.stream_key(np.random.default_rng(case))
        start = int(rng.integers(0, 2**40))
        count = int(rng.integers(1, 3000))
        scale = float(rng.choice([0.1, 0.25, 1.0, 3.7]))
        reference = counter_noise.logistic(key, start, count, scale)
        kernel = compiled.counter_logistic(key[0], key[1], start, scale, np.empty(count))
        np.testing.assert_array_equal(kernel.view(np.int64), reference.view(np.int64))


def test_logarithm_within_one_ulp_and_draws_logistic() -> None:
    key = counter_noise.stream_key(np.random.default_rng(1))
    count = 100_000
    odds = _positions(key, 0, count)
    ours = counter_noise.log_odds(odds.copy())
    exact = np.array([math.log(x) for x in odds])
    assert np.max(np.abs(ours - exact) / np.spacing(np.abs(exact))) <= 1.0
    assert (ours != exact).any()  # a check that can fail: not NumPy's log under a name
    draws = counter_noise.logistic(key, 0, count, 1.0)
    np.testing.assert_array_equal(draws, ours)
    assert stats.kstest(draws, stats.logistic.cdf).pvalue > 1e-3
    # neighbouring positions and two keys' streams are uncorrelated
    assert abs(np.corrcoef(draws[:-1], draws[1:])[0, 1]) < 0.015
    other = counter_noise.logistic(counter_noise.stream_key(np.random.default_rng(2)), 0,
                                   count, 1.0)
    assert abs(np.corrcoef(draws, other)[0, 1]) < 0.015


@pytest.mark.parametrize("kernels", [True, False])
def test_a_draw_depends_only_on_its_positions(kernels: bool) -> None:
    with reference_mode(not kernels):
        memory = DeclarativeMemory(noise=0.3, seed=5, noise_stream="counter")
        whole = memory._draw_noise(2117 + 40)
        again = DeclarativeMemory(noise=0.3, seed=5, noise_stream="counter")
        parts = np.concatenate([again._draw_noise(2117), again._draw_noise(40)])
        np.testing.assert_array_equal(parts, whole)
        saved = again.random_state()
        ahead = again._draw_noise(100)
        again._draw_noise(7)
        again.set_random_state(saved)
        np.testing.assert_array_equal(again._draw_noise(100), ahead)
        again.restart(5)
        np.testing.assert_array_equal(again._draw_noise(2117 + 40), whole)
        again.restart(6)
        assert not np.array_equal(again._draw_noise(2117 + 40), whole)
        pcg = DeclarativeMemory(noise=0.3, seed=5)
        assert not np.array_equal(pcg._draw_noise(2117 + 40), whole)


def test_a_random_state_comes_back_only_on_its_own_stream() -> None:
    counter = DeclarativeMemory(noise=0.3, seed=1, noise_stream="counter")
    pcg = DeclarativeMemory(noise=0.3, seed=1)
    with pytest.raises(ValueError, match="saved on the pcg64 noise stream cannot be restored "
                                         "into a memory on the counter stream"):
        counter.set_random_state(pcg.random_state())
    with pytest.raises(ValueError, match="saved on the counter noise stream"):
        pcg.set_random_state(counter.random_state())


def test_unknown_stream_is_refused() -> None:
    with pytest.raises(ValueError, match="noise_stream must be 'pcg64'.*got 'philox'"):
        DeclarativeMemory(noise_stream="philox")
    with pytest.raises(ValueError, match="noise_stream='philox' is unknown; valid: pcg64, "
                                         "counter"):
        make_agent("tom1:noise_stream=philox")


def _games(specs: list[str], games: int, seed: int) -> list:
    return list(play_games(specs, games, seed, record=True))


def test_games_on_the_counter_stream_are_the_same_with_and_without_kernels() -> None:
    specs = [f"tom2:{COUNTER}", f"tom1:{COUNTER}", f"tom0:{COUNTER}", f"tom0:{COUNTER}"]
    compiled = _games(specs, 4, 3)
    with reference_mode():
        reference = _games(specs, 4, 3)
    assert compiled == reference
    assert sum(len(game.decisions) for game in compiled) > 200


def _shares(specs: list[str], games: int) -> tuple[int, np.ndarray]:
    """ToM1's wins (first places) and its pass share per game."""
    wins, passes = 0, []
    for game in play_games(specs, games, 2018, record=True):
        seat = game.agents.index(specs[0])
        wins += game.ranks[seat] == 1
        mine = [d.action for d in game.decisions if d.seat == seat]
        passes.append(sum(a == Action.PASS for a in mine) / len(mine))
    return wins, np.array(passes)


def test_decisions_have_the_same_distribution_on_both_streams() -> None:
    """ToM1 against three ToM0, 1,000 games on each stream (the same deals): ToM1's win
    share and mean pass share per game agree within sampling error (two-sided p > 0.001;
    at this size a shift of about 7 points in the win share would fail half the time, 10
    points nearly always)."""
    games = 1000
    pcg = "noise_stream=pcg64"
    wins_pcg, passes_pcg = _shares([f"tom1:{pcg}"] + [f"tom0:{pcg}"] * 3, games)
    wins_counter, passes_counter = _shares([f"tom1:{COUNTER}"] + [f"tom0:{COUNTER}"] * 3,
                                           games)
    assert 0.25 < wins_pcg / games < 0.6 and 0.25 < wins_counter / games < 0.6
    _, p_wins = proportions_ztest([wins_pcg, wins_counter], [games, games])
    assert p_wins > 1e-3, (wins_pcg, wins_counter)
    p_passes = stats.ttest_ind(passes_pcg, passes_counter, equal_var=False).pvalue
    assert p_passes > 1e-3, (passes_pcg.mean(), passes_counter.mean())
    assert not np.array_equal(passes_pcg, passes_counter)  # other draws, other games
