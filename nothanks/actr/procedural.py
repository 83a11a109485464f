"""ACT-R's procedural utilities: conflict resolution by noisy utility, and utility learning.

The subsymbolic half of ACT-R's procedural module (the reference manual's "Utility
module"; docs/actr.md, "Utility learning"), for productions named by strings:

* each production has a utility ``U`` (``iu`` before any learning, or set per production);
* conflict resolution (:meth:`ProceduralMemory.select`) adds logistic noise with scale
  ``egs`` to the utility of every matching production, drops those below the utility
  threshold ``ut`` and picks the highest; a tie goes to the first listed (``er=False``) or
  to a random one among the tied (``er=True``);
* with utility learning on (``ul=True``) every selection is remembered with its time;
  a numeric reward ``R`` (:meth:`ProceduralMemory.reward`) updates every production
  selected since the last reward, once per selection and in order::

      U ← U + α (R_eff − U),   R_eff = R − Δt

  with ``Δt`` the model time from the selection to the reward; a non-numeric reward
  (e.g. :data:`CLEAR`) empties that history without learning.

Defaults are ACT-R 7's: ``alpha`` 0.2, ``egs`` 0, ``iu`` 0, ``ut`` none, ``ul`` off,
``er`` off. Knows nothing of No Thanks!.
"""
from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from numbers import Real

import numpy as np

from .parameters import check_at_least, check_flag, real_number

__all__ = ["CLEAR", "ProceduralMemory", "Selection", "UtilityUpdate"]

#: A non-numeric reward: clears the history of selections without learning (ACT-R's
#: ``trigger-reward`` with any non-nil value that is not a number).
CLEAR = "clear"


@dataclass(frozen=True, slots=True)
class Selection:
    """One conflict resolution: the production chosen (``None`` when none matched or
    every noisy utility was below the threshold), at which model time, and the noisy
    utility of every production that competed, in the order given."""

    production: str | None
    time: float
    utilities: Mapping[str, float]


@dataclass(frozen=True, slots=True)
class UtilityUpdate:
    """One production's update by a reward: the reward, the time since its selection,
    the effective reward ``reward − elapsed`` and the utility before and after."""

    production: str
    reward: float
    elapsed: float
    effective: float
    before: float
    after: float


def _check_name(name: object) -> str:
    if not isinstance(name, str) or not name:
        raise TypeError(f"a production name must be a non-empty string, got {name!r}")
    return name


class ProceduralMemory:
    """Productions with utilities, noisy conflict resolution and utility learning.

    Args:
        productions: the production names, in the order that breaks ties when ``er`` is
            off (at least one; no duplicates).
        alpha: learning rate α (ACT-R ``:alpha``, default 0.2), 0 < α <= 1.
        egs: utility noise s (``:egs``, default 0: no noise), >= 0; the noise is
            logistic with scale s (variance π² s² / 3), drawn afresh for every
            production at every conflict resolution.
        iu: initial utility of every production (``:iu``, default 0).
        ut: utility threshold (``:ut``, default None: no threshold); a production whose
            noisy utility is below it does not compete.
        ul: utility learning on (``:ul``, default False as in ACT-R: selections are not
            remembered and rewards change nothing).
        er: break ties at random (``:er``, default False: the first listed wins).
        utilities: starting utilities of some productions (ACT-R's ``spp :u``), by name.
        seed: the noise's randomness: an int >= 0, a NumPy Generator, or None.

    The clock is the caller's: :meth:`advance` moves it, :meth:`select` and
    :meth:`reward` happen at :attr:`time`.
    """

    def __init__(self, productions: Iterable[str], *, alpha: float = 0.2, egs: float = 0.0,
                 iu: float = 0.0, ut: float | None = None, ul: bool = False,
                 er: bool = False, utilities: Mapping[str, float] | None = None,
                 seed: int | np.random.Generator | None = None) -> None:
        names = [_check_name(p) for p in productions]
        if not names:
            raise ValueError("a procedural memory needs at least one production")
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise ValueError(f"production names must be unique; repeated: {duplicates}")
        self.alpha = check_at_least("alpha", alpha, 0.0, True,
                                    "the learning rate; ACT-R's default is 0.2")
        if self.alpha > 1.0:
            raise ValueError(f"alpha must be <= 1 (a step past the reward), got {alpha!r}")
        self.egs = check_at_least("egs", egs, 0.0, False,
                                  "the utility noise s; 0 means no noise")
        self.iu = real_number("iu", iu)
        self.ut = None if ut is None else real_number("ut", ut)
        self.ul = check_flag("ul", ul)
        self.er = check_flag("er", er)
        self.productions: tuple[str, ...] = tuple(names)
        self._index = {name: i for i, name in enumerate(names)}
        self._initial = np.full(len(names), self.iu)
        for name, value in (utilities or {}).items():
            self._initial[self._position(name)] = real_number(f"utility of {name!r}", value)
        self._u = self._initial.copy()
        self._history: list[tuple[str, float]] = []
        self._time = 0.0
        self.reseed(seed)

    # ------------------------------------------------------------------ state
    def _position(self, name: str) -> int:
        try:
            return self._index[name]
        except (KeyError, TypeError):
            raise KeyError(f"no production {name!r}; valid: {', '.join(self.productions)}"
                           ) from None

    @property
    def time(self) -> float:
        """The model clock (seconds); moves only through :meth:`advance`."""
        return self._time

    def advance(self, dt: float) -> float:
        """Move the clock forward by ``dt >= 0`` seconds; returns the new time."""
        step = real_number("dt", dt)
        if step < 0:
            raise ValueError(f"dt must be >= 0 (the clock only moves forward), got {dt!r}")
        self._time += step
        return self._time

    def reseed(self, seed: int | np.random.Generator | None) -> None:
        """The noise's randomness from ``seed`` (an int >= 0, a Generator or None)."""
        if isinstance(seed, np.random.Generator):
            self._rng = seed
            return
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)
                                 or seed < 0):
            raise TypeError(f"seed must be a non-negative int, a numpy.random.Generator or "
                            f"None, got {seed!r}")
        self._rng = np.random.default_rng(seed)

    def utility(self, name: str) -> float:
        """The learned (noise-free) utility ``U`` of ``name``."""
        return float(self._u[self._position(name)])

    @property
    def utilities(self) -> dict[str, float]:
        """Every production's utility ``U`` (noise-free), in declaration order."""
        return dict(zip(self.productions, self._u.tolist(), strict=True))

    def set_utility(self, name: str, value: float) -> None:
        """Set ``U`` of ``name`` (ACT-R's ``spp :u``; allowed with learning on here)."""
        self._u[self._position(name)] = real_number(f"utility of {name!r}", value)

    @property
    def pending(self) -> tuple[tuple[str, float], ...]:
        """Selections since the last reward, as ``(production, selection time)``: what
        the next numeric reward updates (empty while learning is off)."""
        return tuple(self._history)

    def reset(self) -> None:
        """Back to the starting utilities, with no pending selections and the clock at 0
        (ACT-R's reset of a model); the noise generator is kept (:meth:`reseed` it)."""
        self._u = self._initial.copy()
        self._history.clear()
        self._time = 0.0

    # ------------------------------------------------------------------ conflict resolution
    def select(self, candidates: Sequence[str] | None = None) -> Selection:
        """Conflict resolution now among ``candidates`` (the productions whose conditions
        match; default all): each gets ``U + noise``, those below ``ut`` drop out, the
        highest wins (ties: see ``er``). With learning on the winner's selection is
        remembered for the next reward."""
        names = self.productions if candidates is None else tuple(candidates)
        positions = [self._position(n) for n in names]
        if not positions:
            return Selection(None, self._time, {})
        values = self._u[positions]
        if self.egs > 0.0:
            values = values + self._rng.logistic(0.0, self.egs, len(positions))
        noisy = dict(zip(names, values.tolist(), strict=True))
        allowed = (np.ones(len(values), bool) if self.ut is None else values >= self.ut)
        if not allowed.any():
            return Selection(None, self._time, noisy)
        best = values[allowed].max()
        tied = np.flatnonzero(allowed & (values == best))
        pick = int(tied[0] if len(tied) == 1 or not self.er
                   else tied[self._rng.integers(len(tied))])
        chosen = names[pick]
        if self.ul:
            self._history.append((chosen, self._time))
        return Selection(chosen, self._time, noisy)

    # ------------------------------------------------------------------ rewards
    def reward(self, value: object) -> list[UtilityUpdate]:
        """A reward now (ACT-R's ``trigger-reward``).

        A real number ``R`` updates every production selected since the last reward, in
        the order of selection, with ``R − (time since that selection)``, and empties the
        history; any other value except ``None`` (e.g. :data:`CLEAR`) empties the history
        without learning. Returns the updates made. With learning off nothing changes and
        a :class:`RuntimeWarning` says so; ``None`` is a ValueError (as in ACT-R 7, where
        nil is no longer a null reward).
        """
        if value is None:
            raise ValueError("a reward must be a number (learn) or a non-numeric marker such "
                             f"as {CLEAR!r} (clear the history without learning), not None")
        if not self.ul:
            warnings.warn("reward given with utility learning off (ul=False): no utility "
                          "changed", RuntimeWarning, stacklevel=2)
            return []
        numeric = isinstance(value, Real) and not isinstance(value, bool)
        if not numeric:
            self._history.clear()
            return []
        reward = real_number("reward", value)
        updates = []
        alpha, now, u = self.alpha, self._time, self._u
        for name, selected in self._history:
            i = self._index[name]
            elapsed = now - selected
            effective = reward - elapsed
            before = float(u[i])
            u[i] = before + alpha * (effective - before)
            updates.append(UtilityUpdate(name, reward, elapsed, effective, before, float(u[i])))
        self._history.clear()
        return updates

    def clear(self) -> None:
        """Empty the history of selections without learning (a non-numeric reward)."""
        self.reward(CLEAR)
