"""The Optuna study: trials, stages, resuming and the sampler.

Contract of :func:`calibrate`:

- a trial draws one value per free parameter; the instance rule's parameters generate
  an instance file into the trial's folder (the rule stays a stated rule, never
  hand-edited instances);
- the trial is played through the experiment runner (:func:`nothanks.experiments.run_design`,
  local processes or a Dask client) in stages of growing size (common random numbers:
  every trial plays the same deals); after each stage the loss so far is reported and a
  hopeless trial is pruned (median pruner);
- the study lives in an Optuna storage (SQLite in the output folder by default), so it
  resumes after Ctrl-C, a crash or a kill and can be extended with more trials; a trial
  that was interrupted is queued again with the same parameters, its finished stages
  are kept and its unfinished stage is resumed;
- a trial's point is proposed from the seed, the number of finished trials and their
  results alone (never from the state of the process), and never repeats a finished
  point: a resumed, extended or interrupted study proposes what an uninterrupted one
  would; the study's settings are fixed by its first trial that begins to play, and a
  resumed study with other settings is refused (:class:`~.space.CalibrationError`).

Optuna is imported only when a study runs (the ``calibrate`` extra).
"""
from __future__ import annotations

import contextlib
import json
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from ... import experiments as ex
from ...experiments.design import Design
from ...progress import progress_bar
from ...rules.seeding import state_words
from .outputs import Study, finished_trials, write_outputs
from .space import (
    MODEL_PARAMETERS,
    PARAMETERS,
    CalibrationError,
    params_hash,
    pick_names,
    typed_value,
)
from .targets import DEFAULT_FIT, DEFAULT_HELDOUT, TARGETS, Target, measure
from .trials import stage_games, trial_design

#: Games per condition and trial a real study should play (the deals are paired).
DEFAULT_GAMES = 2000
#: Fractions of the games after which a trial reports its loss (the last is 1).
DEFAULT_STAGES = (0.25, 1.0)
#: Study attribute of the options that are not settings (they do not change the loss):
#: held-out targets, the start points the study was created with, the held-out check's
#: seed and games; with the settings they name every option of the study's command.
OPTIONS_KEY = "options"


def calibrate(out: str | Path, *, params: Sequence[str] = MODEL_PARAMETERS,
              targets: Sequence[str] = DEFAULT_FIT, heldout: Sequence[str] = DEFAULT_HELDOUT,
              trials: int = 20, games: int = DEFAULT_GAMES, seed: int = 2018,
              stages: Sequence[float] = DEFAULT_STAGES, storage: object = None,
              study_name: str = "thesis-fit", model_preset: str | None = None,
              weights: Mapping[str, float] | None = None, jobs: int | None = 1, client=None,
              progress: bool = True, command: str = "",
              start: Mapping[str, object] | Sequence[Mapping[str, object]] | None = None,
              fixed: Mapping[str, object] | None = None,
              options: Mapping[str, object] | None = None) -> Study:
    """Run (or resume, or extend) a study until it has ``trials`` finished trials.

    Args:
        params: free parameters (names of :data:`PARAMETERS`); the others keep defaults.
        targets: fitted targets (names of :data:`TARGETS`); ``heldout`` are only reported.
        games: games per condition per trial (2,000 for a real study: docs/calibrate.md).
        seed: root seed of the fit; stage *i* plays the deals of ``seed + i``.
        stages: fractions of ``games`` after which a trial reports and may be pruned.
        storage: an Optuna storage URL or storage object (default: SQLite ``study.db``
            in ``out``).
        model_preset: a preset the ToM seats start from (e.g. when fitting stand-ins).
        jobs, client: how each trial's games are played (as :func:`run_design`).
        start: values of some free parameters the new study tries first (one mapping,
            or several tried in order; Optuna's ``enqueue_trial``; the others are
            drawn), e.g. points a pilot search found.
        fixed: values of parameters that are not free in this study (e.g. a stand-in's
            base rules kept at an earlier fit's values while its habits are searched);
            parameters neither free nor fixed keep their defaults. The preset gets both.
        options: command-line options that shape the study's outputs but not its loss
            (e.g. ``check_seed``, ``check_games``). They are kept in the storage
            (:data:`OPTIONS_KEY`) with ``heldout`` and the ``start`` points the study
            was created with, so that the command that re-runs it can be rebuilt from
            the storage alone (``nothanks verify``).

    Raises:
        CalibrationError: a bad parameter, target or setting, settings that differ from
            the stored study's, or Optuna not installed.
    """
    try:
        import optuna
        from optuna.trial import TrialState
    except ModuleNotFoundError:
        raise CalibrationError("calibration needs Optuna: pip install 'nothanks[calibrate]'"
                               ) from None
    params = pick_names(params, PARAMETERS, "parameter")
    targets = pick_names(targets, TARGETS, "target")
    heldout = tuple(t for t in pick_names(heldout, TARGETS, "target") if t not in targets)
    if not params or not targets:
        raise CalibrationError("give at least one parameter and one target to fit")
    if trials < 1 or games < 1:
        raise CalibrationError(f"trials={trials}, games={games}: both must be >= 1")
    if not stages or not all(0 < f <= 1 for f in stages):
        raise CalibrationError(f"stages={list(stages)}: give fractions in (0, 1]")
    fixed = {n: (typed_value(v) if isinstance(v, str) else v) for n, v in (fixed or {}).items()}
    pick_names(list(fixed), PARAMETERS, "fixed parameter")
    if both := [n for n in fixed if n in params]:
        raise CalibrationError(f"{', '.join(both)}: both free and fixed; give each once")
    weights = dict(weights or {})
    pick_names(list(weights), TARGETS, "target")
    targets_used = {n: TARGETS[n] for n in targets}
    for name, w in weights.items():
        targets_used[name] = _with_weight(TARGETS[name], w)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    storage = storage or f"sqlite:///{(out / 'study.db').resolve()}"
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    settings = {"params": list(params), "targets": list(targets), "games": games,
                "seed": seed, "stages": list(stages), "model_preset": model_preset,
                "weights": weights, **({"fixed": fixed} if fixed else {})}
    points = [start] if isinstance(start, Mapping) else list(start or ())
    for point in points:
        pick_names(list(point), {n: None for n in params}, "start parameter (not a free one)")
    study = _open_study(study_name, storage, settings)
    _requeue_interrupted(study, params)
    first = study.user_attrs.get(OPTIONS_KEY, {}).get("start", [])
    if not study.trials:
        first = [dict(point) for point in points]
        for point in points:
            study.enqueue_trial(dict(point))
    study.set_user_attr(OPTIONS_KEY, {"heldout": list(heldout), "start": first,
                                      **dict(options or {})})
    per_stage = stage_games(games, stages)
    space = {name: PARAMETERS[name].distribution() for name in params}
    startup = min(8, trials)

    def objective(trial) -> float:
        values = fixed | {name: PARAMETERS[name].suggest(trial) for name in params}
        folder = out / "trials" / params_hash(values)
        folder.mkdir(parents=True, exist_ok=True)
        trial.set_user_attr("folder", str(folder.relative_to(out)))
        begun = time.perf_counter()
        loss = math.nan
        for stage, n in enumerate(per_stage):
            design = trial_design(values, targets, folder, n, seed + stage,
                                  f"{study_name}-stage{stage}", model_preset)
            if stage == 0:
                _begin(study, trial, design, settings)
            ex.run_design(design, folder / f"stage{stage}", jobs=jobs, client=client,
                          progress=False)
            # the stages played so far (a later stage's folder may hold an interrupted
            # attempt's games: it is resumed when the trial gets there)
            log = ex.load([folder / f"stage{i}" for i in range(stage + 1)])
            measured = measure(log, targets)
            loss = float(sum(targets_used[k].loss(m.value) for k, m in measured.items()))
            trial.set_user_attr("metrics", {k: m.value for k, m in measured.items()})
            trial.set_user_attr("seconds", time.perf_counter() - begun)
            trial.report(loss, stage)
            if stage < len(per_stage) - 1 and trial.should_prune():
                raise optuna.TrialPruned()
        return loss

    bar = progress_bar(trials, unit="trial", desc=study_name, enabled=progress,
                       done=finished_trials(study))
    try:
        while finished_trials(study) < trials:
            if not study.get_trials(deepcopy=False, states=(TrialState.WAITING,)):
                study.enqueue_trial(_propose(study, space, seed, startup))
            _run_trial(study, objective)
            _advance(bar, study)
    finally:
        bar.close()
    result = Study(study, out, fixed=fixed)
    result.files = write_outputs(result, targets, heldout, settings, command)
    return result



def _with_weight(target: Target, weight: float) -> Target:
    return replace(target, weight=weight)


def _open_study(name: str, storage: object, settings: dict):
    """The study ``name`` in ``storage``, created or resumed.

    A study none of whose trials began to play (e.g. a command that failed on a bad
    value before its first game) has measured nothing: it is started afresh, so it
    fixes no settings. A study with such a trial must be resumed with the settings it
    was started with (else its trials' losses would not compare).
    """
    import optuna

    def open_():
        return optuna.create_study(
            study_name=name, storage=storage, direction="minimize", load_if_exists=True,
            pruner=optuna.pruners.MedianPruner(n_startup_trials=4, n_warmup_steps=0))
    study = open_()
    if "settings" in study.user_attrs and _has_begun(study):
        _check_settings(study, settings)
    elif study.trials or study.user_attrs:
        optuna.delete_study(study_name=name, storage=storage)
        study = open_()
    return study


def _has_begun(study) -> bool:
    """Whether a trial of ``study`` began to play (or, in a study from before trials
    were marked, finished, reported a stage or was left running)."""
    from optuna.trial import TrialState
    return any(t.user_attrs.get("began") or t.intermediate_values or t.state in (
        TrialState.COMPLETE, TrialState.PRUNED, TrialState.RUNNING) for t in study.trials)


def _begin(study, trial, design: Design, settings: dict) -> None:
    """Mark ``trial`` as beginning to play ``design``; the first trial that begins
    fixes the study's settings, once its agents are checked (a bad value fixes none)."""
    if "settings" not in study.user_attrs:
        design.validate_agents()
        study.set_user_attr("settings", settings)
    trial.set_user_attr("began", True)


def _check_settings(study, settings: dict) -> None:
    """A resumed study must keep what defines its loss (else its trials don't compare)."""
    stored = study.user_attrs["settings"]
    if stored != json.loads(json.dumps(settings)):
        changed = sorted(k for k in settings if stored.get(k) != json.loads(
            json.dumps(settings[k])))
        raise CalibrationError(
            f"study {study.study_name!r} was started with other settings ({', '.join(changed)}:"
            f" {', '.join(f'{k}={stored.get(k)!r}' for k in changed)}); use them, or a new "
            "--study-name or output folder")


def _requeue_interrupted(study, params: Sequence[str]) -> None:
    """Trials left running by a killed or interrupted process: mark them failed and queue
    their parameters again (their finished stages are on disk and are reused, their
    unfinished stage is resumed). A trial interrupted before it had drawn every free
    parameter is not queued: the next proposal is the same point (:func:`_propose`).
    One process works on a study at a time; its trials run their games in parallel."""
    from optuna.trial import TrialState
    for trial in study.get_trials(deepcopy=True, states=(TrialState.RUNNING,)):
        study.tell(trial.number, state=TrialState.FAIL)
        if set(trial.params) == set(params):
            study.enqueue_trial(trial.params, skip_if_exists=False)


#: Proposals drawn for one trial before the study gives up finding a point it has not
#: finished (only a small, all-discrete space runs out).
PROPOSALS = 200


def _propose(study, space: Mapping[str, object], seed: int, startup: int) -> dict:
    """The next point to try: TPE's proposal from the study's finished trials, seeded by
    ``seed`` and their number (so a resumed or extended study proposes what an
    uninterrupted one would), redrawn until it is not a point already finished."""
    import optuna
    from optuna.trial import TrialState
    finished = study.get_trials(deepcopy=True, states=(TrialState.COMPLETE,
                                                       TrialState.PRUNED))
    seen = {_point_key(t.params) for t in finished}
    size = _space_size(space)
    if size is not None and len(seen) >= size:
        raise CalibrationError(
            f"study {study.study_name!r} has finished every one of the {size} points of its "
            f"free parameters ({', '.join(space)}); ask for at most {size} trials, or free "
            "another parameter")
    scratch = optuna.create_study(direction="minimize")  # in memory: the proposals only
    scratch.add_trials(finished)
    for attempt in range(PROPOSALS):
        words = state_words(seed, len(finished), attempt)
        scratch.sampler = optuna.samplers.TPESampler(seed=int(words[0]),
                                                     n_startup_trials=startup)
        point = scratch.ask(dict(space)).params
        if _point_key(point) not in seen:
            return point
    raise CalibrationError(
        f"study {study.study_name!r}: {PROPOSALS} proposals were all points it has "
        f"finished ({len(seen)} so far); free another parameter or stop here")


def _point_key(params: Mapping[str, object]) -> str:
    return json.dumps({k: params[k] for k in sorted(params)}, default=str)


def _space_size(space: Mapping[str, object]) -> int | None:
    """How many points the space has (None: a continuous parameter, unbounded)."""
    from optuna.distributions import CategoricalDistribution, IntDistribution
    size = 1
    for dist in space.values():
        if isinstance(dist, CategoricalDistribution):
            size *= len(dist.choices)
        elif isinstance(dist, IntDistribution):
            size *= (dist.high - dist.low) // dist.step + 1
        else:
            return None
    return size


def _run_trial(study, objective: Callable) -> None:
    """Ask for the next (queued) trial, play it and tell the study how it ended. An
    interrupted trial (Ctrl-C) is left running, as a kill leaves it: the next run
    queues it again; any other error fails it and is raised."""
    import optuna
    from optuna.trial import TrialState
    trial = study.ask()
    try:
        loss = objective(trial)
    except optuna.TrialPruned:
        study.tell(trial, state=TrialState.PRUNED)
    except KeyboardInterrupt:
        raise
    except BaseException:
        study.tell(trial, state=TrialState.FAIL)
        raise
    else:
        study.tell(trial, loss)


def _advance(bar, study) -> None:
    bar.n = finished_trials(study)
    with contextlib.suppress(ValueError):  # no complete trial yet
        bar.set_postfix(best=f"{study.best_value:.3g}")
    bar.refresh()


def seconds_estimate(seconds_per_trial: float, games: int, trials: int,
                     target_games: int = DEFAULT_GAMES, target_trials: int = 100) -> float:
    """Serial wall time of a study of ``target_trials`` × ``target_games`` from a measured
    trial (cost grows linearly with games; pruning ignored, so an upper bound)."""
    return seconds_per_trial * target_games / games * target_trials

