"""Side-by-side speed of two revisions: a baseline (default 2cea8be) and this tree.

Run: python benchmarks/compare.py [--baseline REV] [--new PATH|REV] [--rounds N]
                                  [--measures NAME ...] [--quick]
     python benchmarks/compare.py --peer PATH [--rounds N] [--quick]

The baseline is checked out with ``git worktree add --detach`` into a temporary folder and
run from there (``PYTHONPATH`` pointing at it, the same interpreter and dependencies), so
nothing is installed. Every measure runs in a fresh subprocess per revision, and the two
revisions take turns round by round (the first to go alternates), so a machine that gets
busier or quieter during the run affects both sides alike. Per measure it prints the
baseline's and the new revision's medians over the rounds and their ratio (how many times
faster the new one is; for memory, how many times smaller).

The workloads are defined once, in this file (the ``decision_tomK`` measures, cost per
decision of ToM0..ToM5, reuse ``bench_models.decision_cost`` of this tree on both
revisions), and call only names that exist in both revisions
(``nothanks.play.runner.play_games``, ``nothanks.actr.DeclarativeMemory``,
``nothanks.experiments.run_design``, the order inference's ``likelihood_frame``, the
``nothanks figures`` command), with fallbacks where a name may move. Times are CPU
seconds of the worker (and its children for the parallel runs), which a shared machine
disturbs less than wall time; wall time is shown too for the parallel runs.

Why a small script and not asv: asv builds each revision into its own virtualenv from
the package metadata and times functions in-process one revision after the other. Here
the two revisions must run the same workloads alternately in one sitting on one machine,
including multi-process runs and the full figures pipeline (minutes each), and share the
one environment that already has every dependency; a worktree plus ``PYTHONPATH`` does
exactly that in ~300 lines with no extra dependency.

``--peer PATH`` compares this tree instead with the peer engine lomackie/no-thanks-rl
(a work tree of it at PATH; its ``nothanks/engine.py`` is loaded at run time, nothing of
it is copied here): random 4-player games with decisions recorded, the peer against this
tree's Python engine, batch path and batch columns, alternating in fresh processes.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path

HERE = Path(__file__).resolve()
REPO = HERE.parent.parent
DEFAULT_BASELINE = "2cea8be"


# ------------------------------------------------------------------ workloads (worker side)
def _play_games():
    """``play_games`` wherever the revision keeps it (the runner may become a re-export)."""
    try:
        from nothanks import play_games  # type: ignore[attr-defined]
    except ImportError:
        try:
            from nothanks.play.runner import play_games
        except ImportError:  # before issue 45 moved it (685ee07 and older)
            from nothanks.runner import play_games  # type: ignore[no-redef]
    return play_games


def _per_game_cpu_ms(specs: list[str], games: int, seed: int = 0) -> float:
    """Median CPU ms per game, agents reused across games as the runner does."""
    results = _play_games()(specs, games, seed, record=False)
    times = []
    while True:
        began = time.process_time()
        if next(results, None) is None:
            break
        times.append(1000.0 * (time.process_time() - began))
    return statistics.median(times)


def model_games(quick: bool) -> int:
    """Games a model-game measure plays (the median per game is its value)."""
    return 10 if quick else 60


def tom2x4(quick: bool) -> dict:
    return {"value": _per_game_cpu_ms(["tom2"] * 4, model_games(quick))}


def tom1_vs_tom0(quick: bool) -> dict:
    return {"value": _per_game_cpu_ms(["tom1", "tom0", "tom0", "tom0"], model_games(quick))}


def tom0x4(quick: bool) -> dict:
    return {"value": _per_game_cpu_ms(["tom0"] * 4, model_games(quick))}


def ibl_blend(quick: bool) -> dict:
    """Median CPU µs of a pyibl-style decision (``choose`` between two options, a blend
    each, then ``respond``) after a history of 2,000 decisions: three attributes matched
    linearly on 1..100, MP 1, noise 0.25, d 0.5 (``bench_ibl``'s task), 400 decisions."""
    import numpy as np

    from nothanks.actr.blending import BlendingLearner, InstanceMemory
    from nothanks.actr.mismatch import Linear
    rng = np.random.default_rng(5)
    memory = InstanceMemory(("a", "b", "c"), noise=0.25, decay=0.5, mismatch_penalty=1.0,
                            similarity={name: Linear(99) for name in "abc"}, seed=3)
    learner = BlendingLearner(memory)
    for values, outcome in zip(rng.integers(1, 101, (2000, 3)).tolist(),
                               rng.uniform(0, 10, 2000).tolist(), strict=True):
        memory.learn(tuple(values), outcome)
        memory.advance()
    decisions = 100 if quick else 400
    options = rng.integers(1, 101, (decisions, 2, 3)).tolist()
    outcomes = rng.uniform(0, 10, decisions).tolist()
    clock = time.process_time_ns
    timings = []
    for pair, outcome in zip(options, outcomes, strict=True):
        began = clock()
        learner.choose([tuple(option) for option in pair])
        learner.respond(outcome)
        timings.append(clock() - began)
    return {"value": statistics.median(timings) / 1000.0}


def ibl_games(quick: bool) -> dict:
    """Median CPU ms per game of two IBL agents against two ToM0 models."""
    return {"value": _per_game_cpu_ms(["ibl", "ibl", "tom0", "tom0"], model_games(quick))}


def _counter_stream(specs: list[str]) -> tuple[list[str], str]:
    """The specs on the counter noise stream where the revision has it (docs/actr.md,
    "Noise streams"), else unchanged: a revision without it plays its only stream."""
    from nothanks.agents import make_agent
    counter = [f"{spec}:noise_stream=counter" for spec in specs]
    try:
        make_agent(counter[0])
    except Exception:  # noqa: BLE001 - an older revision refuses the parameter
        return specs, "pcg64 (the revision has no other)"
    return counter, "counter"


def _on_counter_stream(specs: list[str]) -> Callable[[bool], dict]:
    """Median CPU ms per game of ``specs`` with ``noise_stream=counter`` (other draws,
    other games than the pcg64 stream: the same model, not the same games)."""
    def measure(quick: bool) -> dict:
        played, stream = _counter_stream(specs)
        return {"value": _per_game_cpu_ms(played, model_games(quick)), "stream": stream}
    return measure


tom1_vs_tom0_counter = _on_counter_stream(["tom1", "tom0", "tom0", "tom0"])
tom2x4_counter = _on_counter_stream(["tom2"] * 4)


def _decision_cost(k: int) -> Callable[[bool], dict]:
    """Mean CPU ms per decision of one ToM-k model against three ToM0 models (the
    workload of ``bench_models.decision_cost``, which both revisions ship)."""
    def measure(quick: bool) -> dict:
        sys.path.insert(0, str(HERE.parent))
        from bench_models import decision_cost
        return {"value": decision_cost(k, 4 if quick else 12)[0]}
    return measure


THESIS_MISMATCH_SLOTS = ("category", "card", "tokens_on_card", "tokens_owned")


def _thesis_memory(**params):
    from nothanks.actr import DeclarativeMemory, ExactMatch, Linear, Weber
    mismatch = {"category": ExactMatch(100), "card": Linear(32),
                "tokens_on_card": Weber(), "tokens_owned": Weber()}
    return DeclarativeMemory(mismatch=mismatch, seed=1, **params)


def _random_state(rng) -> dict:
    return {"category": ("none", "extension", "completion")[int(rng.integers(3))],
            "card": int(rng.integers(3, 36)), "tokens_on_card": int(rng.integers(0, 25)),
            "tokens_owned": int(rng.integers(0, 25))}


def _median_retrieval_us(memory, retrievals: int, advance_every: int) -> float:
    """Median CPU µs of ``retrieve`` alone; the clock moves (untimed) before every
    retrieval except every ``advance_every``-th (1: before every one)."""
    import numpy as np
    rng = np.random.default_rng(42)
    requests = [_random_state(rng) for _ in range(retrievals)]
    clock = time.process_time_ns
    timings = []
    for index, request in enumerate(requests):
        if advance_every == 1 or index % advance_every:
            memory.advance(1.0)
        began = clock()
        memory.retrieve(request)
        timings.append(clock() - began)
    return statistics.median(timings[len(timings) // 10:]) / 1000.0


#: ToM2, ToM1 and two ToM0 models keeping reasoning traces (every instance retrieval
#: recorded, nobody reading the records): what the step explorer and trace logs pay.
TRACED_SPECS = ["tom2:trace=true", "tom1:trace=true", "tom0:trace=true", "tom0:trace=true"]


def tom_traced(quick: bool) -> dict:
    return {"value": _per_game_cpu_ms(TRACED_SPECS, 3 if quick else 10)}


def retrieval_fixed(quick: bool) -> dict:
    """300 fixed-activation chunks, 4 partially matched slots, clock moves 4 of 5 times."""
    import numpy as np
    memory = _thesis_memory()
    rng = np.random.default_rng(0)
    while len(memory) < 300:
        memory.add({**_random_state(rng), "action": ("take", "pass")[len(memory) % 2]},
                   fixed_activation=0)
    return {"value": _median_retrieval_us(memory, 2000 if quick else 20000, 5)}


def retrieval_learned(quick: bool) -> dict:
    """1,000 learned chunks with 10 references each; the clock moves before every one."""
    import numpy as np
    memory = _thesis_memory()
    rng = np.random.default_rng(0)
    states: list[dict] = []
    while len(states) < 1000:
        state = _random_state(rng)
        if state not in states:
            states.append(state)
    for _ in range(10):
        for state in states:
            memory.add(state)
        memory.advance(1.0)
    return {"value": _median_retrieval_us(memory, 1000 if quick else 5000, 1)}


def random_games(quick: bool) -> dict:
    """Games per CPU second of four random agents with decisions recorded (best of 3)."""
    games = 500 if quick else 4000
    best = float("inf")
    for repeat in range(3):
        began = time.process_time()
        for _ in _play_games()(["random"] * 4, games, repeat, record=True):
            pass
        best = min(best, time.process_time() - began)
    return {"value": games / best}


def _inference():
    """The order-inference module wherever the revision keeps it (``nothanks.inference``,
    later ``nothanks.studies.inference``)."""
    try:
        from nothanks.studies import inference
    except ImportError:
        from nothanks import inference  # type: ignore[no-redef]
    return inference


#: The simulated participant of ``likelihood_24``: a ToM1 player without lapses.
LIKELIHOOD_PLAYER = ("sim-tom1-01", "tom1")


def likelihood_24(quick: bool) -> dict:
    """CPU s of the order-inference likelihood of one participant's 24 games: a simulated
    ToM1 player without lapses through the Table 6 session (untimed, the same games on
    every revision that keeps the seeds' bits), then ``likelihood_frame`` over all 24
    games (practice included) with the default settings (every candidate model, 50
    fresh-noise samples per ToM model and decision; 5 with --quick), one process. The
    note names the decisions and a digest of the likelihood table: equal digests on both
    sides mean both computed the same numbers."""
    import hashlib

    from nothanks.experiments.log import load
    inference = _inference()
    settings = inference.InferenceSettings(samples=5 if quick else 50)
    participant, spec = LIKELIHOOD_PLAYER
    with tempfile.TemporaryDirectory() as tmp:
        inference.play_simulated_player(participant, tmp, spec, 0.0)
        log = load(tmp)
        began = time.process_time()
        frame = inference.likelihood_frame(log, [participant], settings=settings,
                                           practice=True)
        cpu = time.process_time() - began
    digest = hashlib.sha256(frame.to_csv(index=False).encode()).hexdigest()[:12]
    decisions = frame["decision"].nunique()
    return {"value": cpu, "note": f"{decisions} decisions, table {digest}"}


#: The environment variable that hands the peer engine's folder to the worker processes.
PEER_ENV = "NOTHANKS_COMPARE_PEER"


def _games_per_cpu_second(play: Callable[[int, int], object], games: int) -> float:
    """Games per CPU second of ``play(games, seed)``, best of three seeds."""
    best = float("inf")
    for repeat in range(3):
        began = time.process_time()
        play(games, repeat)
        best = min(best, time.process_time() - began)
    return games / best


def _peer_engine():
    """The peer's rules module, ``<folder>/nothanks/engine.py`` of lomackie/no-thanks-rl,
    loaded from the folder given with ``--peer`` under another name (both packages are
    called ``nothanks``; the engine imports only the standard library)."""
    import importlib.util
    path = Path(os.environ[PEER_ENV]) / "nothanks" / "engine.py"
    if not path.is_file():
        raise FileNotFoundError(f"{path} does not exist; --peer takes the folder of a "
                                "lomackie/no-thanks-rl work tree (the one holding nothanks/)")
    spec = importlib.util.spec_from_file_location("peer_no_thanks_engine", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def peer_random_games(quick: bool) -> dict:
    """Games per CPU second of the peer engine: four players taking with probability 1/2
    unless out of chips, every decision recorded as a tuple (turn, seat, card, chips on
    it, every seat's chips, the mover's cards, action), with its ``new_game`` and
    ``step`` (which samples the next card)."""
    import random
    engine = _peer_engine()

    def play(games: int, seed: int) -> None:
        rng = random.Random(seed)
        for _ in range(games):
            state, decisions = engine.new_game(4, rng=rng), []
            while not engine.is_terminal(state):
                forced = len(engine.legal_actions(state)) == 1
                action = "take" if forced or rng.random() < 0.5 else "pass"
                decisions.append((len(decisions), state.to_move, state.active, state.pot,
                                  state.chips, state.cards[state.to_move], action))
                state = engine.step(state, action, rng)
            engine.final_scores(state)

    return {"value": _games_per_cpu_second(play, 500 if quick else 2000)}


def _random_records(batch: bool) -> Callable[[bool], dict]:
    """Games per CPU second of ``play_games`` for four random agents, decision records
    made, on the batch path or (``batch=False``) one Match per game."""
    def measure(quick: bool) -> dict:
        play_games = _play_games()

        def play(games: int, seed: int) -> None:
            for _ in play_games(["random"] * 4, games, seed, record=True, batch=batch):
                pass

        return {"value": _games_per_cpu_second(play, 500 if quick else 4000)}
    return measure


def random_columns(quick: bool) -> dict:
    """Games per CPU second of ``nothanks.play.batch.play_columns`` for four random agents,
    every decision recorded as a row of its columns (no Python record objects)."""
    from nothanks.agents import make_agent
    from nothanks.play.batch import play_columns
    from nothanks.rules import Variant
    from nothanks.rules.seeding import derive_seeds
    pool = [make_agent("random") for _ in range(4)]

    def play(games: int, seed: int) -> None:
        seeds = derive_seeds([(seed, index) for index in range(games)])
        per_seat = derive_seeds([(s, 1 + k) for s in seeds for k in range(4)])
        play_columns([pool] * games, Variant(), seeds,
                     [per_seat[k:k + 4] for k in range(0, len(per_seat), 4)], record=True)

    return {"value": _games_per_cpu_second(play, 500 if quick else 20000)}


def _cpu_with_children() -> float:
    return sum(usage.ru_utime + usage.ru_stime for usage in
               (resource.getrusage(resource.RUSAGE_SELF),
                resource.getrusage(resource.RUSAGE_CHILDREN)))


def table7(quick: bool) -> dict:
    """The shipped table7 design at 3 x 500 games, 2 processes, written to disk.

    The game count is set here: the shipped design's own count changed between
    revisions (500, later 2,000 per pairing), and both sides must play the same games.
    """
    from nothanks.experiments import load_design, run_design
    design = load_design("table7").with_options(games=20 if quick else 500)
    with tempfile.TemporaryDirectory() as tmp:
        cpu, wall = _cpu_with_children(), time.perf_counter()
        run_design(design, Path(tmp) / "run", jobs=2, progress=False)
        wall, cpu = time.perf_counter() - wall, _cpu_with_children() - cpu
    return {"value": wall, "cpu": cpu}


#: Games per condition of the reduced figures workload (both sides play the same).
FIGURE_DESIGN_GAMES = 20


def figure_designs(quick: bool) -> dict:
    """The simulations of ``make figures`` that both revisions ship (the table7 design,
    3 pairings, and the figure14 sweep, 3 pairings x 10 thresholds) at a reduced but
    identical game count per condition, 2 processes, written to disk.

    The full ``make figures`` is not comparable side by side: the newer revision
    simulates more designs (readings ablation, the thesis's 500-game Table 7, held-out
    checks) at larger counts, and at full size it takes hours on a shared machine.
    """
    from nothanks.experiments import load_design, run_design
    games = 4 if quick else FIGURE_DESIGN_GAMES
    with tempfile.TemporaryDirectory() as tmp:
        cpu, wall = _cpu_with_children(), time.perf_counter()
        for name in ("table7", "figure14"):
            design = load_design(name).with_options(games=games)
            run_design(design, Path(tmp) / name, jobs=2, progress=False)
        wall, cpu = time.perf_counter() - wall, _cpu_with_children() - cpu
    return {"value": wall, "cpu": cpu}


def figures(quick: bool) -> dict:
    """``nothanks figures`` from an empty cache (``--quick`` designs with --quick)."""
    with tempfile.TemporaryDirectory() as tmp:
        command = [sys.executable, "-m", "nothanks", "figures", "--out", f"{tmp}/figures",
                   "--cache", f"{tmp}/cache"] + (["--quick"] if quick else [])
        cpu, wall = _cpu_with_children(), time.perf_counter()
        subprocess.run(command, check=True, cwd=tmp, stdout=subprocess.DEVNULL)
        wall, cpu = time.perf_counter() - wall, _cpu_with_children() - cpu
    return {"value": wall, "cpu": cpu}


def _peak_memory(games: int) -> dict:
    """Peak RSS (MB) of a process running a ``games``-game baseline design (4 random
    players) on 2 processes."""
    from nothanks.experiments import Design, Table, run_design
    design = Design(name="memory", games=games, tables=(Table("r", ("random",) * 4),))
    with tempfile.TemporaryDirectory() as tmp:
        run_design(design, Path(tmp) / "run", jobs=2, progress=False)
    return {"value": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def memory_100k(quick: bool) -> dict:
    """Peak RSS (MB) of a 100,000-game baseline design (5,000 with --quick)."""
    return _peak_memory(5000 if quick else 100_000)


def memory_10k(quick: bool) -> dict:
    """Peak RSS (MB) of a 10,000-game baseline design (500 with --quick): against
    ``memory_100k`` on one revision, whether the peak grows with the games."""
    return _peak_memory(500 if quick else 10_000)


def _token_memory_costs(quick: bool) -> tuple[float, float]:
    """CPU µs of a token-memory update (recall, change, store) and of a decision's
    recall, in a game-like pattern: three opponents, 140 turns, the clock moving every
    turn, a decision (three recalls) every fourth turn; best of three passes over
    ``games`` memories."""
    import numpy as np

    from nothanks.actr import DeclarativeMemory
    from nothanks.agents.cognitive.token_memory import TokenMemory
    clock = time.process_time

    def one_pass(games: int) -> tuple[float, float]:
        updating = recalling = 0.0
        updates = recalls = 0
        for game in range(games):
            memory = DeclarativeMemory(retrieval_threshold=-1.0, noise=0.25,
                                       seed=np.random.default_rng(game))
            tokens = TokenMemory(memory, leaf_penalty=1.0)
            for seat in (1, 2, 3):
                tokens.store(seat, 11)
            memory.advance(1.0)
            moves = np.random.default_rng(game)
            for turn in range(140):
                seat = turn % 4
                began = clock()
                if seat == 0:
                    for other in (1, 2, 3):
                        tokens.recall(other)
                    recalling += clock() - began
                    recalls += 3
                else:
                    tokens.update(seat, -1 if moves.random() < 0.8 else 5)
                    updating += clock() - began
                    updates += 1
                memory.advance(1.0)
        return 1e6 * updating / updates, 1e6 * recalling / recalls

    games = 20 if quick else 200
    one_pass(5)
    passes = [one_pass(games) for _ in range(3)]
    return min(p[0] for p in passes), min(p[1] for p in passes)


def token_update(quick: bool) -> dict:
    return {"value": _token_memory_costs(quick)[0]}


def token_recall(quick: bool) -> dict:
    return {"value": _token_memory_costs(quick)[1]}


#: name -> (workload, unit, larger is better, label)
MEASURES: dict[str, tuple[Callable[[bool], dict], str, bool, str]] = {
    "tom2x4": (tom2x4, "ms", False, "4 x ToM2 game, traces off (median CPU ms per game)"),
    "tom1_vs_tom0": (tom1_vs_tom0, "ms", False, "ToM1 vs 3 x ToM0 game (median CPU ms)"),
    "tom0x4": (tom0x4, "ms", False, "4 x ToM0 game (median CPU ms per game)"),
    "ibl_blend": (ibl_blend, "µs", False,
                  "IBL decision (2 blends + respond) after 2,000 decisions (median CPU µs)"),
    "ibl_games": (ibl_games, "ms", False, "2 x IBL vs 2 x ToM0 game (median CPU ms)"),
    "tom1_vs_tom0_counter": (tom1_vs_tom0_counter, "ms", False,
                             "ToM1 vs 3 x ToM0 game, noise_stream=counter where the "
                             "revision has it (median CPU ms)"),
    "tom2x4_counter": (tom2x4_counter, "ms", False,
                       "4 x ToM2 game, noise_stream=counter where the revision has it "
                       "(median CPU ms)"),
    "tom_traced": (tom_traced, "ms", False,
                   "ToM2, ToM1, 2 x ToM0 game, traces on (median CPU ms per game)"),
    "retrieval_fixed": (retrieval_fixed, "µs", False,
                        "retrieval, 300 fixed chunks x 4 partially matched slots"),
    "retrieval_learned": (retrieval_learned, "µs", False,
                          "retrieval, 1,000 chunks x 10 references (base-level learning)"),
    "token_update": (token_update, "µs", False,
                     "token memory update (recall, change, store), game-like pattern"),
    "token_recall": (token_recall, "µs", False,
                     "token memory recall at a decision, game-like pattern"),
    "random_games": (random_games, "games/s", True,
                     "4 random agents, decisions recorded, games per CPU s"),
    "peer_random_games": (peer_random_games, "games/s", True,
                          "peer engine (--peer): 4 random players, decisions recorded"),
    "random_python": (_random_records(False), "games/s", True,
                      "4 random agents, decision records, one Match per game"),
    "random_batch": (_random_records(True), "games/s", True,
                     "4 random agents, decision records, batch path"),
    "random_columns": (random_columns, "games/s", True,
                       "4 random agents, decisions as columns (batch.play_columns)"),
    "table7": (table7, "s", False, "Table 7 (3 x 500 games), 2 processes, wall s"),
    "figure_designs": (figure_designs, "s", False,
                       f"figure designs (table7 + figure14, {FIGURE_DESIGN_GAMES} games per "
                       "condition), 2 processes, wall s"),
    "figures": (figures, "s", False, "nothanks figures, empty cache, wall s"),
    "memory_100k": (memory_100k, "MB", False, "peak RSS of a 100,000-game run"),
    "memory_10k": (memory_10k, "MB", False, "peak RSS of a 10,000-game run"),
    "likelihood_24": (likelihood_24, "s", False,
                      "order-inference likelihood, one participant, 24 games (CPU s)"),
    **{f"decision_tom{k}": (_decision_cost(k), "ms", False,
                            f"ToM{k} vs 3 x ToM0, CPU ms per ToM{k} decision")
       for k in range(6)},
}
DEFAULT_MEASURES = ["tom2x4", "tom1_vs_tom0", "retrieval_fixed", "retrieval_learned",
                    "random_games", "table7"]


def worker(measure: str, quick: bool) -> None:
    import nothanks
    print(json.dumps({**MEASURES[measure][0](quick), "nothanks": nothanks.__file__}))


# ------------------------------------------------------------------ driver side
@contextmanager
def checkout(revision: str):
    """A detached worktree of ``revision`` in a temporary folder, removed afterwards."""
    root = Path(tempfile.mkdtemp(prefix="nothanks-compare-"))
    path = root / "tree"
    subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", "--quiet",
                    str(path), revision], check=True)
    try:
        yield path
    finally:
        subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(path)],
                       check=False)
        shutil.rmtree(root, ignore_errors=True)


def run_worker(tree: Path, measure: str, quick: bool, script: Path = HERE) -> dict:
    """One measure in a fresh interpreter that imports ``nothanks`` from ``tree``: ``script
    --worker MEASURE`` (this file's, or another benchmark's with the same convention: its
    last line of output a JSON object naming the ``nothanks`` it imported)."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    with tempfile.TemporaryDirectory() as cwd:
        done = subprocess.run([sys.executable, str(script), "--worker", measure]
                              + (["--quick"] if quick else []),
                              env=env, cwd=cwd, capture_output=True, text=True)
    if done.returncode:
        raise RuntimeError(f"{measure} failed in {tree}:\n{done.stderr[-3000:]}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    if not Path(result["nothanks"]).resolve().is_relative_to(tree.resolve()):
        raise RuntimeError(f"{measure}: imported {result['nothanks']}, not from {tree}")
    return result


def compare(baseline: Path, new: Path, measures: list[str], rounds: int, quick: bool) -> None:
    """Run ``measures`` on both trees, alternating, and print the medians and ratios.

    A worker that fails (e.g. a tree caught mid-edit) is reported with the end of its
    error and left out; the summary then says how many rounds each median rests on."""
    results: dict[str, dict[str, list[dict]]] = {m: {"baseline": [], "new": []}
                                                for m in measures}
    failures: dict[str, int] = dict.fromkeys(measures, 0)
    for round_ in range(rounds):
        for measure in measures:
            sides = [("baseline", baseline), ("new", new)]
            if round_ % 2:
                sides.reverse()
            for side, tree in sides:
                try:
                    result = run_worker(tree, measure, quick)
                except RuntimeError as error:
                    failures[measure] += 1
                    print(f"  round {round_ + 1} {measure:18s} {side:8s} FAILED: "
                          f"{str(error).strip().splitlines()[-1]}", flush=True)
                    continue
                results[measure][side].append({**result, "round": round_})
                extra = f" (CPU {result['cpu']:.1f} s)" if "cpu" in result else ""
                extra += f" [{result['note']}]" if "note" in result else ""
                print(f"  round {round_ + 1} {measure:18s} {side:8s} "
                      f"{result['value']:10.4g} {MEASURES[measure][1]}{extra}", flush=True)
    print(f"\n{'measure':62s} {'baseline':>12s} {'new':>12s} {'speed-up':>9s}")
    for measure in measures:
        _, unit, larger_better, label = MEASURES[measure]
        if failures[measure]:
            done = {side: len(runs) for side, runs in results[measure].items()}
            print(f"{label:62s} {failures[measure]} run(s) failed; medians of "
                  f"{done['baseline']} baseline and {done['new']} new round(s)")
            if not (done["baseline"] and done["new"]):
                continue
        old = statistics.median(r["value"] for r in results[measure]["baseline"])
        now = statistics.median(r["value"] for r in results[measure]["new"])
        ratio = now / old if larger_better else old / now
        each = [(n["value"] / b["value"]) if larger_better else (b["value"] / n["value"])
                for b in results[measure]["baseline"] for n in results[measure]["new"]
                if b["round"] == n["round"]]  # each round's own ratio
        spread = f" (rounds {min(each):.2f}-{max(each):.2f}x)" if len(each) > 1 else ""
        print(f"{label:62s} {old:9.4g} {unit:>2s} {now:9.4g} {unit:>2s} {ratio:8.2f}x"
              f"{spread}")
        if "cpu" in results[measure]["baseline"][0]:
            old_cpu = statistics.median(r["cpu"] for r in results[measure]["baseline"])
            new_cpu = statistics.median(r["cpu"] for r in results[measure]["new"])
            print(f"{'  (same, CPU s of all processes)':62s} {old_cpu:9.2f} s  "
                  f"{new_cpu:9.2f} s  {old_cpu / new_cpu:8.2f}x")


#: The peer comparison's workloads: the peer first, then this tree's three paths.
PEER_MEASURES = ("peer_random_games", "random_python", "random_batch", "random_columns")


def compare_peer(peer: Path, tree: Path, rounds: int, quick: bool) -> None:
    """Random 4-player games with decisions recorded: the peer engine at ``peer`` and
    this tree's Python engine, batch path and batch columns, each in a fresh process,
    taking turns round by round (the order reversed every other round). Prints each
    one's median games per CPU second and its ratios to the peer's and to the Python
    engine's (one Match per game): the median and range of the rounds' ratios, each
    round's own run as the reference."""
    if not (peer / "nothanks" / "engine.py").is_file():
        raise SystemExit(f"--peer {peer}: no nothanks/engine.py there; give the folder of "
                         "a lomackie/no-thanks-rl work tree")
    os.environ[PEER_ENV] = str(peer.resolve())
    values: dict[str, list[float]] = {m: [] for m in PEER_MEASURES}
    for round_ in range(rounds):
        for measure in PEER_MEASURES[::-1] if round_ % 2 else PEER_MEASURES:
            values[measure].append(run_worker(tree, measure, quick)["value"])
            print(f"  round {round_ + 1} {measure:18s} {values[measure][-1]:10.0f} games/s",
                  flush=True)
    print(f"\n{'workload':62s} {'games/s':>9s} {'x peer':>8s} {'rounds':>13s} "
          f"{'x Match':>8s} {'rounds':>13s}")
    for measure in PEER_MEASURES:
        cells = []
        for reference in ("peer_random_games", "random_python"):
            ratios = [v / r for v, r in zip(values[measure], values[reference], strict=True)]
            cells.append(f"{statistics.median(ratios):7.2f}x "
                         f"{min(ratios):6.2f}-{max(ratios):5.2f}x")
        print(f"{MEASURES[measure][3]:62s} {statistics.median(values[measure]):9.0f} "
              f"{' '.join(cells)}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--baseline", default=DEFAULT_BASELINE, help="git revision")
    parser.add_argument("--new", default=str(REPO),
                        help="a folder holding the new tree (default: this one) or a revision")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--measures", nargs="*", default=DEFAULT_MEASURES,
                        choices=sorted(MEASURES), metavar="NAME",
                        help=f"any of {', '.join(MEASURES)} (default: "
                             f"{' '.join(DEFAULT_MEASURES)})")
    parser.add_argument("--quick", action="store_true", help="small workloads, a smoke test")
    parser.add_argument("--peer", metavar="PATH",
                        help="instead: random 4-player games with decisions recorded against "
                             "the peer engine in PATH (a lomackie/no-thanks-rl work tree; "
                             "loaded at run time, never copied)")
    parser.add_argument("--worker", choices=sorted(MEASURES), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker(args.worker, args.quick)
        return
    if args.peer:
        print(f"load average {os.getloadavg()}, {os.cpu_count()} cores; peer {args.peer}, "
              f"new {args.new}, {args.rounds} rounds")
        compare_peer(Path(args.peer), Path(args.new), args.rounds, args.quick)
        print(f"load average {os.getloadavg()}")
        return
    print(f"load average {os.getloadavg()}, {os.cpu_count()} cores; baseline "
          f"{args.baseline}, new {args.new}, {args.rounds} rounds")
    with checkout(args.baseline) as baseline:
        if Path(args.new).is_dir():
            compare(baseline, Path(args.new), args.measures, args.rounds, args.quick)
        else:
            with checkout(args.new) as new:
                compare(baseline, new, args.measures, args.rounds, args.quick)
    print(f"load average {os.getloadavg()}")


if __name__ == "__main__":
    main()
