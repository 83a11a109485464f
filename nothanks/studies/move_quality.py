"""Move quality: what each logged decision was worth, graded by a search player.

For every logged decision :func:`move_quality` rebuilds the decision-maker's
information set from the log (the cards dealt so far, every seat's cards, the face-up
card and its tokens, and every token count tallied from the public moves before it:
perfect recall of public actions; the removed cards stay unknown) and lets the
search (:mod:`nothanks.search`) estimate the expected value of take and of pass from
there, with the same budget for both moves (``root="even"``), in expected rank points
(n-1 for first place down to 0) and in expected final score (lower is better), each
with its Monte Carlo standard error. The move's *EV loss* is how much the chosen move
gives up against the better one by the estimate. These are values under the
search's own play after the move (all seats), so they grade a move against strong play,
not against what the actual opponents went on to do.

``grader="network"`` grades with the value network of a self-play checkpoint
(:mod:`nothanks.search.network`) instead of the search, from the same information set:
EV(pass) is the mover's value at the state after the pass; EV(take) is the mean of the
mover's value over every possible next reveal (each unseen card, uniformly: the exact
expectation under the network, no sampling), or the exact outcome when the take ends the
game. Values in [-1, 1] are mapped to rank points by rp = (v + 1) / 2 * (n - 1), so the
EV-loss columns keep their meaning. The network predicts no score, so the score columns
are NaN, and the estimates have no Monte Carlo error (the ``*_se`` columns are NaN).

Estimates are cached per decision in a Parquet file keyed by the decision (design hash,
participant, game, seed, turn) and the grader's settings (for the network grader: the
checkpoint's SHA-256), so a re-run only grades decisions it has not seen. The search
package is imported inside the functions that need it.

The table's summaries are pure analysis: :mod:`nothanks.analysis.move_quality`.
"""
from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..agents import alphazero
from ..analysis.frames import (
    AnalysisInputError,
    condition_variants,
    game_key,
    require_columns,
    require_rows,
)
from ..analysis.move_quality import CARRIED, DEFAULT_ITERATIONS, ESTIMATES
from ..analysis.paired import data_source
from ..analysis.tables import control_conditions
from ..experiments import Log
from ..rules.seeding import key_seed

#: Bumped when the estimates would change for the same settings (invalidates caches).
QUALITY_VERSION = 1
#: Who grades the moves: information-set MCTS, or a self-play checkpoint's value network.
GRADERS = ("ismcts", "network")
#: The shipped self-play checkpoint (``nothanks train``), the network grader's default:
#: the ``alphazero`` agent's.
DEFAULT_CHECKPOINT = Path(alphazero.DEFAULT_CHECKPOINT)


def _settings(iterations: int, c: float, rollout: str, seed: int) -> dict[str, Any]:
    return {"version": QUALITY_VERSION, "iterations": int(iterations), "c": float(c),
            "rollout": str(rollout), "seed": int(seed)}


def _network_settings(checkpoint: Path) -> dict[str, Any]:
    return {"version": QUALITY_VERSION, "grader": "network",
            "checkpoint": file_sha256(checkpoint), "reveals": "all"}


def file_sha256(path: str | Path) -> str:
    """SHA-256 (hex) of a file's bytes: the network grader's cache key for a checkpoint."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def check_grader(grader: str, checkpoint: str | Path | None) -> Path | None:
    """The checkpoint file the grader needs (None for ``ismcts``), read once so that a bad
    one fails before any work; raises :class:`AnalysisInputError` for an unknown grader
    or a checkpoint that is missing or not a network checkpoint."""
    if grader not in GRADERS:
        raise AnalysisInputError(f"move quality: grader={grader!r} is unknown; valid: "
                                 + ", ".join(repr(g) for g in GRADERS))
    if grader == "ismcts":
        return None
    path = Path(checkpoint) if checkpoint is not None else DEFAULT_CHECKPOINT
    if not path.is_file():
        raise AnalysisInputError(
            f"move quality: grader='network' needs a self-play checkpoint; {path} is not a "
            "file (train one with `nothanks train`, or pass checkpoint=PATH / --checkpoint)")
    from ..search.network import CheckpointError, load_checkpoint
    try:
        load_checkpoint(path)
    except CheckpointError as exc:
        raise AnalysisInputError(f"move quality: {exc}") from None
    return path


def _key(row: Any, turn: int) -> str:
    parts = [getattr(row, "design_hash", ""), getattr(row, "participant", None),
             row.game_id, getattr(row, "seed", ""), turn]
    return "|".join("" if p is None or p is pd.NA else str(p) for p in parts)


def _seed(seed: int, key: str) -> int:
    return key_seed(f"{seed}|{key}")


def _game_states(rows: pd.DataFrame, variant, where: str):
    """Replay one game's logged moves from its seed (:func:`nothanks.play.replay_logged_game`);
    yield (row, view) at each decision. A log that does not replay raises
    :class:`~nothanks.play.ReplayError` naming the game, turn and field."""
    from ..play.replay import LoggedMove, replay_logged_game

    records = rows.to_dict("records")
    moves = [LoggedMove.from_row(row) for row in records]
    seed = int(records[0]["seed"])
    steps = replay_logged_game(moves, variant, seed, where=where)
    for row, step in zip(rows.itertuples(index=False), steps, strict=False):
        yield row, step.view
    for _ in steps:  # the rest of the game: checks that the log has every move
        pass


#: Free decisions graded per label (``agent_label``) by a sampled grading
#: (``nothanks studies move-quality``; ``--grade all`` grades every decision).
SAMPLE_PER_LABEL = 2000
#: Seconds between saves of the estimate cache while grading: a killed grading keeps
#: what it graded up to the last save, and a re-run goes on from there.
SAVE_EVERY_SECONDS = 60.0
#: Games handed to a worker process at a time when grading on several processes.
GAMES_PER_BATCH = 8


def sample_decisions(frame: pd.DataFrame, per_label: int, seed: int = 0,
                     by: str = "agent_label") -> pd.Series:
    """Which decisions a sampled grading grades: per ``by`` group (``agent_label``), a
    seeded uniform random sample of ``per_label`` of its free (unforced) decisions, all of
    them when it has fewer. A boolean Series on ``frame``'s index. The draw of a group
    depends only on ``seed``, the group's name and its decisions, never on the other
    groups. Raises :class:`AnalysisInputError` for ``per_label < 1`` or a missing column.
    """
    if isinstance(per_label, bool) or not isinstance(per_label, int) or per_label < 1:
        raise AnalysisInputError(f"sample of {per_label!r} decisions per label is invalid; "
                                 "valid: a whole number >= 1 (or grade every decision)")
    require_columns(frame, [by, "forced"], "decisions")
    chosen = pd.Series(False, index=frame.index)
    free = frame[~frame["forced"].fillna(False).astype(bool)]
    for label, part in free.groupby(free[by].astype(str), sort=True):
        rng = np.random.default_rng(key_seed(f"{seed}|sample|{label}"))
        picks = rng.permutation(len(part))[:per_label]
        chosen[part.index[np.sort(picks)]] = True
    return chosen


def move_quality(log: Any, *, iterations: int = DEFAULT_ITERATIONS, c: float = 0.7,
                 rollout: str = "heuristic", seed: int = 0,
                 cache: str | Path | None = None, games: int | None = None,
                 decisions: pd.DataFrame | None = None, grader: str = "ismcts",
                 checkpoint: str | Path | None = None, sample: int | None = None,
                 jobs: int | None = None) -> pd.DataFrame:
    """Expected value of take and pass and the EV loss of the chosen move, per decision.

    Args:
        log: a loaded log (:func:`nothanks.experiments.load`): its ``decisions`` and
            ``conditions`` (for each game's rules variant) are used.
        grader: ``ismcts`` (the search; ``iterations``, ``c``, ``rollout``) or
            ``network`` (the value network of ``checkpoint``, default
            :data:`DEFAULT_CHECKPOINT`; see the module docstring). Anything else raises
            :class:`AnalysisInputError`, as does a checkpoint for another table size.
        iterations: search iterations per decision, split evenly between the two moves
            (a forced take gets them all); with ``c`` and ``rollout`` the search settings
            (see :func:`nothanks.search.search`).
        seed: root seed; each decision's search is seeded from it and the decision key,
            so an estimate does not depend on which other decisions are graded.
        cache: folder for the Parquet cache (None: no cache). It is saved every
            :data:`SAVE_EVERY_SECONDS` while grading, so a killed grading resumes.
        games: grade only this many games, drawn reproducibly (from ``seed``) from the
            log's games; None grades all. For quick looks at big logs.
        decisions: use this decisions frame instead of ``log.decisions``.
        sample: grade only a seeded sample of this many free decisions per agent label
            (:func:`sample_decisions`) of those games; None grades every decision.
        jobs: processes that grade (default 1: this process).

    Returns one row per decision of the chosen games: the logged columns in
    :data:`CARRIED` the log has,
    ``take_rp``/``pass_rp`` (expected rank points) and ``take_score``/``pass_score``
    (expected final score) with ``*_se`` standard errors, ``iterations`` (for the
    network: positions evaluated); ``best`` (the
    move with the higher expected rank points), ``gap_rp`` = chosen minus other move
    (0 for a forced take) with ``gap_rp_se``, ``loss_rp`` = max(0, -gap_rp),
    ``gap_score``/``loss_score`` likewise in score points (a loss is a higher expected
    score), ``graded`` (False: a decision outside the sample, whose estimates are NaN;
    it is kept for who took which card), ``grader`` and the grader's settings as
    ``search_*`` columns, and ``source`` (simulation, synthetic or participants).
    """
    path = check_grader(grader, checkpoint)
    frame = log.decisions if decisions is None else decisions
    require_columns(frame, ["game_id", "turn", "seat", "card", "tokens_on_card",
                            "tokens_before", "action", "forced", "condition"], "decisions")
    require_rows(frame, "decisions")
    if jobs is not None and (isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1):
        raise AnalysisInputError(f"jobs={jobs!r} is invalid; valid: a whole number >= 1")
    # IS-MCTS keeps its settings (and cache files) of before the network grader
    settings = (_settings(iterations, c, rollout, seed) if path is None
                else _network_settings(path))
    variants = condition_variants(getattr(log, "conditions", None))
    keys = game_key(frame)
    grouped = list(frame.groupby(keys, dropna=False, sort=True))
    if games is not None:
        if games < 1:
            raise AnalysisInputError(f"games={games} is invalid; valid: None or >= 1")
        pick = np.random.default_rng(seed).permutation(len(grouped))[:games]
        grouped = [grouped[i] for i in sorted(pick)]
    if not grouped:
        raise AnalysisInputError("decisions: no decisions to grade")
    chosen = (None if sample is None else
              sample_decisions(pd.concat([rows for _, rows in grouped]), sample, seed))
    store = _Cache(cache, settings)
    plan: list[tuple[pd.DataFrame, Any, str, list[str], set[str]]] = []
    for ident, rows_of_game in grouped:
        rows_of_game = rows_of_game.sort_values("turn")
        first = rows_of_game.iloc[0]
        where = f"game {dict(zip(keys, np.atleast_1d(ident), strict=False))}"
        variant = variants.get((first.get("design_hash"), int(first["condition"])))
        if variant is None:
            raise AnalysisInputError(
                f"{where}: no rules variant for its condition {int(first['condition'])}; "
                "pass a loaded log with its conditions table")
        turns = [_key(row, int(row.turn)) for row in rows_of_game.itertuples(index=False)]
        wanted = (turns if chosen is None else
                  [k for k, pick in zip(turns, chosen[rows_of_game.index], strict=True)
                   if pick])
        plan.append((rows_of_game, variant, where, turns, set(wanted)))
    pending = [(rows, variant, where, {k for k in wanted if store.get(k) is None})
               for rows, variant, where, _, wanted in plan]
    for estimates in _graded_batches([p for p in pending if p[3]], settings, path,
                                     jobs or 1):
        for key, values in estimates.items():
            store.put(key, values)
        store.save(every=SAVE_EVERY_SECONDS)
    store.save()
    missing = dict.fromkeys(ESTIMATES, math.nan)
    rows: list[dict[str, Any]] = []
    for rows_of_game, _, _, turns, wanted in plan:
        for row, key in zip(rows_of_game.itertuples(index=False), turns, strict=True):
            carried = {c: getattr(row, c) for c in CARRIED if c in frame.columns}
            graded = key in wanted
            rows.append({**carried, **(store.get(key) if graded else missing),
                         "graded": graded})
    out = _with_losses(pd.DataFrame(rows))
    out["grader"] = grader
    for column, value in settings.items():
        if column not in ("version", "grader"):
            out[f"search_{column}"] = value
    out["sample_per_label"] = math.nan if sample is None else sample
    out["source"] = data_source(frame)
    return out


Batch = list[tuple[pd.DataFrame, Any, str, set[str]]]


def _graded_batches(pending: Batch, settings: dict[str, Any], checkpoint: Path | None,
                    jobs: int):
    """Estimates (key -> values) of the wanted decisions of ``pending`` games, a dict per
    batch of :data:`GAMES_PER_BATCH` games as batches finish; on ``jobs`` local worker
    processes when ``jobs > 1`` (they end with this process)."""
    batches = [pending[i:i + GAMES_PER_BATCH]
               for i in range(0, len(pending), GAMES_PER_BATCH)]
    if jobs == 1 or len(batches) < 2:
        for batch in batches:
            yield grade_batch(batch, settings, checkpoint)
        return
    from concurrent.futures import FIRST_COMPLETED, wait

    from ..experiments.backends import worker_pool
    queue = iter(batches)
    executor = worker_pool(jobs)
    try:
        running = {executor.submit(grade_batch, b, settings, checkpoint)
                   for b in itertools.islice(queue, 2 * jobs)}
        while running:
            done, running = wait(running, return_when=FIRST_COMPLETED)
            for future in done:
                yield future.result()
                running |= {executor.submit(grade_batch, b, settings, checkpoint)
                            for b in itertools.islice(queue, 1)}
    finally:
        executor.shutdown(wait=True, cancel_futures=True)


def grade_batch(batch: Batch, settings: dict[str, Any], checkpoint: Path | None
                ) -> dict[str, dict[str, float]]:
    """Estimates of the decisions named in each game's key set (the game's rows, rules
    variant, a description for errors, the keys): replays each game
    (:func:`_game_states`) and grades at the wanted decisions, by the search with
    ``settings`` or, with ``checkpoint``, by its value network."""
    from ..search import root_state, search  # the search is imported only when grading

    judge = NetworkGrader(checkpoint) if checkpoint is not None else None
    out: dict[str, dict[str, float]] = {}
    for rows_of_game, variant, where, wanted in batch:
        if judge is not None:
            judge.check(variant, where)
        for row, view in _game_states(rows_of_game, variant, where):
            key = _key(row, int(row.turn))
            if key not in wanted:
                continue
            if judge is not None:
                out[key] = judge.estimates(root_state(view))
            else:
                out[key] = _estimates(search(
                    root_state(view), iterations=settings["iterations"], c=settings["c"],
                    rollout=settings["rollout"], seed=_seed(settings["seed"], key),
                    root="even"))
    return out


def _estimates(result) -> dict[str, float]:
    out: dict[str, float] = {"iterations": float(result.iterations)}
    for action in ("take", "pass"):
        value = result.value(action)
        for name, attr in (("rp", "rank_points"), ("score", "score")):
            out[f"{action}_{name}"] = math.nan if value is None else getattr(value, attr)
            out[f"{action}_{name}_se"] = (math.nan if value is None
                                          else getattr(value, f"{attr}_se"))
    return out


class NetworkGrader:
    """EV of take and pass by a checkpoint's value network (see the module docstring)."""

    def __init__(self, checkpoint: Path) -> None:
        from ..search.grading import ValueGrader
        from ..search.network import CheckpointError, Network, load_checkpoint

        try:
            weights, self.config, _ = load_checkpoint(checkpoint)
        except CheckpointError as exc:
            raise AnalysisInputError(f"move quality: {exc}") from None
        self.kernel = ValueGrader(Network(weights, self.config))
        self.checkpoint = checkpoint

    def check(self, variant: Any, where: str) -> None:
        """An :class:`AnalysisInputError` naming ``where`` unless the network was trained
        for ``variant``'s table size and cards."""
        config = self.config
        if (config.players, config.low_card, config.high_card) != (
                variant.players, variant.low_card, variant.high_card):
            raise AnalysisInputError(
                f"{where}: the checkpoint {self.checkpoint} is for {config.players} players "
                f"and cards {config.low_card}-{config.high_card}; this game has "
                f"{variant.players} players and cards {variant.low_card}-"
                f"{variant.high_card} (grade it with grader='ismcts' or a checkpoint "
                "trained for its rules)")

    def estimates(self, state: np.ndarray) -> dict[str, float]:
        """Take and pass values of the player to move at ``state`` (a search state,
        :func:`nothanks.search.root_state`, of rules :meth:`check` accepted) in rank
        points, and the positions evaluated; score and ``*_se`` are NaN."""
        take, passed, positions = self.kernel.values(state)
        nan = math.nan
        return {"iterations": float(positions), "take_rp": take, "take_rp_se": nan,
                "take_score": nan, "take_score_se": nan, "pass_rp": passed,
                "pass_rp_se": nan, "pass_score": nan, "pass_score_se": nan}


def _with_losses(frame: pd.DataFrame) -> pd.DataFrame:
    """Add best move, gaps (chosen minus other) and losses in rank points and score."""
    took = frame["action"].astype(str).to_numpy() == "take"
    forced = frame["forced"].fillna(False).astype(bool).to_numpy()
    out = frame.copy()
    out["best"] = np.where(forced | (frame["take_rp"] >= frame["pass_rp"]), "take", "pass")
    if "graded" in frame:
        out["best"] = out["best"].where(frame["graded"].astype(bool), None)
    for name in ("rp", "score"):
        take, passed = frame[f"take_{name}"].to_numpy(), frame[f"pass_{name}"].to_numpy()
        gap = np.where(took, take - passed, passed - take)
        se = np.hypot(frame[f"take_{name}_se"].to_numpy(), frame[f"pass_{name}_se"].to_numpy())
        out[f"gap_{name}"] = np.where(forced, 0.0, gap)
        out[f"gap_{name}_se"] = np.where(forced, 0.0, se)
    out["loss_rp"] = np.maximum(0.0, -out["gap_rp"])
    out["loss_score"] = np.maximum(0.0, out["gap_score"])  # a higher score is worse
    return out


class _Cache:
    """Per-decision estimates for one set of search settings, in one Parquet file."""

    def __init__(self, folder: str | Path | None, settings: dict[str, Any]) -> None:
        self.path = None
        self.rows: dict[str, dict[str, float]] = {}
        self.new = 0
        self.hits = 0
        self.saved = time.monotonic()
        if folder is None:
            return
        tag = hashlib.sha256(json.dumps(settings, sort_keys=True).encode()).hexdigest()[:12]
        self.path = Path(folder) / f"move-quality-{tag}.parquet"
        if self.path.exists():
            table = pd.read_parquet(self.path)
            for record in table.to_dict(orient="records"):
                key = record.pop("decision_key")
                self.rows[key] = record

    def get(self, key: str) -> dict[str, float] | None:
        found = self.rows.get(key)
        if found is not None:
            self.hits += 1
        return found

    def put(self, key: str, values: dict[str, float]) -> None:
        self.rows[key] = values
        self.new += 1

    def save(self, every: float | None = None) -> None:
        """Write the estimates if any are new (with ``every``: only if that many seconds
        passed since the last write)."""
        if self.path is None or not self.new:
            return
        if every is not None and time.monotonic() - self.saved < every:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        table = pd.DataFrame([{"decision_key": k, **v} for k, v in self.rows.items()])
        partial = self.path.with_suffix(f".{os.getpid()}.tmp")
        table.to_parquet(partial, index=False)
        partial.replace(self.path)
        self.new = 0
        self.saved = time.monotonic()


# ------------------------------------------------------------ the studies' grading
#: Search budget per graded decision (``--quick``: QUICK_QUALITY).
QUALITY_ITERATIONS = 1000
QUICK_QUALITY = 100
#: Free decisions graded per player type (agent label) in the sampled grading, and in
#: ``--quick``: a seeded random sample of the decisions ``grade="all"`` grades.
QUALITY_SAMPLE = SAMPLE_PER_LABEL
QUICK_SAMPLE = 20
#: Table 7 games whose decisions are graded (a reproducible draw of the thesis tables'
#: games); participant sessions: every game.
QUALITY_TABLE7_GAMES = 200
#: How much is graded: a sample per player type (the default) or every decision.
GRADINGS = ("sample", "all")
#: Who grades the moves (``nothanks studies --grader`` overrides it):
#: IS-MCTS unless the self-play value network meets the bar set in advance, Spearman
#: >= 0.8 between the two graders' EV losses on a held-out sample
#: (``benchmarks/grader_agreement.py``; docs/alphazero.md, "Fast grader").
QUALITY_GRADER = "ismcts"


def grade_moves(table7: Log, participants: Log | None, cache: Path,
                quick: bool = False, *, grade: str = "sample", grader: str | None = None,
                checkpoint: Path | None = None, jobs: int | None = None
                ) -> dict[str, pd.DataFrame]:
    """Move quality (EV of take and pass by information-set MCTS, or by a self-play value
    network with ``grader="network"``; default :data:`QUALITY_GRADER`) of the decisions of
    :data:`QUALITY_TABLE7_GAMES` games of Table 7's tables (its control table left out)
    and of every participant decision: with ``grade="sample"`` only a seeded random
    sample of :data:`QUALITY_SAMPLE` free decisions per player type of each, with
    ``"all"`` every one. Estimates are cached per decision in ``cache/move-quality``, so
    a rebuild grades only new decisions; ``jobs`` processes grade (default: one per
    core)."""
    if grade not in GRADINGS:
        raise AnalysisInputError(f"grade={grade!r} is unknown; valid: "
                                    + ", ".join(repr(g) for g in GRADINGS))
    sample = None if grade == "all" else QUICK_SAMPLE if quick else QUALITY_SAMPLE
    budget = {"iterations": QUICK_QUALITY if quick else QUALITY_ITERATIONS, "seed": 0,
              "cache": cache / "move-quality", "grader": grader or QUALITY_GRADER,
              "checkpoint": checkpoint, "sample": sample, "jobs": jobs or os.cpu_count() or 1}
    controls = control_conditions(table7.games)
    thesis = table7.decisions[~table7.decisions["condition"].isin(controls)]
    graded = {"table7": move_quality(table7, decisions=thesis,
                                     games=2 if quick else QUALITY_TABLE7_GAMES, **budget)}
    if participants is not None:
        graded["participants"] = move_quality(participants, games=2 if quick else None,
                                              **budget)
    return graded
