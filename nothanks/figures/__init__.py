"""The thesis figures (8-14) and extras, drawn from the analysis tables.

:mod:`.plots` has one function per figure; :mod:`.build` is the ``nothanks figures``
pipeline that runs the designs it needs, computes the statistics and writes figures,
``figures/README.md`` and the results table.
"""
__all__ = [
    "COLORS", "STYLE", "instance_map", "participant_boxplots", "prediction_accuracy_bars",
    "proportional_ranking", "rt_sweep_lines", "token_memory_trace",
]


def __getattr__(name: str):
    """Import the plotting stack (seaborn, matplotlib) only when a figure is asked for,
    so that ``nothanks --help`` and the other subcommands start quickly."""
    if name in __all__:
        from . import plots
        return getattr(plots, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
