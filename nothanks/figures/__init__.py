"""The thesis figures (8-14) and extras, drawn from the analysis tables.

:mod:`.plots` has one function per figure; :mod:`.build` is the ``nothanks figures``
pipeline that runs the designs it needs, computes the statistics and writes figures,
``figures/README.md`` and the results table.
"""
from .plots import (
    COLORS,
    STYLE,
    instance_map,
    participant_boxplots,
    prediction_accuracy_bars,
    proportional_ranking,
    rt_sweep_lines,
    token_memory_trace,
)

__all__ = [
    "COLORS", "STYLE", "instance_map", "participant_boxplots", "prediction_accuracy_bars",
    "proportional_ranking", "rt_sweep_lines", "token_memory_trace",
]
