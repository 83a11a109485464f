"""Recovery before reading: can the fits find parameters and models that were planted?

Simulated players (SYNTHETIC, labelled so in every table) of known model and known
parameters, drawn from a stated prior, play the participants' 24-game Table 6 schedule
in the participant's chair (:func:`nothanks.studies.inference.play_simulated_player`:
the model decides, and with probability ``lapse`` a coin flip replaces its move). Then
every fitted model is fitted to every player (:mod:`nothanks.studies.fitting`) and

* **parameter recovery** (:func:`parameter_recovery`): per model and parameter, the
  Pearson correlation between planted and fitted values over the players of that model,
  with a Fisher-z 95% interval, and the correlation matrix of the fitted values
  (:func:`fitted_correlations`), where trade-offs between parameters show;
* **model recovery** (:func:`model_confusion`): each player's best model by BIC evidence,
  with fitted (not fixed) parameters, tallied per true model, and ToM0 vs ToM>=1.

Wilson & Collins (2019), "Ten simple rules for the computational modeling of behavioral
data", rules 5 and 6. Every random number derives from the seed.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ..analysis.paired import wilson_interval
from ..experiments.backends import worker_pool
from ..progress import progress_bar
from ..rules.seeding import stream
from .fitting import FIT_MODELS, FitError, model_parameters
from .inference import CANDIDATES, play_simulated_player

#: The planted prior (uniform on each range) of the recovery in docs/fitting.md:
#: around the defaults s = 0.1 and rt = -2 (docs/models.md, "Parameters").
DEFAULT_PRIOR: dict[str, tuple[float, float]] = {"s": (0.05, 0.3), "rt": (-3.0, -1.0)}
#: Simulated players per true model when none are given (``nothanks fit --recover``).
DEFAULT_TYPES: dict[str, int] = {"ToM1": 30, "ToM0": 15}
#: Participant ids of the simulated players: ``recovery-tom1-07``.
PREFIX = "recovery"


def plant_players(counts: Mapping[str, int], prior: Mapping[str, tuple[float, float]],
                  seed: int = 0, readings: Mapping[str, str] | None = None) -> pd.DataFrame:
    """One row per simulated player: id, true model, the agent spec and the planted value
    of every prior parameter the model reads (NaN where it reads none), each uniform on
    its prior range, drawn from ``seed`` and the player's number."""
    for model, n in counts.items():
        if model not in FIT_MODELS:
            raise FitError(f"player type {model!r}; valid: {', '.join(FIT_MODELS)}")
        if not isinstance(n, int) or n < 1:
            raise FitError(f"{n!r} players of {model}; valid: an integer >= 1")
    for name, (low, high) in prior.items():
        if name not in model_parameters("ToM1") or not low < high:
            raise FitError(f"prior {name}={low}:{high}; valid: a parameter of "
                           f"{', '.join(model_parameters('ToM1'))} with LOW < HIGH")
    rows = []
    for m, (model, n) in enumerate(counts.items()):
        for i in range(1, n + 1):
            rng = stream(seed, 4747, FIT_MODELS.index(model), i)
            planted = {name: float(rng.uniform(low, high)) if name in model_parameters(model)
                       else np.nan for name, (low, high) in prior.items()}
            spec_params = {**(readings or {}),
                           **{k: f"{v:.6g}" for k, v in planted.items() if np.isfinite(v)}}
            spec = CANDIDATES[model] + (":" + ",".join(
                f"{k}={v}" for k, v in sorted(spec_params.items())) if spec_params else "")
            rows.append({"participant": f"{PREFIX}-{model.lower()}-{i:02d}",
                         "true_model": model, "spec": spec, "order": m,
                         **{f"planted_{k}": v for k, v in planted.items()}})
    return pd.DataFrame(rows).drop(columns="order").assign(source="synthetic")


def _play(job: tuple) -> str:
    return play_simulated_player(*job)


def simulate_planted(out_dir: str | Path, planted: pd.DataFrame, lapse: float = 0.05, *,
                     design: object = "human-schedule", processes: int = 1,
                     progress: bool = False) -> list[str]:
    """Play every planted player's session of ``design`` (default: the Table 6
    schedule) into ``out_dir`` (resumable, like any session); returns their ids."""
    jobs = [(p, out_dir, spec, lapse, design)
            for p, spec in zip(planted["participant"], planted["spec"], strict=True)]
    with progress_bar(len(jobs), unit="player", desc="simulate players",
                      enabled=progress) as bar:
        if processes <= 1:
            for job in jobs:
                _play(job)
                bar.update()
        else:
            with worker_pool(processes) as pool:
                for _ in pool.map(_play, jobs):
                    bar.update()
    return list(planted["participant"])


def _pearson(x: np.ndarray, y: np.ndarray, confidence: float = 0.95
             ) -> tuple[float, float, float]:
    """Pearson r with its Fisher-z interval (NaN with fewer than 4 pairs or no spread)."""
    from scipy import stats
    n = len(x)
    if n < 4 or np.std(x) == 0 or np.std(y) == 0:
        return np.nan, np.nan, np.nan
    r = float(np.corrcoef(x, y)[0, 1])
    z = np.arctanh(np.clip(r, -0.999999, 0.999999))
    half = stats.norm.ppf(0.5 + confidence / 2) / np.sqrt(n - 3)
    return r, float(np.tanh(z - half)), float(np.tanh(z + half))


def parameter_recovery(fits: pd.DataFrame, planted: pd.DataFrame,
                       target: float = 0.8) -> pd.DataFrame:
    """Per fitted model and parameter, over the players whose true model it is: planted vs
    fitted Pearson r with its 95% Fisher-z CI, Spearman ρ, the bias and RMSE of the
    estimates, how many estimates sit at a range bound, and whether r reaches
    ``target`` (``recovered``: the CI's lower end reaches it too, ``recovered_point``:
    the point estimate does)."""
    from scipy import stats
    rows = []
    merged = fits.merge(planted, on="participant")
    for (model, parameter), part in merged.groupby(["model", "parameter"], sort=False):
        part = part[part["true_model"] == model]
        column = f"planted_{parameter}"
        if part.empty or column not in part:
            continue
        x = part[column].to_numpy(float)
        y = part["estimate"].to_numpy(float)
        r, low, high = _pearson(x, y)
        rho = float(stats.spearmanr(x, y).statistic) if len(x) > 2 else np.nan
        rows.append({"model": model, "parameter": parameter, "players": len(part),
                     "r": r, "ci_low": low, "ci_high": high, "spearman": rho,
                     "bias": float(np.mean(y - x)), "rmse": float(np.sqrt(np.mean((y - x) ** 2))),
                     "at_bound": int(part["at_bound"].sum()),
                     "ci_covers_planted": float(np.mean((part["ci_low"] <= x)
                                                        & (x <= part["ci_high"]))),
                     "recovered_point": bool(r >= target), "recovered": bool(low >= target),
                     "source": "synthetic"})
    return pd.DataFrame(rows)


def fitted_correlations(fits: pd.DataFrame) -> pd.DataFrame:
    """Per model, the correlation (Pearson, 95% Fisher-z CI) between every two of its
    fitted parameters across the players of that model: a trade-off shows as a strong
    correlation the planted values (drawn independently) do not have."""
    rows = []
    for model, part in fits.groupby("model", sort=False):
        if "true_model" in part:
            part = part[part["true_model"] == model]
        wide = part.pivot(index="participant", columns="parameter", values="estimate")
        names = list(wide.columns)
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                r, low, high = _pearson(wide[a].to_numpy(float), wide[b].to_numpy(float))
                rows.append({"model": model, "parameter_a": a, "parameter_b": b,
                             "players": len(wide), "r": r, "ci_low": low, "ci_high": high,
                             "source": "synthetic"})
    return pd.DataFrame(rows)


@dataclass(frozen=True)
class Confusion:
    """Model recovery: ``matrix`` (true model x chosen model: counts, share correct with
    its Wilson CI) and ``binary`` (ToM0 vs ToM>=1: correct, players, share, CI)."""

    matrix: pd.DataFrame
    binary: dict
    choices: pd.DataFrame


def model_confusion(evidence: pd.DataFrame, planted: pd.DataFrame) -> Confusion:
    """Each player's chosen model: the highest log evidence (BIC) of ``evidence``
    (participants x models; ties to the first column), against its true model."""
    models = list(evidence.columns)
    best = evidence.to_numpy(float).argmax(axis=1)
    choices = pd.DataFrame({"participant": evidence.index,
                            "chosen": [models[i] for i in best]}).merge(
        planted[["participant", "true_model"]], on="participant")
    rows = []
    for model in dict.fromkeys(planted["true_model"]):
        part = choices[choices["true_model"] == model]
        n = len(part)
        correct = int((part["chosen"] == model).sum())
        low, high = wilson_interval(correct, n)
        rows.append({"true": model, "players": n,
                     **{m: int((part["chosen"] == m).sum()) for m in models},
                     "correct": correct, "share": correct / n if n else np.nan,
                     "ci_low": low, "ci_high": high, "source": "synthetic"})
    truth = choices["true_model"] != "ToM0"
    found = choices["chosen"] != "ToM0"
    correct = int((truth == found).sum())
    low, high = wilson_interval(correct, len(choices))
    binary = {"players": len(choices), "correct": correct,
              "share": correct / len(choices), "ci_low": low, "ci_high": high}
    per_side = {}
    for name, side in (("ToM0", ~truth), ("ToM>=1", truth)):
        k, n = int((truth == found)[side].sum()), int(side.sum())
        lo, hi = wilson_interval(k, n) if n else (np.nan, np.nan)
        per_side[name] = {"players": n, "correct": k, "share": k / n if n else np.nan,
                          "ci_low": lo, "ci_high": hi}
    binary["per_side"] = per_side
    return Confusion(pd.DataFrame(rows), binary, choices.assign(source="synthetic"))


def recovery_markdown(recovery: pd.DataFrame, correlations: pd.DataFrame,
                      confusion: Confusion | None, prior: Mapping[str, Sequence[float]],
                      target: float = 0.8) -> str:
    """The recovery tables in Markdown, with the SYNTHETIC label and the prior stated."""
    from ..analysis.paired import SYNTHETIC_LABEL
    lines = [f"*{SYNTHETIC_LABEL}: simulated players with planted parameters.* Prior: "
             + ", ".join(f"{k} ~ U({lo:g}, {hi:g})" for k, (lo, hi) in prior.items()) + ".",
             "", "| model | parameter | players | r [95% CI] | Spearman | bias | RMSE | at "
             f"bound | CI covers planted | recovered (r ≥ {target:.1f}) |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in recovery.itertuples(index=False):
        verdict = ("yes" if r.recovered else "point estimate only" if r.recovered_point
                   else "**no**")
        lines.append(f"| {r.model} | {r.parameter} | {r.players} | {r.r:.2f} [{r.ci_low:.2f},"
                     f" {r.ci_high:.2f}] | {r.spearman:.2f} | {r.bias:+.3f} | {r.rmse:.3f} | "
                     f"{r.at_bound} | {r.ci_covers_planted:.2f} | {verdict} |")
    if len(correlations):
        lines += ["", "Fitted-parameter correlations (players of the fitted model):", "",
                  "| model | parameters | players | r [95% CI] |", "| --- | --- | --- | --- |"]
        for r in correlations.itertuples(index=False):
            lines.append(f"| {r.model} | {r.parameter_a}, {r.parameter_b} | {r.players} | "
                         f"{r.r:.2f} [{r.ci_low:.2f}, {r.ci_high:.2f}] |")
    if confusion is not None:
        matrix = confusion.matrix
        models = [c for c in matrix.columns if c in FIT_MODELS]
        lines += ["", "Model recovery (best BIC evidence, fitted parameters):", "",
                  "| true \\ chosen | " + " | ".join(models) + " | correct [95% Wilson CI] |",
                  "| --- |" + " --- |" * (len(models) + 1)]
        for r in matrix.to_dict("records"):
            lines.append(f"| {r['true']} | " + " | ".join(str(r[m]) for m in models)
                         + f" | {r['correct']}/{r['players']} = {r['share']:.2f} "
                         f"[{r['ci_low']:.2f}, {r['ci_high']:.2f}] |")
        b = confusion.binary
        lines += ["", f"ToM0 vs ToM≥1: {b['correct']}/{b['players']} = {b['share']:.2f} "
                  f"[{b['ci_low']:.2f}, {b['ci_high']:.2f}]; "
                  + "; ".join(f"{k} players {v['correct']}/{v['players']} = {v['share']:.2f} "
                              f"[{v['ci_low']:.2f}, {v['ci_high']:.2f}]"
                              for k, v in b["per_side"].items()) + "."]
    return "\n".join(lines) + "\n"


__all__ = ["DEFAULT_PRIOR", "DEFAULT_TYPES", "PREFIX", "Confusion", "fitted_correlations",
           "model_confusion", "parameter_recovery", "plant_players", "recovery_markdown",
           "simulate_planted"]
