"""The memory's shortcuts give the same bits as the plain computation they replace.

* kept request plans: the candidates of a repeated request follow the chunks stored
  since (token-memory traffic: recall, store two chunks, move the clock);
* single references: when every chunk has one reference, a retrieval of exact-match
  slots is one compiled pass over the candidates with NumPy's log strengths;
* reference trie: summing each history node once (parent's sum plus one strength) and
  looking the log up per chunk equals the log of each chunk's summed references;
* more than four scored slots: the kernel takes four mismatch columns, the first ones
  folded in NumPy in the same order.
"""
from __future__ import annotations

import numpy as np
import pytest

from nothanks.actr import DeclarativeMemory, ExactMatch, Linear, Weber
from nothanks.kernels import reference_mode


def _token_traffic(compiled: bool, merge: bool, noise_mode: str,
                   still: float = 0.2) -> list[tuple]:
    """Recalls and stores as the token memory makes them, on one path (the clock stays
    put after a store with chance ``still``)."""
    with reference_mode(not compiled):
        memory = DeclarativeMemory(noise=0.3, seed=5, noise_mode=noise_mode)
        rng = np.random.default_rng(11)
        out = []
        for update in range(150):
            player = int(rng.integers(3))
            for kind in ("leaf", "root"):
                result = memory.retrieve({"kind": kind, "player": player},
                                         offset=-0.5 if kind == "leaf" else 0.0)
                out.append((None if result.chunk is None else dict(result.chunk),
                            result.activation, result.latency))
            tag = {} if merge else {"update": update}
            memory.add({"kind": "leaf", "player": player, "tokens": int(rng.integers(12))}
                       | tag)
            memory.add({"kind": "root", "player": player, "class": "low"} | tag)
            if rng.random() >= still:
                memory.advance(2.0)
        return out


@pytest.mark.parametrize("merge", [False, True])
@pytest.mark.parametrize("noise_mode", ["per_time", "per_retrieval"])
def test_kept_plans_follow_new_chunks(merge, noise_mode):
    try:
        kernel_path = _token_traffic(True, merge, noise_mode)
    except ValueError:  # a retrieval at a reference's own time: both paths must say so
        with pytest.raises(ValueError):
            _token_traffic(False, merge, noise_mode)
        return
    assert kernel_path == _token_traffic(False, merge, noise_mode)
    assert sum(r[0] is not None for r in kernel_path) > 50


def test_single_reference_retrievals_agree_with_numpy():
    """The token memory's own pattern (a new chunk per update, the clock moving before
    the next recall): every retrieval takes the compiled single-reference pass."""
    kernel_path = _token_traffic(True, False, "per_time", still=0.0)
    assert kernel_path == _token_traffic(False, False, "per_time", still=0.0)
    assert 50 < sum(r[0] is not None for r in kernel_path) < len(kernel_path)


@pytest.mark.parametrize("merge_every", [0, 3, 7])
def test_reference_trie_sums_equal_the_summed_references(merge_every):
    """Chunks with one reference, with shared histories and with long ones."""
    memory = DeclarativeMemory(seed=0)
    rng = np.random.default_rng(2)
    for index in range(400):
        memory.add({"n": index % merge_every if merge_every else index})
        if rng.random() < 0.7:
            memory.advance(float(rng.choice([0.25, 1.0, 3.5])))
    memory.advance(1.0)
    t = memory.time
    trie = memory._learned_base_levels(t)
    strengths = np.power(t - memory._time_values.view(), -memory.decay)
    summed = np.bincount(memory._reference_row.view(),
                         weights=strengths[memory._reference_time_index.view()],
                         minlength=len(memory))
    assert np.array_equal(trie, np.log(summed))
    with reference_mode():
        assert np.array_equal(memory._learned_base_levels(t), trie)


SIX_SLOTS = {"a": Linear(10), "b": Weber(), "c": ExactMatch(3), "d": Linear(4),
             "e": Weber(), "f": Linear(7)}


def _six_slot_retrievals(compiled: bool) -> list[tuple]:
    with reference_mode(not compiled):
        memory = DeclarativeMemory(mismatch=SIX_SLOTS, seed=9, noise=0.2,
                                   retrieval_threshold=-60.0)
        rng = np.random.default_rng(4)
        for _ in range(200):
            memory.add({slot: int(rng.integers(1, 12)) for slot in SIX_SLOTS})
        memory.advance(1.0)
        out = []
        for _ in range(60):
            request = {slot: int(rng.integers(1, 12)) for slot in SIX_SLOTS}
            for _ in range(int(rng.integers(0, 2))):
                request.pop(list(request)[0])  # five or six scored slots
            result = memory.retrieve(request)
            out.append((result.chunk and dict(result.chunk), result.activation,
                        result.latency))
            memory.advance(0.5)
        return out


def test_more_than_four_scored_slots_agree_bit_for_bit():
    kernel_path = _six_slot_retrievals(True)
    assert kernel_path == _six_slot_retrievals(False)
    assert sum(r[0] is not None for r in kernel_path) > 40


def _retrievals(memory: DeclarativeMemory, rng: np.random.Generator) -> list[tuple]:
    out = []
    for _ in range(40):
        memory.advance(1.0)
        request = {"category": ("none", "extension")[int(rng.integers(2))],
                   "card": int(rng.integers(3, 36)), "tokens_owned": int(rng.integers(0, 12))}
        result = memory.retrieve(request)
        out.append((result.chunk and dict(result.chunk), result.activation, result.latency))
        memory.add({"category": "none", "card": int(rng.integers(3, 36)),
                    "tokens_owned": int(rng.integers(0, 12)), "action": "take"})
    return out


def test_copied_chunks_retrieve_as_the_added_ones():
    """A memory starting from another's chunks (fixed and learned, merged references)
    behaves bit for bit as one that stored them itself, and leaves the original alone."""
    def fill(memory: DeclarativeMemory) -> None:
        rng = np.random.default_rng(8)
        for index in range(300):
            memory.add({"category": ("none", "extension")[index % 2],
                        "card": int(rng.integers(3, 36)),
                        "tokens_owned": int(rng.integers(0, 12)),
                        "action": ("take", "pass")[int(rng.integers(2))]},
                       fixed_activation=0.0 if index < 150 else None)
            if index % 7 == 0:
                memory.advance(0.5)

    options = {"mismatch": {"category": ExactMatch(100), "card": Linear(32),
                            "tokens_owned": Weber()}, "noise": 0.3}
    built = DeclarativeMemory(seed=4, **options)
    fill(built)
    template = DeclarativeMemory(seed=99)
    fill(template)
    stored = len(template)
    copied = DeclarativeMemory(seed=4, **options)
    copied.copy_chunks(template)
    assert copied.time == built.time and len(copied) == len(built) == len(template)
    assert _retrievals(copied, np.random.default_rng(1)) == _retrievals(
        built, np.random.default_rng(1))
    assert len(template) == stored < 300  # some merged; the template did not grow
    with pytest.raises(ValueError, match="empty memory"):
        copied.copy_chunks(template)


def test_noise_draws_equal_the_transformed_whole_block():
    """Draws of any size, taken as the uniforms are handed out, equal ln(u/(1−u))·s
    applied to the generator's whole 4,096-draw blocks first (the plain computation)."""
    sizes = [1, 2117, 300, 5000, 2117, 17, 4096, 3]
    memory = DeclarativeMemory(noise=0.25, seed=9)
    drawn = np.concatenate([memory._draw_noise(size) for size in sizes])
    rng = np.random.default_rng(9)
    expected, block, position = [], np.empty(0), 0
    for size in sizes:
        if position + size > len(block):
            uniform = rng.random(max(4096, size))
            block, position = np.log(uniform / (1.0 - uniform)), 0
        expected.append(block[position:position + size] * 0.25)
        position += size
    assert drawn.tobytes() == np.concatenate(expected).tobytes()
