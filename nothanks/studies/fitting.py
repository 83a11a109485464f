"""Each participant's own parameters: maximum likelihood fits of a ToM model's free
parameters on the participant's logged decisions (docs/fitting.md).

**Likelihood.** The one order inference uses (:mod:`nothanks.studies.inference`): each
logged game is replayed from its seed with the candidate at the participant's seat; at
each free decision the model's P(take) is the share of ``samples`` fresh-noise
re-decisions that take, mixed with a lapse rate ε, P = (1 − ε)·p + ε/2; forced takes
carry no information. The log-likelihood of a parameter value is the sum over the
participant's free decisions (practice block left out).

**Common random numbers.** Every random number of an evaluation derives from the fit's
seed, the game's seed and the decision (the inference's streams), never from the
parameter value: two parameter values are judged on the same noise draws, so the
simulated log-likelihood is a deterministic function of the parameters, without
sampling jitter between neighbouring values (it is still a step function: each
re-decision flips at some value, so no gradients are used).

**Optimiser.** Optuna's TPE sampler (seeded per participant), ``trials`` evaluations
inside the stated ranges (log scale for ``s``), asked in batches of :data:`BATCH` with
the constant-liar strategy, so the fit is the same for any number of worker processes.
The estimate is the best evaluated point.

**Interval.** A bootstrap over the participant's games: the games are resampled with
replacement ``bootstrap`` times; each resample's estimate is the evaluated point of
highest resampled log-likelihood (the per-game log-likelihoods of every evaluation are
kept, so no model is run again); the interval is the 2.5 and 97.5 percentiles. Its
resolution is that of the evaluated points.

**Evidence.** BIC: log p(y|m) ≈ LL − (p/2)·ln n with n the free decisions, for the group
comparison (:mod:`nothanks.analysis.bms`).

**Resumable and parallel.** Each participant's evaluations are kept in
``folder/<settings key>/<participant>.parquet`` once its fit is done (written whole or
not at all); a rerun skips them. Evaluations run in local worker processes or on a Dask
cluster (``scheduler``), several participants at once.
"""
from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, wait
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from ..agents import make_agent
from ..agents.cognitive.likelihood import lapse_mix
from ..analysis.bms import bic_evidence
from ..analysis.paired import data_source
from ..experiments.backends import worker_pool
from ..files import write_frame
from ..progress import progress_bar
from ..rules.seeding import state_words, text_seed
from .inference import (
    CANDIDATES,
    TOKEN_READINGS,
    GameTask,
    InferenceError,
    InferenceSettings,
    clear_caches,
    game_tasks,
    replay_likelihood,
)


class FitError(InferenceError):
    """Bad fit settings or input; the message says what, where and what is valid."""


@dataclass(frozen=True)
class ParameterRange:
    """Where a parameter is searched: ``low`` to ``high``, on a log scale if ``log``."""

    low: float
    high: float
    log: bool = False

    def check(self, name: str) -> None:
        if not (math.isfinite(self.low) and math.isfinite(self.high) and self.low < self.high):
            raise FitError(f"range of {name} {self.low}:{self.high}; valid: LOW:HIGH with "
                           "LOW < HIGH, finite")
        if self.log and self.low <= 0:
            raise FitError(f"range of {name} {self.low}:{self.high} is searched on a log "
                           "scale; valid: LOW > 0")


#: The parameters a fit may free, their default search ranges, and the models that read
#: them (docs/models.md, "Parameters"; ToM0 has no token memory, so no rt/leaf_penalty).
FIT_PARAMETERS: dict[str, ParameterRange] = {
    "s": ParameterRange(0.02, 0.5, log=True),
    "rt": ParameterRange(-4.0, 0.0),
    "leaf_penalty": ParameterRange(0.0, 2.0),
    "d": ParameterRange(0.1, 1.0),
    "mp": ParameterRange(1.0, 10.0),
}
TOKEN_MEMORY_PARAMETERS = ("rt", "leaf_penalty")
#: The models a fit may use: the ToM candidates of the order inference.
FIT_MODELS = tuple(m for m in CANDIDATES if m.startswith("ToM"))
#: Trials asked of the optimiser at a time (the fit does not depend on the workers).
BATCH = 2
#: The interval's coverage.
CONFIDENCE = 0.95
INTERVAL_METHOD = "bootstrap over games (percentile), on the evaluated points"


def model_parameters(model: str) -> tuple[str, ...]:
    """The parameters of :data:`FIT_PARAMETERS` that ``model`` reads."""
    if model == "ToM0":
        return tuple(p for p in FIT_PARAMETERS if p not in TOKEN_MEMORY_PARAMETERS)
    return tuple(FIT_PARAMETERS)


@dataclass(frozen=True)
class FitSettings:
    """What a fit assumes; every field is part of the resume key.

    Args:
        model: the fitted model (:data:`FIT_MODELS`).
        params: the free parameters, in order.
        ranges: their search ranges (default :data:`FIT_PARAMETERS`').
        trials: evaluations per participant.
        samples: fresh-noise re-decisions per decision (the inference's).
        lapse: lapse rate ε (fixed).
        tokens: ``memory`` or ``exact``.
        readings: fixed spec parameters of the model (e.g. ``project_self=false``).
        seed: root of every random number (common to every evaluation).
        bootstrap: resamples of the games for the interval.
    """

    model: str
    params: tuple[str, ...]
    ranges: tuple[tuple[str, ParameterRange], ...] = ()
    trials: int = 40
    samples: int = 30
    lapse: float = 0.05
    tokens: str = "memory"
    readings: tuple[tuple[str, str], ...] = ()
    seed: int = 0
    bootstrap: int = 1000

    def __post_init__(self) -> None:
        if self.model not in FIT_MODELS:
            raise FitError(f"model {self.model!r}; valid: {', '.join(FIT_MODELS)}")
        readable = model_parameters(self.model)
        if not self.params:
            raise FitError(f"no parameter to fit for {self.model}; valid: names from "
                           f"{', '.join(readable)}")
        unknown = [p for p in self.params if p not in readable]
        if unknown or len(set(self.params)) != len(self.params):
            what = "unknown or unread: " + ", ".join(unknown) if unknown else "repeated"
            raise FitError(f"parameters {', '.join(self.params)} for {self.model}: {what}"
                           f"; valid: distinct names from {', '.join(readable)}")
        ranges = dict(self.ranges)
        if extra := sorted(set(ranges) - set(self.params)):
            raise FitError(f"a range for {', '.join(extra)}, which is not fitted; valid: "
                           f"{', '.join(self.params)}")
        full = tuple((p, ranges.get(p, FIT_PARAMETERS[p])) for p in self.params)
        for name, bounds in full:
            bounds.check(name)
        object.__setattr__(self, "ranges", full)
        fixed = [k for k, _ in self.readings if k in self.params]
        if fixed:
            raise FitError(f"{', '.join(fixed)} is both fitted and fixed by --param")
        for name, value, low in (("trials", self.trials, 2), ("samples", self.samples, 1),
                                 ("bootstrap", self.bootstrap, 1)):
            if not isinstance(value, int) or value < low:
                raise FitError(f"{name}={value!r}; valid: an integer >= {low}")
        if not 0.0 < self.lapse <= 1.0:
            raise FitError(f"lapse={self.lapse!r}; valid: 0 < lapse <= 1 (a lapse of 0 "
                           "makes a move the model never makes impossible)")
        if self.tokens not in TOKEN_READINGS:
            raise FitError(f"tokens={self.tokens!r}; valid: {', '.join(TOKEN_READINGS)}")
        if self.seed < 0:
            raise FitError(f"seed={self.seed!r}; valid: >= 0")

    def inference(self, values: Mapping[str, float]) -> InferenceSettings:
        """The inference settings of one evaluation: the model alone, the parameter values
        as spec parameters beside the fixed readings, the fit's seed."""
        params = dict(self.readings) | {k: repr(float(v)) for k, v in values.items()}
        return InferenceSettings((self.model,), self.samples, self.lapse, self.tokens,
                                 tuple(sorted(params.items())), self.seed)

    def key(self) -> str:
        """Short hash of everything that changes a participant's fit."""
        data = asdict(self)
        data["ranges"] = [(n, asdict(r)) for n, r in self.ranges]
        return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:12]

    def describe(self) -> str:
        """The settings in one line, for tables and captions."""
        ranges = ", ".join(f"{n} in [{r.low:g}, {r.high:g}]{' (log)' if r.log else ''}"
                           for n, r in self.ranges)
        readings = ",".join(f"{k}={v}" for k, v in self.readings) or "default reading"
        return (f"{self.model}: {ranges}; {self.trials} TPE trials, samples={self.samples}, "
                f"lapse={self.lapse}, tokens={self.tokens}, {readings}, seed={self.seed}")


# ------------------------------------------------------------------ evaluation
#: The per-decision columns an evaluation returns.
DECISION_COLUMNS = ("participant", "game_id", "block", "decision", "card", "tokens_on_card",
                    "tokens_before", "action", "forced", "p_take")


def evaluate(tasks: Sequence[GameTask], settings: InferenceSettings) -> pd.DataFrame:
    """One parameter value on one participant's games: the model's P(take) at each of the
    participant's decisions (the agents and estimates this made are forgotten after, so a
    long fit's memory stays flat)."""
    try:
        frame = replay_likelihood(tasks, settings)
    finally:
        clear_caches()
    return frame[list(DECISION_COLUMNS)].reset_index(drop=True)


def decision_loglik(frame: pd.DataFrame, lapse: float) -> np.ndarray:
    """The lapse-mixed log-likelihood of each logged move (0 for a forced take)."""
    took = (frame["action"] == "take").to_numpy()
    p = frame["p_take"].to_numpy(float)
    mixed = lapse_mix(np.where(took, p, 1.0 - p), lapse)
    return np.where(frame["forced"].to_numpy(bool), 0.0, np.log(mixed))


# ------------------------------------------------------------------ the fits
@dataclass
class _ParticipantFit:
    """One participant's optimisation in flight: the Optuna study, the batch out, the
    evaluations so far."""

    participant: str
    tasks: list[GameTask]
    settings: FitSettings
    study: object = None
    batch: list = field(default_factory=list)
    results: dict = field(default_factory=dict)
    rows: list[dict] = field(default_factory=list)
    best: tuple[float, pd.DataFrame | None] = (-math.inf, None)
    told: int = 0

    def __post_init__(self) -> None:
        try:
            import optuna
        except ModuleNotFoundError:
            raise FitError("nothanks fit needs Optuna: pip install 'nothanks[calibrate]'"
                           ) from None
        optuna.logging.set_verbosity(optuna.logging.WARNING)
        seed = int(state_words(self.settings.seed, *_words(text_seed(self.participant)))[0])
        startup = max(2, min(10, self.settings.trials // 3))
        sampler = optuna.samplers.TPESampler(seed=seed, n_startup_trials=startup,
                                             constant_liar=True, multivariate=True)
        self.study = optuna.create_study(direction="maximize", sampler=sampler)
        self.distributions = {
            name: optuna.distributions.FloatDistribution(r.low, r.high, log=r.log)
            for name, r in self.settings.ranges}

    @property
    def done(self) -> bool:
        return self.told >= self.settings.trials and not self.batch

    def ask(self) -> list[tuple[int, dict[str, float]]]:
        """The next batch of parameter values (empty when every trial was asked)."""
        size = min(BATCH, self.settings.trials - self.told)
        self.batch = [self.study.ask(self.distributions) for _ in range(max(size, 0))]
        return [(t.number, dict(t.params)) for t in self.batch]

    def tell(self, number: int, frame: pd.DataFrame) -> None:
        """One evaluation's result; the batch is told to the optimiser once whole, in
        trial order (so the fit does not depend on which worker finished first)."""
        self.results[number] = frame
        if len(self.results) < len(self.batch):
            return
        for trial in self.batch:
            frame = self.results.pop(trial.number)
            ll = decision_loglik(frame, self.settings.lapse)
            total = float(ll.sum())
            self.study.tell(trial, total)
            self.told += 1
            per_game = pd.Series(ll).groupby(frame["game_id"].to_numpy()).sum()
            for game, value in per_game.items():
                self.rows.append({"participant": self.participant, "trial": trial.number,
                                  **dict(trial.params), "game_id": int(game),
                                  "loglik": float(value)})
            if total > self.best[0]:
                self.best = (total, frame.assign(trial=trial.number))
        self.batch = []

    def evaluations(self) -> pd.DataFrame:
        return pd.DataFrame(self.rows)


def _words(value: int) -> tuple[int, int]:
    return value & 0xFFFFFFFF, value >> 32


class _Runner:
    """Where evaluations run: this process, local worker processes, or a Dask cluster."""

    def __init__(self, processes: int, scheduler: str | None) -> None:
        self.processes, self.scheduler = processes, scheduler
        self.pool = self.client = None

    def __enter__(self) -> _Runner:
        if self.scheduler is not None:
            from distributed import Client
            self.client = Client(self.scheduler)
            self.workers = max(1, sum(self.client.nthreads().values()))
        elif self.processes > 1:
            self.pool = worker_pool(self.processes).__enter__()
            self.workers = self.processes
        else:
            self.workers = 1
        return self

    def __exit__(self, *exc) -> None:
        if self.pool is not None:
            self.pool.__exit__(*exc)
        if self.client is not None:
            self.client.close()

    def submit(self, fn: Callable, *args) -> Future:
        if self.client is not None:
            return self.client.submit(fn, *args, pure=False)
        if self.pool is not None:
            return self.pool.submit(fn, *args)
        future: Future = Future()
        future.set_result(fn(*args))
        return future

    def wait_first(self, futures: Iterable) -> set:
        if self.client is not None:
            from distributed import wait as dask_wait
            return set(dask_wait(list(futures), return_when="FIRST_COMPLETED").done)
        return set(wait(list(futures), return_when=FIRST_COMPLETED).done)


def _paths(folder: Path, settings: FitSettings, participant: str) -> tuple[Path, Path]:
    base = folder / settings.key()
    return base / f"{participant}.parquet", base / f"{participant}-decisions.parquet"


def fit_participants(log, participants: Sequence[str] | None, settings: FitSettings, *,
                     folder: str | Path | None = None, processes: int = 1,
                     scheduler: str | None = None, progress: bool = False) -> FitResult:
    """Fit ``settings.model``'s free parameters to each participant (default: every one).

    ``folder``: where finished participants are kept (resume; default: nothing kept).
    ``processes`` local workers or ``scheduler`` (a Dask scheduler's address) evaluate.

    Raises:
        FitError / InferenceError: a participant not in the log, a game that cannot be
            replayed, bad settings; the message says which.
    """
    if isinstance(log, (str, Path)):
        from ..experiments.log import load
        log = load(log)
    try:
        lowest = {name: bounds.low for name, bounds in settings.ranges}
        make_agent(settings.inference(lowest).spec(settings.model))
    except ValueError as exc:
        raise FitError(f"{settings.model} with --param {dict(settings.readings)}: {exc}"
                       ) from None
    decisions = log.decisions
    known = sorted(decisions["participant"].dropna().unique())
    if not known:
        raise FitError("the log holds no participant sessions; fit reads the human seat of "
                       "participant logs")
    chosen = list(participants) if participants else known
    if missing := [p for p in chosen if p not in known]:
        raise FitError(f"participant {', '.join(missing)} is not in the log; valid: "
                       f"{', '.join(known[:10])}{' ...' if len(known) > 10 else ''}")
    folder = None if folder is None else Path(folder)
    done: dict[str, tuple[pd.DataFrame, pd.DataFrame]] = {}
    todo = []
    for participant in chosen:
        if folder is not None and all(p.exists() for p in _paths(folder, settings, participant)):
            done[participant] = tuple(pd.read_parquet(p)
                                      for p in _paths(folder, settings, participant))
        else:
            todo.append(participant)
    fits = [_ParticipantFit(p, game_tasks(decisions, log.conditions, p), settings)
            for p in todo]
    with _Runner(processes, scheduler) as runner, progress_bar(
            len(todo) * settings.trials, unit="evaluation", desc=f"fit {settings.model}",
            enabled=progress) as bar:
        active: list[_ParticipantFit] = []
        waiting = list(fits)
        running: dict = {}
        while waiting or active:
            # enough participants in flight to keep every worker busy, and no more: a
            # stopped fit loses at most those participants' evaluations
            while waiting and len(active) * BATCH < 2 * runner.workers:
                active.append(waiting.pop(0))
            for fit in active:
                if not fit.batch and not fit.done:
                    for number, values in fit.ask():
                        future = runner.submit(evaluate, fit.tasks,
                                               settings.inference(values))
                        running[future] = (fit, number)
            for future in runner.wait_first(running):
                fit, number = running.pop(future)
                fit.tell(number, future.result())
                bar.update()
            for fit in [f for f in active if f.done]:
                active.remove(fit)
                evaluations, best = fit.evaluations(), fit.best[1]
                if folder is not None:
                    path, decisions_path = _paths(folder, settings, fit.participant)
                    path.parent.mkdir(parents=True, exist_ok=True)
                    write_frame(best, decisions_path)  # the evaluations last: done when
                    write_frame(evaluations, path)     # both are there
                done[fit.participant] = (evaluations, best)
    source = data_source(decisions[decisions["participant"].isin(chosen)])
    labels = (decisions[decisions["participant"].isin(chosen)
                        & (decisions["player_kind"] == "human")]
              .groupby("participant")["agent_label"].first().astype(str))
    return FitResult(settings, {p: done[p] for p in chosen}, source, labels.to_dict())


@dataclass
class FitResult:
    """The fits of :func:`fit_participants`: per participant, its evaluations (one row per
    trial and game: the parameter values and the game's log-likelihood) and the
    per-decision P(take) at the estimate."""

    settings: FitSettings
    per_participant: dict[str, tuple[pd.DataFrame, pd.DataFrame]]
    source: str
    labels: dict[str, str]

    def evaluations(self) -> pd.DataFrame:
        """Every evaluation: participant, trial, parameter values, game, log-likelihood."""
        return pd.concat([e for e, _ in self.per_participant.values()], ignore_index=True) \
            .assign(model=self.settings.model, source=self.source)

    def predictions(self) -> pd.DataFrame:
        """Per participant and decision: the logged move and the model's P(take) at the
        estimate, lapse-mixed (``p_take_mixed``)."""
        frames = [d for _, d in self.per_participant.values()]
        out = pd.concat(frames, ignore_index=True)
        out["p_take_mixed"] = lapse_mix(out["p_take"].to_numpy(float), self.settings.lapse)
        return out.assign(model=self.settings.model, source=self.source)

    def table(self) -> pd.DataFrame:
        """The tidy table: one row per participant and parameter (see module doc)."""
        settings = self.settings
        rows = []
        for participant, (evaluations, best) in self.per_participant.items():
            names = [n for n, _ in settings.ranges]
            wide = evaluations.pivot_table(index=["trial", *names], columns="game_id",
                                           values="loglik", aggfunc="sum")
            points = wide.index.to_frame(index=False)
            per_game = wide.to_numpy(float)
            totals = per_game.sum(axis=1)
            top = int(np.argmax(totals))
            rng = np.random.default_rng(state_words(settings.seed, 77,
                                                    *_words(text_seed(participant)),
                                                    words=4))
            games = per_game.shape[1]
            counts = rng.multinomial(games, np.full(games, 1.0 / games),
                                     size=settings.bootstrap)
            chosen = np.argmax(per_game @ counts.T, axis=0)
            free = int((~best["forced"].astype(bool)).sum())
            loglik = float(totals[top])
            evidence = bic_evidence(loglik, len(names), free)
            tail = (1 - CONFIDENCE) / 2
            for name, bounds in settings.ranges:
                boot = points[name].to_numpy(float)[chosen]
                estimate = float(points[name].iloc[top])
                width = bounds.high - bounds.low
                rows.append({
                    "participant": participant, "player_label": self.labels.get(participant),
                    "model": settings.model, "parameter": name, "estimate": estimate,
                    "ci_low": float(np.quantile(boot, tail)),
                    "ci_high": float(np.quantile(boot, 1 - tail)),
                    "range_low": bounds.low, "range_high": bounds.high,
                    "at_bound": bool(min(estimate - bounds.low, bounds.high - estimate)
                                     < 0.02 * width),
                    "interval": INTERVAL_METHOD, "bootstrap": settings.bootstrap,
                    "loglik": loglik, "decisions": free, "games": games,
                    "n_params": len(names), "bic": -2.0 * evidence,
                    "log_evidence": evidence, "trials": len(points),
                    "best_trial": int(points["trial"].iloc[top]), "source": self.source})
        return pd.DataFrame(rows)


def evidence_table(tables: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """Participants x models log evidences (BIC) from several models' fit tables."""
    rows = pd.concat([t.drop_duplicates(["participant", "model"]) for t in tables])
    return rows.pivot(index="participant", columns="model", values="log_evidence")


__all__ = ["BATCH", "CONFIDENCE", "DECISION_COLUMNS", "FIT_MODELS", "FIT_PARAMETERS",
           "INTERVAL_METHOD", "TOKEN_MEMORY_PARAMETERS", "FitError", "FitResult",
           "FitSettings", "ParameterRange", "decision_loglik", "evaluate", "evidence_table",
           "fit_participants", "model_parameters"]
