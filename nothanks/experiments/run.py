"""Run a design: chunks of games in local processes or on a Dask cluster, resumably.

Each chunk (a contiguous range of game positions) is played by one worker; agents are
reset by ``start()`` before every game, so a game's result depends only on its
position, whichever games the worker played before. A worker returns its chunk's log tables as
Parquet bytes; the parent writes them atomically as part files as chunks finish, keeps
only a bounded number of chunks in flight (memory stays flat however many games), and
on a re-run skips the chunks already on disk.
"""
from __future__ import annotations

import gc
import json
import os
import sys
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from ..agents import Agent, AgentSpec, agent_parameters, make_agent, parse_spec
from ..rules import Action
from ..runner import GameResult, play_game
from . import log
from .design import HUMAN, Design, DesignError, load_design
from .log import ExperimentDir

try:  # the cognitive models register tom specs on import; workers need them too
    import nothanks.agents.cognitive  # noqa: F401
except ModuleNotFoundError as _exc:  # pragma: no cover - partial install
    if _exc.name is None or not "nothanks.agents.cognitive".startswith(_exc.name):
        raise


@dataclass(frozen=True)
class LogContext:
    """What every row of one experiment directory shares."""

    experiment: str
    design_hash: str
    participant: str | None = None
    synthetic: bool = False


@dataclass
class HumanTurn:
    """What a participant session adds to a human decision."""

    decision_time: float
    marks: tuple[int, ...]


def sequence_category(cards: Sequence[int], card: int) -> str:
    from ..agents.cognitive.state import sequence_category as category
    return str(category(cards, card))


class LogRows:
    """Columnar rows of the log tables for a batch of games (a chunk or one game)."""

    #: Columns with one value for every row of an experiment, filled in by to_parquet.
    CONSTANT = ("experiment", "design_hash", "participant", "synthetic")

    def __init__(self, context: LogContext, design: Design, traces: bool = False) -> None:
        self.context = context
        self.design = design
        self.traces = traces
        self.columns = {t: {k: v for k, v in log.empty_columns(t).items()
                            if k not in self.CONSTANT} for t in log.ROW_TABLES}

    def add_game(self, plan, result: GameResult, kinds: Sequence[str],
                 human: dict[int, HumanTurn] | None = None,
                 traces: Sequence[str | None] | None = None) -> None:
        """Append the rows of one played game (``kinds[seat]`` is model or human)."""
        cond = self.design.conditions[plan.condition]
        players = len(result.agents)
        roles = plan.roles
        focal = [cond.focal is not None and roles[s] == cond.focal for s in range(players)]
        decisions = result.decisions
        infos = result.decision_info
        n = len(decisions)

        # games: one row per player
        g = self.columns["games"]
        for seat, row in enumerate(result.game_rows()):
            _, seed, _, spec, cards, points, tokens, score, rank, rank_points = row
            g["game_id"].append(plan.position)
            g["condition"].append(plan.condition)
            g["block"].append(plan.block)
            g["practice"].append(plan.practice)
            g["seed"].append(seed)
            g["seat"].append(seat)
            g["role"].append(roles[seat])
            g["focal"].append(focal[seat])
            g["player_kind"].append(kinds[seat])
            g["agent"].append(spec)
            g["cards"].append(tuple(cards))
            g["card_points"].append(points)
            g["tokens"].append(tokens)
            g["score"].append(score)
            g["rank"].append(rank)
            g["rank_points"].append(rank_points)
            g["turns"].append(n)

        # the runner knows what the models do not: true counts and what happened next
        tokens = [self.design.variant.tokens] * players
        true_before: list[tuple[int, ...]] = []
        next_action: dict[tuple[int, int], list[tuple[int, str]]] = {}
        takes = 0
        cards_left: list[int] = []
        for i, (_, _, seat, _, card, on_card, _, _, action, _) in enumerate(decisions):
            true_before.append(tuple(tokens))
            cards_left.append(self.design.variant.cards_played - 1 - takes)
            next_action.setdefault((card, seat), []).append((i, action))
            if action == Action.PASS:
                tokens[seat] -= 1
            else:
                tokens[seat] += on_card
                takes += 1
        marked: set[int] = set()
        if human:
            last_move: dict[int, int] = {}
            for i, d in enumerate(decisions):
                turn = human.get(d[1])
                if turn is not None:
                    marked.update(last_move[s] for s in turn.marks if s in last_move)
                last_move[d[2]] = i

        d = self.columns["decisions"]
        d["game_id"] += [plan.position] * n
        d["condition"] += [plan.condition] * n
        d["block"] += [plan.block] * n
        d["practice"] += [plan.practice] * n
        d["seed"] += [result.seed] * n
        p = self.columns["predictions"]
        r = self.columns["recalls"]
        for i, row in enumerate(decisions):
            _, turn, seat, spec, card, on_card, own, cards_before, action, forced = row
            info = infos[i] if infos else {}
            d["turn"].append(turn)
            d["seat"].append(seat)
            d["role"].append(roles[seat])
            d["focal"].append(focal[seat])
            d["player_kind"].append(kinds[seat])
            d["agent"].append(spec)
            d["card"].append(card)
            d["tokens_on_card"].append(on_card)
            d["tokens_before"].append(own)
            d["cards_before"].append(cards_before)
            d["cards_left"].append(cards_left[i])
            d["sequence_category"].append(sequence_category(cards_before, card))
            d["action"].append(action)
            d["forced"].append(forced)
            predictions = info.get("predictions") or []
            recalled = info.get("recalled_tokens") or {}
            d["tom_order"].append(info.get("tom_order"))
            d["model_time"].append(info.get("model_time"))
            d["latency"].append(info.get("latency"))
            d["reason"].append(info.get("reason"))
            own_tom0 = info.get("own_tom0_action")
            d["own_tom0_action"].append(None if own_tom0 is None else str(own_tom0))
            d["instance_failures"].append(info.get("instance_failures"))
            is_model = "tom_order" in info
            d["predictions"].append(len(predictions) if is_model else None)
            turn_extra = human.get(turn) if human else None
            d["decision_time"].append(turn_extra.decision_time if turn_extra else None)
            d["marks"].append(tuple(turn_extra.marks) if turn_extra else None)
            d["marked_bad"].append((i in marked) if human and kinds[seat] == "model" else None)

            sources: dict[int, str] = {}
            for k, pred in enumerate(predictions):
                target = int(pred["seat"])
                sources.setdefault(target, str(pred["source"]))
                later = [a for j, a in next_action.get((card, target), ()) if j > i]
                actual = later[0] if later else None
                p["game_id"].append(plan.position)
                p["turn"].append(turn)
                p["seat"].append(seat)
                p["agent"].append(spec)
                p["index"].append(k)
                p["target_seat"].append(target)
                p["predicted_action"].append(str(pred["action"]))
                p["tokens_assumed"].append(tuple(map(int, pred["tokens_assumed"])))
                p["source"].append(str(pred["source"]))
                p["true_tokens"].append(true_before[i][target])
                p["actual_action"].append(actual)
                p["correct"].append(None if actual is None else actual == str(pred["action"]))
            failures = 0
            oracle = "oracle" in sources.values()  # an oracle model reads every count
            for target, values in sorted(recalled.items(), key=lambda kv: int(kv[0])):
                target = int(target)
                values = tuple(map(int, values))
                source = sources.get(target) or ("oracle" if oracle else
                                                 _source_by_count(values))
                failures += source in ("root", "default")
                truth = true_before[i][target]
                r["game_id"].append(plan.position)
                r["turn"].append(turn)
                r["seat"].append(seat)
                r["agent"].append(spec)
                r["target_seat"].append(target)
                r["recalled"].append(values)
                r["source"].append(source)
                r["true_tokens"].append(truth)
                r["exact"].append(values == (truth,))
            d["recall_failures"].append(failures if is_model and recalled else
                                        (0 if is_model else None))
            if self.traces and traces is not None and traces[i] is not None:
                t = self.columns["traces"]
                t["game_id"].append(plan.position)
                t["turn"].append(turn)
                t["seat"].append(seat)
                t["trace"].append(traces[i])

    def to_parquet(self) -> dict[str, bytes]:
        """The batch's tables as Parquet bytes (validated by the Arrow schema on the way)."""
        ctx = self.context
        constant = dict(zip(self.CONSTANT, (ctx.experiment, ctx.design_hash, ctx.participant,
                                            ctx.synthetic)))
        out = {}
        for table in log.ROW_TABLES:
            if table == "traces" and not self.traces:
                continue
            columns = self.columns[table]
            rows = len(columns["game_id"])
            columns = {k: [v] * rows for k, v in constant.items()} | columns
            out[table] = log.parquet_bytes(log.to_arrow(table, columns))
        return out


def _source_by_count(values: Sequence[int]) -> str:
    """Recall source from the number of candidates (Table 5: 1 leaf, 2 root, 3 default)."""
    return {1: "leaf", 2: "root"}.get(len(values), "default")


class _Tracing(Agent):
    """Wraps an agent so its ``decision_info`` carries the decision's full trace."""

    def __init__(self, inner: Agent) -> None:
        super().__init__()
        self.inner = inner
        self.spec = inner.spec
        self.kind = inner.kind

    def start(self, seat, variant, seed) -> None:
        self.inner.start(seat, variant, seed)

    def observe(self, event) -> None:
        self.inner.observe(event)

    def decide(self, view) -> Action:
        return self.inner.decide(view)

    def decision_info(self) -> dict[str, object]:
        info = dict(self.inner.decision_info())
        info["_trace"] = trace_json(self.inner)
        return info


def trace_json(agent: Agent) -> str | None:
    """The last decision's trace of a cognitive agent as JSON (None for baselines)."""
    trace = getattr(agent, "last_trace", None)
    if callable(trace):
        trace = trace()
    if trace is None:
        return None
    recalls = [
        {k: getattr(rc, k) for k in ("time", "seat", "purpose", "source", "candidates",
                                     "value", "leaf_activation", "root_activation",
                                     "threshold", "latency", "true_tokens")}
        for rc in trace.recalls
    ]
    nodes = []
    for path, depth, node in trace.root.walk():
        retrieval = node.retrieval
        nodes.append({
            "path": path, "depth": depth, "level": node.level, "seat": node.seat,
            "tokens_on_card": node.tokens_on_card, "tokens": node.tokens,
            "source": node.source, "state": node.state, "instance": node.winner(),
            "activation": None if retrieval is None or not retrieval.candidates else
            max(c.activation for c in retrieval.candidates),
            "tom0_action": node.tom0_action, "action": node.action, "reason": node.reason,
        })
    return json.dumps({"seat": trace.seat, "model_time": trace.model_time, "card": trace.card,
                       "nodes": nodes, "recalls": recalls}, default=_plain)


def _plain(value: object) -> object:
    """JSON for numpy scalars and enums inside traces."""
    return value.item() if hasattr(value, "item") else str(value)


def build_agents(design: Design, condition: int, traces: bool = False) -> list[Agent]:
    """One fresh agent per role of ``condition`` (the human role gets ``design.human``).

    With ``traces``, agents that can record traces (a ``trace`` parameter) are built
    with it switched on; the logged spec stays the design's.
    """
    agents = []
    for spec in design.conditions[condition].players:
        if spec == HUMAN:
            if design.human is None:
                raise DesignError(
                    f"design {design.name!r} seats a human; play it with a "
                    "ParticipantSession, or give a stand-in (nothanks run --human SPEC, "
                    "e.g. human-standin)")
            spec = design.human
        if traces:
            parsed = parse_spec(spec)
            if "trace" in agent_parameters(parsed.name):
                agent = make_agent(AgentSpec(parsed.name, {**parsed.params, "trace": "true"}))
                agent.spec = spec
                agents.append(_Tracing(agent))
                continue
        agents.append(make_agent(spec))
    return agents


def role_kinds(design: Design, condition: int) -> list[str]:
    return ["human" if s == HUMAN else "model" for s in design.conditions[condition].players]


#: Agents of recent conditions, per worker thread. Building a cognitive agent costs more
#: than a game (it stores its ~2,000 instance chunks), so a worker reuses its agents
#: across chunks; this is safe because ``start()`` resets an agent completely (a game's
#: result depends only on its position: tests/test_experiments_run.py checks it).
_worker = threading.local()
_CACHED_CONDITIONS = 8


def _agents_for(design: Design, condition: int, traces: bool) -> list[Agent]:
    cache: OrderedDict = _worker.__dict__.setdefault("agents", OrderedDict())
    key = (design.conditions[condition].players, design.human, traces)
    if key in cache:
        cache.move_to_end(key)
    else:
        cache[key] = build_agents(design, condition, traces)
        if len(cache) > _CACHED_CONDITIONS:
            cache.popitem(last=False)
    return cache[key]


def play_chunk(design: Design, start: int, stop: int, context: LogContext,
               traces: bool = False) -> dict[str, bytes]:
    """Play games ``start .. stop-1`` and return their log tables as Parquet bytes."""
    rows = LogRows(context, design, traces)
    for plan in design.plan(start, stop):
        pool = _agents_for(design, plan.condition, traces)
        kinds = role_kinds(design, plan.condition)
        result = play_game([pool[r] for r in plan.roles], design.variant, plan.seed,
                           plan.position)
        trace_rows = None
        if traces:
            trace_rows = [info.pop("_trace", None) for info in result.decision_info]
        rows.add_game(plan, result, [kinds[r] for r in plan.roles], traces=trace_rows)
    return rows.to_parquet()


# ------------------------------------------------------------------------- running
@dataclass
class RunSummary:
    """What a call to :func:`run_design` did."""

    directory: Path
    games: int
    played: int
    skipped: int
    seconds: float
    complete: bool


def default_chunk_size(total: int) -> int:
    """About 50 games per chunk, smaller for small designs so every worker gets work."""
    return max(1, min(50, -(-total // 16)))


def run_design(design: Design | str | Path, out: str | Path, *, jobs: int | None = None,
        client=None, chunk_size: int | None = None, traces: bool = False,
        progress: bool = True, in_flight: int | None = None,
        participant: str | None = None) -> RunSummary:
    """Run ``design`` into directory ``out``, resuming whatever is already there.

    Args:
        jobs: local worker processes (default: all cores; 1 runs in this process).
        client: a ``distributed.Client`` (or its scheduler address) to run on instead.
        chunk_size: games per part file (fixed by the first run of the directory).
        traces: also log every model decision's full trace (large).
        in_flight: chunks submitted ahead (default: twice the workers); bounds memory.
    """
    design = load_design(design)
    design.validate_agents()
    if design.has_human and design.human is None:
        raise DesignError(
            f"design {design.name!r} seats a human; play it with a ParticipantSession, or "
            "give a stand-in to play the human seat (nothanks run --human SPEC, e.g. "
            "human-standin)")
    begun = time.perf_counter()
    context = LogContext(design.name, design.hash, participant,
                         synthetic=design.has_human)
    directory = ExperimentDir.open(
        out, design, chunk_size or default_chunk_size(design.total_games), traces=traces,
        participant=participant, synthetic=context.synthetic)
    pending = directory.missing_chunks()
    skipped = design.total_games - sum(b - a for a, b in pending)
    backend = "dask" if client is not None else "local"
    directory.begin_run(backend=backend, workers=jobs)
    bar = _progress(design.total_games, skipped, progress, design.name)
    played = 0
    try:
        for (start, stop), parts in _execute(pending, design, context, traces, jobs, client,
                                             in_flight):
            directory.write_chunk(start, stop, parts)
            played += stop - start
            bar.update(stop - start)
    except KeyboardInterrupt:
        bar.close()
        print(f"\ninterrupted after {played} new games; re-run the same command to play the "
              f"{design.total_games - skipped - played} missing games", file=sys.stderr)
        raise
    finally:
        bar.close()
    directory.finish()
    return RunSummary(directory.path, design.total_games, played, skipped,
                      time.perf_counter() - begun, True)


def _progress(total: int, done: int, enabled: bool, name: str):
    from tqdm.auto import tqdm
    return tqdm(total=total, initial=done, unit="game", desc=name, disable=not enabled,
                smoothing=0.05, dynamic_ncols=True)


Chunk = tuple[int, int]


def _execute(chunks: Sequence[Chunk], design: Design, context: LogContext, traces: bool,
             jobs: int | None, client, in_flight: int | None
             ) -> Iterator[tuple[Chunk, dict[str, bytes]]]:
    """Yield (chunk, parts) as chunks finish, keeping at most ``in_flight`` submitted."""
    if not chunks:
        return
    if client is not None:
        yield from _execute_dask(chunks, design, context, traces, client, in_flight)
        return
    jobs = jobs or os.cpu_count() or 1
    if jobs == 1:
        with worker_gc():
            for start, stop in chunks:
                yield (start, stop), play_chunk(design, start, stop, context, traces)
        return
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
    limit = in_flight or 2 * jobs
    queue = iter(chunks)
    executor = ProcessPoolExecutor(max_workers=jobs, initializer=_tune_worker)
    try:
        running = {}
        for chunk in _take(queue, limit):
            running[executor.submit(play_chunk, design, *chunk, context, traces)] = chunk
        while running:
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in done:
                chunk = running.pop(future)
                yield chunk, future.result()
                for nxt in _take(queue, 1):
                    running[executor.submit(play_chunk, design, *nxt, context, traces)] = nxt
    finally:
        executor.shutdown(wait=True, cancel_futures=True)


#: Garbage-collector thresholds while playing: the models allocate many small objects,
#: and the default (700, 10, 10) rescans them so often that table7 runs about 7% slower.
GC_THRESHOLDS = (10_000, 10, 10)


def _tune_worker() -> None:
    """Initializer of worker processes."""
    gc.set_threshold(*GC_THRESHOLDS)


@contextmanager
def worker_gc() -> Iterator[None]:
    """Play in this process with the workers' collector thresholds, then restore them."""
    previous = gc.get_threshold()
    gc.set_threshold(*GC_THRESHOLDS)
    try:
        yield
    finally:
        gc.set_threshold(*previous)


def _execute_dask(chunks, design, context, traces, client, in_flight):
    from distributed import Client, as_completed
    if isinstance(client, str):  # an address: connect for this run only
        with Client(client) as own:
            yield from _execute_dask(chunks, design, context, traces, own, in_flight)
        return
    workers = sum(client.nthreads().values()) or 1
    limit = in_flight or 2 * workers
    queue = iter(chunks)
    [design_future] = client.scatter([design], broadcast=True)

    def submit(chunk):
        return client.submit(play_chunk, design_future, *chunk, context, traces, pure=False)

    futures = {}
    for chunk in _take(queue, limit):
        futures[submit(chunk)] = chunk
    pool = as_completed(list(futures))
    try:
        for future in pool:
            chunk = futures.pop(future)
            yield chunk, future.result()
            future.release()
            for nxt in _take(queue, 1):
                fut = submit(nxt)
                futures[fut] = nxt
                pool.add(fut)
    finally:
        for future in futures:
            future.cancel()


def _take(iterator: Iterator, n: int) -> list:
    out = []
    for item in iterator:
        out.append(item)
        if len(out) == n:
            break
    return out
