"""What a study leaves in its folder.

Contract:

- :class:`Study` is what :func:`calibrate` returns: the Optuna study, its folder, the
  files written, the mean seconds of a complete trial and the values held fixed.
- :func:`write_outputs` writes ``trials.csv`` (:func:`trials_table`), and once a trial is
  complete ``summary.md``, the best point as a preset (:func:`write_preset`: ``NAME.toml``
  and, for an instance rule, ``NAME-instances.csv``) and the plots (:func:`write_plots`).
- :data:`STUDY_FILES` names everything a study may write (replaced as one set when a
  shipped study is updated); :func:`ship_preset` copies a preset into the shipped ones.

:func:`finished_trials` and :func:`write_plots` are internal to the package (the study
counts its trials with the first; tests replace the second).
"""
from __future__ import annotations

import json
import math
import shutil
import sys
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from .space import PARAMETERS, CalibrationError, split_params, typed_value
from .targets import TARGETS, Measure
from .trials import write_instances

#: What a study writes into its folder (``{name}``: the study's name): replaced as one
#: set when a shipped study is updated (``nothanks calibrate --update-shipped``).
STUDY_FILES = ("study.db", "trials", "trials.csv", "summary.md", "history.png",
               "importances.png", "{name}.toml", "{name}-instances.csv", "heldout",
               "heldout.md", "heldout.csv", "heldout.json")


@dataclass
class Study:
    """What :func:`calibrate` did: the Optuna study and where its outputs are."""

    study: object
    out: Path
    files: list[Path] = field(default_factory=list)
    seconds_per_trial: float = math.nan
    fixed: dict[str, object] = field(default_factory=dict)

    @property
    def best_params(self) -> dict[str, object]:
        """The best trial's values, with the values held fixed during the study."""
        return self.fixed | dict(self.study.best_trial.params)


def finished_trials(study) -> int:
    """How many trials of ``study`` finished: complete or pruned."""
    from optuna.trial import TrialState
    return len(study.get_trials(deepcopy=False,
                                states=(TrialState.COMPLETE, TrialState.PRUNED)))


# ------------------------------------------------------------------ files
def trials_table(study) -> pd.DataFrame:
    """One row per trial: state, loss, parameters, measured targets, seconds."""
    rows = []
    for t in study.trials:
        rows.append({"trial": t.number, "state": t.state.name, "loss": t.value,
                     **{f"param {k}": v for k, v in t.params.items()},
                     **{k: v for k, v in t.user_attrs.get("metrics", {}).items()},
                     "seconds": t.user_attrs.get("seconds")})
    return pd.DataFrame(rows)


def write_outputs(result: Study, targets: Sequence[str], heldout: Sequence[str],
                  settings: dict, command: str) -> list[Path]:
    """trials.csv, summary.md, the best parameters as a preset, and the study's plots.

    Sets ``result.seconds_per_trial`` (mean over complete trials) and returns the files
    written; with no complete trial only ``trials.csv`` is written.
    """
    study, out = result.study, result.out
    files = []
    table = trials_table(study)
    table.to_csv(out / "trials.csv", index=False)
    files.append(out / "trials.csv")
    complete = table.loc[table["state"] == "COMPLETE"]
    result.seconds_per_trial = float(complete["seconds"].mean()) if len(complete) else math.nan
    if not len(complete):
        return files
    best = study.best_trial
    states = ", ".join(f"{n} {s.lower()}" for s, n in table["state"].value_counts().items())
    lines = [f"# Study {study.study_name}", "",
             f"{len(table)} trials ({states}), "
             f"{settings['games']} games per condition, seed {settings['seed']}, stages "
             f"{settings['stages']}; mean {result.seconds_per_trial:.1f} s per complete trial.",
             "", f"Best trial {best.number}: loss {best.value:.4g}", "",
             "| parameter | best | default |", "| --- | --- | --- |"]
    lines += [f"| {k} | {_fmt(v)} | {_fmt(PARAMETERS[k].default)} |"
              for k, v in best.params.items()]
    lines += [f"| {k} (fixed) | {_fmt(v)} | {_fmt(PARAMETERS[k].default)} |"
              for k, v in result.fixed.items()]
    lines += ["", "| target (fitted) | thesis | source | best trial |", "| --- | --- | --- | --- |"]
    metrics = best.user_attrs.get("metrics", {})
    for name in targets:
        t = TARGETS[name]
        lines.append(f"| {name} | {t.thesis} | {t.source} | {t.show(Measure(metrics[name]))} |")
    lines += ["", f"Held out (not fitted; see `heldout.md` once evaluated): "
                  f"{', '.join(heldout) or 'none'}.", ""]
    (out / "summary.md").write_text("\n".join(lines))
    files.append(out / "summary.md")
    files += write_preset(result.best_params, out, study.study_name, settings, best.value,
                          metrics, finished_trials(study), command)
    files += write_plots(study, out)
    return files


def _fmt(value: object) -> str:
    return f"{value:.4g}" if isinstance(value, float) else str(value)


def write_preset(params: Mapping[str, object], out: Path, name: str, settings: dict,
                 loss: float, metrics: Mapping[str, float], trials: int,
                 command: str) -> list[Path]:
    """``NAME.toml`` (+ ``NAME-instances.csv``): copy both into ``nothanks/agents/presets``
    to ship them; ``tom1:preset=NAME`` then plays with these values."""
    model, standin, rule = split_params(params)
    values = standin if standin and not model and not rule else model
    agents = ["human-standin"] if values is standin else ["tom", "tom0", "tom1", "tom2"]
    files = []
    lines = [f"# A preset fitted by nothanks calibrate (study {name!r}); docs/calibration.md",
             f'description = "Parameters fitted to the thesis by study {name}"',
             f"agents = {json.dumps(agents)}"]
    if rule:
        csv = out / f"{name}-instances.csv"
        write_instances(rule, csv)
        files.append(csv)
        values = values | {"instances": csv.name}
        lines.append('paths = ["instances"]')
    lines += ["", "[params]"] + [f"{k} = {_toml(typed_value(v))}" for k, v in values.items()]
    lines += ["", "[provenance]", f"command = {_toml(command)}", f"seed = {settings['seed']}",
              f"trials = {trials}", f"games = {settings['games']}",
              f"targets = {json.dumps(settings['targets'])}", f"loss = {loss:.6g}",
              f"model_preset = {_toml(settings.get('model_preset') or '')}"
              "  # the ToM seats' preset while fitting ('' = defaults)",
              *(["# the instance rule behind the instance file"] if rule else []),
              *[f"rule_{k} = {_toml(v)}" for k, v in rule.items()],
              "", "[provenance.reached]"]
    lines += [f"{k} = {v:.6g}" for k, v in metrics.items()]
    path = out / f"{name}.toml"
    path.write_text("\n".join(lines) + "\n")
    return [path, *files]


def _toml(value: object) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (int, float)):
        return repr(value)
    return json.dumps(str(value))


def write_plots(study, out: Path) -> list[Path]:
    """Optimisation history and parameter importances (skipped, with a note, when the
    study has too few complete trials for them)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from optuna.exceptions import ExperimentalWarning
    from optuna.visualization import matplotlib as ovm
    files = []
    for stem, draw in (("history", ovm.plot_optimization_history),
                       ("importances", ovm.plot_param_importances)):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ExperimentalWarning)
                warnings.simplefilter("ignore", UserWarning)  # "too few trials": equal bars
                ax = draw(study)
        except (ValueError, RuntimeError, ZeroDivisionError) as exc:
            print(f"calibrate: no {stem} plot ({exc})", file=sys.stderr)
            continue
        figure = ax.figure if hasattr(ax, "figure") else ax.flat[0].figure
        figure.tight_layout()
        figure.savefig(out / f"{stem}.png", dpi=120)
        plt.close(figure)
        files.append(out / f"{stem}.png")
    return files


def ship_preset(study_out: str | Path, name: str, presets_dir: Path | None = None) -> list[Path]:
    """Copy a study's preset (and its instance file) into the shipped presets folder
    (``presets_dir``, default ``nothanks/agents/presets``); returns the copies.

    Raises:
        CalibrationError: ``study_out`` holds no preset ``NAME.toml``.
    """
    from ...agents.spec import PRESETS_DIR
    target = presets_dir or PRESETS_DIR
    copied = []
    for path in sorted(Path(study_out).glob(f"{name}.toml")) + sorted(
            Path(study_out).glob(f"{name}-instances.csv")):
        shutil.copy2(path, target / path.name)
        copied.append(target / path.name)
    if not copied:
        raise CalibrationError(f"{study_out}: no preset {name}.toml to ship")
    return copied
