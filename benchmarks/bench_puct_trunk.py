"""The PUCT search's CPU per search with each network trunk (``mlp``, ``conv``).

Run: python benchmarks/bench_puct_trunk.py [--players 4] [--sims 50] [--positions 40]
     [--rounds 5] [--out FILE.csv]

Untrained networks of the default shapes (``NetworkConfig(players, trunk=...)``) search
the same ``--positions`` positions (random moves from seeded deals) ``--sims``
simulations each; one round times all positions with one trunk
(``time.process_time``: CPU of this single-threaded process), rounds alternate the
trunks, and the table gives per trunk the minimum and the median over rounds of the CPU
per search. One untimed search per trunk first loads the compiled code. A diagnosis,
no target: the conv trunk's first layer reads every seat's every card and channel, so
it costs more than the MLP's, which reads only the cards held.
"""
from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np
import pandas as pd

from nothanks.rules import Variant
from nothanks.search import kernel as k
from nothanks.search.network import TRUNKS, Network, NetworkConfig, init_weights
from nothanks.search.puct import puct_search
from nothanks.search.selfplay import deal_state


def positions(players: int, count: int, seed: int = 0) -> list[np.ndarray]:
    """``count`` positions: each after 0-59 random moves of a seeded deal (a deal that
    ends early is dealt again)."""
    rng = np.random.default_rng(seed)
    found = []
    while len(found) < count:
        s = deal_state(Variant(players=players), rng)
        for _ in range(int(rng.integers(60))):
            if s[k.HEADER + s[k.TO_MOVE]] == 0 or rng.random() < 0.3:
                k.apply_take(s)
                if s[k.OVER]:
                    break
                k.reveal(s, int(rng.integers(s[k.POOL])))
            else:
                k.apply_pass(s)
        if not s[k.OVER]:
            found.append(s)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--sims", type=int, default=50)
    parser.add_argument("--positions", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--out", type=Path, default=None, help="also write the table here")
    args = parser.parse_args()
    states = positions(args.players, args.positions)
    networks = {}
    for trunk in TRUNKS:
        config = NetworkConfig(players=args.players, trunk=trunk)
        networks[trunk] = Network(init_weights(config, 0), config)
        puct_search(states[0], networks[trunk], args.sims, np.random.default_rng(0))
    times: dict[str, list[float]] = {trunk: [] for trunk in TRUNKS}
    for _ in range(args.rounds):
        for trunk, network in networks.items():
            began = time.process_time()
            for i, s in enumerate(states):
                puct_search(s, network, args.sims, np.random.default_rng(i))
            times[trunk].append((time.process_time() - began) / len(states))
    table = pd.DataFrame([{
        "trunk": trunk, "players": args.players, "sims": args.sims,
        "weights": sum(int(np.prod(s)) for s in networks[trunk].config.shapes().values()),
        "min_ms_per_search": 1e3 * min(seconds),
        "median_ms_per_search": 1e3 * statistics.median(seconds),
        "us_per_simulation": 1e6 * min(seconds) / args.sims} for trunk, seconds in times.items()])
    print(table.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    if args.out is not None:
        table.to_csv(args.out, index=False)


if __name__ == "__main__":
    main()
