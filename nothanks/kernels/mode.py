"""The one switch between the compiled engine and the reference.

Every hot path of a model game exists twice: the plain **reference** (Python and NumPy,
close to the thesis's equations) and the compiled **engine** (this package's numba code,
the memory's compiled retrieval, the ToM core, batched baseline games, the token memory's
kept rows). Both give the same records bit for bit (tests/integration/agreement/test_games.py).

- ``NOTHANKS_REFERENCE=1`` in a process's environment: nothing is compiled in that
  process (``compiling.jit`` leaves every function plain Python, the search's too).
- ``with reference_mode():`` in a running process: every path that has a reference takes
  it until the block ends; functions with one implementation only (the search's rules
  kernel, IS-MCTS) stay compiled.

``reference()`` says which is in force; modules that keep a compiled entry point
register a callback with :func:`when_switched` to drop it when the switch moves.
"""
from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager

#: The environment variable: ``1`` runs the whole process on the reference.
ENV = "NOTHANKS_REFERENCE"


def _from_environment() -> bool:
    value = os.environ.get(ENV, "").strip()
    if value in ("", "0"):
        return False
    if value == "1":
        return True
    raise ValueError(f"{ENV}={value!r} is not understood; valid: 1 (reference: nothing "
                     "compiled), 0 or unset (the compiled engine)")


#: Whether this process started on the reference (``NOTHANKS_REFERENCE=1``): then nothing
#: is compiled at all.
REFERENCE_PROCESS = _from_environment()
_reference = REFERENCE_PROCESS
_listeners: list[Callable[[], None]] = []


def reference() -> bool:
    """Whether the reference is in force now (the environment, or a
    :func:`reference_mode` block)."""
    return _reference


def when_switched(callback: Callable[[], None]) -> Callable[[], None]:
    """Call ``callback()`` whenever :func:`reference_mode` moves the switch (a module
    forgets the compiled entry point it keeps, and asks again on next use)."""
    _listeners.append(callback)
    return callback


def _set(value: bool) -> None:
    global _reference
    _reference = value
    for callback in _listeners:
        callback()


@contextmanager
def reference_mode(enabled: bool = True) -> Iterator[None]:
    """Within the block, every path that has a reference takes it (``enabled=False``: the
    engine, unless the process runs on the reference: ``NOTHANKS_REFERENCE=1`` has no
    compiled code to switch to). The previous state comes back when the block ends."""
    before = _reference
    _set(bool(enabled) or REFERENCE_PROCESS)
    try:
        yield
    finally:
        _set(before)
