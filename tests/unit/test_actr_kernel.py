"""The compiled retrieval kernel agrees with the plain NumPy path, bit for bit.

Two memories with the same seed and the same history, one retrieving through the kernel
and one through NumPy, must give the same winners, activations and latencies under every
noise mode, mismatch function, base-level option and threshold.
"""
from __future__ import annotations

import math

import numba  # noqa: F401 (a dependency: without it both paths would be NumPy)
import numpy as np
import pytest

from nothanks.actr import DeclarativeMemory, ExactMatch, Linear, Weber
from nothanks.kernels import reference_mode

MISMATCH = {"category": ExactMatch(100), "card": Linear(32), "tokens_on_card": Weber(),
            "tokens_owned": Weber(), "flavour": ExactMatch(1)}
CATEGORIES = ("none", "extension", "completion")


def _history(seed: int, params: dict) -> list[tuple]:
    """A random script of adds, clock moves and retrievals (requests with 0-4 scored
    slots, exact-match slots, offsets and per-retrieval thresholds)."""
    rng = np.random.default_rng(seed)
    script: list[tuple] = []
    fixed = params.pop("fixed", False)
    for _ in range(120):
        roll = rng.random()
        state = {"category": CATEGORIES[rng.integers(3)], "card": int(rng.integers(3, 36)),
                 "tokens_on_card": int(rng.integers(0, 12)),
                 "tokens_owned": int(rng.integers(0, 12))}
        if roll < 0.35:
            chunk = {**state, "action": ("take", "pass")[rng.integers(2)],
                     "flavour": ("a", "b")[rng.integers(2)]}
            if rng.random() < 0.2:
                chunk.pop("flavour")  # a chunk lacking a scored slot
            script.append(("add", chunk, 0.0 if fixed else None))
        elif roll < 0.55:
            script.append(("advance", float(rng.choice([0.5, 1.0, 2.0]))))
        else:
            slots = list(state)
            keep = rng.permutation(slots)[: rng.integers(0, 5)]
            request = {slot: state[slot] for slot in keep}
            if rng.random() < 0.3:
                request["action"] = ("take", "pass")[rng.integers(2)]  # exact match
            if rng.random() < 0.2:
                request["flavour"] = "a"
            offset = float(rng.choice([0.0, -0.5, 1.25]))
            threshold = None if rng.random() < 0.7 else float(rng.normal(-2, 2))
            script.append(("retrieve", request, offset, threshold))
    return script


def _play(script: list[tuple], params: dict, compiled: bool, fixed: bool) -> list[tuple]:
    with reference_mode(not compiled):
        memory = DeclarativeMemory(mismatch=MISMATCH, seed=3, **params)
        memory.add({"category": "none", "card": 10, "tokens_on_card": 1,
                    "tokens_owned": 5, "action": "pass", "flavour": "a"},
                   fixed_activation=0.0 if fixed else None)
        memory.advance(1.0)
        out = []
        for step in script:
            if step[0] == "add":
                memory.add(step[1], fixed_activation=step[2])
            elif step[0] == "advance":
                memory.advance(step[1])
            else:
                _, request, offset, threshold = step
                try:
                    result = memory.retrieve(request, offset=offset, threshold=threshold)
                except ValueError as error:  # a reference at the current time
                    out.append(("error", type(error).__name__))
                    continue
                out.append((None if result.chunk is None else dict(result.chunk),
                            result.activation, result.latency))
        return out


PARAMS = [
    {},
    {"noise_mode": "per_retrieval"},
    {"noise": 0.0},
    {"noise": 0.0, "mismatch_penalty": 0.0},
    {"optimized_learning": True},
    {"base_level_learning": False},
    {"decay": 1.5, "retrieval_threshold": -8.0},
    {"fixed": True},
    {"fixed": True, "noise_mode": "per_retrieval", "retrieval_threshold": -1.0},
]


@pytest.mark.parametrize("params", PARAMS, ids=[str(p) or "defaults" for p in PARAMS])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_kernel_and_numpy_paths_agree_bit_for_bit(params, seed):
    script = _history(seed, dict(params))
    options = {k: v for k, v in params.items() if k != "fixed"}
    fixed = params.get("fixed", False)
    numpy_path = _play(script, options, compiled=False, fixed=fixed)
    kernel_path = _play(script, options, compiled=True, fixed=fixed)
    assert len(kernel_path) == len(numpy_path) > 20
    for ours, reference in zip(kernel_path, numpy_path, strict=True):
        assert ours[0] == reference[0]
        for a, b in zip(ours[1:], reference[1:], strict=True):
            assert a == b or (a is not None and math.isnan(a) and math.isnan(b))
    successes = sum(1 for r in kernel_path if r[0] not in (None, "error"))
    assert successes > 5


def test_kernel_is_compiled_lazily_not_at_import():
    import subprocess
    import sys
    code = ("import sys, nothanks.actr, nothanks.agents; "
            "print('numba' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "False"


def test_parent_warm_up_loads_the_signatures_games_use_and_only_for_models():
    """``prepare_to_fork`` loads the kernels a game calls (so forked workers inherit
    them: no kernel gains a signature while the models play); for a baseline design it
    loads only the batch engine's kernel, and on the reference nothing."""
    import subprocess
    import sys
    code = """
import os, sys
from nothanks.experiments import Design, Table
from nothanks.experiments.workers import prepare_to_fork
from nothanks.kernels import reference_mode
baselines = Design(name="r", games=1, tables=(Table("r", ("random",) * 4),))
with reference_mode():
    prepare_to_fork(baselines)
print('numba' in sys.modules)
prepare_to_fork(baselines)
from nothanks.search import baseline_games
print(len(baseline_games.play.signatures))
prepare_to_fork(Design(name="m", games=1, tables=(Table("m", ("tom2", "tom1", "tom0", "random")),)))
from nothanks.actr import kernel
names = ("activations", "node_sums", "exact_best", "recall_best")
def signatures():
    return [len(getattr(kernel.kernels(), n).signatures) for n in names]
loaded = signatures()
from nothanks.play.runner import play_games
for _ in play_games(["tom2", "tom1", "tom0", "tom0"], 2, 0):
    pass
print(loaded, signatures())
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split("\n")
    assert out[0] == "False"
    assert out[1] == "1"
    assert out[2] == "[1, 1, 1, 1] [1, 1, 1, 1]"
