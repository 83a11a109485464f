"""Blending, instance-based learning (IBL) style: the blended value of an option is the
retrieval-probability-weighted mean of the outcomes of the instances that match it
(docs/actr.md, "Blending").

An instance is a set of attribute values and an outcome, with the times it was experienced.
At time ``t`` an instance i matching an option has the activation::

    A_i = ln Σ_j (t − t_j)^(−d)  +  MP · Σ_k w_k · M_k(option value, instance value)  +  ε_i

(base level over its references t_j; the mismatch functions of :mod:`nothanks.actr.mismatch`
weighted per attribute for the partially matched attributes; ε logistic with scale σ, a fresh
draw per instance per blend). Its retrieval probability and the option's blended value are::

    P_i = exp(A_i / τ) / Σ_m exp(A_m / τ)        V = Σ_i P_i · u_i

with temperature τ = σ·√2 unless given. An attribute with a mismatch function is scored over
every instance; one without must match exactly. Identical (attributes, outcome) pairs are
one instance with several references. These are pyibl's (5.2) definitions; a pyibl
similarity ``s`` in [0, 1] is the mismatch ``s − 1`` here (tests/unit/test_blending.py checks the
agreement to 1e-9).

:class:`BlendingLearner` chooses and learns as pyibl's ``Agent`` does (the clock advances by one
per decision; an outcome may be delayed: the instance first holds the expected value and is
replaced later, at its original time) and assigns credit over an episode with
:func:`assign_credit`: ``"equal"``, ``"exponential"`` (γ) or ``"td"`` (γ).

The instances live in the declarative memory's parts, as pyactup retrieves and blends over
one ``Memory``: an instance is a chunk of the :class:`~.store.ChunkStore` (its attributes
and its outcome, slot :data:`OUTCOME_SLOT`), its base levels are the store's
:class:`~.base_level.BaseLevels` (with the ``1/√age`` shortcut at d = 0.5), its noise a
:class:`~.noise.NoiseSource`'s fresh draws (:meth:`~.noise.NoiseSource.draw_fresh`), and
the attributes matched exactly a request to a :class:`~.matching.RequestMatching`, whose
kept plan holds their rows. What is blending's own: the weighted mismatch columns of the
partially matched attributes (kept per value, extended by the rows stored since), the
softmax and the outcomes' mean, and the removal of a reference (a delayed outcome).

A blend is a handful of whole-array NumPy operations over the references and the candidates
(vectorized ``exp``/``log``/``sqrt``; a compiled scalar loop was 3-5× slower at 5,000
instances), so the cost of a decision grows linearly with the history.
"""
from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, NamedTuple

import numpy as np

from .base_level import BaseLevels, CurrentTimeReferenceError
from .matching import RequestMatching
from .mismatch import BUILT_IN_MISMATCH, MismatchFunction
from .noise import NoiseSource
from .parameters import check_at_least, real_number
from .store import ChunkStore

CreditScheme = Literal["equal", "exponential", "td"]
#: The credit schemes and what each gives decision t of an episode of T decisions.
CREDIT_SCHEMES: dict[str, str] = {
    "equal": "every decision gets the episode's return R = Σ r",
    "exponential": "decision t gets γ^(T−1−t) · R (the last gets R)",
    "td": "decision t gets r_t + γ · V_{t+1} (V_{t+1}: the best blended value at the next "
          "decision); the last gets r_{T−1}",
}

_SQRT2 = math.sqrt(2.0)
#: The slot of an instance's outcome in its chunk (no attribute may take this name).
OUTCOME_SLOT = "<outcome>"


_EMPTY = np.empty(0)
_NO_ROWS = np.empty(0, dtype=np.int64)


class Blend(NamedTuple):
    """One option's blend: its value, the instances consulted (rows of
    :meth:`InstanceMemory.instance`) and their retrieval probabilities."""

    value: float
    rows: np.ndarray
    probabilities: np.ndarray


@dataclass(frozen=True, slots=True)
class Similarity:
    """An attribute's partial matching: a mismatch function (≤ 0, 0 for a perfect match)
    and the attribute's weight w > 0 (pyibl's similarity weight)."""

    function: MismatchFunction
    weight: float = 1.0

    def __post_init__(self) -> None:
        if not callable(self.function):
            raise TypeError(f"a similarity needs a mismatch function (e.g. Linear(32), "
                            f"Weber()), got {self.function!r}")
        weight = check_at_least("similarity weight", self.weight, 0.0, True,
                                "how much the attribute's mismatch counts")
        object.__setattr__(self, "weight", weight)


class InstanceMemory:
    """Instances of (attribute values, outcome) with reference times, blended at the
    current time.

    Args:
        attributes: the attribute names every instance and option has.
        decay: base-level decay d >= 0.
        noise: activation noise σ >= 0 (logistic scale).
        temperature: τ > 0 of the retrieval probabilities; None: σ·√2 (then σ must be > 0).
        mismatch_penalty: MP >= 0, or None: no partial matching (every attribute exact).
        similarity: attribute -> mismatch function or :class:`Similarity`; attributes not
            named must match exactly.
        seed: int, SeedSequence, Generator or None: the noise's only source.
    """

    def __init__(self, attributes: Sequence[str], *, decay: float = 0.5, noise: float = 0.25,
                 temperature: float | None = None, mismatch_penalty: float | None = None,
                 similarity: Mapping[str, MismatchFunction | Similarity] | None = None,
                 seed: int | np.random.SeedSequence | np.random.Generator | None = None):
        names = tuple(attributes)
        if not names or not all(isinstance(n, str) and n for n in names):
            raise ValueError(f"attributes must be non-empty strings, at least one; got {names!r}")
        if len(set(names)) != len(names):
            raise ValueError(f"attribute names must be distinct, got {names!r}")
        if OUTCOME_SLOT in names:
            raise ValueError(f"{OUTCOME_SLOT!r} names the outcome; give the attribute "
                             f"another name")
        self.attributes = names
        decay = check_at_least("decay", decay, 0.0, False, "the base-level decay d")
        noise = check_at_least("noise", noise, 0.0, False, "the logistic scale σ")
        if temperature is None:
            if noise == 0:
                raise ValueError("temperature=None means τ = σ·√2, but noise σ is 0; give a "
                                 "temperature > 0 (e.g. temperature=1)")
            self.temperature = noise * _SQRT2
        else:
            self.temperature = check_at_least("temperature", temperature, 0.0, True,
                                              "τ of the retrieval probabilities")
        self.mismatch_penalty = None if mismatch_penalty is None else check_at_least(
            "mismatch_penalty", mismatch_penalty, 0.0, False, "MP, or None for exact matching")
        self.similarity: dict[str, Similarity] = {}
        for name, spec in (similarity or {}).items():
            if name not in names:
                raise ValueError(f"similarity for {name!r}, which is not an attribute; "
                                 f"valid: {', '.join(names)}")
            self.similarity[name] = spec if isinstance(spec, Similarity) else Similarity(spec)
        # The declarative memory's parts: an instance is a chunk of its attribute values
        # and its outcome (slot OUTCOME_SLOT), learned with references at times of its
        # own; the matching indexes the attributes matched exactly (it has no mismatch
        # functions: the partially matched attributes are scored here, with weights).
        self._noise = NoiseSource(scale=noise, mode="per_retrieval", stream="pcg64",
                                  seed=seed)
        self._store = store = ChunkStore()
        self._base_levels = BaseLevels(store, decay=decay, optimized_learning=False,
                                       learning=True, root_at_half=True, compiled=False)
        self._matching = RequestMatching(store, penalty=0.0)
        self.time = 0
        # an instance's (attribute values..., outcome) -> its row: the store's row_of by
        # a key that is cheaper to make than a chunk's
        self._row_of: dict[tuple, int] = {}
        self._counts: list[int] = []  # live references per row
        self._dead = 0  # rows whose references were all removed
        # (row, time) -> positions of its references in the store, for forget
        self._refs_at: dict[tuple[int, float], list[int]] = {}
        # mismatch columns per (attribute, value), extended as rows arrive
        self._scores: dict[str, dict[Hashable, list]] = {n: {} for n in self.similarity}

    @property
    def decay(self) -> float:
        """Base-level decay d >= 0."""
        return self._base_levels.decay

    @decay.setter
    def decay(self, value: float) -> None:
        self._base_levels.decay = check_at_least("decay", value, 0.0, False,
                                                 "the base-level decay d")
        self._base_levels.forget()

    @property
    def noise(self) -> float:
        """Activation noise σ >= 0 (logistic scale; the temperature is not changed)."""
        return self._noise.scale

    @noise.setter
    def noise(self, value: float) -> None:
        self._noise.set_scale(check_at_least("noise", value, 0.0, False,
                                             "the logistic scale σ"))

    @property
    def rng(self) -> np.random.Generator:
        """The generator of the noise (and of the learner's tie breaks)."""
        return self._noise.rng

    def reseed(self, seed: int | np.random.SeedSequence | np.random.Generator | None
               ) -> None:
        """Draw the noise (and the learner's tie breaks) from ``seed`` from now on."""
        self._noise.seed_from(seed)

    # ------------------------------------------------------------------ storing
    def key(self, option: Mapping[str, Hashable] | Sequence[Hashable]) -> tuple:
        """The option's values in attribute order (a mapping by name or a sequence), or
        a ValueError naming what is wrong."""
        if isinstance(option, Mapping):
            missing = [n for n in self.attributes if n not in option]
            extra = [n for n in option if n not in self.attributes]
            if missing or extra:
                raise ValueError(f"option {dict(option)!r} must give exactly the attributes "
                                 f"{', '.join(self.attributes)} (missing {missing}, unknown "
                                 f"{extra})")
            return tuple(option[n] for n in self.attributes)
        values = tuple(option)
        if len(values) != len(self.attributes):
            raise ValueError(f"option {values!r} has {len(values)} values; the attributes "
                             f"are {', '.join(self.attributes)}")
        return values

    def _slots(self, key: tuple, outcome: float) -> dict[str, Hashable]:
        slots = dict(zip(self.attributes, key, strict=True))
        slots[OUTCOME_SLOT] = outcome
        return slots

    def learn(self, option: Mapping[str, Hashable] | Sequence[Hashable], outcome: float,
              when: float | None = None) -> int:
        """Add a reference at ``when`` (default: now; never in the future) to the instance
        (option, outcome), made if new; returns its row."""
        when = self.time if when is None else real_number("when", when)
        if when > self.time:
            raise ValueError(f"when={when!r} is in the future (time is {self.time})")
        outcome = real_number("outcome", outcome)
        if not math.isfinite(outcome):
            raise ValueError(f"outcome must be finite, got {outcome!r}")
        key = (*self.key(option), outcome)
        store = self._store
        try:
            row = self._row_of.get(key)
        except TypeError:
            raise TypeError(f"attribute values must be hashable, got {key[:-1]!r}") from None
        if row is None:  # a new instance: its chunk, with a first reference
            row = self._row_of[key] = len(store.chunks)
            store.add(self._slots(key[:-1], outcome), None, when)
            self._counts.append(0)
        else:
            store.add_reference(row, when)
            if self._counts[row] == 0:
                self._dead -= 1
        self._counts[row] += 1
        self._refs_at.setdefault((row, when), []).append(len(store.reference_row.items) - 1)
        return row

    def forget(self, option: Mapping[str, Hashable] | Sequence[Hashable], outcome: float,
               when: float) -> bool:
        """Remove the reference at ``when`` of the instance (option, outcome), as pyibl's
        delayed responses do; False if there is no such reference."""
        store = self._store
        row = self._row_of.get((*self.key(option), real_number("outcome", outcome)))
        refs = None if row is None else self._refs_at.get((row, real_number("when", when)))
        if not refs:
            return False
        store.drop_reference(refs.pop())
        self._counts[row] -= 1
        if self._counts[row] == 0:
            self._dead += 1
        self._base_levels.forget()
        return True

    def advance(self, dt: int = 1) -> int:
        """Move the clock forward by ``dt >= 0``; returns the new time."""
        if isinstance(dt, bool) or not isinstance(dt, int) or dt < 0:
            raise ValueError(f"dt must be a whole number >= 0, got {dt!r}")
        self.time += dt
        return self.time

    def __len__(self) -> int:
        """Instances with at least one reference."""
        return len(self._store.chunks) - self._dead

    def _instance_of(self, row: int, times: Sequence[float]
                     ) -> tuple[dict[str, Hashable], float, tuple[float, ...]]:
        chunk = self._store.chunks[row]
        return ({name: chunk[name] for name in self.attributes}, chunk[OUTCOME_SLOT],
                tuple(sorted(times)))

    def instance(self, row: int) -> tuple[dict[str, Hashable], float, tuple[float, ...]]:
        """Row ``row``'s attribute values, outcome and reference times."""
        return self._instance_of(row, [t for (r, t), refs in self._refs_at.items()
                                       if r == row for _ in refs])

    def instances(self) -> list[tuple[dict[str, Hashable], float, tuple[float, ...]]]:
        """Every instance with a reference: attribute values, outcome, reference times."""
        times: dict[int, list[float]] = {}
        for (row, t), refs in self._refs_at.items():
            times.setdefault(row, []).extend([t] * len(refs))
        return [self._instance_of(row, times[row]) for row in sorted(times) if times[row]]

    # ------------------------------------------------------------------ blending
    def _base_levels_now(self) -> np.ndarray:
        """Every row's base level now (kept until the clock or the references change)."""
        latest = self._store.latest_reference
        if latest >= self.time:
            raise CurrentTimeReferenceError(
                f"an instance has a reference at time {latest:g} >= the current time "
                f"{self.time}: its base level is infinite; advance the clock first")
        return self._base_levels.at(self.time)

    def _mismatch_column(self, name: str, value: Hashable, similarity: Similarity
                         ) -> np.ndarray:
        """Every row's unscaled mismatch on ``name`` for ``value``: for the built-in
        functions (pure) kept per value and extended by the rows stored since."""
        column = self._store.columns[name].values
        count = len(column)
        fn = similarity.function
        cache = self._scores[name] if type(fn) in BUILT_IN_MISMATCH else None
        try:
            kept = None if cache is None else cache.get(value)
        except TypeError:
            raise TypeError(f"option value for {name!r} must be hashable, got {value!r}"
                            ) from None
        start = 0 if kept is None else kept[1]
        if start == count:
            return kept[0][:count]
        values = column.view()[start:]
        try:
            if hasattr(fn, "vectorized"):
                fresh = np.asarray(fn.vectorized(value, values), dtype=np.float64)
            else:
                fresh = np.fromiter((fn(value, v) for v in values), np.float64, len(values))
        except (TypeError, ValueError) as error:
            raise type(error)(f"mismatch function {fn!r} for attribute {name!r} failed on "
                              f"option value {value!r}: {error}") from error
        if cache is None:
            if not (np.isfinite(fresh) & (fresh <= 0)).all():
                raise ValueError(f"mismatch function {fn!r} for attribute {name!r} must "
                                 f"return finite values <= 0, got {fresh!r}")
            return fresh
        if kept is None:
            if len(cache) >= 4096:
                cache.clear()
            kept = cache[value] = [np.empty(max(2 * count, 64)), 0]
        elif count > len(kept[0]):  # capacity doubles: each row is copied O(1) times
            grown = np.empty(2 * count)
            grown[:start] = kept[0][:start]
            kept[0] = grown
        kept[0][start:count] = fresh
        kept[1] = count
        return kept[0][:count]

    def _candidates(self, key: tuple) -> tuple[np.ndarray | None, np.ndarray]:
        """Rows consulted for an option (None: every row) and their summed weighted
        mismatch per row (empty: no partial matching). The attributes matched exactly are
        a request to the matching, whose kept plan holds their rows."""
        mismatch = _EMPTY
        partial = self.mismatch_penalty is not None
        exact = {}
        for name, value in zip(self.attributes, key, strict=True):
            similarity = self.similarity.get(name) if partial else None
            if similarity is not None:
                column = self._mismatch_column(name, value, similarity)
                if similarity.weight != 1.0:
                    column = column * similarity.weight
                mismatch = column.copy() if mismatch is _EMPTY else mismatch + column
            else:
                exact[name] = value
        rows: np.ndarray | None = None
        if exact:
            matching = self._matching
            try:
                request = tuple(exact.items())
                plan, split = matching.plan(exact, request, matching.plans.get(request))
            except TypeError:
                raise TypeError(f"option values for {', '.join(exact)} must be hashable, "
                                f"got {tuple(exact.values())!r}") from None
            rows = plan.rows.view() if plan is not None else split[0]
        if self._dead:
            counts = np.asarray(self._counts)
            rows = np.flatnonzero(counts) if rows is None else rows[counts[rows] > 0]
        return rows, mismatch

    def blend(self, option: Mapping[str, Hashable] | Sequence[Hashable], *,
              details: bool = False) -> Blend | None:
        """The blended outcome of the instances matching ``option`` now; None when no
        instance matches. With ``details`` the consulted rows and their retrieval
        probabilities are filled in (else empty)."""
        key = self.key(option)
        store = self._store
        if not store.chunks:
            return None
        rows, mismatch = self._candidates(key)
        every = rows is None
        if every:
            rows = _NO_ROWS
        elif not len(rows):
            return None
        base = self._base_levels_now()
        activations = base.copy() if every else base[rows]
        if self._noise.scale > 0:  # logistic: σ·ln(u / (1 − u)), a fresh draw per instance
            activations += self._noise.draw_fresh(len(activations))
        if len(mismatch) and self.mismatch_penalty:
            activations += (mismatch if every else mismatch[rows]) * self.mismatch_penalty
        activations -= activations.max()
        activations /= self.temperature
        weights = np.exp(activations, out=activations)
        total = weights.sum()
        outcomes = store.columns[OUTCOME_SLOT].values.view()
        value = float(np.dot(weights, outcomes if every else outcomes[rows]) / total)
        if not details:
            return Blend(value, _NO_ROWS, _EMPTY)
        weights /= total
        return Blend(value, np.arange(len(base)) if every else rows, weights)


# ---------------------------------------------------------------------- credit
def assign_credit(scheme: CreditScheme, rewards: Sequence[float],
                  next_values: Sequence[float] = (), gamma: float = 0.9) -> list[float]:
    """The outcome each decision of an episode learns (``CREDIT_SCHEMES``).

    ``rewards[t]`` is decision t's reward (the episode's return is their sum);
    ``next_values[t]`` (td only) the best blended value at decision t + 1, one fewer than
    the decisions. ``gamma`` is γ in [0, 1].
    """
    if scheme not in CREDIT_SCHEMES:
        raise ValueError(f"unknown credit scheme {scheme!r}; valid: {', '.join(CREDIT_SCHEMES)}")
    gamma = real_number("gamma", gamma)
    if not 0.0 <= gamma <= 1.0:
        raise ValueError(f"gamma must be in [0, 1], got {gamma!r}")
    count = len(rewards)
    if scheme == "td":
        if len(next_values) != max(count - 1, 0):
            raise ValueError(f"td credit needs one next value per decision but the last: "
                             f"{count} rewards, {len(next_values)} next values")
        return [float(r) + gamma * float(v) for r, v in zip(rewards, next_values,
                                                             strict=False)] + (
            [float(rewards[-1])] if count else [])
    total = float(sum(rewards))
    if scheme == "equal":
        return [total] * count
    return [gamma ** (count - 1 - t) * total for t in range(count)]


@dataclass
class Delayed:
    """A decision whose outcome is not final yet: its option, the time it was learned at,
    and the outcome it holds now (at first the blended value expected)."""

    option: tuple
    time: int
    outcome: float
    expectation: float
    resolved: bool = False


class BlendingLearner:
    """Chooses among options by blended value and learns from outcomes, as pyibl's
    ``Agent`` (``choose`` advances the clock by one after a response; ties broken at
    random), with credit over episodes.

    Args:
        memory: the instance memory it learns into.
        credit: the credit scheme of :meth:`end_episode` (``CREDIT_SCHEMES``).
        gamma: γ of the exponential and td schemes.
        default_utility: the outcome of an option no instance matches, also stored as an
            instance at time 0 (pyibl's ``default_utility`` with ``default_utility_populates``);
            None: such an option is an error.
    """

    def __init__(self, memory: InstanceMemory, *, credit: CreditScheme = "equal",
                 gamma: float = 0.9, default_utility: float | None = None):
        if credit not in CREDIT_SCHEMES:
            raise ValueError(f"unknown credit scheme {credit!r}; valid: "
                             f"{', '.join(CREDIT_SCHEMES)}")
        assign_credit(credit, [], [], gamma)  # checks gamma
        self.memory = memory
        self.credit = credit
        self.gamma = float(gamma)
        self.default_utility = None if default_utility is None else real_number(
            "default_utility", default_utility)
        self._last_learned = 0  # as pyibl: the first choice is made at time 1
        self._pending: tuple[list[tuple], list[float], int] | None = None
        self.episode: list[Delayed] = []
        self._rewards: list[float] = []
        self._next_values: list[float] = []

    def blended_values(self, options: Sequence[Mapping | Sequence]) -> list[float]:
        """Each option's blended value now, default utilities filled in (stored at time 0)."""
        values = []
        for option in options:
            blended = self.memory.blend(option)
            if blended is None:
                if self.default_utility is None:
                    raise RuntimeError(f"no instance matches option {option!r} and there is "
                                       "no default utility")
                self.memory.learn(option, self.default_utility, when=0)
                values.append(self.default_utility)
            else:
                values.append(blended.value)
        return values

    def choose(self, options: Sequence[Mapping | Sequence],
               allowed: Sequence[bool] | None = None) -> tuple[int, list[float]]:
        """The index of the option with the highest blended value (ties at random) among
        the ``allowed`` ones (default: all), and every option's blended value."""
        if self._pending is not None:
            raise RuntimeError("choose() called again before respond()")
        if not options:
            raise ValueError("choose() needs at least one option")
        memory = self.memory
        if self._last_learned >= memory.time:
            memory.advance(self._last_learned - memory.time + 1)
        values = self.blended_values(options)
        ok = [True] * len(values) if allowed is None else list(allowed)
        if len(ok) != len(values) or not any(ok):
            raise ValueError(f"allowed must flag each of the {len(values)} options, at least "
                             f"one True; got {allowed!r}")
        best = max(v for v, a in zip(values, ok, strict=True) if a)
        ties = [i for i, (v, a) in enumerate(zip(values, ok, strict=True)) if a and v == best]
        choice = ties[0] if len(ties) == 1 else int(memory.rng.choice(ties))
        if self.credit == "td" and self.episode:
            self._next_values.append(best)
            self._resolve_td()
        self._pending = ([memory.key(o) for o in options], values, choice)
        return choice, values

    def respond(self, outcome: float | None = None, choice: int | None = None
                ) -> Delayed | None:
        """Learn the outcome of the pending decision (of option ``choice``, default the one
        chosen); with no outcome the blended value expected is learned and a
        :class:`Delayed` returned, to :meth:`update` later."""
        if self._pending is None:
            raise RuntimeError("respond() without a pending choose()")
        keys, values, chosen = self._pending
        index = chosen if choice is None else choice
        if not 0 <= index < len(keys):
            raise ValueError(f"choice {choice!r} is not an option index 0..{len(keys) - 1}")
        self._pending = None
        now = self.memory.time
        self._last_learned = now
        if outcome is not None:
            self.memory.learn(keys[index], outcome)
            return None
        self.memory.learn(keys[index], values[index])
        return Delayed(keys[index], now, values[index], values[index])

    def update(self, delayed: Delayed, outcome: float) -> float:
        """Replace a delayed decision's outcome (learned at its original time); returns the
        outcome it held."""
        outcome = real_number("outcome", outcome)
        old = delayed.outcome
        self.memory.forget(delayed.option, old, delayed.time)
        self.memory.learn(delayed.option, outcome, when=delayed.time)
        delayed.outcome, delayed.resolved = outcome, True
        return old

    # -------------------------------------------------------------- episodes
    def step(self, reward: float = 0.0) -> Delayed:
        """Respond to the pending decision as one step of an episode with ``reward``; its
        outcome is settled by the credit scheme (td: at the next choice)."""
        delayed = self.respond()
        self.episode.append(delayed)
        self._rewards.append(real_number("reward", reward))
        return delayed

    def _resolve_td(self) -> None:
        """td: the previous step learns r + γ·(the best blended value now)."""
        t = len(self._next_values) - 1
        self.update(self.episode[t], self._rewards[t] + self.gamma * self._next_values[t])

    def discard_episode(self) -> None:
        """Close the open episode without learning: its decisions keep the values expected
        (as unresolved pyibl delayed responses do)."""
        self._pending = None
        self.episode, self._rewards, self._next_values = [], [], []

    def end_episode(self, final_reward: float = 0.0) -> list[float]:
        """Close the episode: ``final_reward`` is added to the last step's reward, every
        step learns its credited outcome; returns those outcomes."""
        if self._pending is not None:
            raise RuntimeError("end_episode() with a decision still pending: respond first")
        if not self.episode:
            self._next_values.clear()
            self._rewards.clear()
            return []
        self._rewards[-1] += real_number("final_reward", final_reward)
        outcomes = assign_credit(self.credit, self._rewards, self._next_values, self.gamma)
        start = len(self._next_values) if self.credit == "td" else 0
        for delayed, outcome in zip(self.episode[start:], outcomes[start:], strict=True):
            self.update(delayed, outcome)
        self.episode, self._rewards, self._next_values = [], [], []
        return outcomes


