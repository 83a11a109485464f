"""Statistical behaviour of activation noise, and determinism of the random stream.

Every test uses a fixed seed, so it is deterministic; the tolerances are chosen wide
enough (>= 4 standard errors) that any seed would pass with high probability.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from nothanks.actr import DeclarativeMemory, ExactMatch, Linear, Weber, recall_probability

TRIALS = 40_000  # binomial SE <= 0.25 percentage points, so 1 pp is >= 4 SE


@pytest.mark.parametrize("margin", [-0.6, -0.25, 0.0, 0.2, 0.5])
def test_recall_probability_matches_per_retrieval_noise(margin):
    tau = -2.0
    memory = DeclarativeMemory(noise=0.25, retrieval_threshold=tau, noise_mode="per_retrieval",
                               seed=1234)
    memory.add({"fact": "a"}, fixed_activation=tau + margin)
    recalled = sum(memory.retrieve({"fact": "a"}).succeeded for _ in range(TRIALS))
    expected = 1 / (1 + math.exp(-margin / 0.25))
    assert expected == pytest.approx(recall_probability(tau + margin, tau, 0.25))
    assert abs(recalled / TRIALS - expected) < 0.01


def test_recall_probability_matches_per_time_noise_with_advancing_clock():
    tau, margin, s = -2.0, 0.15, 0.4
    memory = DeclarativeMemory(noise=s, retrieval_threshold=tau, seed=99)
    memory.add({"fact": "a"}, fixed_activation=tau + margin)
    recalled = 0
    for _ in range(TRIALS):
        memory.advance(1.0)
        recalled += memory.retrieve({"fact": "a"}).succeeded
    assert abs(recalled / TRIALS - memory.recall_probability(tau + margin)) < 0.01


def test_recall_probability_of_a_learned_chunk():
    """The formula holds for the noise-free activation of a decaying chunk too."""
    memory = DeclarativeMemory(noise=0.3, retrieval_threshold=-0.5, seed=5,
                               noise_mode="per_retrieval")
    chunk = memory.add({"fact": "a"})
    memory.advance(3.0)
    activation = memory.activation(chunk, {}).activation  # per_retrieval: noise reported as 0
    assert activation == pytest.approx(math.log(3 ** -0.5))
    recalled = sum(memory.retrieve({}).succeeded for _ in range(TRIALS))
    assert abs(recalled / TRIALS - memory.recall_probability(activation)) < 0.01


@pytest.mark.parametrize("noise_mode", ["per_retrieval", "per_time"])
def test_noise_is_logistic_with_variance_pi2_s2_over_3(noise_mode):
    s = 0.25
    memory = DeclarativeMemory(noise=s, noise_mode=noise_mode, seed=2024,
                               retrieval_threshold=-10.0)
    for index in range(200):
        memory.add({"index": index}, fixed_activation=0)
    draws = []
    for _ in range(500):  # 100,000 draws
        memory.advance(1.0)
        record = memory.retrieve({}, record=True).record
        draws.extend(candidate.noise for candidate in record.candidates)
    draws = np.array(draws)
    variance = math.pi ** 2 * s ** 2 / 3  # 0.2056
    # SE of the mean is 0.0014 and the relative SE of the variance about 0.6 % (logistic
    # excess kurtosis 1.2): we allow 0.01 and 3 %.
    assert abs(draws.mean()) < 0.01
    assert draws.var() == pytest.approx(variance, rel=0.03)
    assert stats.kstest(draws / s, "logistic").pvalue > 0.001


def test_no_noise_when_scale_is_zero():
    memory = DeclarativeMemory(noise=0.0, seed=1)
    memory.add({"fact": "a"}, fixed_activation=-1.0)
    activations = {memory.retrieve({}).activation for _ in range(100)}
    assert activations == {-1.0}


# ------------------------------------------------------------------ noise modes
def noisy_memory(noise_mode: str) -> DeclarativeMemory:
    memory = DeclarativeMemory(noise=0.5, noise_mode=noise_mode, seed=3,
                               retrieval_threshold=-10.0)
    for index in range(5):
        memory.add({"index": index}, fixed_activation=0)
    return memory


def test_per_time_noise_is_reused_until_the_clock_moves():
    memory = noisy_memory("per_time")
    chunk = memory.chunks[2]
    first = [memory.retrieve({"index": 2}).activation for _ in range(5)]
    assert len(set(first)) == 1
    assert memory.activation(chunk, {}).noise == first[0]
    # every retrieval at this time sees the same noise for every chunk
    a = memory.retrieve({}, record=True).record.candidates
    b = memory.retrieve({}, record=True).record.candidates
    assert [c.noise for c in a] == [c.noise for c in b]
    memory.advance(0.0)  # not a move
    assert memory.retrieve({"index": 2}).activation == first[0]
    memory.advance(1.0)
    assert memory.retrieve({"index": 2}).activation != first[0]
    # a chunk added at the same model time gets its own draw, others keep theirs
    before = memory.activation(chunk, {}).noise
    memory.add({"index": 99}, fixed_activation=0)
    assert memory.activation(chunk, {}).noise == before


def test_per_retrieval_noise_is_fresh_every_time():
    memory = noisy_memory("per_retrieval")
    activations = [memory.retrieve({"index": 2}).activation for _ in range(5)]
    assert len(set(activations)) == 5
    a = memory.retrieve({}, record=True).record.candidates
    b = memory.retrieve({}, record=True).record.candidates
    assert all(x.noise != y.noise for x, y in zip(a, b, strict=True))
    # activation() reports no noise in this mode and consumes no random numbers
    assert memory.activation(memory.chunks[0], {}).noise == 0.0


def test_activation_does_not_disturb_per_retrieval_stream():
    def run(inspect: bool):
        memory = noisy_memory("per_retrieval")
        out = []
        for _ in range(50):
            if inspect:
                memory.activation(memory.chunks[1], {})
            out.append(memory.retrieve({}).activation)
        return out

    assert run(True) == run(False)


# ------------------------------------------------------------------ determinism
def scripted_run(seed: int, noise_mode: str, record: bool, noise: float = 0.25) -> list[tuple]:
    """A mixed workload: learning, merging, partial matching, exact slots, ties."""
    memory = DeclarativeMemory(seed=seed, noise_mode=noise_mode, noise=noise,
                               mismatch={"category": ExactMatch(100), "card": Linear(32),
                                         "tokens": Weber()})
    script = np.random.default_rng(seed + 1)  # drives the workload, not the memory
    outcomes = []
    for step in range(400):
        category = str(script.integers(3))
        memory.add({"player": int(script.integers(3)), "category": category,
                    "card": int(script.integers(3, 36)), "tokens": int(script.integers(12))},
                   fixed_activation=0 if category == "0" else None)
        if step % 4:
            memory.advance(float(script.integers(1, 3)))
        else:
            memory.advance(0.5)
        request = {"player": int(script.integers(3)), "category": str(script.integers(3)),
                   "card": int(script.integers(3, 36)), "tokens": int(script.integers(12))}
        if step % 5 == 0:
            del request["player"]
        for _ in range(1 + step % 3):  # several retrievals at one model time
            result = memory.retrieve(request, offset=-0.5 * (step % 2), record=record)
            outcomes.append((result.chunk, result.activation, result.latency))
    return outcomes


@pytest.mark.parametrize(("noise_mode", "noise"), [("per_time", 0.25), ("per_retrieval", 0.25),
                                                   ("per_time", 0.0)])
def test_records_do_not_change_results(noise_mode, noise):
    plain = scripted_run(11, noise_mode, record=False, noise=noise)
    recorded = scripted_run(11, noise_mode, record=True, noise=noise)
    assert plain == recorded
    assert any(chunk is not None for chunk, *_ in plain)
    assert any(chunk is None for chunk, *_ in plain)
    assert scripted_run(12, noise_mode, record=False, noise=noise) != plain


def test_generator_seed_is_used_without_global_state():
    np.random.seed(0)
    a = scripted_run(5, "per_time", record=False)
    np.random.seed(1)
    b = scripted_run(5, "per_time", record=False)
    assert a == b
    memory = DeclarativeMemory(seed=np.random.default_rng(5))
    memory.add({"fact": 1}, fixed_activation=0)
    twin = DeclarativeMemory(seed=5)
    twin.add({"fact": 1}, fixed_activation=0)
    assert memory.retrieve({}).activation == twin.retrieve({}).activation
