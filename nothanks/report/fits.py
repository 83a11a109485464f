"""The ``fits`` study of ``nothanks studies``: every participant's parameters and the
group's model comparison (docs/fitting.md).

ToM0 (free: s) and ToM1 (free: s, rt) are fitted to each participant by maximum
likelihood (:mod:`nothanks.studies.fitting`); their BIC evidences go into random-effects
Bayesian model selection (:mod:`nothanks.analysis.bms`). With the shipped synthetic
stand-ins the tables say which model *mimics* a stand-in best, not what people do: the
stand-ins are none of the models, and every table and figure is labelled synthetic.
Finished participants are kept in ``cache/fits`` and reused by the next build.
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd
from matplotlib.figure import Figure

from ..analysis.bms import group_bms
from ..analysis.frames import markdown_table
from ..analysis.paired import SYNTHETIC_LABEL
from ..figures.fitting import fit_estimates, fit_vs_data
from ..studies.fitting import FitSettings, evidence_table, fit_participants

#: The fitted models and their free parameters.
STUDY_MODELS = (("ToM1", ("s", "rt")), ("ToM0", ("s",)))
#: Evaluations per participant and model, and re-decisions per decision (--quick: less).
TRIALS, SAMPLES = 30, 30
QUICK_TRIALS, QUICK_SAMPLES = 4, 5


def fits_outputs(participants: Path, cache: Path, quick: bool = False,
                 jobs: int | None = None) -> tuple[dict[str, pd.DataFrame],
                                                   dict[str, Figure], str]:
    """The study's tables (``fits``, ``bms``), figures and results.md section."""
    trials, samples = (QUICK_TRIALS, QUICK_SAMPLES) if quick else (TRIALS, SAMPLES)
    results = [fit_participants(participants, None, FitSettings(
        model, params, trials=trials, samples=samples), folder=cache / "fits",
        processes=jobs or 2) for model, params in STUDY_MODELS]
    tables = [r.table() for r in results]
    fits = pd.concat(tables, ignore_index=True)
    source = results[0].source
    bms = group_bms(evidence_table(tables)).table().assign(source=source)
    first = results[0].predictions()
    figures = {"extra_fits_estimates": fit_estimates(fits),
               "extra_fits_vs_data": fit_vs_data(first)}
    label = f"*{SYNTHETIC_LABEL}: stand-ins, none of the fitted models.*\n\n" \
        if source == "synthetic" else ""
    shown = fits.assign(interval=lambda t: t.apply(
        lambda r: f"{r.estimate:.3g} [{r.ci_low:.3g}, {r.ci_high:.3g}]", axis=1))
    wide = shown.pivot(index="participant", columns=["model", "parameter"],
                       values="interval")
    wide.columns = [f"{m} {p}" for m, p in wide.columns]
    text = ("\n## Per-participant fits and the group comparison\n\n" + label
            + "Maximum likelihood by Optuna TPE "
            f"({trials} evaluations per participant and model, {samples} re-decisions per "
            "decision, common random numbers), 95% bootstrap intervals over games; "
            + "; ".join(s.describe() for s in (r.settings for r in results)) + ".\n\n"
            + markdown_table(wide.reset_index()) + "\n\nRandom-effects BMS over the BIC "
            "evidences (Stephan et al. 2009; protected exceedance, Rigoux et al. 2014):\n\n"
            + markdown_table(bms.round(4)) + "\n")
    return {"fits": fits, "bms": bms}, figures, text


__all__ = ["QUICK_SAMPLES", "QUICK_TRIALS", "SAMPLES", "STUDY_MODELS", "TRIALS",
           "fits_outputs"]
