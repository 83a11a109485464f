"""The replay buffer of self-play training: the most recent samples, whole games at a time.

A sample is one decision of a self-play game: the mover's features (the network's input),
the search's policy target (the visit share of *take*) and the outcome target (the game's
rank rewards rotated to the mover). The buffer holds at most ``capacity`` samples; adding
a game drops the oldest *games* (never part of one) until the new game fits, so the buffer
is first in, first out by game. Minibatches are drawn uniformly (with replacement) by a
generator the caller seeds, so a training run is reproducible.

The buffer is stored in preallocated arrays used as a ring; :meth:`ReplayBuffer.to_arrays`
gives its contents oldest first (for a checkpoint) and :meth:`ReplayBuffer.from_arrays`
rebuilds a buffer that samples exactly as the saved one would have.
"""
from __future__ import annotations

from collections import deque

import numpy as np

from . import TrainError

#: The arrays of :meth:`ReplayBuffer.to_arrays` (and what :meth:`from_arrays` needs).
ARRAYS = ("features", "policy", "outcome", "game_lengths")


class ReplayBufferError(TrainError):
    """A sample, a capacity or saved arrays that do not fit the buffer (says which)."""


class ReplayBuffer:
    """At most ``capacity`` samples of ``feature_size`` features for ``players`` seats.

    Args:
        capacity: most samples held (>= 1). A game longer than the whole buffer keeps
            only its last ``capacity`` samples.
        feature_size: length of one feature vector.
        players: seats of the game (length of one outcome vector).
    """

    def __init__(self, capacity: int, feature_size: int, players: int) -> None:
        if capacity < 1 or feature_size < 1 or players < 1:
            raise ReplayBufferError(f"capacity={capacity}, feature_size={feature_size}, "
                                    f"players={players}: each must be >= 1")
        self.capacity = capacity
        self._features = np.zeros((capacity, feature_size), dtype=np.float32)
        self._policy = np.zeros(capacity, dtype=np.float32)
        self._outcome = np.zeros((capacity, players), dtype=np.float32)
        self._start = 0  # physical index of the oldest sample
        self._size = 0
        self._games: deque[int] = deque()  # sample counts of the held games, oldest first

    @property
    def feature_size(self) -> int:
        return self._features.shape[1]

    @property
    def players(self) -> int:
        return self._outcome.shape[1]

    def __len__(self) -> int:
        """Samples held."""
        return self._size

    @property
    def games(self) -> int:
        """Games held (whole, or the tail of one longer than the buffer)."""
        return len(self._games)

    def add_game(self, features: np.ndarray, policy: np.ndarray, outcome: np.ndarray) -> None:
        """Append one game's samples (``features`` [T, F], ``policy`` [T], ``outcome``
        [T, players]), first dropping the oldest games until they fit."""
        features, policy, outcome = self._checked(features, policy, outcome)
        length = len(policy)
        if length == 0:
            return
        if length > self.capacity:  # only its last samples fit
            features, policy, outcome = (a[-self.capacity:] for a in (features, policy, outcome))
            length = self.capacity
        while self._size + length > self.capacity:
            dropped = self._games.popleft()
            self._start = (self._start + dropped) % self.capacity
            self._size -= dropped
        where = (self._start + self._size + np.arange(length)) % self.capacity
        self._features[where] = features
        self._policy[where] = policy
        self._outcome[where] = outcome
        self._size += length
        self._games.append(length)

    def _checked(self, features, policy, outcome) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        features = np.asarray(features, dtype=np.float32)
        policy = np.asarray(policy, dtype=np.float32)
        outcome = np.asarray(outcome, dtype=np.float32)
        length = len(policy)
        expected = {"features": (length, self.feature_size), "policy": (length,),
                    "outcome": (length, self.players)}
        for name, array in (("features", features), ("policy", policy), ("outcome", outcome)):
            if array.shape != expected[name]:
                raise ReplayBufferError(
                    f"{name} has shape {array.shape}; this buffer needs {expected[name]} "
                    f"(samples, then features={self.feature_size}, players={self.players})")
        return features, policy, outcome

    def sample(self, batch: int, rng: np.random.Generator
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``batch`` samples drawn uniformly with replacement by ``rng``: (features [B, F],
        policy [B], outcome [B, players]), copies. The same buffer contents and generator
        state give the same batch."""
        if self._size == 0:
            raise ReplayBufferError("the replay buffer is empty: add a game before sampling")
        if batch < 1:
            raise ReplayBufferError(f"batch={batch}: give a batch size >= 1")
        where = (self._start + rng.integers(0, self._size, size=batch)) % self.capacity
        return self._features[where], self._policy[where], self._outcome[where]

    def to_arrays(self) -> dict[str, np.ndarray]:
        """The contents oldest first: ``features``, ``policy``, ``outcome`` and the
        ``game_lengths`` (samples per held game, oldest first; they sum to ``len``)."""
        where = (self._start + np.arange(self._size)) % self.capacity
        return {"features": self._features[where], "policy": self._policy[where],
                "outcome": self._outcome[where],
                "game_lengths": np.asarray(self._games, dtype=np.int64)}

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], capacity: int) -> ReplayBuffer:
        """A buffer of ``capacity`` holding what :meth:`to_arrays` gave (it samples as
        the saved buffer would); :class:`ReplayBufferError` if the arrays do not fit together."""
        if missing := [name for name in ARRAYS if name not in arrays]:
            raise ReplayBufferError(f"saved replay buffer lacks {', '.join(missing)}; it needs "
                                    f"{', '.join(ARRAYS)}")
        features, lengths = np.asarray(arrays["features"]), np.asarray(arrays["game_lengths"])
        outcome = np.asarray(arrays["outcome"])
        if features.ndim != 2 or outcome.ndim != 2:
            raise ReplayBufferError(f"saved features {features.shape} and outcome {outcome.shape} "
                                    "must both be 2-d (samples x values)")
        total = int(lengths.sum())
        if total != len(features) or total > capacity or (lengths < 1).any():
            raise ReplayBufferError(
                f"saved replay buffer holds {len(features)} samples in games of "
                f"{total} in all, for a capacity of {capacity}; they must agree "
                "(every game >= 1 sample, in all at most the capacity)")
        buffer = cls(capacity, features.shape[1], outcome.shape[1])
        features, policy, outcome = buffer._checked(features, arrays["policy"], outcome)
        buffer._features[:total] = features
        buffer._policy[:total] = policy
        buffer._outcome[:total] = outcome
        buffer._size = total
        buffer._games.extend(int(n) for n in lengths)
        return buffer
