"""A noise block whose draw takes most of it leaves its unused tail in the generator
(``DeclarativeMemory._draw_noise``): every draw, saved random state and tie draw is what
drawing every block whole gives, zeros included, except the one documented case, a zero
in a tail never drawn (docs/actr.md, "Performance")."""
from __future__ import annotations

import numpy as np
import pytest

from nothanks.actr import DeclarativeMemory
from nothanks.kernels import reference_mode

BLOCK = 4096
HEAD = 2117  # ToM0's instance chunks: a draw taking most of a block
TAIL = BLOCK - HEAD


class _Stream:
    """A generator over fixed uniforms (zeros planted where a test wants them): ``random``
    hands out the next ones, ``bit_generator.advance`` jumps them, ``integers`` uses one."""

    def __init__(self, values: np.ndarray) -> None:
        self.values = values
        self.position = 0
        self.bit_generator = self

    def random(self, count: int) -> np.ndarray:
        drawn = self.values[self.position:self.position + count].copy()
        self.position += count
        return drawn

    def advance(self, count: int) -> None:
        self.position += count

    def random_raw(self, count: int) -> np.ndarray:
        """Raw 64-bit outputs whose uniforms (``(raw >> 11) · 2⁻⁵³``) are the next ones."""
        return (self.random(count) * 2.0**53).astype(np.uint64) << np.uint64(11)

    def integers(self, high: int) -> int:
        return int(self.random(1)[0] * high)


def _memories(zeros: tuple[int, ...]) -> tuple[DeclarativeMemory, DeclarativeMemory]:
    """A memory leaving tails undrawn and one drawing whole blocks, on the same stream."""
    values = np.random.default_rng(3).random(10 * BLOCK)
    values[list(zeros)] = 0.0
    pair = []
    for skippable in (True, False):
        memory = DeclarativeMemory(seed=0, noise=0.3)
        memory._rng = _Stream(values)
        memory._tail_skippable = skippable
        pair.append(memory)
    return pair[0], pair[1]


def _run(memory: DeclarativeMemory, steps: list) -> list:
    """Each step's result: a draw of n, a saved-and-restored random state, a tie draw."""
    results = []
    for step in steps:
        if step == "state":
            saved = memory.random_state()
            memory.set_random_state(saved)
            results.append(memory._rng.position)
        elif step == "tie":
            results.append(memory._break_tie(np.array([1.0, 1.0, 0.0]), 0, 1.0))
        else:
            results.append(memory._draw_noise(step).copy())
    # where the stream is, the tail left in the generator counted as drawn
    results.append(memory._rng.position + memory._noise_skipped)
    return results


def _same(first: list, second: list) -> bool:
    return len(first) == len(second) and all(
        np.array_equal(a, b) for a, b in zip(first, second, strict=True))


@pytest.fixture(params=[True, False], ids=["kernel", "numpy"])
def kernels(request):
    with reference_mode(not request.param):
        yield


@pytest.mark.parametrize("steps, zeros", [
    ([HEAD, HEAD, HEAD], ()),  # fresh blocks: every tail jumped
    ([HEAD, 500, HEAD], ()),  # a draw reaching into the tail draws it first
    ([HEAD, TAIL, 10, 10], ()),  # the whole tail, then a block of small draws
    ([HEAD, "state", 100, HEAD], ()),  # a saved random state draws the tail first
    ([HEAD, "tie", HEAD], ()),  # a tie draw too
    ([HEAD, HEAD], (5,)),  # a zero in the head: the whole block, its zeros redrawn
    ([HEAD, 500, HEAD], (HEAD + 7,)),  # a zero in a tail drawn later: redrawn as before
    ([10, HEAD, HEAD], (9, BLOCK + 3)),  # zeros in a block of small draws, then a head
], ids=["jumped", "reached", "whole-tail", "state", "tie", "zero-head", "zero-tail-drawn",
        "zeros-small"])
def test_a_tail_left_in_the_generator_draws_what_a_whole_block_draws(kernels, steps, zeros):
    skipping, whole = _memories(zeros)
    assert _same(_run(skipping, steps), _run(whole, steps))
    assert skipping._noise_skipped == 0 or skipping._noise_skipped == TAIL


def test_a_zero_in_a_tail_never_drawn_is_the_one_difference(kernels):
    """Drawn whole, the block's zero is redrawn and shifts every later draw by one; left
    in the generator, it is jumped (chance ~2e-13 a block with real uniforms)."""
    skipping, whole = _memories((HEAD + 7,))
    first, second = _run(skipping, [HEAD, HEAD]), _run(whole, [HEAD, HEAD])
    assert np.array_equal(first[0], second[0])
    assert not np.array_equal(first[1], second[1])
    assert np.array_equal(first[1][1:], second[1][:-1])  # one uniform later: the redraw
    assert second[-1] == first[-1] + 1


def test_a_memory_seeded_here_draws_as_one_given_a_generator():
    """On PCG64 itself: a memory seeded from an int (its own generator: tails jumped)
    draws what one given the same generator (drawn whole) draws, over mixed draws."""
    rng = np.random.default_rng(8)
    counts = [int(c) for c in rng.choice([HEAD, HEAD, 300, 7, 1500, 3000], size=60)]
    own = DeclarativeMemory(seed=21, noise=0.2)
    given = DeclarativeMemory(seed=np.random.default_rng(21), noise=0.2)
    assert own._tail_skippable and not given._tail_skippable
    jumped = 0
    for count in counts:
        assert np.array_equal(own._draw_noise(count), given._draw_noise(count))
        jumped += own._noise_skipped > 0
    assert jumped > 5
    own.random_state()  # draws any tail left: both generators in the same state
    assert own._rng.bit_generator.state == given._rng.bit_generator.state
