"""Held-out checks: the defaults and a fit measured on deals the fit never played.

Contract:

- :func:`evaluate` measures every named target for a point on the deals of ``seed``,
  with 95% intervals; :func:`heldout_table` puts the thesis and several configurations
  side by side (Markdown).
- :func:`heldout_check` evaluates the defaults, any further configurations and the fit
  on a seed the fit did not use, and writes ``heldout.md``, ``heldout.csv`` and
  ``heldout.json`` into the study's folder; :func:`record_check` adds the fit's values
  to its preset's provenance.
- :func:`report_markdown` is the calibration section of ``results.md``, read from the
  shipped studies' files (it plays nothing).
"""
from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

from ... import experiments as ex
from .space import CalibrationError, params_hash, pick_names
from .targets import TARGETS, Measure, measure
from .trials import trial_design


def evaluate(params: Mapping[str, object], targets: Sequence[str], out: str | Path, *,
             games: int, seed: int, jobs: int | None = 1, client=None,
             model_preset: str | None = None, progress: bool = False) -> dict[str, Measure]:
    """Every target measured for ``params`` (``{}``: the defaults) on deals of ``seed``."""
    targets = pick_names(targets, TARGETS, "target")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    design = trial_design(params, targets, out, games, seed, "calibration-check",
                          model_preset)
    ex.run_design(design, out / "run", jobs=jobs, client=client, progress=progress)
    return measure(ex.load(out / "run"), targets)


def heldout_table(configs: Mapping[str, Mapping[str, Measure]], fitted: Sequence[str],
                  games: int, seed: int) -> str:
    """Markdown: target | source | thesis | one column per configuration (95% CIs)."""
    names = list(next(iter(configs.values())))
    header = "| target | role | source | thesis | " + " | ".join(configs) + " |"
    lines = [f"Evaluated on seed {seed} (not used in fitting), {games} games per condition; "
             "shares with 95% Wilson intervals, Welch t scaled to the thesis's 500 games "
             "(interval: 95% CI of the mean difference, same scale), Figure 14 slope with a "
             "normal 95% interval.", "", header,
             "| " + " | ".join(["---"] * (4 + len(configs))) + " |"]
    for name in names:
        t = TARGETS[name]
        role = "fitted" if name in fitted else "held out"
        cells = [t.show(c[name]) for c in configs.values()]
        lines.append(f"| {name} | {role} | {t.source} | {t.thesis} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def heldout_check(study_out: str | Path, params: Mapping[str, object],
                  fitted: Sequence[str], heldout: Sequence[str], *, games: int, seed: int,
                  fit_seeds: Sequence[int] = (), jobs: int | None = 1, client=None,
                  model_preset: str | None = None, label: str = "thesis-fit",
                  progress: bool = False,
                  compare: Mapping[str, Mapping[str, object]] | None = None) -> Path:
    """Defaults vs fitted parameters on an unseen seed; writes ``heldout.md``.

    ``compare``: further configurations shown between the two (name -> parameters),
    e.g. the values an earlier study shipped. Returns the path of ``heldout.md``;
    :class:`CalibrationError` if ``seed`` is one of ``fit_seeds``.
    """
    if seed in fit_seeds:
        raise CalibrationError(f"evaluation seed {seed} was used in fitting (seeds "
                               f"{', '.join(map(str, fit_seeds))}); give another")
    study_out = Path(study_out)
    targets = tuple(dict.fromkeys([*fitted, *heldout]))
    configs = {}
    for name, values in (("defaults", {}), *dict(compare or {}).items(), (label, params)):
        folder = study_out / "heldout" / f"{name}-{seed}-{games}-{params_hash(values)}"
        configs[name] = evaluate(values, targets, folder,
                                 games=games, seed=seed, jobs=jobs, client=client,
                                 model_preset=model_preset, progress=progress)
    path = study_out / "heldout.md"
    path.write_text(heldout_table(configs, fitted, games, seed))
    rows = [{"target": n, "config": c, "value": m.value, "ci_low": m.low, "ci_high": m.high,
             "n": m.n, "note": m.note} for c, ms in configs.items() for n, m in ms.items()]
    pd.DataFrame(rows).to_csv(study_out / "heldout.csv", index=False)
    (study_out / "heldout.json").write_text(json.dumps({"seed": seed, "games": games}))
    record_check(study_out, label)
    return path


def record_check(study_out: str | Path, label: str) -> Path | None:
    """Add the held-out check's values (``heldout.csv``) to the preset's provenance."""
    study_out = Path(study_out)
    preset, table = study_out / f"{label}.toml", study_out / "heldout.csv"
    if not preset.exists() or not table.exists():
        return None
    check = json.loads((study_out / "heldout.json").read_text())
    rows = pd.read_csv(table)
    rows = rows.loc[rows["config"] == label]
    text = preset.read_text().split("\n[provenance.check]")[0].rstrip("\n")
    lines = ["", "[provenance.check]",
             "# every target on a seed the fit never used: [value, 95% low, 95% high]",
             f"seed = {check['seed']}", f"games = {check['games']}"]
    lines += [f"{r.target} = [{r.value:.6g}, {r.ci_low:.6g}, {r.ci_high:.6g}]"
              for r in rows.itertuples()]
    preset.write_text(text + "\n" + "\n".join(lines) + "\n")
    return preset


def report_markdown(folder: str | Path | None = "data/calibration") -> str:
    """The calibration section of ``results.md``: for every shipped study in ``folder``
    (a ``heldout.csv`` beside its preset), which configuration is the default and why,
    where the preset came from, and thesis | defaults | (earlier values) | preset on the
    deals the fit never used. Empty when there is no study (or ``folder`` is None)."""
    folder = Path(folder) if folder is not None else None
    studies = (sorted(p.parent for p in folder.glob("*/heldout.csv"))
               if folder is not None and folder.is_dir() else [])
    if not studies:
        return ""
    text = ["", "## Calibration: the defaults and the calibration studies (source: simulation)",
            "",
            "The defaults stay the default: they are the values the thesis states or our "
            "documented readings of it, so every result above is reproducible without a "
            "fit. Each study below was fitted with `nothanks calibrate` "
            "(docs/calibration.md); a study that met its targets ships as an opt-in preset "
            f"({', '.join(f'`{p}`' for p in shipped_presets()) or 'none'}), one that did "
            "not is kept as a record only. Its columns are measured on a seed the fit "
            "never used. `role`: fitted, held out (a prediction), or a copy (a held-out "
            "row equal to another target's in every column: not a prediction); `met`: "
            "whether the fit's value on the check lies in the target's range (for a single "
            "thesis number: whether its 95% interval holds it)."]
    for study in studies:
        text += ["", *_study_markdown(study)]
    return "\n".join(text) + "\n"


def _study_markdown(study: Path) -> list[str]:
    import tomllib
    name = study.name
    rows = pd.read_csv(study / "heldout.csv")
    check = json.loads((study / "heldout.json").read_text())
    preset_file = study / f"{name}.toml"
    meta = tomllib.loads(preset_file.read_text()) if preset_file.exists() else {}
    prov = meta.get("provenance", {})
    fitted = list(prov.get("targets", []))
    configs = list(dict.fromkeys(rows["config"]))
    stand_ins = any(t.startswith("human_") for t in rows["target"])
    shipped = name in shipped_presets()
    lines = [(f"### Preset `{name}`" if shipped else
              f"### Study `{name}` (not shipped: no preset `{name}`)")
             + (" (stand-ins in the participants' seat)" if stand_ins else ""), ""]
    values = {t: tuple(g.sort_values("config")[["value", "ci_low", "ci_high"]]
                       .round(12).itertuples(index=False, name=None))
              for t, g in rows.groupby("target", sort=False)}
    fit = rows.loc[rows["config"] == configs[-1]].set_index("target")
    missed = [t for t in fitted if t in fit.index and not met(t, fit.loc[t])]
    if stand_ins:
        lines += ["> **SYNTHETIC — not data.** Stand-in agents play the participants' seat; "
                  "the thesis column is people.", ""]
    if prov:
        lines += [f"Fitted by `{prov.get('command', '')}`: {prov.get('trials')} trials of "
                  f"{prov.get('games')} games per condition, seed {prov.get('seed')}, loss "
                  f"{prov.get('loss')}. Checked on seed {check['seed']}, {check['games']} "
                  "games per condition (95% intervals).", ""]
    if not shipped:
        lines += [f"The fit did not meet its targets, so it is not a preset: "
                  f"`tom1:preset={name}` is refused as an unknown preset.", ""]
    if missed:
        lines += [f"Missed on the check: {len(missed)} of {len(fitted)} fitted targets "
                  f"({', '.join(f'`{t}`' for t in missed)}).", ""]
    lines += ["| target | role | source | thesis | " + " | ".join(configs) + " | met |",
              "| " + " | ".join(["---"] * (5 + len(configs))) + " |"]
    for target, group in rows.groupby("target", sort=False):
        t = TARGETS[target]
        cells = []
        for config in configs:
            r = group.loc[group["config"] == config]
            cells.append(t.show(Measure(*r[["value", "ci_low", "ci_high"]].iloc[0]))
                         if len(r) else "")
        order = list(values)
        copy = next((other for other in order[:order.index(target)]
                     if values[other] == values[target]), None)
        role = ("fitted" if target in fitted else
                f"copy of `{copy}` (equal in every column: not a prediction)" if copy
                else "held out")
        hit = ("—" if target not in fit.index else "yes" if met(target, fit.loc[target])
               else "no")
        lines.append(f"| {target} | {role} | {t.source} | {t.thesis} | " + " | ".join(cells)
                     + f" | {hit} |")
    return lines


def met(target: str, row) -> bool:
    """Whether a check's ``row`` (``value``, ``ci_low``, ``ci_high``) meets ``target``: a
    range target when the value lies in its range, a point target (one thesis number,
    low = high) when the 95% interval holds it."""
    t = TARGETS[target]
    if t.low is not None and t.low == t.high:
        return bool(row["ci_low"] <= t.low <= row["ci_high"])
    return t.loss(float(row["value"])) == 0


def shipped_presets() -> tuple[str, ...]:
    """The names of the presets ``make_agent`` knows (``nothanks/agents/presets``)."""
    from ...agents.spec import presets
    return tuple(presets())
