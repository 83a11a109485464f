"""Fit free parameters to the thesis's published numbers (``nothanks calibrate``).

The thesis's instance file and tuned parameters were never published, so some of our
choices are free. A *study* searches them with Optuna (TPE sampler) for the values that
bring named *targets* — numbers the thesis reports, each with its section — closest:

* a trial draws one value per free parameter (:data:`PARAMETERS`: range and reason)
  and plays every table its targets need, in stages, on the same deals as every other
  trial (:func:`calibrate`);
* the loss is a weighted sum of squared distances of each fitted target's value from
  its thesis range, in units of the target's ``scale`` (:data:`TARGETS`);
* the study resumes after Ctrl-C, a crash or a kill, and can be extended with more
  trials: a resumed, extended or interrupted study proposes what an uninterrupted one
  would.

:func:`evaluate` measures every target (fitted and held out) for given parameters on a
seed the fit never used, with 95% intervals; :func:`heldout_table` puts the thesis, the
defaults and the fit side by side. The best parameters are written as a preset
(``nothanks/agents/presets``) that any spec can use: ``tom1:preset=thesis-fit``.

The modules, each with its contract in its docstring:

- :mod:`.space`: the free parameters, :class:`CalibrationError`, and the parsing of the
  ``--start``, ``--fixed`` and ``--weights`` lists;
- :mod:`.targets`: the thesis's targets, their measures and their loss;
- :mod:`.trials`: what a trial plays (its instance file, design and stages);
- :mod:`.study`: the Optuna study (trials, stages, resume, sampler);
- :mod:`.outputs`: the study's files (trials table, summary, preset, plots, shipping);
- :mod:`.heldout`: the held-out check and the calibration section of ``results.md``.

This is a study: it imports the experiments, analysis and agents.
"""
from __future__ import annotations

from .heldout import evaluate, heldout_check, heldout_table, report_markdown
from .outputs import Study, ship_preset, trials_table
from .space import PARAMETERS, CalibrationError, Parameter
from .study import DEFAULT_GAMES, calibrate
from .targets import DEFAULT_FIT, DEFAULT_HELDOUT, TARGETS, Measure, Target, describe
from .trials import trial_design

__all__ = ["DEFAULT_FIT", "DEFAULT_GAMES", "DEFAULT_HELDOUT", "PARAMETERS", "TARGETS",
           "CalibrationError", "Measure", "Parameter", "Study", "Target", "calibrate",
           "describe", "evaluate", "heldout_check", "heldout_table", "report_markdown",
           "ship_preset",
           "trial_design", "trials_table"]
