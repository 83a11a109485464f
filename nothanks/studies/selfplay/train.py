"""The self-play training loop behind ``nothanks train`` (docs/alphazero.md, "Training").

Each iteration:

1. plays ``games_per_iteration`` training games with the current weights: self-play
   games (:func:`nothanks.search.selfplay.self_play_game`, numpy only) or, with a
   league (``--league``, :mod:`.league`), tables where the network sits beside opponents
   drawn from the league's mixture; in this process, in
   local worker processes (started with ``spawn``: the learner's JAX never forks) or on a
   Dask cluster; game *g* of iteration *i* is seeded by (run seed, *i*, *g*) and the
   games are gathered in game order, so a run is the same for any number of workers;
2. appends their samples to the replay buffer (:mod:`.replay`);
3. takes ``steps_per_iteration`` optimiser steps on minibatches drawn by a generator
   seeded by (run seed, *i*);
4. every ``eval_every`` iterations plays the current network against the evaluation
   panel (``--panel``, :func:`.league.parse_panel`) on shared deals, every deal in
   every seat rotation, with intervals that resample deals; with a league, the gate
   games decide whether this snapshot joins the league (:mod:`.league`);
5. appends a curve row and writes the training checkpoint (:mod:`.checkpoint`), then
   the play checkpoint ``alphazero.npz`` and ``curve.csv``.

Rerunning the same command on the same folder resumes from the checkpoint and computes
exactly what an uninterrupted run computes (tests/integration/test_selfplay_train.py kills a run
with SIGKILL and compares). Everything but the wall-clock ``seconds`` is deterministic.
"""
from __future__ import annotations

import io
import math
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ...files import atomic_write_bytes, claim_lock, is_atomic_leftover, release_lock
from ...progress import progress_bar
from ...rules.seeding import derive_seed
from . import TrainError
from .checkpoint import (
    PLAY_FILE,
    STATE_FILE,
    CheckpointError,
    TrainingState,
    check_play_size,
    check_settings,
    export_play,
    load_state,
    save_state,
)
from .league import (
    PAST,
    SELF,
    draw_seating,
    first_share,
    gate_lineups,
    parse_league,
    parse_panel,
)
from .replay import ReplayBuffer
from .settings import TrainSettings, check_budget

#: The curve table and figure in a run's folder.
CURVE_FILE = "curve.csv"
FIGURE_FILE = "curve.png"
#: The folder of the play checkpoints of every evaluated iteration
#: (``alphazero-<iteration>.npz``): a run that gets worse can ship an earlier network.
SNAPSHOTS = "snapshots"
#: The lock a training run holds on its folder (no two runs train one folder).
LOCK_FILE = ".train.lock"
#: Streams of the run's seed: (seed, stream, ...) seeds each generator of the run.
GAMES, BATCHES, LEARNER, EVAL, LEAGUE, GATE = range(1, 7)
#: The curve table's columns of every iteration.
TRAINING_COLUMNS = ("iteration", "games", "samples", "loss", "policy_loss", "value_loss",
                    "seconds")
#: Per panel opponent X: the network's first-place share (ties included) with its 95%
#: interval resampling deals, its mean rank points and the games (``<what>_vs_X``).
PANEL_COLUMNS = ("first", "first_low", "first_high", "points", "n")
#: With a league: the gate's first-place share and interval, its games, whether the
#: snapshot joined and the league's members after it.
GATE_COLUMNS = ("gate_first", "gate_low", "gate_high", "gate_n", "joined", "league_size")


def curve_columns(settings: TrainSettings) -> tuple[str, ...]:
    """The curve table's columns for a run of ``settings``: one row per iteration; the
    evaluation's and the gate's columns are empty in iterations without them."""
    panel = parse_panel(settings.panel, settings.eval_deals)
    columns = [*TRAINING_COLUMNS, *(f"{what}_vs_{e.who}" for e in panel
                                    for what in PANEL_COLUMNS)]
    if _gated(settings):
        columns += GATE_COLUMNS
    return tuple(columns)


def _gated(settings: TrainSettings) -> bool:
    """Whether the run's league has opponents to gate against (entries but ``self``)."""
    return any(e.who != SELF for e in parse_league(settings.league))


@dataclass
class TrainReport:
    """What :func:`train` did: where the run stands and the files it wrote."""

    folder: Path
    iteration: int
    games: int
    samples: int
    seconds: float
    resumed_at: int  # the iteration the run resumed from (0: started afresh)
    iterations_now: int  # iterations played by this call
    curve: list[dict]
    files: list[Path]


#: What a run folder may hold besides the atomic writes' leftovers (anything else there
#: means the folder is not a training run's: it is refused).
RUN_FILES = (STATE_FILE, PLAY_FILE, CURVE_FILE, FIGURE_FILE, LOCK_FILE, SNAPSHOTS)


def check_folder(out: Path) -> None:
    """Refuse a folder ``nothanks train`` did not make (:class:`TrainError`): it must be
    missing, empty, or hold only a run's files (:data:`RUN_FILES`)."""
    out = Path(out)
    if not out.is_dir():
        return
    foreign = [p.name for p in sorted(out.iterdir())
               if p.name not in RUN_FILES and not is_atomic_leftover(p)]
    if foreign:
        raise TrainError(f"--out {out} holds other files than a training run's "
                         f"({', '.join(foreign[:3])}{', ...' if len(foreign) > 3 else ''}); "
                         "give a new or empty folder, or a run's folder to resume it")


def train(settings: TrainSettings, out: Path, *, iterations: int | None = None,
          hours: float | None = None, jobs: int = 1, client=None, progress: bool = True,
          on_curve: Callable[[list[dict], Path], None] | None = None) -> TrainReport:
    """Train (or resume training) in ``out`` until a budget is spent.

    Args:
        settings: what the run computes; must equal a resumed run's settings.
        out: the run's folder (made if missing); holds its checkpoints and curve.
        iterations: stop once the run has this many iterations in all (resumes
            included).
        hours: stop once the run has trained this long in all (resumes included): an
            iteration starts only if the last one's duration still fits.
        jobs: local worker processes for the games (1: this process).
        client: a connected ``distributed.Client`` (then ``jobs`` is not used).
        progress: show a progress bar on stderr.
        on_curve: called with the curve rows and ``out`` after each iteration with an
            evaluation, and once at the end (e.g. to draw the curve figure).

    Raises:
        TrainError: no budget, a network too large for a play checkpoint, a folder that
            is not a run's, settings that differ from the run's checkpoint, or a
            checkpoint that cannot be read (it is never overwritten then); all before
            any training.
    """
    check_budget(iterations, hours)
    check_play_size(settings.network_config())
    out = Path(out)
    check_folder(out)
    out.mkdir(parents=True, exist_ok=True)
    lock = claim_lock(out / LOCK_FILE, lambda pid: TrainError(
        f"{out} is being trained by process {pid}; wait for it or give another --out"))
    try:
        for folder in (out, out / SNAPSHOTS):  # a killed write's temporary files
            if folder.is_dir():
                for leftover in filter(is_atomic_leftover, folder.iterdir()):
                    leftover.unlink()
        return _train(settings, out, iterations, hours, jobs, client, progress, on_curve)
    finally:
        release_lock(lock)


def _train(settings, out, iterations, hours, jobs, client, progress, on_curve) -> TrainReport:
    from .learner import Learner  # JAX: imported only where training happens
    config = settings.network_config()
    learner = Learner(config, seed=derive_seed(settings.seed, LEARNER),
                      learning_rate=settings.learning_rate)
    path = out / STATE_FILE
    if path.exists():
        state = load_state(path)
        check_settings(state.settings, settings.as_dict(), out)
        try:
            learner.load_state(state.learner)
        except ValueError as exc:
            raise CheckpointError(f"{path}: {exc}; move it away to start afresh, or give a "
                                  "new --out") from None
        buffer = ReplayBuffer.from_arrays(state.replay, settings.buffer)
        _write_outputs(out, state, learner, config, settings)  # a kill may have come before them
    else:
        state = TrainingState(settings=settings.as_dict())
        buffer = _empty_buffer(settings)
    resumed_at = state.iteration
    budget = math.inf if hours is None else hours * 3600.0
    last = _last_duration(state.curve)
    drawn = None
    bar = progress_bar(iterations, unit="iteration", desc="train", enabled=progress,
                       done=state.iteration)
    try:
        with _workers(jobs, client) as workers:
            while ((iterations is None or state.iteration < iterations)
                   and state.seconds + last <= budget):
                began = time.perf_counter()
                row = _iteration(settings, config, state, learner, buffer, workers, out)
                last = time.perf_counter() - began
                state.seconds += last
                row["seconds"] = state.seconds
                state.curve.append(row)
                state.learner = learner.state()
                state.replay = buffer.to_arrays()
                save_state(path, state)  # the commit point of the iteration
                _write_outputs(out, state, learner, config, settings)
                if on_curve is not None and "points_vs_" + _first_panel(settings) in row:
                    on_curve(state.curve, out)
                    drawn = state.iteration
                bar.update(1)
                bar.set_postfix(loss=f"{row['loss']:.3f}", buffer=len(buffer), refresh=True)
    finally:
        bar.close()
    if on_curve is not None and state.curve and drawn != state.iteration:
        on_curve(state.curve, out)
    return TrainReport(out, state.iteration, state.games, len(buffer), state.seconds,
                       resumed_at, state.iteration - resumed_at, state.curve,
                       [out / name for name in (STATE_FILE, PLAY_FILE, CURVE_FILE)])


def _first_panel(settings: TrainSettings) -> str:
    return parse_panel(settings.panel, settings.eval_deals)[0].who


def _last_duration(curve: Sequence[dict]) -> float:
    """Seconds the last iteration of ``curve`` took (0 without one)."""
    if not curve:
        return 0.0
    return curve[-1]["seconds"] - (curve[-2]["seconds"] if len(curve) > 1 else 0.0)


def _empty_buffer(settings: TrainSettings) -> ReplayBuffer:
    from ...search.encoding import feature_size
    return ReplayBuffer(settings.buffer, feature_size(settings.players), settings.players)


def _iteration(settings: TrainSettings, config, state: TrainingState, learner,
               buffer: ReplayBuffer, workers: Workers, out: Path) -> dict:
    """Play, store, learn and (every ``eval_every``) evaluate: iteration
    ``state.iteration``; advances the counters and returns its curve row."""
    number = state.iteration
    weights = learner.weights
    seeds = [derive_seed(settings.seed, GAMES, number, g)
             for g in range(settings.games_per_iteration)]
    entries = parse_league(settings.league)
    rng = np.random.default_rng(derive_seed(settings.seed, LEAGUE, number))
    tasks = []
    for g, seed in enumerate(seeds):
        if entries:
            seating = draw_seating(entries, settings.players, g, len(state.league), rng)
        else:
            seating = (SELF,) * settings.players
        past = (_member_weights(out, state.league, rng) if PAST in seating else None)
        tasks.append((weights, config, settings.sims, seed, seating, past))
    for game in workers.run(play_game, tasks):
        buffer.add_game(game.features, game.policy, game.outcome)
    rng = np.random.default_rng(derive_seed(settings.seed, BATCHES, number))
    losses = [learner.step(*buffer.sample(settings.batch_size, rng))
              for _ in range(settings.steps_per_iteration)]
    state.iteration += 1
    state.games += len(seeds)
    row: dict = {"iteration": state.iteration, "games": state.games, "samples": len(buffer)}
    for key in ("loss", "policy_loss", "value_loss"):
        row[key] = float(np.mean([step[key] for step in losses]))
    if settings.eval_every and state.iteration % settings.eval_every == 0:
        row.update(evaluate(learner.weights, config, settings, state.iteration, workers, out))
        if _gated(settings):
            row.update(gate(learner.weights, config, settings, state, workers, out))
    return row


def play_game(weights: dict[str, np.ndarray], config, sims: int, seed: int,
              seating: Sequence[str] | None = None,
              past: dict[str, np.ndarray] | None = None):
    """One training game with these weights (a worker's task): a self-play game when
    every seat of ``seating`` is ``self`` (the default; numpy only), else a league game
    (:func:`.league.league_game`)."""
    if seating is not None and any(who != SELF for who in seating):
        from .league import league_game
        return league_game(weights, config, sims, seed, seating, past)
    from ...search.network import Network
    from ...search.selfplay import self_play_game
    return self_play_game(Network(weights, config), config.players, sims, seed)


def _member_weights(out: Path, members: Sequence[int], rng: np.random.Generator
                    ) -> dict[str, np.ndarray]:
    """The weights of a league member drawn uniformly by ``rng`` (its snapshot)."""
    from ...search.network import load_checkpoint
    iteration = members[int(rng.integers(len(members)))]
    weights, _, _ = load_checkpoint(snapshot_path(out, iteration))
    return weights


def gate(weights: dict[str, np.ndarray], config, settings: TrainSettings,
         state: TrainingState, workers: Workers, out: Path) -> dict:
    """The gate of evaluated iteration ``state.iteration``: ``gate_deals`` deals in every
    seat rotation against lineups drawn from the league (:func:`.league.gate_lineups`);
    the snapshot joins ``state.league`` when its first-place share reaches
    ``1/players + gate_margin``. Returns the curve row's gate columns."""
    players = settings.players
    rng = np.random.default_rng(derive_seed(settings.seed, GATE, state.iteration))
    lineups = gate_lineups(parse_league(settings.league), players, settings.gate_deals,
                           len(state.league), rng)
    seed = derive_seed(settings.seed, GATE, state.iteration, 0)
    tasks = []
    for deal, lineup in enumerate(lineups):
        past = _member_weights(out, state.league, rng) if PAST in lineup else None
        tasks += [(weights, config, settings.sims, lineup, seed, deal * players + r, past)
                  for r in range(players)]
    from .league import seated_game
    ranks = [rank for rank, _ in workers.run(seated_game, tasks)]
    share, low, high = first_share(ranks, players)
    joined = share >= 1 / players + settings.gate_margin
    if joined:
        state.league.append(state.iteration)
    return {"gate_first": share, "gate_low": low, "gate_high": high, "gate_n": len(ranks),
            "joined": int(joined), "league_size": len(state.league)}


def evaluate(weights: dict[str, np.ndarray], config, settings: TrainSettings,
             iteration: int, workers: Workers, out: Path) -> dict:
    """The network's ``alphazero`` agent (at ``settings.sims``) against each opponent of
    the panel (:func:`.league.parse_panel`) in all the other seats, on deals shared by
    the opponents (an opponent with fewer deals plays the first ones), each deal played
    in every seat rotation: per opponent the columns of :data:`PANEL_COLUMNS`. The
    evaluated weights are kept in :data:`SNAPSHOTS` (:func:`snapshot_path`)."""
    network = out / PLAY_FILE  # the agent loads its weights from the play checkpoint
    export_play(network, weights, config, _play_meta(settings.as_dict(), iteration))
    (out / SNAPSHOTS).mkdir(exist_ok=True)
    export_play(snapshot_path(out, iteration), weights, config,
                _play_meta(settings.as_dict(), iteration))
    seed = derive_seed(settings.seed, EVAL, iteration)
    panel = parse_panel(settings.panel, settings.eval_deals)
    tasks = [(str(network), settings.sims, entry.who, settings.players, seed, g)
             for entry in panel for g in range(int(entry.weight) * settings.players)]
    results = iter(workers.run_local(eval_game, tasks))
    row = {}
    for entry in panel:
        mine = [next(results) for _ in range(int(entry.weight) * settings.players)]
        share, low, high = first_share([rank for rank, _ in mine], settings.players)
        row.update({f"first_vs_{entry.who}": share, f"first_low_vs_{entry.who}": low,
                    f"first_high_vs_{entry.who}": high,
                    f"points_vs_{entry.who}": float(np.mean([p for _, p in mine])),
                    f"n_vs_{entry.who}": len(mine)})
    return row


def snapshot_path(out: Path, iteration: int) -> Path:
    """The play checkpoint of evaluated ``iteration`` in run folder ``out``."""
    return Path(out) / SNAPSHOTS / f"alphazero-{iteration:06d}.npz"


def eval_game(checkpoint: str, sims: int, opponent: str, players: int, seed: int,
              index: int) -> tuple[int, float]:
    """Game ``index`` of an evaluation: the network (``checkpoint``, ``sims`` per move)
    in seat ``index % players``, ``opponent`` agents in the others, on deal
    ``index // players`` of ``seed``; the network's rank and rank points (a worker's
    task)."""
    from ...agents import AlphaZeroAgent, make_agent
    from ...play.runner import play_game
    from ...rules import Variant
    from ...rules.seeding import game_seed
    seat = index % players
    agents = [make_agent(opponent) for _ in range(players)]
    agents[seat] = AlphaZeroAgent(sims=sims, checkpoint=checkpoint)
    record = play_game(agents, Variant(players=players), game_seed(seed, index // players),
                       game_id=index, record=False)
    return record.ranks[seat], record.rank_points[seat]


class Workers:
    """Where tasks run: ``run`` for the self-play games (local processes or a Dask
    cluster), ``run_local`` for the evaluation (its agent reads a file of this machine:
    local processes, or this process when the games go to Dask). Both take a function
    and a list of argument tuples and return the results in the tasks' order. The
    local processes start with the first task and end with :meth:`close`."""

    def __init__(self, jobs: int = 1, client=None) -> None:
        self._jobs = 1 if client is not None else jobs
        self._client = client
        self._executor = None

    def run(self, function: Callable, tasks: Sequence[tuple]) -> list:
        if self._client is not None:
            futures = [self._client.submit(function, *args, pure=False) for args in tasks]
            return self._client.gather(futures)
        return self.run_local(function, tasks)

    def run_local(self, function: Callable, tasks: Sequence[tuple]) -> list:
        if self._jobs <= 1 or not tasks:
            return [function(*args) for args in tasks]
        if self._executor is None:
            from ...experiments.backends import worker_pool
            self._executor = worker_pool(self._jobs, context="spawn")  # JAX never forks
        return list(self._executor.map(function, *zip(*tasks, strict=True)))

    def close(self, now: bool = False) -> None:
        """End the local processes: after their work, or ``now`` (Ctrl-C) without it."""
        if self._executor is not None:
            if now:
                self._executor.stop()
            else:
                self._executor.shutdown(wait=True, cancel_futures=True)
            self._executor = None


@contextmanager
def _workers(jobs: int, client) -> Iterator[Workers]:
    """The run's :class:`Workers`: ``jobs`` local processes (started with ``spawn``,
    ended with the run, at once on Ctrl-C), or ``client``'s cluster."""
    workers = Workers(jobs, client)
    try:
        yield workers
    except KeyboardInterrupt:
        workers.close(now=True)
        raise
    finally:
        workers.close()


def _write_outputs(out: Path, state: TrainingState, learner, config,
                   settings: TrainSettings) -> None:
    """The play checkpoint and the curve table of ``state`` (derived from the training
    checkpoint: rewritten on resume in case a kill came between them)."""
    export_play(out / PLAY_FILE, learner.weights, config,
                _play_meta(state.settings, state.iteration))
    buffer = io.StringIO()
    curve_frame(state.curve, settings).to_csv(buffer, index=False)
    atomic_write_bytes(buffer.getvalue().encode(), out / CURVE_FILE)


def _play_meta(settings: dict, iteration: int) -> dict:
    """What the play checkpoint records about its training."""
    return {"iteration": iteration, "settings": settings}


def curve_frame(rows: Sequence[dict], settings: TrainSettings):
    """The curve rows as a table of :func:`curve_columns` (counts as integers, empty
    where an iteration had no evaluation)."""
    import pandas as pd
    columns = list(curve_columns(settings))
    frame = pd.DataFrame.from_records(list(rows), columns=columns)
    for column in columns:
        if column in ("iteration", "games", "samples", "gate_n", "joined", "league_size") \
                or column.startswith("n_vs_"):
            frame[column] = frame[column].astype("Int64")
    return frame


