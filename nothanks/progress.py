"""The long commands' progress bars, in one style: tqdm on stderr (``tqdm.auto``), hidden
by ``--no-progress``, imported only when a bar is made (the command line stays fast)."""
from __future__ import annotations


def progress_bar(total: int | None, *, unit: str, desc: str, enabled: bool = True,
                 done: int = 0, smoothing: float = 0.3):
    """A tqdm bar of ``total`` ``unit``s (None: no total), ``done`` of them already,
    labelled ``desc``; ``enabled=False`` gives a bar that shows nothing (the same calls
    work on it). ``smoothing``: tqdm's, 0 for the average speed so far up to 1 for the
    latest."""
    from tqdm.auto import tqdm
    return tqdm(total=total, initial=done, unit=unit, desc=desc, disable=not enabled,
                smoothing=smoothing, dynamic_ncols=True)
