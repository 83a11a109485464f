"""An append-only column with a NumPy view: the declarative memory's (and the token
memory's) storage for values added one at a time and read now and then as an array."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

_EMPTY: dict[Any, np.ndarray] = {}  # an empty array per dtype, shared until a column grows


class Growable:
    """Append-only sequence with a numpy view, copied over in batches.

    Appends go to a Python list (tens of nanoseconds, against a few hundred for a numpy
    element write); ``view()`` copies whatever arrived since the last view into a numpy
    array whose capacity doubles, so a column only read now and then costs one slice
    write per read instead of one element write per chunk.

    ``items`` is the values as a plain list, for reading them one by one without the
    view (a list read is cheaper than a NumPy element read); change them only through
    ``append`` and item assignment, which keep the view in step.
    """

    __slots__ = ("_data", "_filled", "_view", "append", "items")

    def __init__(self, dtype: Any, initial: Sequence[Any] = ()):
        self.items: list[Any] = list(initial)
        #: append a value: the list's own method, saving a Python call per chunk
        self.append = self.items.append
        # no array until the first view: most value indexes of a unique slot are never read
        self._data = _EMPTY.get(dtype)
        if self._data is None:
            self._data = _EMPTY[dtype] = np.empty(0, dtype=dtype)
        self._filled = 0  # items already copied into _data
        self._view: np.ndarray | None = None

    def copy(self) -> Growable:
        """An independent copy (its numpy array is rebuilt on its first view)."""
        return Growable(self._data.dtype, self.items)

    def __setitem__(self, index: int, value: Any) -> None:
        self.items[index] = value
        if index < self._filled:
            self._data[index] = value

    def __getitem__(self, index: int) -> Any:
        return self.items[index]

    def __len__(self) -> int:
        return len(self.items)

    def view(self) -> np.ndarray:
        """The filled part (a view, cached until the next append; do not write to it)."""
        size = len(self.items)
        if self._filled != size:
            if size > len(self._data):
                grown = np.empty(max(2 * len(self._data), size, 16), dtype=self._data.dtype)
                grown[: self._filled] = self._data[: self._filled]
                self._data = grown
            if self._data.dtype == object:  # one by one: tuples are values, not rows
                for index in range(self._filled, size):
                    self._data[index] = self.items[index]
            else:
                self._data[self._filled:size] = self.items[self._filled:size]
            self._filled = size
            self._view = None
        if self._view is None:
            self._view = self._data[:size]
        return self._view
