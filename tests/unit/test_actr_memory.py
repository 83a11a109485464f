"""Exact behaviour of the ACT-R declarative memory against hand-computed cases."""
from __future__ import annotations

import math
import tracemalloc

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from nothanks.actr import (
    Chunk,
    CurrentTimeReferenceError,
    DeclarativeMemory,
    ExactMatch,
    Linear,
    Weber,
    recall_probability,
)

THESIS_MISMATCH = {"category": ExactMatch(100), "card": Linear(32),
                   "tokens_on_card": Weber(), "tokens_owned": Weber()}


def quiet(**params) -> DeclarativeMemory:
    """A memory without noise, so activations are exact."""
    return DeclarativeMemory(noise=0.0, seed=0, **params)


# ------------------------------------------------------------------ base level
def test_base_level_sums_decayed_references():
    memory = quiet()
    chunk = memory.add({"fact": "a"})          # t = 0
    memory.advance(2.0)
    assert memory.add({"fact": "a"}) is chunk  # t = 2, merged
    memory.advance(3.0)                        # t = 5: ages 5 and 3
    expected = math.log(5 ** -0.5 + 3 ** -0.5)  # ln(0.44721 + 0.57735) = 0.0242670
    assert expected == pytest.approx(0.0242670, abs=1e-7)
    assert memory.activation(chunk, {}).base_level == pytest.approx(expected, rel=1e-12)
    assert memory.references(chunk) == (0.0, 2.0)


def test_base_level_with_other_decay():
    memory = quiet(decay=0.3)
    chunk = memory.add({"fact": "a"})
    memory.advance(4.0)
    memory.add({"fact": "a"})
    memory.advance(1.0)  # ages 5 and 1
    expected = math.log(5 ** -0.3 + 1.0)
    assert memory.activation(chunk, {}).base_level == pytest.approx(expected, rel=1e-12)


def test_optimized_learning_uses_count_and_lifetime():
    memory = quiet(optimized_learning=True)
    chunk = memory.add({"fact": "a"})  # created t = 0
    for _ in range(2):
        memory.advance(2.0)
        memory.add({"fact": "a"})      # t = 2, 4
    memory.advance(6.0)                # t = 10, n = 3, L = 10
    expected = math.log(3 / 0.5) - 0.5 * math.log(10)  # ln 6 − ½ ln 10 = 0.640467
    assert expected == pytest.approx(0.640467, abs=1e-6)
    assert memory.activation(chunk, {}).base_level == pytest.approx(expected, rel=1e-12)


def test_fixed_activation_never_decays_and_needs_no_advance():
    memory = quiet()
    zero = memory.add({"instance": 1}, fixed_activation=0)
    high = memory.add({"instance": 2}, fixed_activation=1.5)
    assert memory.activation(zero, {}).base_level == 0.0  # referenced now: no error
    memory.advance(1000.0)
    memory.add({"instance": 1})  # merging keeps the fixed activation
    memory.advance(1.0)
    assert memory.activation(zero, {}).base_level == 0.0
    assert memory.activation(high, {}).base_level == 1.5
    assert zero.fixed_activation == 0.0 and memory.references(zero) == (0.0, 1000.0)


def test_base_level_learning_off_gives_zero():
    memory = quiet(base_level_learning=False)
    chunk = memory.add({"fact": "a"})
    fixed = memory.add({"fact": "b"}, fixed_activation=-1.0)
    assert memory.activation(chunk, {}).base_level == 0.0  # no error at the current time
    assert memory.activation(fixed, {}).base_level == -1.0


def test_mixed_fixed_and_learned_chunks():
    memory = quiet()
    learned = memory.add({"kind": "learned"})
    fixed = memory.add({"kind": "fixed"}, fixed_activation=0.25)
    memory.advance(4.0)
    assert memory.activation(learned, {}).base_level == pytest.approx(math.log(0.5))
    assert memory.activation(fixed, {}).base_level == 0.25


def test_reference_at_current_time_is_a_clear_error():
    memory = quiet()
    chunk = memory.add({"fact": "a"})
    with pytest.raises(CurrentTimeReferenceError, match="current time") as caught:
        memory.retrieve({"fact": "a"})
    assert isinstance(caught.value, ValueError)
    assert "advance" in str(caught.value)
    with pytest.raises(CurrentTimeReferenceError):
        memory.activation(chunk, {})
    memory.advance(1.0)
    memory.add({"fact": "a"})  # merged now: again undefined until time passes
    with pytest.raises(CurrentTimeReferenceError):
        memory.retrieve({"fact": "a"})
    memory.advance(1.0)
    assert memory.retrieve({"fact": "a"}).chunk is chunk


def test_current_time_reference_of_a_non_candidate_is_harmless():
    memory = quiet()
    old = memory.add({"fact": "old"})
    memory.advance(1.0)
    memory.add({"fact": "new"})
    assert memory.retrieve({"fact": "old"}).chunk is old


def test_optimized_learning_chunk_created_now_is_an_error():
    memory = quiet(optimized_learning=True)
    memory.add({"fact": "a"})
    with pytest.raises(CurrentTimeReferenceError):
        memory.retrieve({})


# ------------------------------------------------------------------ mismatch functions
def test_exact_match():
    category = ExactMatch(100)
    assert category("extension", "extension") == 0.0
    assert category("extension", "completion") == -100.0
    assert ExactMatch()(3, 4) == -1.0
    assert list(category.vectorized("a", np.array(["a", "b"], dtype=object))) == [0.0, -100.0]


def test_linear():
    card = Linear(32)
    assert card(10, 14) == -0.125
    assert card(14, 10) == -0.125
    assert card(3, 35) == -1.0
    assert card(20, 20) == 0.0
    assert Linear(10)(0, 25) == -2.5  # beyond the range: not clipped
    assert list(card.vectorized(10, np.array([10.0, 14.0, 42.0]))) == [0.0, -0.125, -1.0]


def test_weber():
    tokens = Weber()
    assert tokens(0, 0) == 0.0
    assert tokens(0, 5) == -1.0
    assert tokens(5, 0) == -1.0
    assert tokens(1, 2) == -0.5
    assert tokens(10, 11) == pytest.approx(-1 / 11)
    assert tokens(7, 7) == 0.0
    assert tokens(-2, 2) == -2.0  # |−4| / 2
    assert list(tokens.vectorized(0, np.array([0.0, 3.0]))) == [0.0, -1.0]
    assert list(tokens.vectorized(2, np.array([0.0, 1.0, 2.0, 4.0]))) == [-1.0, -0.5, 0.0, -0.5]


@given(x=st.integers(-50, 50), ys=st.lists(st.integers(-50, 50), min_size=1, max_size=20))
def test_vectorized_mismatch_equals_scalar(x, ys):
    values = np.array(ys, dtype=np.float64)
    for fn in (ExactMatch(3), Linear(32), Weber()):
        assert fn.vectorized(x, values).tolist() == pytest.approx([fn(x, y) for y in ys])


def test_mismatch_function_parameters_are_validated():
    with pytest.raises(ValueError, match="value_range must be finite and > 0"):
        Linear(0)
    with pytest.raises(ValueError, match="weight must be finite and >= 0"):
        ExactMatch(-1)
    with pytest.raises(TypeError, match="real number"):
        Linear("32")
    with pytest.raises(TypeError, match="Weber request value must be a real number"):
        Weber()("many", 3)


# ------------------------------------------------------------------ activation and retrieval
def thesis_memory(**params) -> DeclarativeMemory:
    memory = quiet(mismatch=THESIS_MISMATCH, **params)
    memory.add({"category": "extension", "card": 10, "tokens_on_card": 3, "tokens_owned": 4,
                "action": "take"}, fixed_activation=0)
    memory.add({"category": "none", "card": 14, "tokens_on_card": 2, "tokens_owned": 4,
                "action": "pass"}, fixed_activation=0)
    return memory


def test_combined_activation_without_noise():
    memory = thesis_memory()
    request = {"category": "extension", "card": 14, "tokens_on_card": 2, "tokens_owned": 4}
    take, other = memory.chunks
    parts = memory.activation(take, request)
    # MP·(−4/32) + MP·(−1/3) + 0 with MP = 5
    assert parts.mismatch == pytest.approx({"category": 0.0, "card": -0.625,
                                            "tokens_on_card": -5 / 3, "tokens_owned": 0.0})
    assert parts.activation == pytest.approx(-2.2916666666666665)
    assert parts.noise == 0.0 and parts.offset == 0.0 and parts.base_level == 0.0
    # the other chunk matches card and tokens exactly but is of another category
    assert memory.activation(other, request).activation == pytest.approx(-500.0)
    result = memory.retrieve(request, threshold=-3.0)
    assert result.chunk is take
    assert result.activation == pytest.approx(-2.2916666666666665)
    assert memory.retrieve(request).chunk is None  # −2.29 is below τ = −2


def test_offset_is_added_and_reported():
    memory = thesis_memory()
    request = {"category": "extension", "card": 10, "tokens_on_card": 3}
    result = memory.retrieve(request, offset=-1.5, record=True)
    assert result.activation == -1.5
    assert [c.offset for c in result.record.candidates] == [-1.5, -1.5]
    assert memory.activation(memory.chunks[0], request, offset=-1.5).activation == -1.5


def test_learned_chunk_with_partial_matching():
    memory = quiet(mismatch={"card": Linear(32)})
    chunk = memory.add({"card": 10})
    memory.advance(4.0)
    parts = memory.activation(chunk, {"card": 18})
    assert parts.activation == pytest.approx(math.log(0.5) + 5 * (-8 / 32))


def test_latency_on_success_and_failure():
    memory = quiet(mismatch={"card": Linear(32)})
    memory.add({"card": 10}, fixed_activation=0)
    success = memory.retrieve({"card": 14})  # A = 5·(−4/32) = −0.625
    assert success.succeeded
    assert success.latency == pytest.approx(0.2 * math.exp(0.625))  # 0.373649
    assert success.latency == pytest.approx(0.3736492, abs=1e-7)
    failure = memory.retrieve({"card": 35})  # A = −3.906 < τ = −2
    assert not failure.succeeded and failure.chunk is None
    assert failure.latency == pytest.approx(1.4778112, abs=1e-7)  # 0.2·e^2
    assert failure.activation == pytest.approx(5 * -25 / 32)


def test_activation_exactly_at_the_threshold_is_retrieved():
    """Canonical ACT-R: a retrieval fails only when the best activation is below τ."""
    memory = quiet(retrieval_threshold=0.0)
    memory.add({"fact": "a"}, fixed_activation=0.0)
    assert memory.retrieve({}).succeeded
    assert not memory.retrieve({}, threshold=0.001).succeeded


def test_latency_far_below_exp_range_is_infinite_not_an_error():
    memory = quiet(retrieval_threshold=-1000.0)
    memory.add({"fact": "a"}, fixed_activation=-800.0)
    success = memory.retrieve({"fact": "a"})
    assert success.succeeded and success.latency == math.inf
    failure = memory.retrieve({"fact": "b"})  # no candidate: latency F·e^(−τ)
    assert failure.chunk is None and failure.latency == math.inf
    memory.add({"fact": "c"}, fixed_activation=-1200.0)
    below = memory.retrieve({"fact": "c"})  # a candidate below τ
    assert below.chunk is None and below.latency == math.inf
    assert below.activation == -1200.0


def test_any_positive_decay_without_optimized_learning():
    memory = quiet(decay=1.5)
    chunk = memory.add({"fact": "a"})
    memory.advance(4.0)
    assert memory.activation(chunk, {}).base_level == pytest.approx(-1.5 * math.log(4))
    memory.decay = 2.0
    assert memory.retrieve({}).activation == pytest.approx(-2.0 * math.log(4))
    with pytest.raises(ValueError, match="optimized learning.*< 1"):
        memory.optimized_learning = True
    assert memory.optimized_learning is False
    with pytest.raises(ValueError, match="optimized learning.*< 1"):
        DeclarativeMemory(decay=1.0, optimized_learning=True)
    memory.decay = 0.5
    memory.optimized_learning = True
    with pytest.raises(ValueError, match="optimized learning.*< 1"):
        memory.decay = 1.0


def test_mismatch_penalty_hint_says_what_zero_does():
    with pytest.raises(ValueError, match="0 makes the partially matched slots count for "
                                         "nothing"):
        DeclarativeMemory(mismatch_penalty=-1)


def test_merging_identical_chunks():
    memory = quiet()
    first = memory.add({"a": 1, "b": "x"})
    memory.advance(1.0)
    second = memory.add({"b": "x", "a": 1})  # slot order does not matter
    assert second is first and len(memory) == 1
    assert memory.references(first) == (0.0, 1.0)
    assert memory.add({"a": 1}) is not first  # fewer slots: another chunk
    assert memory.add({"a": 2, "b": "x"}) is not first
    assert len(memory) == 3
    assert memory.add(first) is first  # a chunk is a mapping of its slots
    assert memory.references(first) == (0.0, 1.0, 1.0)


def test_merging_cannot_change_fixed_activation():
    memory = quiet()
    memory.add({"a": 1}, fixed_activation=0)
    memory.add({"a": 1}, fixed_activation=0.0)
    with pytest.raises(ValueError, match="fixed_activation"):
        memory.add({"a": 1}, fixed_activation=1)
    memory.add({"b": 1})
    with pytest.raises(ValueError, match="fixed_activation"):
        memory.add({"b": 1}, fixed_activation=0)


def test_slots_without_mismatch_function_must_match_exactly():
    memory = quiet(mismatch={"tokens": Weber()})
    mine = memory.add({"player": 1, "tokens": 2}, fixed_activation=0)
    memory.add({"player": 2, "tokens": 9}, fixed_activation=5)  # much more active
    result = memory.retrieve({"player": 1, "tokens": 9}, threshold=-10.0, record=True)
    assert result.chunk is mine
    assert [c.chunk for c in result.record.candidates] == [mine]
    assert not memory.retrieve({"player": 3, "tokens": 9}).succeeded
    # the filter works with several exact slots and symbols
    memory.add({"player": 1, "kind": "leaf", "tokens": 4}, fixed_activation=0)
    root = memory.add({"player": 1, "kind": "root", "tokens": 4}, fixed_activation=0)
    assert memory.retrieve({"player": 1, "kind": "root", "tokens": 4}).chunk is root


def test_chunk_lacking_a_requested_slot_is_excluded():
    memory = quiet(mismatch={"tokens": Weber()})
    memory.add({"player": 1}, fixed_activation=3)
    full = memory.add({"player": 1, "tokens": 5}, fixed_activation=0)
    result = memory.retrieve({"player": 1, "tokens": 5}, record=True)
    assert result.chunk is full and len(result.record.candidates) == 1
    nothing = memory.retrieve({"colour": "red"}, record=True)
    assert nothing.chunk is None and nothing.activation is None
    assert nothing.record.candidates == () and len(nothing.record.to_frame()) == 0
    with pytest.raises(ValueError, match="lacks slot 'tokens'"):
        memory.activation(memory.chunks[0], {"tokens": 5})


def test_unrequested_slots_are_ignored():
    memory = quiet()
    chunk = memory.add({"card": 10, "action": "take"}, fixed_activation=0)
    assert memory.retrieve({"card": 10}).chunk is chunk
    assert memory.retrieve({}).chunk is chunk


def test_symbol_and_numeric_values_mix():
    memory = quiet(mismatch={"size": Linear(10), "name": ExactMatch(1)})
    memory.add({"name": "x", "size": 1}, fixed_activation=0)
    memory.add({"name": ("tuple", 1), "size": 2.5}, fixed_activation=0)
    memory.add({"name": None, "size": 4}, fixed_activation=0)
    assert memory.retrieve({"name": ("tuple", 1), "size": 2}).chunk["size"] == 2.5
    memory.add({"name": "y", "size": "big"}, fixed_activation=0)  # now a symbol column
    with pytest.raises(TypeError, match="slot 'size'"):
        memory.retrieve({"name": "x", "size": 2})


def test_custom_mismatch_functions():
    def parity(x, y):
        return 0.0 if x % 2 == y % 2 else -1.0

    memory = quiet(mismatch={"n": parity})
    odd = memory.add({"n": 3}, fixed_activation=0)
    memory.add({"n": 4}, fixed_activation=0)
    assert memory.retrieve({"n": 7}).chunk is odd
    memory.set_mismatch("n", lambda x, y: 1.0)
    with pytest.raises(ValueError, match="<= 0"):
        memory.retrieve({"n": 7})
    memory.set_mismatch("n", None)  # back to an exact-match constraint
    assert not memory.retrieve({"n": 7}).succeeded
    with pytest.raises(TypeError, match="callable"):
        memory.set_mismatch("n", 3)


def test_ties_are_broken_at_random_with_the_seed():
    def winners(seed):
        memory = DeclarativeMemory(noise=0.0, seed=seed)
        for name in "abc":
            memory.add({"name": name, "group": 1}, fixed_activation=0)
        return [memory.retrieve({"group": 1}).chunk["name"] for _ in range(300)]

    first = winners(7)
    assert set(first) == {"a", "b", "c"}
    assert winners(7) == first
    assert winners(8) != first


def test_record_lists_every_candidate():
    memory = thesis_memory(retrieval_threshold=-3.0)
    request = {"category": "extension", "card": 14, "tokens_on_card": 2, "tokens_owned": 4}
    result = memory.retrieve(request, record=True)
    record = result.record
    assert record.winner is result.chunk and record.latency == result.latency
    assert record.threshold == -3.0 and record.time == 0.0
    assert dict(record.request) == request and record.noise_mode == "per_time"
    for candidate in record.candidates:
        parts = (candidate.base_level + sum(candidate.mismatch.values()) + candidate.offset
                 + candidate.noise)
        assert parts == pytest.approx(candidate.activation)
        assert candidate == memory.activation(candidate.chunk, request)
    frame = record.to_frame()
    assert len(frame) == 2 and frame["winner"].dtype == bool
    assert frame["winner"].tolist() == [True, False]
    assert {"base_level", "mismatch_card", "mismatch_category", "offset", "noise", "activation",
            "chunk_card", "chunk_action", "time", "threshold"} <= set(frame.columns)
    assert frame["mismatch_category"].tolist() == [0.0, -500.0]


def test_retrieval_without_record_has_none():
    memory = thesis_memory()
    assert memory.retrieve({"card": 10}).record is None


# ------------------------------------------------------------------ chunks and clock
def test_chunks_are_immutable_mappings():
    memory = quiet()
    chunk = memory.add({"card": 10, "action": "take"})
    assert chunk["card"] == 10 and dict(chunk) == {"card": 10, "action": "take"}
    assert chunk == Chunk({"action": "take", "card": 10}) and hash(chunk) == hash(
        Chunk({"card": 10, "action": "take"}))
    with pytest.raises(TypeError):
        chunk.slots["card"] = 11
    assert {chunk: 1}[Chunk({"card": 10, "action": "take"})] == 1
    assert memory.chunks == (chunk,) and chunk in memory and {"card": 11} not in memory
    with pytest.raises(ValueError, match="NaN"):
        memory.add({"x": float("nan")})
    with pytest.raises(TypeError, match="hashable"):
        memory.add({"x": [1, 2]})
    with pytest.raises(KeyError):
        memory.references({"card": 99})


def test_clock():
    memory = quiet()
    assert memory.time == 0.0
    assert memory.advance(1.5) == 1.5
    memory.advance(0)
    assert memory.time == 1.5
    with pytest.raises(ValueError, match="forward"):
        memory.advance(-1)


def test_recall_probability():
    assert recall_probability(-2.0, -2.0, 0.25) == 0.5
    assert recall_probability(-2.0 + 0.25 * math.log(3), -2.0, 0.25) == pytest.approx(0.75)
    assert recall_probability(0.0, 0.0, 0.0) == 1.0  # at τ: retrieved (canonical ACT-R)
    assert recall_probability(-0.1, 0.0, 0.0) == 0.0
    assert recall_probability(0.1, 0.0, 0.0) == 1.0
    assert recall_probability(1e6, 0.0, 0.25) == 1.0
    assert recall_probability(np.array([-2.0, 100.0]), -2.0, 0.5).tolist() == [0.5, 1.0]
    memory = DeclarativeMemory(noise=0.5, retrieval_threshold=-1.0)
    assert memory.recall_probability(-1.0 + 0.5 * math.log(3)) == pytest.approx(0.75)


# ------------------------------------------------------------------ parameters
def test_defaults_are_the_swift_core():
    memory = DeclarativeMemory()
    assert (memory.decay, memory.noise, memory.retrieval_threshold, memory.mismatch_penalty,
            memory.latency_factor, memory.noise_mode, memory.optimized_learning,
            memory.base_level_learning) == (0.5, 0.25, -2.0, 5.0, 0.2, "per_time", False, True)


@pytest.mark.parametrize(("params", "error", "message"), [
    ({"decay": 0}, ValueError, r"decay d must be > 0.*got 0.0"),
    ({"decay": -0.5}, ValueError, r"decay d must be > 0"),
    ({"noise": -0.1}, ValueError, r"noise must be >= 0.*got -0.1"),
    ({"retrieval_threshold": float("inf")}, ValueError, "retrieval_threshold must be finite"),
    ({"retrieval_threshold": "low"}, TypeError, "retrieval_threshold must be a real number"),
    ({"mismatch_penalty": -5}, ValueError, "mismatch_penalty must be >= 0"),
    ({"latency_factor": 0}, ValueError, "latency_factor must be > 0"),
    ({"noise_mode": "per_chunk"}, ValueError, "'per_time'.*'per_retrieval'.*got 'per_chunk'"),
    ({"optimized_learning": 1}, TypeError, "optimized_learning must be True or False"),
    ({"base_level_learning": None}, TypeError, "base_level_learning must be True or False"),
    ({"seed": 1.5}, TypeError, "seed must be a non-negative int"),
    ({"mismatch": {"card": "linear"}}, TypeError, "mismatch function for slot 'card'"),
])
def test_parameters_are_validated(params, error, message):
    with pytest.raises(error, match=message):
        DeclarativeMemory(**params)


def test_setters_validate_and_apply():
    memory = quiet()
    chunk = memory.add({"fact": "a"})
    memory.advance(4.0)
    with pytest.raises(ValueError, match="decay"):
        memory.decay = 0.0
    with pytest.raises(ValueError, match="latency_factor"):
        memory.latency_factor = -1
    assert memory.decay == 0.5
    memory.decay = 0.25
    assert memory.activation(chunk, {}).base_level == pytest.approx(-0.25 * math.log(4))
    memory.base_level_learning = False
    assert memory.activation(chunk, {}).base_level == 0.0
    memory.retrieval_threshold = 1.0
    assert not memory.retrieve({}).succeeded
    with pytest.raises(ValueError, match="threshold must be finite"):
        memory.retrieve({}, threshold=float("nan"))


def test_user_vectorized_mismatch_and_symbol_exact_match():
    class Ratio:
        """A user function with a numpy path, used like the built-ins."""

        calls = 0

        def __call__(self, x, y):
            return -abs(x - y) / 100

        def vectorized(self, x, ys):
            Ratio.calls += 1
            return -np.abs(ys - x) / 100

    memory = quiet(mismatch={"size": Ratio(), "colour": ExactMatch(2)})
    memory.add({"colour": "red", "size": 10}, fixed_activation=0)
    blue = memory.add({"colour": "blue", "size": 50}, fixed_activation=0)
    parts = memory.activation(blue, {"colour": "red", "size": 40})
    assert parts.mismatch == pytest.approx({"colour": -10.0, "size": -0.5})
    assert memory.retrieve({"colour": "green", "size": 40}, threshold=-100).chunk is blue
    assert Ratio.calls == 2


def test_restart_keeps_fixed_chunks_and_replays_the_same_noise():
    from nothanks.actr import DeclarativeMemory, Weber
    memory = DeclarativeMemory(mismatch={"x": Weber()}, seed=3)
    for x in range(1, 30):
        memory.add({"x": x, "a": x % 2}, fixed_activation=0.0)
    memory.advance(5.0)
    first = [memory.retrieve({"x": 7}).activation for _ in range(3)]
    memory.restart(11)
    assert memory.time == 0.0 and len(memory) == 29
    memory.advance(5.0)
    again = [memory.retrieve({"x": 7}).activation for _ in range(3)]
    fresh = DeclarativeMemory(mismatch={"x": Weber()}, seed=11)
    for x in range(1, 30):
        fresh.add({"x": x, "a": x % 2}, fixed_activation=0.0)
    fresh.advance(5.0)
    assert again == [fresh.retrieve({"x": 7}).activation for _ in range(3)]
    assert again != first


def test_restart_refuses_learned_chunks():
    import pytest

    from nothanks.actr import DeclarativeMemory
    memory = DeclarativeMemory(seed=1)
    memory.add({"x": 1})
    with pytest.raises(ValueError, match="cannot restart a memory holding 1 learned chunk"):
        memory.restart(2)


# ------------------------------------------------------------------ memory use
def test_retrievals_do_not_grow_memory_with_history():
    """Retrieving many times, with the clock moving, allocates nothing that stays."""
    memory = DeclarativeMemory(seed=1, mismatch={"card": Linear(32), "tokens": Weber()})
    for card in range(3, 36):
        for tokens in range(9):
            memory.add({"card": card, "tokens": tokens, "kind": "x"}, fixed_activation=0)
            memory.add({"card": card, "tokens": tokens, "kind": "y"})
    memory.advance(1.0)
    request = {"card": 20, "tokens": 4}

    def run(n: int) -> None:
        for i in range(n):
            memory.retrieve({**request, "card": 3 + i % 33})
            memory.advance(0.5)

    tracemalloc.start()
    try:
        run(3000)  # warm caches and refill the noise buffer at least once
        before = tracemalloc.get_traced_memory()[0]
        run(10_000)
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    # a leak of even 5 bytes a retrieval would keep 50 kB
    assert grown < 50_000, f"{grown} bytes kept after 10,000 retrievals"
    assert len(memory) == 2 * 33 * 9
