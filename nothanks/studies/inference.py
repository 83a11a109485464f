"""Which order of theory of mind is a player using? Bayesian order inference from logs.

For every decision a player made, each candidate model — ToM0, ToM1, ToM2 and the
baselines ``random`` and ``heuristic`` — is put in that player's place and asked how
likely it was to make the logged move; a posterior over the candidates is updated
decision by decision (docs/which-order.md).

**Reconstructing the state.** A logged game is replayed through the one game driver
(:class:`nothanks.play.match.Match`) from its seed, every seat playing its logged moves. At
the player's seat sits a probe holding one fresh copy of each candidate model: they
are started at that seat and observe every public event, so a ToM model's token memory
of the others' supplies is built from the public history exactly as in play. At each
of the player's decisions the probe checks that the replayed table matches the log
(card, tokens on it, own tokens), asks every candidate for its probability of taking,
and plays the logged move.

**Choice probabilities.** A ToM model is stochastic only through activation noise: its
P(take) is the share of ``samples`` re-decisions of the same state with fresh noise
(binomial standard error ``sqrt(p(1-p)/samples)``; the model's memories and random
state are restored afterwards, see :mod:`nothanks.agents.cognitive.likelihood`). The
candidates share their random numbers (common random numbers: the same start seed, the
same noise draws at a decision), so two models that decide alike get the same estimate
and the posterior between them moves only where they differ. ToM0
depends on nothing but the state chunk, so its estimate is cached per state, seeded
from the state itself (the same number whatever order games are processed in). ToM-k
(k >= 1) takes only when its own ToM0 retrieval says take, so P_k(take) <= P_0(take);
where the ToM0 estimate is 0 the ToM-k estimate is 0 without sampling. ``random`` has
its p, ``heuristic`` is deterministic. A forced take (no tokens) has probability 1
under every model and leaves the posterior unchanged. The probability of the logged
move is mixed with a lapse rate ε: P = (1 − ε)·p + ε/2.

**What the player knows of others' tokens** (``tokens``): ``memory`` (default) runs
each ToM model's own token memory on the public history, as the thesis's model does;
``exact`` gives it the true counts (``oracle_tokens``), which a person could track from
the public moves.

Every random number derives from ``seed``, the game's seed and the decision, so the
same call gives the same posterior.
"""
from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from ..agents import Agent, make_agent
from ..agents.cognitive import ToMAgent
from ..agents.cognitive.likelihood import (
    bayes_update,
    lapse_mix,
    normalised_prior,
    take_probability,
)
from ..analysis.frames import AnalysisInputError, condition_variants
from ..analysis.paired import SYNTHETIC_LABEL, data_source, wilson_interval
from ..experiments.backends import worker_pool
from ..files import write_frame
from ..play.replay import LoggedMove, ReplayError, logged_moves, replay_logged_game
from ..progress import progress_bar
from ..rules import Action, Variant, View, sequence_category
from ..rules.seeding import seed_words, state_words, stream, text_seed

#: Candidate models: name -> agent spec (ToM parameters are added from the settings).
CANDIDATES: dict[str, str] = {"ToM0": "tom0", "ToM1": "tom1", "ToM2": "tom2",
                              "random": "random", "heuristic": "heuristic"}
TOKEN_READINGS = ("memory", "exact")
#: Columns of the per-decision likelihood table, before the posterior is added.
DECISION_KEYS = ("participant", "synthetic", "player_label", "game_id", "block", "practice",
                 "turn", "decision", "seat", "card", "tokens_on_card", "tokens_before",
                 "action", "forced")


class InferenceError(AnalysisInputError):
    """The log cannot be replayed or the settings are invalid; says what and where."""


@dataclass(frozen=True)
class InferenceSettings:
    """What the inference assumes; every field is part of the likelihood cache key.

    Args:
        models: candidate model names (keys of :data:`CANDIDATES`).
        samples: fresh-noise re-decisions per ToM model and decision.
        lapse: lapse rate ε mixed into every model's move probability.
        tokens: ``memory`` or ``exact`` (what the player knows of others' tokens).
        params: extra spec parameters for every ToM candidate (e.g. a reading,
            ``{"project_self": "false"}``).
        seed: root of every random number of the inference.
    """

    models: tuple[str, ...] = tuple(CANDIDATES)
    samples: int = 50
    lapse: float = 0.05
    tokens: str = "memory"
    params: tuple[tuple[str, str], ...] = ()
    seed: int = 0

    def __post_init__(self) -> None:
        unknown = [m for m in self.models if m not in CANDIDATES]
        if unknown or not self.models or len(set(self.models)) != len(self.models):
            raise InferenceError(f"models {list(self.models)} invalid (unknown: {unknown}); "
                                 f"valid: distinct names from {list(CANDIDATES)}")
        if not isinstance(self.samples, int) or self.samples < 1:
            raise InferenceError(f"samples={self.samples!r}; valid: an integer >= 1")
        if not 0.0 <= self.lapse <= 1.0:
            raise InferenceError(f"lapse={self.lapse!r}; valid: 0 <= lapse <= 1")
        if self.tokens not in TOKEN_READINGS:
            raise InferenceError(f"tokens={self.tokens!r}; valid: {', '.join(TOKEN_READINGS)}")
        if self.seed < 0:
            raise InferenceError(f"seed={self.seed!r}; valid: >= 0")

    def spec(self, model: str) -> str:
        """The agent spec of candidate ``model`` under these settings."""
        base = CANDIDATES[model]
        if not base.startswith("tom"):
            return base
        params = dict(self.params)
        if self.tokens == "exact":
            params["oracle_tokens"] = "true"
        return base + (":" + ",".join(f"{k}={v}" for k, v in sorted(params.items()))
                       if params else "")

    def key(self) -> str:
        """Short hash of the settings that change likelihoods (not the lapse, applied
        after sampling)."""
        data = asdict(self) | {"lapse": None}
        return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:12]


# ------------------------------------------------------------------ the probe
_TOM0_CACHE: dict[tuple, float] = {}
#: Candidate agents per spec, reused from game to game in this process: building a ToM
#: model stores its ~2,000 instances, and ``start`` resets
#: everything else with the game's seeds, so reuse does not change a number.
_AGENTS: dict[str, Agent] = {}


def _agent(spec: str) -> Agent:
    if spec not in _AGENTS:
        _AGENTS[spec] = make_agent(spec)
    return _AGENTS[spec]


class _Candidates:
    """The candidate models at the player's seat of a replayed game: they watch the game
    and, at each of the player's decisions, give their choice probabilities."""

    def __init__(self, settings: InferenceSettings, game_seed: int) -> None:
        self.settings = settings
        #: the inference seed and the game's seed as entropy words: every stream of the
        #: game's candidates starts from them
        self.game_entropy = (settings.seed, *seed_words(game_seed))
        self.models = {m: _agent(settings.spec(m)) for m in settings.models}
        self.tom0 = _agent(settings.spec("ToM0"))
        self.observers = [a.observe for a in self.models.values() if a.observes()]

    def start(self, seat: int, variant: Variant) -> None:
        """Every candidate starts from the same seed (common random numbers): ToM1 and
        ToM2 then hold the same token memory and, at a decision, draw the same noise, so
        their estimates differ only where the models decide differently, not by chance."""
        state = state_words(*self.game_entropy, 1000, words=2)
        for agent in dict.fromkeys([self.tom0, *self.models.values()]):
            agent.start(seat, variant, int(state[0]) << 31 | int(state[1]) >> 1)

    def _tom0_probability(self, view: View) -> float:
        """ToM0's P(take): a function of the state chunk only, cached per state and
        seeded from it (the same value in any process, in any order)."""
        category = sequence_category(view.own_cards, view.card)
        state = (str(category), view.card, view.tokens_on_card, view.own_tokens)
        key = (self.settings.seed, self.settings.samples, self.settings.params, state)
        if key not in _TOM0_CACHE:
            rng = stream(self.settings.seed,
                         ("none", "extension", "completion").index(state[0]), *state[1:])
            _TOM0_CACHE[key] = take_probability(self.tom0, view, self.settings.samples,
                                                rng)[0]
        return _TOM0_CACHE[key]

    def row(self, logged: dict, view: View) -> dict:
        """The logged decision's row with every candidate's P(take) and its samples."""
        p0 = self._tom0_probability(view)
        row = dict(logged)
        for model, agent in self.models.items():
            if isinstance(agent, ToMAgent) and agent.k == 0:
                p, n = (1.0, 0) if view.own_tokens == 0 else (p0, self.settings.samples)
            elif isinstance(agent, ToMAgent) and p0 == 0.0 and view.own_tokens > 0:
                p, n = 0.0, self.settings.samples  # ToM-k takes only if its ToM0 does
            else:
                rng = stream(*self.game_entropy, logged["turn"])
                p, n = take_probability(agent, view, self.settings.samples, rng)
            row[f"p_take:{model}"] = p
            row[f"samples:{model}"] = n
        return row


@dataclass(frozen=True)
class GameTask:
    """One logged game to replay for one player."""

    where: str
    seed: int
    variant: Variant
    seat: int
    moves: tuple[LoggedMove, ...]  # every decision of the game, in turn order
    script: tuple[dict, ...]  # the player's decisions with their keys


def _replay(task: GameTask, settings: InferenceSettings) -> list[dict]:
    """The player's decision rows of one game, replayed from its seed
    (:func:`nothanks.play.replay_logged_game`, which checks every decision against the log)."""
    candidates = _Candidates(settings, task.seed)
    candidates.start(task.seat, task.variant)
    script = iter(task.script)
    rows = []
    try:
        for step in replay_logged_game(task.moves, task.variant, task.seed, where=task.where,
                                       listeners=candidates.observers):
            if step.move.seat == task.seat:
                rows.append(candidates.row(next(script), step.view))
    except ReplayError as exc:
        raise InferenceError(str(exc)) from None
    return rows


def _replay_all(tasks: list[GameTask], settings: InferenceSettings,
                processes: int, progress: bool = False) -> list[dict]:
    """The rows of every game of ``tasks``, replayed in ``processes`` worker processes
    (in this one for 1); ``progress``: a bar of the games replayed."""
    rows: list[dict] = []
    with progress_bar(len(tasks), unit="game", desc="infer", enabled=progress) as bar:
        if processes <= 1 or len(tasks) < 2:
            for task in tasks:
                rows += _replay(task, settings)
                bar.update()
            return rows
        with worker_pool(processes) as pool:
            chunk = max(1, len(tasks) // (4 * processes))
            for game in pool.map(_replay, tasks, [settings] * len(tasks), chunksize=chunk):
                rows += game
                bar.update()
    return rows


def replay_likelihood(tasks: Sequence[GameTask], settings: InferenceSettings) -> pd.DataFrame:
    """The likelihood table of ``tasks`` (one participant's games) under ``settings``,
    replayed in this process: what :func:`likelihood_frame` computes per participant
    (parameter fitting, :mod:`nothanks.studies.fitting`, calls it once per parameter
    value)."""
    return _tidy([row for task in tasks for row in _replay(task, settings)], settings)


def clear_caches() -> None:
    """Forget the candidate agents and ToM0 estimates kept in this process: each is kept
    per spec and settings, so a caller that tries many parameter values (a fit) clears
    them between values to keep memory flat. Changes no number."""
    _TOM0_CACHE.clear()
    _AGENTS.clear()


# ------------------------------------------------------------- reading the log
def game_tasks(decisions: pd.DataFrame, conditions: pd.DataFrame, participant: str,
               practice: bool = False) -> list[GameTask]:
    """The games of ``participant``'s human seat to replay, in play order."""
    rows = decisions[decisions["participant"] == participant]
    if rows.empty:
        known = sorted(decisions["participant"].dropna().unique())
        raise InferenceError(f"participant {participant!r} is not in the log; valid: "
                             f"{known[:10]}{' ...' if len(known) > 10 else ''}")
    variants = condition_variants(conditions)
    tasks = []
    decision = 0
    for game_id, game in rows.sort_values(["game_id", "turn"]).groupby("game_id", sort=True):
        human = game[game["player_kind"] == "human"]
        if human.empty:
            raise InferenceError(f"participant {participant!r} game {game_id}: no decision of "
                                 "a human seat; infer_order reads participant sessions")
        first = game.iloc[0]
        if bool(first["practice"]) and not practice:
            continue
        seat = int(human["seat"].iloc[0])
        key = (first["design_hash"], int(first["condition"]))
        if key not in variants:
            raise InferenceError(f"participant {participant!r} game {game_id}: condition "
                                 f"{key[1]} is not in the conditions table")
        script = []
        for r in human.itertuples(index=False):
            script.append({
                "participant": participant, "synthetic": bool(r.synthetic),
                "player_label": str(r.agent_label), "game_id": int(game_id),
                "block": None if pd.isna(r.block) else int(r.block),
                "practice": bool(r.practice), "turn": int(r.turn), "decision": decision,
                "seat": seat, "card": int(r.card), "tokens_on_card": int(r.tokens_on_card),
                "tokens_before": int(r.tokens_before), "action": str(r.action),
                "forced": bool(r.forced)})
            decision += 1
        moves = tuple(logged_moves(game.to_dict("records")))
        tasks.append(GameTask(f"participant {participant!r} game {game_id}", int(first["seed"]),
                              variants[key], seat, moves, tuple(script)))
    return tasks


def likelihood_frame(log, participants: Sequence[str] | None = None, *,
                     settings: InferenceSettings = InferenceSettings(),
                     practice: bool = False, processes: int = 1,
                     cache: str | Path | None = None, progress: bool = False
                     ) -> pd.DataFrame:
    """One row per decision of each participant's human seat and candidate model: the
    model's P(take), its sample size and standard error (lapse not applied yet).

    ``cache``: a folder where each participant's table is kept as Parquet, keyed by the
    settings (reused when present; delete it after changing the models' code).
    ``progress``: a progress bar (stderr) of the games replayed.
    """
    decisions = log.decisions
    if participants is None:
        participants = sorted(decisions["participant"].dropna().unique())
    if not len(participants):
        raise InferenceError("the log holds no participant sessions; infer_order reads the "
                             "human seat of participant logs (load a session folder)")
    frames = []
    todo = []
    for participant in participants:
        path = None if cache is None else (Path(cache) / settings.key()
                                           / f"{participant}-p{int(practice)}.parquet")
        if path is not None and path.exists():
            frames.append(pd.read_parquet(path))
        else:
            todo.append((participant, path))
    tasks = {p: game_tasks(decisions, log.conditions, p, practice) for p, _ in todo}
    rows = _replay_all([t for p, _ in todo for t in tasks[p]], settings, processes, progress)
    for participant, path in todo:
        frame = _tidy([r for r in rows if r["participant"] == participant], settings)
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_frame(frame, path)  # whole or absent: a kill leaves no torn cache file
        frames.append(frame)
    out = pd.concat(frames, ignore_index=True)
    order = {p: i for i, p in enumerate(participants)}
    return out.sort_values(["participant", "decision", "model"],
                           key=lambda s: s.map(order) if s.name == "participant" else s,
                           kind="stable").reset_index(drop=True)


def _tidy(rows: list[dict], settings: InferenceSettings) -> pd.DataFrame:
    if not rows:
        raise InferenceError("no decisions to infer from (only practice games?)")
    wide = pd.DataFrame(rows)
    parts = []
    for model in settings.models:
        part = wide[list(DECISION_KEYS)].copy()
        part["model"] = model
        part["p_take"] = wide[f"p_take:{model}"].astype(float)
        part["samples"] = wide[f"samples:{model}"].astype(int)
        parts.append(part)
    long = pd.concat(parts, ignore_index=True)
    long["block"] = long["block"].astype("Int64")
    n = long["samples"].replace(0, np.nan)
    long["se"] = np.sqrt(long["p_take"] * (1 - long["p_take"]) / n).fillna(0.0)
    return long.sort_values(["decision", "model"], kind="stable").reset_index(drop=True)


# ------------------------------------------------------------------ posterior
def add_posterior(frame: pd.DataFrame, models: Sequence[str], lapse: float,
                  prior: Mapping[str, float] | None = None) -> pd.DataFrame:
    """Lapse-mixed likelihood of the logged move, its log, and the posterior after each
    decision: ``posterior`` running over a participant's decisions, ``block_posterior``
    restarting at every block of the schedule (prior uniform unless given)."""
    out = frame.copy()
    took = (out["action"] == "take").to_numpy()
    p_move = np.where(took, out["p_take"], 1.0 - out["p_take"].to_numpy())
    out["likelihood"] = np.where(out["forced"], 1.0, lapse_mix(p_move, lapse))
    out["loglik"] = np.log(out["likelihood"])
    log_prior = normalised_prior(list(models), None if prior is None else dict(prior))
    rank = {m: i for i, m in enumerate(models)}
    out = out.sort_values(["participant", "decision"], kind="stable")
    out["_rank"] = out["model"].map(rank)
    out = out.sort_values(["participant", "decision", "_rank"], kind="stable")
    loglik = out["loglik"].to_numpy().reshape(-1, len(models))
    keys = out[["participant", "block"]].iloc[:: len(models)]
    running = np.empty_like(loglik)
    in_block = np.empty_like(loglik)
    last_participant, last_block = None, None
    for i, (participant, block) in enumerate(zip(keys["participant"], keys["block"],
                                                 strict=True)):
        if participant != last_participant:
            post = log_prior
        if participant != last_participant or block != last_block:
            block_post = log_prior
        post = bayes_update(post, loglik[i])
        block_post = bayes_update(block_post, loglik[i])
        running[i], in_block[i] = post, block_post
        last_participant, last_block = participant, block
    out["posterior"] = np.exp(running.ravel())
    out["block_posterior"] = np.exp(in_block.ravel())
    return out.drop(columns="_rank").reset_index(drop=True)


@dataclass
class OrderInference:
    """The result of :func:`infer_order`.

    ``decisions`` is tidy: one row per (participant, decision, model) with the game,
    block, turn, the move, the model's P(take) with its samples and standard error, the
    lapse-mixed likelihood, log-likelihood, the running and within-block posteriors, and
    ``source`` (``synthetic`` for stand-ins and simulated players: not data).
    """

    decisions: pd.DataFrame
    settings: InferenceSettings
    prior: dict[str, float] | None = None
    source: str = "participants"
    notes: list[str] = field(default_factory=list)

    @property
    def models(self) -> tuple[str, ...]:
        """The candidate models, in the settings' order."""
        return self.settings.models

    def _last(self, by: Sequence[str], column: str) -> pd.DataFrame:
        # stable: within a decision the models keep their listed order, so a tie in
        # map_orders goes to the first-listed model
        ordered = self.decisions.sort_values("decision", kind="stable")
        rows = ordered.groupby([*by, "model"], sort=False)
        last = rows[[column, "decision"]].last()
        return last.reset_index().rename(columns={column: "posterior"})

    def final(self) -> pd.DataFrame:
        """Per participant and model: the posterior after the last decision, and the
        summed log-likelihood."""
        table = self._last(["participant"], "posterior")
        ll = self.decisions.groupby(["participant", "model"]).loglik.sum().rename("loglik")
        counted = self.decisions[~self.decisions["forced"]].groupby(
            ["participant", "model"]).size().rename("decisions")
        table = table.drop(columns="decision").join(ll, on=["participant", "model"]) \
            .join(counted, on=["participant", "model"])
        return table.assign(source=self.source)

    def blocks(self) -> pd.DataFrame:
        """Per participant, block and model: the posterior from that block alone."""
        table = self._last(["participant", "block"], "block_posterior").drop(
            columns="decision")
        return table.assign(source=self.source)

    def map_orders(self) -> pd.DataFrame:
        """Per participant: the most probable model (MAP), its posterior probability, the
        runner-up, models tied with the MAP (``tied``), the informative decisions and the
        player's logged label."""
        final = self.final()
        rows = []
        for participant, part in final.groupby("participant", sort=False):
            # stable: models the data cannot tell apart go to the first-listed one, and
            # ``tied`` names the others
            ranked = part.sort_values("posterior", ascending=False, kind="stable")
            top = float(ranked["posterior"].iloc[0])
            tied = ranked["model"][np.isclose(ranked["posterior"], top, rtol=1e-6,
                                              atol=1e-12)].iloc[1:]
            label = self.decisions.loc[self.decisions["participant"] == participant,
                                       "player_label"].iloc[0]
            rows.append({"participant": participant, "player_label": label,
                         "map_model": ranked["model"].iloc[0],
                         "map_posterior": float(ranked["posterior"].iloc[0]),
                         "runner_up": ranked["model"].iloc[1] if len(ranked) > 1 else None,
                         "runner_up_posterior": float(ranked["posterior"].iloc[1])
                         if len(ranked) > 1 else np.nan,
                         "tied": ",".join(tied),
                         "decisions": int(ranked["decisions"].iloc[0])})
        return pd.DataFrame(rows).assign(source=self.source)

    def group(self, confidence: float = 0.95) -> pd.DataFrame:
        """Share of participants whose MAP is each model, with Wilson intervals, and the
        mean posterior of each model across participants."""
        maps = self.map_orders()
        final = self.final()
        n = len(maps)
        rows = []
        for model in self.models:
            k = int((maps["map_model"] == model).sum())
            low, high = wilson_interval(k, n, confidence)
            rows.append({"model": model, "participants": n, "map_count": k,
                         "map_share": k / n, "ci_low": low, "ci_high": high,
                         "mean_posterior": float(
                             final.loc[final["model"] == model, "posterior"].mean())})
        return pd.DataFrame(rows).assign(source=self.source)


def infer_order(log, player: str | Sequence[str] | None = None, *,
                models: Sequence[str] = tuple(CANDIDATES), samples: int = 50,
                lapse: float = 0.05, tokens: str = "memory",
                params: Mapping[str, object] | None = None,
                prior: Mapping[str, float] | None = None, seed: int = 0,
                practice: bool = False, processes: int = 1,
                cache: str | Path | None = None, progress: bool = False) -> OrderInference:
    """Posterior over candidate models of a participant's play, decision by decision.

    Args:
        log: a :class:`nothanks.experiments.log.Log` of participant sessions, or a path.
        player: a participant id, several, or None for every participant in the log.
        models: candidates (:data:`CANDIDATES`).
        samples: fresh-noise re-decisions per ToM model and decision.
        lapse: lapse rate ε.
        tokens: ``memory`` or ``exact`` (what the player knows of others' tokens).
        params: spec parameters for every ToM candidate (e.g. ``project_self=false``).
        prior: weights per model (default uniform).
        seed: seeds every random number of the inference.
        practice: include the practice block (excluded from analysis by default).
        processes: worker processes for the replays.
        cache: folder for per-participant likelihood tables (Parquet), keyed by settings.
        progress: show a progress bar (stderr) of the games replayed.

    Raises:
        InferenceError: a bad candidate or parameter, a participant not in the log, or a
            logged game that cannot be replayed; the message names which.
    """
    if isinstance(log, (str, Path)):
        from ..experiments.log import load
        log = load(log)
    settings = InferenceSettings(tuple(models), samples, lapse, tokens,
                                 tuple(sorted((str(k), _param_text(v))
                                              for k, v in (params or {}).items())), seed)
    for model in settings.models:  # a bad parameter fails now, naming the model
        try:
            make_agent(settings.spec(model))
        except ValueError as exc:
            raise InferenceError(f"candidate {model}: {exc}") from None
    chosen = [player] if isinstance(player, str) else player
    frame = likelihood_frame(log, chosen, settings=settings, practice=practice,
                             processes=processes, cache=cache, progress=progress)
    source = data_source(log.decisions)
    decisions = add_posterior(frame, settings.models, lapse, prior).assign(source=source)
    return OrderInference(decisions, settings, None if prior is None else dict(prior), source)


def _param_text(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


# ------------------------------------------------------------------ validation
#: Simulated player types of the validation: name -> agent spec.
PLAYER_TYPES: dict[str, str] = dict(CANDIDATES)


def play_simulated_player(participant: str, out_dir: str | Path, spec: str, lapse: float,
                          design: object = "human-schedule") -> str:
    """One simulated player of known type through a participant session (Table 6
    schedule): the model in the participant's chair decides, and with probability
    ``lapse`` its move is replaced by a coin flip (seeded from the participant id)."""
    from ..experiments.session import ParticipantSession
    from ..experiments.synthetic import SimulatedClock
    clock = SimulatedClock()
    session = ParticipantSession(participant, out_dir, design, human=spec, clock=clock)
    player = session.standin
    rng = _lapse_coin(participant, session, lapse)
    while not session.finished:
        while not session.game_over:
            if session.human_to_move:
                view = session.view()
                action = player.decide(view)
                if rng.random() < lapse:
                    action = Action.TAKE if rng.random() < 0.5 else Action.PASS
                if view.own_tokens == 0:
                    action = Action.TAKE
                clock.now += 3.0
                session.human_acts(action)
            else:
                session.step()
        session.next_game()
    return participant


def _lapse_coin(participant: str, session, lapse: float) -> np.random.Generator:
    """The simulated player's lapse coin (seeded from the participant id) at the draw
    the session's next game starts with: a resumed session skips the draws of the
    games it has finished (one per human decision, two after a lapse), so a killed and
    resumed player plays exactly as an uninterrupted one."""
    rng = np.random.default_rng(text_seed(participant))
    if session.finished or not session.games_done:
        return rng
    from ..experiments.log import load
    decisions = load(session.directory, allow_incomplete=True).decisions
    played = ((decisions["player_kind"] == "human")
              & (decisions["game_id"] < session.plan.position)).sum()
    for _ in range(int(played)):
        if rng.random() < lapse:
            rng.random()
    return rng


def _play_one(args: tuple) -> str:
    return play_simulated_player(*args)


def simulate_players(out_dir: str | Path, *, types: Iterable[str] = tuple(PLAYER_TYPES),
                     per_type: int = 10, lapse: float = 0.05,
                     params: Mapping[str, object] | None = None, processes: int = 1,
                     prefix: str = "sim", design: object = "human-schedule",
                     progress: bool = False) -> list[str]:
    """Simulated players of each type (``sim-tom1-03`` ...), each a participant session
    of ``design`` (default: the Table 6 schedule, 24 games against three ToM0, ToM1 or
    ToM2 models); resumable like any session. Returns the players' ids;
    :class:`InferenceError` for an unknown player type. ``progress``: a progress bar
    (stderr) of the players done."""
    jobs = []
    extra = ",".join(f"{k}={_param_text(v)}" for k, v in sorted((params or {}).items()))
    for name in types:
        if name not in PLAYER_TYPES:
            raise InferenceError(f"player type {name!r}; valid: {list(PLAYER_TYPES)}")
        spec = PLAYER_TYPES[name]
        if extra and spec.startswith("tom"):
            spec = f"{spec}:{extra}"
        for i in range(1, per_type + 1):
            jobs.append((f"{prefix}-{name.lower()}-{i:02d}", out_dir, spec, lapse, design))
    players: list[str] = []
    with progress_bar(len(jobs), unit="player", desc="simulate players",
                      enabled=progress) as bar:
        if processes <= 1:
            for job in jobs:
                players.append(_play_one(job))
                bar.update()
            return players
        with worker_pool(processes) as pool:
            for player in pool.map(_play_one, jobs):
                players.append(player)
                bar.update()
    return players


def confusion_matrix(inference: OrderInference, confidence: float = 0.95) -> pd.DataFrame:
    """Rows: true player type (the logged label); columns: how many were recovered as
    each model; plus the share recovered correctly with its Wilson interval and how many
    MAPs were tied with another model (``map_tied``: a tie goes to the first-listed)."""
    maps = inference.map_orders()
    rows = []
    for label, part in maps.groupby("player_label", sort=False):
        counts = part["map_model"].value_counts()
        n = len(part)
        correct = int(counts.get(label, 0))
        low, high = wilson_interval(correct, n, confidence)
        rows.append({"true": label, "players": n,
                     "map_tied": int((part["tied"] != "").sum()),
                     **{m: int(counts.get(m, 0)) for m in inference.models},
                     "correct": correct, "share": correct / n, "ci_low": low,
                     "ci_high": high, "mean_map_posterior": float(part["map_posterior"].mean())})
    order = {m: i for i, m in enumerate(inference.models)}
    table = pd.DataFrame(rows)
    table = table.sort_values("true", key=lambda s: s.map(order)).reset_index(drop=True)
    return table.assign(source=inference.source)


def zero_vs_higher(inference: OrderInference, confidence: float = 0.95) -> dict:
    """ToM0 vs ToM≥1: the share of ToM-k players (k = 0, 1, 2) whose MAP falls on the
    right side (ToM0 for ToM0 players, ToM1 or ToM2 for the others), Wilson interval."""
    maps = inference.map_orders()
    maps = maps[maps["player_label"].isin(["ToM0", "ToM1", "ToM2"])]
    if maps.empty:
        raise InferenceError("no ToM players among the inferred participants")
    truth = maps["player_label"] != "ToM0"
    found = maps["map_model"].isin(["ToM1", "ToM2"])
    correct = int((truth == found).sum())
    low, high = wilson_interval(correct, len(maps), confidence)
    return {"players": len(maps), "correct": correct, "share": correct / len(maps),
            "ci_low": low, "ci_high": high}


def matrix_markdown(table: pd.DataFrame, models: Sequence[str], title: str) -> str:
    """The confusion matrix as a Markdown table (counts; share correct with its CI)."""
    head = ["true \\ MAP", *models, "correct (95% Wilson CI)", "mean MAP posterior",
            "MAP tied"]
    lines = [f"**{title}**", "", "| " + " | ".join(head) + " |",
             "|" + " --- |" * len(head)]
    for r in table.itertuples(index=False):
        row = r._asdict()
        lines.append("| " + " | ".join(
            [str(row["true"]), *[str(row[m]) for m in models],
             f"{row['correct']}/{row['players']} = {row['share']:.2f} "
             f"[{row['ci_low']:.2f}, {row['ci_high']:.2f}]",
             f"{row['mean_map_posterior']:.2f}", str(row["map_tied"])]) + " |")
    if (table["source"] == "synthetic").any():
        lines += ["", f"*{SYNTHETIC_LABEL}: simulated players of known type.*"]
    return "\n".join(lines)


def default_processes() -> int:
    """At most 2 worker processes (a shared machine)."""
    return max(1, min(2, os.cpu_count() or 1))


def settings_line(settings: InferenceSettings) -> str:
    """The settings in one line, for tables and figure captions."""
    params = ",".join(f"{k}={v}" for k, v in settings.params) or "default reading"
    return (f"samples={settings.samples}, lapse={settings.lapse}, tokens={settings.tokens}, "
            f"{params}, seed={settings.seed}")


__all__ = [
    "CANDIDATES", "DECISION_KEYS", "PLAYER_TYPES", "TOKEN_READINGS", "GameTask",
    "InferenceError", "InferenceSettings", "OrderInference", "add_posterior",
    "clear_caches", "confusion_matrix", "game_tasks", "infer_order", "likelihood_frame",
    "matrix_markdown", "play_simulated_player", "replay_likelihood", "settings_line",
    "simulate_players", "zero_vs_higher",
]
