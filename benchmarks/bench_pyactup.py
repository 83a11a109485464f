"""Retrieval latency against pyactup: our ACT-R core and pyactup side by side (issue 29).

Run: python benchmarks/bench_pyactup.py [--rounds 5] [--retrievals 1000] [--samples 1500]
     [--skip-checks]

The workload is ``bench_actr``'s and ``compare.py``'s ``retrieval_fixed``: 300 distinct
fixed-activation chunks (the thesis's instances: category, card 3-35, tokens on the card,
tokens owned, action), requests of the four state slots, each partially matched, the
clock advancing (untimed) before 4 of every 5 retrievals. pyactup gets the same chunks,
the same parameters and the same similarity functions:

* noise s = 0.25 (logistic), retrieval threshold τ = -2, mismatch penalty MP = 5;
* one noise draw per chunk per model time: ours ``noise_mode="per_time"``, pyactup's
  ``fixed_noise`` context around every block;
* base levels: ours ``fixed_activation=0``, pyactup ``decay=None`` (no base level, 0);
* mismatches: pyactup with ``use_actr_similarity=True`` takes our ``Linear(32)`` (card)
  and ``Weber()`` (token counts) objects themselves as its similarity functions, and
  ACT-R's exact match with weight 100 for the category (our ``ExactMatch(100)``).

Differences that remain (none changes which chunk a noise-free retrieval returns): the
noise comes from different generators (ours NumPy's PCG64 seeded 1, pyactup its own
generator seeded from Python's ``random``), so the two agree in distribution, not draw
for draw; pyactup draws noise for every candidate at every retrieval and keeps the first
draw per chunk and time (a draw of exactly 0.0 it would redraw); ties go to ours
``_break_tie`` and to pyactup's ``random.choice``; pyactup caches similarity values
(its own speed-up, kept).

Timing: each round times a block of ``--retrievals`` retrievals on each library (the
same requests for both, the first to go alternating from round to round), CPU time per
retrieval (``time.process_time_ns``), the first tenth of each block dropped as warm-up.
It prints each side's median over all rounds, the ratio of the medians and the range of
the rounds' own ratios. Target: ours at least 100× faster.

Checks (before the timing unless ``--skip-checks``): with noise 0, on random requests,
both retrieve or both fail, and the best activation pyactup computes equals ours (so a
differing chunk is a tie); with noise, the retrieved chunk's distribution over
``--samples`` model times per request is the same (chi-square test of homogeneity).
pyactup (2.2.5) is a benchmark-only dependency (the dev extras).
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:  # the sibling script, also when loaded from the tests
    sys.path.insert(0, str(HERE))

from bench_actr import THESIS_MISMATCH, instance_memory, random_state  # noqa: E402

from nothanks.actr import DeclarativeMemory, ExactMatch  # noqa: E402

CHUNKS = 300
NOISE = 0.25
THRESHOLD = -2.0
MISMATCH_PENALTY = 5.0
TARGET_RATIO = 100.0
#: The clock moves before every retrieval except every ADVANCE_EVERY-th (4 of 5).
ADVANCE_EVERY = 5


def ours(noise: float = NOISE) -> DeclarativeMemory:
    """Our memory of the benchmark: ``bench_actr.instance_memory(300)`` (seed 1)."""
    return instance_memory(CHUNKS, noise=noise, retrieval_threshold=THRESHOLD,
                           mismatch_penalty=MISMATCH_PENALTY, noise_mode="per_time")


def theirs(memory: DeclarativeMemory, seed: int = 1):
    """A ``pyactup.Memory`` holding ``memory``'s chunks, with its noise, threshold,
    mismatch penalty and mismatch functions (see the module docstring)."""
    try:
        import pyactup
    except ImportError as error:
        raise SystemExit("bench_pyactup needs pyactup (a dev extra): pip install -e .[dev] "
                         "or pip install pyactup==2.2.5") from error
    random.seed(seed)  # pyactup seeds its noise generator from Python's random
    parameters = memory.parameters
    # the temperature is for blending only; with noise 0 pyactup wants it given
    other = pyactup.Memory(noise=parameters.noise, decay=None,
                           temperature=None if parameters.noise else 1.0,
                           threshold=parameters.retrieval_threshold,
                           mismatch=parameters.mismatch_penalty, use_actr_similarity=True)
    for slot, function in THESIS_MISMATCH.items():
        if isinstance(function, ExactMatch):
            other.similarity([slot], True, weight=function.weight)
        else:
            other.similarity([slot], function)
    for chunk in memory.chunks:
        other.learn(dict(chunk))
    return other


def requests(count: int, seed: int) -> list[dict[str, object]]:
    """``count`` random requests of the four state slots."""
    rng = np.random.default_rng(seed)
    return [random_state(rng) for _ in range(count)]


def _block(retrieve: Callable[[dict], object], advance: Callable[[], object],
           asked: Sequence[dict]) -> list[int]:
    """CPU ns of each retrieval of ``asked``, the clock moving before 4 of every 5."""
    clock = time.process_time_ns
    timings = []
    for index, request in enumerate(asked):
        if index % ADVANCE_EVERY:
            advance()
        began = clock()
        retrieve(request)
        timings.append(clock() - began)
    return timings[len(timings) // 10:]


def time_side_by_side(rounds: int, retrievals: int) -> dict[str, object]:
    """Alternating blocks of ``retrievals`` retrievals per library; medians in µs."""
    memory = ours()
    other = theirs(memory)

    def run_ours(asked: Sequence[dict]) -> list[int]:
        return _block(memory.retrieve, lambda: memory.advance(1.0), asked)

    def run_theirs(asked: Sequence[dict]) -> list[int]:
        with other.fixed_noise:
            return _block(lambda request: other.retrieve(request, partial=True),
                          other.advance, asked)

    warm = requests(max(retrievals // 10, 20), 999)
    run_ours(warm)
    run_theirs(warm)
    times: dict[str, list[int]] = {"ours": [], "pyactup": []}
    ratios = []
    for round_ in range(rounds):
        asked = requests(retrievals, 1000 + round_)
        sides = [("ours", run_ours), ("pyactup", run_theirs)]
        if round_ % 2:
            sides.reverse()
        medians = {}
        for name, run in sides:
            timings = run(asked)
            times[name] += timings
            medians[name] = statistics.median(timings) / 1000.0
        ratios.append(medians["pyactup"] / medians["ours"])
        print(f"  round {round_ + 1}: ours {medians['ours']:8.2f} µs, pyactup "
              f"{medians['pyactup']:9.1f} µs, {ratios[-1]:6.1f}x", flush=True)
    ours_us = statistics.median(times["ours"]) / 1000.0
    theirs_us = statistics.median(times["pyactup"]) / 1000.0
    return {"ours_us": ours_us, "pyactup_us": theirs_us, "ratio": theirs_us / ours_us,
            "low": min(ratios), "high": max(ratios)}


def _best_activation(history: list[Mapping[str, object]]) -> float:
    return max(float(entry["activation"]) for entry in history)


def check_noise_free(count: int = 300, seed: int = 5) -> Counter:
    """With noise 0, each of ``count`` random requests: both succeed or both fail, and
    pyactup's best activation equals ours (so a different chunk is a tie).

    Returns counts of ``same`` chunk, ``tie`` and ``failed`` (both). Raises
    AssertionError on the first disagreement, naming the request.
    """
    memory = ours(noise=0.0)
    other = theirs(memory)
    outcome: Counter = Counter()
    for request in requests(count, seed):
        mine = memory.retrieve(request)
        other.activation_history = []
        chunk = other.retrieve(request, partial=True)
        best = _best_activation(other.activation_history)
        if not abs(best - mine.activation) <= 1e-9:
            raise AssertionError(f"request {request}: best activation {mine.activation!r} "
                                 f"here, {best!r} in pyactup")
        if (mine.chunk is None) != (chunk is None):
            raise AssertionError(f"request {request}: retrieved {mine.chunk!r} here, "
                                 f"{chunk!r} in pyactup (threshold {THRESHOLD})")
        if chunk is None:
            outcome["failed"] += 1
        elif dict(mine.chunk) == dict(chunk):
            outcome["same"] += 1
        else:
            tied = memory.activation(dict(chunk), request).activation
            if not abs(tied - mine.activation) <= 1e-9:
                raise AssertionError(f"request {request}: pyactup retrieved {dict(chunk)} "
                                     f"at activation {tied!r} (ours), not a tie with "
                                     f"{dict(mine.chunk)} at {mine.activation!r}")
            outcome["tie"] += 1
    return outcome


def retrieved_counts(samples: int, request: dict) -> tuple[Counter, Counter]:
    """How often each chunk (None: a failure) is retrieved for ``request`` at each of
    ``samples`` model times, here and in pyactup, with noise."""
    memory = ours()
    other = theirs(memory, seed=2)
    mine: Counter = Counter()
    other_counts: Counter = Counter()
    with other.fixed_noise:
        for _ in range(samples):
            memory.advance(1.0)
            other.advance()
            got = memory.retrieve(request).chunk
            mine[None if got is None else frozenset(got.items())] += 1
            chunk = other.retrieve(request, partial=True)
            other_counts[None if chunk is None else frozenset(chunk.items())] += 1
    return mine, other_counts


def check_distribution(samples: int, count: int = 3, seed: int = 11) -> list[float]:
    """p-values of a chi-square test that ours and pyactup retrieve each chunk equally
    often (outcomes expected fewer than 5 times pooled), one per request; raises
    AssertionError below 0.001."""
    from scipy.stats import chi2_contingency
    values = []
    for request in requests(count, seed):
        mine, other = retrieved_counts(samples, request)
        keys = sorted(set(mine) | set(other), key=lambda k: -(mine[k] + other[k]))
        kept = [k for k in keys if mine[k] + other[k] >= 10]
        rest = [k for k in keys if k not in kept]
        table = [[mine[k] for k in kept], [other[k] for k in kept]]
        if rest:
            table[0].append(sum(mine[k] for k in rest))
            table[1].append(sum(other[k] for k in rest))
        if len(table[0]) < 2:
            p_value = 1.0 if table[0] == table[1] else 0.0
        else:
            p_value = float(chi2_contingency(table).pvalue)
        top = ", ".join(f"{mine[k]}/{other[k]}" for k in kept[:4])
        print(f"  request {request}: {len(keys)} outcomes, most frequent (ours/pyactup) "
              f"{top}; chi-square p = {p_value:.3f}", flush=True)
        if p_value < 0.001:
            raise AssertionError(f"request {request}: retrieval distributions differ "
                                 f"(p = {p_value:.2g}): {table}")
        values.append(p_value)
    return values


def main(argv: list[str] | None = None) -> dict[str, object]:
    """Run the checks and the timing; print and return the medians and ratio."""
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--retrievals", type=int, default=1000,
                        help="retrievals per block and library (default 1000)")
    parser.add_argument("--samples", type=int, default=1500,
                        help="model times per request of the distribution check")
    parser.add_argument("--skip-checks", action="store_true")
    args = parser.parse_args(argv)
    import pyactup
    print(f"load average {os.getloadavg()[0]:.2f}, {os.cpu_count()} cores; pyactup "
          f"{pyactup.__version__}; {CHUNKS} fixed chunks x 4 partially matched slots")
    if not args.skip_checks:
        print(f"noise 0, 300 requests: {dict(check_noise_free())} (same chunk, tie, both "
              "failed; pyactup's best activation equals ours in every one)")
        print(f"noise {NOISE}, {args.samples} model times per request:")
        check_distribution(args.samples)
    result = time_side_by_side(args.rounds, args.retrievals)
    verdict = "PASS" if result["ratio"] >= TARGET_RATIO else "FAIL"
    print(f"retrieval, {CHUNKS} fixed chunks x 4 slots (median CPU µs): ours "
          f"{result['ours_us']:.2f}, pyactup {result['pyactup_us']:.1f}, "
          f"{result['ratio']:.1f}x (rounds {result['low']:.1f}-{result['high']:.1f}x); "
          f"target >= {TARGET_RATIO:g}x {verdict}")
    print(f"load average {os.getloadavg()[0]:.2f}")
    return result


if __name__ == "__main__":
    main()
