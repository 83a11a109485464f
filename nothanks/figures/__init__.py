"""The thesis figures (8-14) and extras, drawn from the analysis tables.

:mod:`.plots` has one function per figure; :mod:`.gallery` says which statistics table
feeds which figure. Both take tables and return figures: running designs, computing
statistics and writing files is :mod:`nothanks.report` (the ``nothanks figures``
command).
"""
#: Public name -> the submodule defining it (imported on first use).
_SOURCES = {
    **dict.fromkeys(("COLORS", "STYLE", "instance_map", "participant_boxplots",
                     "prediction_accuracy_bars", "proportional_ranking", "rt_sweep_lines",
                     "token_memory_trace"), "plots"),
    **dict.fromkeys(("SIMULATION_FIGURES", "draw", "participant_figures",
                     "simulation_figures"), "gallery"),
    **dict.fromkeys(("advantage_by_order",), "orders"),
    "tournament_ratings": "tournament",
    "training_curve": "selfplay",
}
__all__ = sorted(_SOURCES)


def __getattr__(name: str):
    """Import the plotting stack (seaborn, matplotlib) only when a figure is asked for,
    so that ``nothanks --help`` and the other subcommands start quickly."""
    if name in _SOURCES:
        from importlib import import_module
        return getattr(import_module(f".{_SOURCES[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    """The lazily imported names too, so that autodoc and completion see them."""
    return sorted([*globals(), *__all__])
