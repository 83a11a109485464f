"""All-scored requests (a ToM0 state against the instances) on the memory's compiled
path give what the NumPy reference path and recorded retrievals give: the same winners,
activations, latencies and random state, by dict or by items; and the activations kernel
finds NumPy's first best.
"""
from __future__ import annotations

import math

import numba  # noqa: F401 (a dependency: without it both paths would be NumPy)
import numpy as np
import pytest

from nothanks.actr import DeclarativeMemory, ExactMatch, Linear, Weber
from nothanks.actr import kernel as actr_kernel
from nothanks.kernels import reference_mode
from nothanks.rules import Variant

SLOTS = ("category", "card", "tokens_on_card", "tokens_owned", "colour", "size")
CATEGORIES = ("none", "extension", "completion")


def _mismatch() -> dict:
    return {"category": ExactMatch(100), "card": Linear(32), "tokens_on_card": Weber(),
            "tokens_owned": Weber(), "colour": ExactMatch(1), "size": Linear(4)}


def _chunk(rng: np.random.Generator, coarse: bool) -> dict:
    """An instance; ``coarse`` values repeat often, so activations tie when s = 0."""
    top = 3 if coarse else 30
    return {"category": CATEGORIES[rng.integers(3)], "card": int(rng.integers(3, 3 + top)),
            "tokens_on_card": int(rng.integers(0, top)),
            "tokens_owned": int(rng.integers(0, top)), "colour": ("red", "blue")[rng.integers(2)],
            "size": int(rng.integers(0, 4)), "action": ("take", "pass")[rng.integers(2)]}


def _script(seed: int, coarse: bool) -> list[tuple]:
    """Random adds, clock moves, mismatch changes and retrievals, with requests drawn
    from a small pool (so kept requests are met again) of 1-6 scored slots."""
    rng = np.random.default_rng(seed)
    pool = []
    for _ in range(12):
        chunk = _chunk(rng, coarse)
        slots = list(rng.permutation(SLOTS)[: rng.integers(1, 7)])
        pool.append({slot: chunk[slot] for slot in slots})
    script: list[tuple] = []
    for _ in range(150):
        roll = rng.random()
        if roll < 0.08:
            script.append(("add", _chunk(rng, coarse)))
        elif roll < 0.3:
            script.append(("advance", float(rng.choice([0.0, 0.5, 2.0]))))
        elif roll < 0.32:
            script.append(("mismatch", "size", None if rng.random() < 0.5 else Linear(8)))
        else:
            request = dict(pool[rng.integers(len(pool))])
            offset = float(rng.choice([0.0, 0.0, -0.75]))
            threshold = None if rng.random() < 0.6 else float(rng.normal(-3, 3))
            script.append(("retrieve", request, offset, threshold))
    return script


def _run(script: list[tuple], params: dict, *, compiled: bool, record: bool,
         fixed: bool, coarse: bool, items: bool = False) -> tuple[list[tuple], dict]:
    """The script's retrievals; ``items``: those with the default offset and threshold
    through ``retrieve_items`` (the request as its items)."""
    with reference_mode(not compiled):
        memory = DeclarativeMemory(mismatch=_mismatch(), seed=11, **params)
        rng = np.random.default_rng(5)
        for _ in range(40):
            memory.add(_chunk(rng, coarse), fixed_activation=0.0 if fixed else None)
        memory.advance(1.0)
        out: list[tuple] = []
        for step in script:
            if step[0] == "add":
                memory.add(step[1], fixed_activation=0.0 if fixed else None)
                memory.advance(0.5)  # a learned chunk is never retrieved at its creation
            elif step[0] == "advance":
                memory.advance(step[1])
            elif step[0] == "mismatch":
                memory.set_mismatch(step[1], step[2])
            else:
                _, request, offset, threshold = step
                if items and offset == 0.0 and threshold is None:
                    result = memory.retrieve_items(tuple(request.items()))
                else:
                    result = memory.retrieve(request, offset=offset, threshold=threshold,
                                             record=record)
                out.append((None if result.chunk is None else dict(result.chunk),
                            result.activation, result.latency))
        return out, memory._rng.bit_generator.state


PARAMS = [
    {"noise": 0.25},
    {"noise": 0.25, "noise_mode": "per_retrieval"},
    {"noise": 0.0},  # ties among equal activations: broken by a draw
    {"noise": 0.4, "retrieval_threshold": 0.5},  # many failures
]


@pytest.mark.parametrize("params", PARAMS)
@pytest.mark.parametrize("fixed", [True, False])
def test_compiled_retrievals_match_the_numpy_path_and_recorded_ones(params, fixed):
    coarse = params["noise"] == 0.0
    script = _script(17 + len(params), coarse)
    compiled = _run(script, params, compiled=True, record=False, fixed=fixed, coarse=coarse)
    numpy_path = _run(script, params, compiled=False, record=False, fixed=fixed,
                      coarse=coarse)
    recorded = _run(script, params, compiled=True, record=True, fixed=fixed, coarse=coarse)
    by_items = [_run(script, params, compiled=compiled, record=False, fixed=fixed,
                     coarse=coarse, items=True) for compiled in (True, False)]
    # winners, activations, latencies, random state
    assert compiled == numpy_path == recorded == by_items[0] == by_items[1]
    results = compiled[0]
    assert 0 < sum(r[0] is not None for r in results) < len(results)  # both outcomes seen
    assert all(r[1] is not None and math.isfinite(r[2]) for r in results)


def test_retrieval_by_items_is_retrieval_by_dict():
    """``retrieve_items`` is ``retrieve`` of the items' dict: the same retrieval, and an
    unhashable value reported as ``retrieve`` reports it."""
    memory = DeclarativeMemory(mismatch=_mismatch(), seed=1)
    twin = DeclarativeMemory(mismatch=_mismatch(), seed=1)
    rng = np.random.default_rng(0)
    for _ in range(30):
        chunk = _chunk(rng, False)
        memory.add(chunk, fixed_activation=0.0)
        twin.add(chunk, fixed_activation=0.0)
    for owned in (5, 6, 5):
        request = {"category": "none", "card": 12, "tokens_on_card": 3, "tokens_owned": owned}
        assert memory.retrieve_items(tuple(request.items())) == twin.retrieve(request)
    with pytest.raises(TypeError, match="hashable"):
        memory.retrieve_items((("category", ["none"]),))


@pytest.mark.parametrize("count", [0, 1, 2, 7, 300, 511, 512, 513, 2117])
def test_kernel_finds_numpys_first_best(count):
    """The kernel's own search (up to SEARCHED_HERE candidates) gives NumPy's argmax:
    the first of tied maxima, the first NaN, -inf everywhere."""
    kernels = actr_kernel.kernels()
    rng = np.random.default_rng(count)
    for trial in range(6):
        base = np.round(rng.normal(size=count), 1)  # rounded: ties are common
        if trial == 1 and count:
            base[:] = -np.inf
        if trial == 2 and count > 2:
            base[rng.integers(count, size=2)] = np.nan
        out = np.empty(count)
        best = kernels.activations(base, actr_kernel.EMPTY, actr_kernel.NO_ROWS, 0.0, base,
                                   base, base, base, 0, 5.0, out)
        assert np.array_equal(out, base, equal_nan=True)
        if count == 0 or count > actr_kernel.SEARCHED_HERE:
            assert best == -1
        else:
            assert best == int(out.argmax())


SHORT = Variant(removed=25)
