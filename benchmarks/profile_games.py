"""Where a model game's CPU goes: a table's games through ``play_games``, sampled by a
profiler from outside the process, and the samples summed by part of the model.

Run (py-spy, a sampling profiler: ``pip install py-spy``; it adds no cost per call, so
the shares are not skewed toward small Python functions as cProfile's are):

    py-spy record -r 400 -f raw -o /tmp/tom2x4.raw -- \\
        python benchmarks/profile_games.py play tom2x4 --games 300
    python benchmarks/profile_games.py shares /tmp/tom2x4.raw [more.raw ...] [--out CSV]

``play`` plays a few games untimed (every entry loads its machine code), then the
measured ones. ``shares`` reads py-spy's raw (collapsed) stacks, keeps the samples inside
the games (``play_planned``: a game's set-up, its agents' start included, and its play)
and not in numba's loading of machine code, and gives each sample
to the first part in :data:`PARTS` whose frames it holds (compiled code counts as its
Python caller's). Prints one Markdown row per part and, with ``--out``, writes the
shares as CSV (workload, part, samples, share).
"""
from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path

#: The tables profiled, by name.
WORKLOADS = {"tom0x4": ["tom0"] * 4, "tom1v0": ["tom1", "tom0", "tom0", "tom0"],
             "tom2x4": ["tom2"] * 4}

#: A sample's part: the first whose test its stack passes.
PARTS: list[tuple[str, Callable[[str], bool]]] = [
    ("token memory: recall on an observed move (update)",
     lambda s: "TokenMemory.recall" in s and "TokenMemory.update" in s),
    ("token memory: store on an observed move", lambda s: "TokenMemory.store" in s),
    ("token memory: recall at a decision (beliefs)", lambda s: "TokenMemory.recall" in s),
    ("ToM0 decision (_decide_tom0: compiled lazy retrieval, windows, glue)",
     lambda s: "_decide_tom0" in s),
    ("ToM-k decision: the instance noise draw (every instance)",
     lambda s: "_reason_compiled" in s and "per_time_noise" in s),
    ("ToM-k decision: the compiled core's call and its glue",
     lambda s: "_reason_compiled" in s or "_compiled_inputs" in s),
    ("decision glue (decide, beliefs)", lambda s: "ToMAgent.decide " in s),
    ("clocks (_tick, advance)", lambda s: "_tick" in s),
    ("decision_info and decision records", lambda s: "decision_info" in s
     or "Match._record" in s),
    ("agents' start of a game (memories, seeds)", lambda s: "ToMAgent.start" in s
     or "Match.__init__" in s),
    ("rules engine, views, event dispatch, the rest", lambda s: True),
]


def play(workload: str, games: int) -> None:
    import nothanks.agents.cognitive  # noqa: F401  (registers the model specs)
    from nothanks.play.runner import play_games
    from nothanks.rules import Variant

    specs = WORKLOADS[workload]
    list(play_games(specs, 4, 1, Variant()))  # untimed: machine code loaded
    list(play_games(specs, games, 7, Variant()))


def shares(path: Path) -> tuple[int, Counter]:
    """(samples inside games, samples per part) of one py-spy raw file."""
    total, parts = 0, Counter()
    with open(path, encoding="utf-8") as raw:
        for line in raw:
            stack, _, count = line.rstrip("\n").rpartition(" ")
            if "play_planned (" not in stack or "_compile_for_args" in stack:
                continue
            n = int(count)
            total += n
            parts[next(name for name, test in PARTS if test(stack))] += n
    return total, parts


def main(argv: list[str] | None = None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("play", help="play a table's games (run under py-spy)")
    p.add_argument("workload", choices=sorted(WORKLOADS))
    p.add_argument("--games", type=int, default=300)
    s = sub.add_parser("shares", help="sum py-spy raw stacks by part")
    s.add_argument("raw", nargs="+", type=Path)
    s.add_argument("--out", type=Path, help="write the shares as CSV")
    args = parser.parse_args(argv)
    if args.command == "play":
        if args.games < 1:
            parser.error(f"--games {args.games}: give at least 1 game")
        play(args.workload, args.games)
        return []
    rows: list[dict] = []
    for path in args.raw:
        if not path.is_file():
            parser.error(f"{path}: no such py-spy raw file (py-spy record -f raw -o FILE)")
        total, parts = shares(path)
        if total == 0:
            parser.error(f"{path}: no samples inside a game (play_planned); was it recorded "
                         "from 'profile_games.py play'?")
        print(f"\n{path.stem}: {total} samples in games\n\n| part | share |\n| --- | --- |")
        for name, _ in PARTS:
            print(f"| {name} | {100 * parts[name] / total:.1f}% |")
            rows.append({"workload": path.stem, "part": name, "samples": parts[name],
                         "share": round(parts[name] / total, 4)})
    if args.out:
        import pandas as pd

        from nothanks.files import atomic_write_bytes

        atomic_write_bytes(pd.DataFrame(rows).to_csv(index=False).encode(), args.out)
    return rows


if __name__ == "__main__":
    main(sys.argv[1:])
