"""The ToM-k model of No Thanks! (thesis §3; docs/models.md).

ToM0 matches a state chunk against its instances and does what the retrieved instance
did. ToM-k (k >= 1) predicts each opponent in turn order by running ToM-(k-1) from that
opponent's view, with one more token on the card per player who would have passed
before it (its own pass included), stops at the first predicted taker, and then runs
ToM0 on its own state: if ToM0 says take and every opponent is predicted to pass, it
passes instead so the card comes back richer. ``tom0``, ``tom1`` and ``tom2`` are
k = 0, 1, 2 of this one recursion.

Token counts of other players come from the model's token memory (recalled once per
decision, at the start of its turn, and used at every level of the recursion); its own
count it knows. A player assumed to have several possible counts is projected once per
count and predicted to pass only if every projection passes.
"""
from __future__ import annotations

import functools
import inspect
import math
from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np

from ...actr import NOISE_MODES, NOISE_STREAMS, DeclarativeMemory, ExactMatch, Linear, Weber
from ...actr.memory import real_number
from ...rules import Action, Event, Passed, Took, Variant, View
from ...rules.seeding import spawn
from ..base import Agent
from . import tom_kernel
from .instance_sets import load_instances
from .instances import InstanceSet
from .state import category_name, state_chunk, state_items
from .token_memory import TokenMemory
from .traces import DecisionTrace, Prediction, TraceNode

#: What ToM0 does when no instance is above the instance retrieval threshold: place a
#: token ("No thanks!"), the move that keeps every option open.
DEFAULT_ACTION = Action.PASS
#: Weight of the category slot's exact-match mismatch (thesis Table 2: -100).
CATEGORY_WEIGHT = 100.0
#: The reason of a player without tokens.
_MUST_TAKE = "no tokens left: must take"
#: An instance's action slot -> the action (a dict lookup instead of an enum call).
_ACTIONS = {str(action): action for action in Action}
#: An action from the compiled recursion's 0 (pass) or 1 (take).
_TAKES_ACTION = (Action.PASS, Action.TAKE)
#: tuple.__new__: a named tuple from its fields in order, without its keyword wrapper.
_new_tuple = tuple.__new__
#: Values of the reading switches (see :class:`ToMAgent`).
CANDIDATE_RULES = ("all", "any")
THRESHOLD_READINGS = ("split", "shared")
TOKEN_CHUNK_READINGS = ("new", "merge")


def _noise_value(text: str | float) -> float:
    value = float(text)
    if not (math.isfinite(value) and value >= 0):
        raise ValueError(f"token_s={text!r} is invalid; valid: a noise scale >= 0, or empty "
                         "for the model's s")
    return value


#: The per-time noise not drawn yet, and the stream (key1, key2, first position, s) of
#: noise drawn already (``_decide_tom0``).
_NOT_DRAWN = np.empty(0)
_NO_STREAM = (np.uint64(0), np.uint64(0), np.uint64(0), 0.0)
#: ToM0 queries whose windows a model keeps (``kernels.retrieval.window``: 12 bytes per
#: instance near the query's top, on average 244 of the 2,117 thesis instances, so about
#: 3 KB a window and 15 MB at most in practice; 25 KB a window at worst); past this many
#: they are dropped and made anew (docs/architecture.md, "Lazy retrieval").
WINDOWS_KEPT = 5_000
#: A query seen once: no window made yet (``tom_core.decide_tom0`` retrieves without).
_NO_WINDOW = (np.empty(0, np.int32), np.empty(0), 0.0, 0.0)


class _CoreInputs(NamedTuple):
    """What the compiled core reads of a model, unchanged until a chunk or setting does:
    the core, the score tables, the base levels, the largest finite ``|base level|``,
    the memory's parameters and the ToM0 queries' windows (query -> window)."""

    core: object
    tables: tom_kernel.ScoreTables
    base: np.ndarray
    base_extent: float
    parameters: object
    windows: dict


class Belief(NamedTuple):
    """The counts a reasoner assumes for one player, and where they came from.

    (An immutable named tuple: beliefs are made and compared as cache keys many times
    per decision.)
    """

    candidates: tuple[int, ...]
    source: str

    def after_pass(self) -> Belief:
        candidates = self.candidates
        if len(candidates) == 1:  # the common case, without a generator
            count = candidates[0]
            return _new_tuple(Belief, ((count - 1 if count > 0 else 0,), self.source))
        return _new_tuple(Belief, (tuple([max(0, c - 1) for c in candidates]), self.source))


class Outcome(NamedTuple):
    """Result of reasoning from one view: the action and what it cost (the summed
    retrieval latency and instance-retrieval failures), the trace node (None without a
    trace), and, where worded, ToM0's own action, the reason and the predictions."""

    action: Action
    latency: float
    failures: int
    node: TraceNode | None
    tom0: Action | None = None
    reason: str = ""
    predictions: tuple[Prediction, ...] = ()


OpponentModel = Callable[[int, int, int, int, "tuple[Belief, ...]"], Outcome]
"""A hook predicting an opponent at the top level of a decision
(:attr:`ToMAgent.opponent_model`). Called as
``model(level, seat, tokens_on_card, tokens, world)`` where the plain recursion would
run ToM-``level`` from ``seat``'s view assuming it holds ``tokens`` (``world``: every
player's assumed counts), it returns that projection's :class:`Outcome`. Within the
call the recursion is the plain one (:meth:`ToMAgent.reason_plainly`)."""

ZeroOrderRule = Callable[[View, int, int, int], Action]
"""A hook replacing ToM0 inside the reference recursion (:attr:`ToMAgent.tom0_rule`):
called as ``rule(view, seat, tokens_on_card, tokens)`` where the recursion would ask ToM0
from ``seat``'s view assuming it holds ``tokens``, it returns ToM0's action (no latency,
no failure). The search's ToM-k stand-in is tested against the reference so, with ToM0
read from its take table."""

#: The outcome of a player without tokens when no trace is kept (the same every time).
_MUST_TAKE_OUTCOME = Outcome(Action.TAKE, 0.0, 0, None, None, _MUST_TAKE)


class ToMAgent(Agent):
    """A ToM-k cognitive model (k >= 0) on an ACT-R declarative memory.

    Args:
        k: theory-of-mind order (0, 1, 2, ...).
        rt: retrieval threshold of the token memory (the thesis's swept RT).
        instance_rt: retrieval threshold of the instance retrieval (ToM0).
        d: base-level decay.
        s: activation noise scale (logistic).
        mp: mismatch penalty.
        leaf_penalty: extra activation penalty of leaf token chunks.
        time_per_turn: model seconds that pass with every turn (every pass or take).
        lf: latency factor F.
        noise_mode: ``per_time`` (thesis's Swift core) or ``per_retrieval``.
        noise_stream: ``counter`` (the same bits on every machine; the default) or
            ``pcg64`` (NumPy's generator and log, the stream of outputs made before
            the counter stream; docs/actr.md, "Noise streams").
        oracle_tokens: debug switch: use exact counts (a perfect tally of the public
            token movements) instead of the token memory.
        instances: a shipped instance set by name, with optional seeded perturbations
            (``monotone+flip=0.08+seed=1``), or the path of an instance file ("" = the
            default set, ``monotone``); docs/models.md, "Instance sets".
        trace: record a reasoning trace of every decision (``last_trace``).

    Readings of open points of the thesis (docs/models.md, "Readings"), each a switch:

    Args:
        project_self: an opponent's projection also predicts the reasoning model itself
            (§3.4–3.5 read literally); ``false`` leaves the model out of the projections.
        candidate_rule: with several candidate counts for a player, predict ``pass``
            when ``all`` projections pass (the model skips only when sure) or ``any``.
        thresholds: ``split`` (``rt`` for the token memory, ``instance_rt`` for the
            instance retrieval) or ``shared`` (``rt`` for both, one ACT-R threshold).
        token_s: activation noise of the token memory ("" = the same ``s`` as the
            instances, one noise parameter as in ACT-R).
        token_chunks: ``new`` chunk per token update (§3.4.3) or ``merge`` identical
            chunks into one with another reference (the ACT-R default).
    """

    name = "tom"
    can_trace = True

    def __init__(
        self,
        k: int = 2,
        *,
        rt: float = -2.0,
        instance_rt: float = -6.0,
        d: float = 0.5,
        s: float = 0.1,
        mp: float = 5.0,
        leaf_penalty: float = 0.5,
        time_per_turn: float = 2.0,
        lf: float = 0.2,
        noise_mode: str = "per_time",
        noise_stream: str = "counter",
        oracle_tokens: bool = False,
        instances: str = "",
        trace: bool = False,
        project_self: bool = True,
        candidate_rule: str = "all",
        thresholds: str = "split",
        token_s: str = "",
        token_chunks: str = "new",
    ) -> None:
        super().__init__()
        if not isinstance(k, int) or isinstance(k, bool) or k < 0:
            raise ValueError(f"k={k!r} is not a ToM order; valid: an integer >= 0")
        if noise_mode not in NOISE_MODES:
            raise ValueError(f"noise_mode={noise_mode!r} is unknown; valid: "
                             f"{', '.join(NOISE_MODES)}")
        if noise_stream not in NOISE_STREAMS:
            raise ValueError(f"noise_stream={noise_stream!r} is unknown; valid: "
                             f"{', '.join(NOISE_STREAMS)}")
        if not (math.isfinite(time_per_turn) and time_per_turn > 0):
            raise ValueError(f"time_per_turn={time_per_turn!r} is invalid; valid: > 0 seconds")
        if not (math.isfinite(leaf_penalty) and leaf_penalty >= 0):
            raise ValueError(f"leaf_penalty={leaf_penalty!r} is invalid; valid: >= 0")
        for key, value, valid in (("candidate_rule", candidate_rule, CANDIDATE_RULES),
                                  ("thresholds", thresholds, THRESHOLD_READINGS),
                                  ("token_chunks", token_chunks, TOKEN_CHUNK_READINGS)):
            if value not in valid:
                raise ValueError(f"{key}={value!r} is unknown; valid: {', '.join(valid)}")
        token_noise = s if token_s in ("", None) else _noise_value(token_s)
        self.k = k
        self.tom_order = k
        self.name = f"tom{k}"
        self.params: dict[str, float | str] = {
            "rt": rt, "instance_rt": instance_rt, "d": d, "s": s, "mp": mp,
            "leaf_penalty": leaf_penalty, "time_per_turn": time_per_turn, "lf": lf,
            "noise_mode": noise_mode, "noise_stream": noise_stream,
            "project_self": project_self,
            "candidate_rule": candidate_rule, "thresholds": thresholds,
            "token_s": token_noise, "token_chunks": token_chunks}
        self.oracle_tokens = oracle_tokens
        self.instance_set: InstanceSet = load_instances(instances or None)
        self._checked_decks: set[tuple[int, int]] = set()  # decks the instances fit
        self.traces = trace
        self.last_trace: DecisionTrace | None = None
        self._memory_args = {"decay": d, "noise": s, "mismatch_penalty": mp,
                             "latency_factor": lf, "noise_mode": noise_mode,
                             "noise_stream": noise_stream}
        # built here so invalid ACT-R parameters fail at construction, not at start
        self._build_instance_memory(Variant())
        self._new_memories(Variant(), 0)
        self.token_memory = TokenMemory(self._token_dm, leaf_penalty=leaf_penalty,
                                        merge=token_chunks == "merge")
        self._tally: list[int] = []
        self._info: tuple = ()  # the last decision's parts, see decision_info
        self.instance_failures = 0  # over the current game
        self._opponent_model: OpponentModel | None = None
        self._projecting = False  # inside an opponent model's call: the plain recursion
        self._tom0_rule: ZeroOrderRule | None = None
        self._fast_paths()

    # ------------------------------------------------------------------ game lifecycle
    def _build_instance_memory(self, variant: Variant,
                               source: DeclarativeMemory | None = None, seed=0) -> None:
        """The instance chunks, stored once per agent and card range (storing ~2,000
        chunks costs more than a whole game, and they never change: fixed activation).
        ``source``: a memory whose chunks, references and clock to start from instead
        (``learning-tom`` carries its learned chunks so); ``seed`` seeds the noise."""
        card_range = max(1, variant.high_card - variant.low_card)
        shared = self.params["thresholds"] == "shared"
        self._instance_dm = DeclarativeMemory(
            retrieval_threshold=self.params["rt" if shared else "instance_rt"],
            mismatch={"category": ExactMatch(CATEGORY_WEIGHT), "card": Linear(card_range),
                      "tokens_on_card": Weber(), "tokens_owned": Weber()},
            seed=seed, **self._memory_args)
        self._instance_dm.copy_chunks(_instance_chunks(self.instance_set) if source is None
                                      else source)
        self._instance_range = card_range
        self._score_tables: tom_kernel.ScoreTables | None = None  # made on first use
        # what _compiled_inputs found last, while the memory has only fixed chunks: its
        # chunk count, parameters and mismatch version then, the score tables and the
        # base levels (None: nothing kept)
        self._kept_inputs: tuple | None = None

    def _new_memories(self, variant: Variant, seed: int) -> None:
        """Fresh memories for a game, their randomness seeded from ``seed``.

        The instance chunks are kept from game to game (they never change: fixed
        activation); :meth:`DeclarativeMemory.restart` resets their clock and noise.
        """
        instance_seed, token_seed = spawn(seed, 2)
        # seeded from the sequences (not generators made here): each memory then owns
        # its generator, which lets it leave the unused tail of a noise block undrawn
        self._restart_instance_memory(variant, instance_seed)
        self._token_dm = DeclarativeMemory(
            retrieval_threshold=self.params["rt"], seed=token_seed,
            **(self._memory_args | {"noise": self.params["token_s"]}))

    def _restart_instance_memory(self, variant: Variant, seed) -> None:
        """The instance memory of a new game: the last game's (its chunks never change)
        with its clock and noise restarted (``seed``), or built anew for another card
        range."""
        if max(1, variant.high_card - variant.low_card) != self._instance_range:
            self._build_instance_memory(variant)
        self._instance_dm.restart(seed)

    def start(self, seat: int, variant: Variant, seed: int) -> None:
        """New game: fresh memories seeded from ``seed``; every opponent starts with the
        variant's (public) starting tokens, stored as the first leaf and root."""
        super().start(seat, variant, seed)
        deck = (variant.low_card, variant.high_card)
        if deck not in self._checked_decks:
            self.instance_set.check_deck(*deck)
            self._checked_decks.add(deck)
        self._new_memories(variant, seed)
        kept = self._kept_inputs
        if kept is not None and kept[3].tables.deck != deck:
            self._kept_inputs = None  # another deck needs other score tables (and windows)
        self._turn_orders()
        truth = self.token_memory.truth
        self.token_memory = TokenMemory(self._token_dm,
                                        leaf_penalty=self.params["leaf_penalty"],
                                        record=self.traces,
                                        merge=self.params["token_chunks"] == "merge")
        self.token_memory.truth = truth if truth is not None else self._true_tokens
        self._tally = [variant.tokens] * variant.players
        if self._token_clock:
            for other in self._opponents(seat):
                self.token_memory.store(other, variant.tokens)
        self._tick()  # dealing takes a turn: no chunk is retrieved at its creation time
        self.instance_failures = 0
        self.last_trace = None
        self._info = ()

    @property
    def _uses_token_memory(self) -> bool:
        return self.k >= 1 and not self.oracle_tokens

    def _true_tokens(self, seat: int) -> int:
        """The exact count from the public token movements (logging and oracle only)."""
        return self._tally[seat]

    def _tick(self) -> None:
        """A turn passes on the memories' clocks (``advance``: ``time_per_turn`` is a
        finite float > 0, its common case)."""
        dt = self._time_per_turn
        self._instance_dm.advance(dt)
        if self._token_clock:  # a ToM0 or oracle model never consults its token memory
            self._token_dm.advance(dt)

    def _opponents(self, seat: int) -> list[int]:
        """The other players after ``seat``, in turn order."""
        n = self.variant.players
        return [(seat + i) % n for i in range(1, n)]

    def _turn_orders(self) -> None:
        """Per seat, the other players after it in turn order (asked for thousands of
        times a game), the readings' switches as flags, and what every turn reads."""
        self._others = [tuple(self._opponents(seat)) for seat in range(self.variant.players)]
        self._time_per_turn = real_number("time_per_turn", self.params["time_per_turn"])
        self._token_clock = self._uses_token_memory
        self._per_time = self.params["noise_mode"] == "per_time"
        self._all_pass_rule = self.params["candidate_rule"] == "all"
        self._project_self = bool(self.params["project_self"])
        self._fast_paths()
        self._predicted = np.empty((self.variant.players, 3), np.int64)

    def _fast_paths(self) -> None:
        """Which fast paths may decide (only without an opponent model): a ToM0 decision
        as one retrieval (_decide_tom0) and the compiled core for k >= 1 (per-time noise:
        one noise array per decision)."""
        plain = self._opponent_model is None and self._tom0_rule is None
        self._tom0_only = plain and self.k == 0
        self._compiled_reasoning = (plain and self.k >= 1
                                    and self.params["noise_mode"] == "per_time")

    @property
    def opponent_model(self) -> OpponentModel | None:
        """What predicts an opponent at the top level of a decision (and wherever the
        recursion projects a player outside an opponent model's own call): None (the
        default) is the plain ToM recursion, ToM-(k−1), with its fast paths; a hook
        (:data:`OpponentModel`) replaces it, and the fast paths are off (``bayes-tom``
        plugs in its inferred models)."""
        return self._opponent_model

    @opponent_model.setter
    def opponent_model(self, model: OpponentModel | None) -> None:
        if model is not None and not callable(model):
            raise TypeError(f"an opponent model must be None or callable as "
                            f"model(level, seat, tokens_on_card, tokens, world) -> Outcome, "
                            f"got {model!r}")
        self._opponent_model = model
        self._fast_paths()

    @property
    def tom0_rule(self) -> ZeroOrderRule | None:
        """What ToM0 does inside the recursion: None (the default) is the thesis's ToM0,
        a retrieval over the instances; a hook (:data:`ZeroOrderRule`) replaces it, and
        the compiled core steps aside (the reference recursion decides)."""
        return self._tom0_rule

    @tom0_rule.setter
    def tom0_rule(self, rule: ZeroOrderRule | None) -> None:
        if rule is not None and not callable(rule):
            raise TypeError(f"a ToM0 rule must be None or callable as "
                            f"rule(view, seat, tokens_on_card, tokens) -> Action, got {rule!r}")
        self._tom0_rule = rule
        self._fast_paths()

    @property
    def instance_memory(self) -> DeclarativeMemory:
        """The memory holding the instances (ToM0's retrievals)."""
        return self._instance_dm

    def reason_plainly(self, level: int, seat: int, tokens_on_card: int, tokens: int,
                       world: tuple[Belief, ...]) -> Outcome:
        """ToM-``level`` from ``seat``'s view, assuming it holds ``tokens`` and the
        players' counts ``world``, by the plain recursion (no opponent model consulted,
        however deep): what an opponent model runs to predict with a ToM-k candidate.
        Reads the decision begun (the view whose card is reasoned about)."""
        projecting = self._projecting
        self._projecting = True
        try:
            return self._reason(level, seat, tokens_on_card, tokens, world)
        finally:
            self._projecting = projecting

    def report_state(self) -> tuple:
        """What :meth:`decision_info` and :attr:`last_trace` report and the game's
        instance failure count now, to put back with :meth:`restore_report` (a
        re-decision with other noise leaves no trace: ``likelihood``)."""
        return (self._info, self.last_trace, self.instance_failures)

    def restore_report(self, state: tuple) -> None:
        """Put back what :meth:`report_state` returned."""
        self._info, self.last_trace, self.instance_failures = state

    def observe(self, event: Event) -> None:
        """Track token movements: every pass and take updates the actor's count."""
        kind = type(event)  # events are named tuples, never subclassed
        if kind is Passed:
            change = -1
        elif kind is Took:
            change = event.tokens
        else:
            return
        seat = event.seat
        if seat != self.seat and self._token_clock:
            self.token_memory.update(seat, change)  # logs the count before the move
        self._tally[seat] += change
        self._tick()

    # ------------------------------------------------------------------ deciding
    def _begin(self, view: View) -> None:
        """Per-decision state the reasoning reads: the view, and the ToM0 retrievals and
        sequence categories of this decision's card (reasoning about another card starts
        here)."""
        self._view = view
        self._tom0_cache: dict[tuple, tuple] = {}
        self._categories: dict[int, str] = {}  # seat -> the card's sequence category
        self._memoize = self._per_time

    def decide(self, view: View) -> Action:
        """Without a trace and an opponent model: ToM0 by one retrieval
        (:meth:`_decide_tom0`), ToM-k (k >= 1) by the compiled core (``tom_kernel``) where
        it applies; else the reference recursion (:meth:`_reason`). The same outcome
        either way (tests/integration/agreement/test_tom.py)."""
        if self._tom0_only and not self.traces:
            action = self._decide_tom0(view)
            if action is not None:
                return action
        self.token_memory.record = self.traces
        recalls_before = len(self.token_memory.history)
        world, recall_latency = self._beliefs(view)
        recalls = self.token_memory.history[recalls_before:]
        outcome = None
        if self._compiled_reasoning and not self.traces:
            outcome = self._reason_compiled(view, world)
        if outcome is None:
            self._begin(view)
            outcome = self._reason(self.k, view.seat, view.tokens_on_card, view.own_tokens,
                                   world, root=True)
        self.instance_failures += outcome.failures
        # what decision_info reports, worded only when asked for (the runner does not
        # ask when decisions are not recorded); every part is immutable or a snapshot
        self._info = (view.seat, self._instance_dm.time, outcome,
                      outcome.latency + recall_latency, world, recalls)
        if self.traces:
            self.last_trace = DecisionTrace(view.seat, self._instance_dm.time, view.card,
                                            outcome.node, list(recalls))
        return outcome.action

    def _compiled_inputs(self, rows: int) -> tuple[_CoreInputs, np.ndarray | None] | None:
        """What the compiled core reads from the instance memory now: (:class:`_CoreInputs`
        with score tables holding counts below ``rows``, the per-time noise); None when
        the core cannot take this memory (no kernels, no noise or noise per retrieval, no
        instances, an instance learned at this very time, requests not all scored).
        Learned instances (``learning-tom``) enter with their base levels now; the score
        tables are remade when the memory holds other chunks than when they were made.
        The noise is the memory's own for this time, or None when no retrieval has drawn
        it yet."""
        compiled = tom_kernel.compiled()
        memory = self._instance_dm
        _, count, parameters, noise = memory.compiled_view  # read once per decision
        if noise is not None and len(noise) < count:  # not drawn for every chunk yet
            noise = None
        kept = self._kept_inputs
        if (kept is not None and compiled is not None and kept[0] == count
                and kept[1] is parameters and not memory.learned_count
                and kept[2] == memory.mismatch_version and rows <= kept[3].tables.rows):
            # nothing checked below has changed since: the same tables and base levels
            return kept[3], noise
        if (compiled is None or parameters.noise <= 0 or count == 0
                or parameters.noise_mode != "per_time"):  # (the mode may change after start)
            return None
        if memory.learned_count:
            fixed = memory.base_levels()  # the learned chunks' base levels at this time
            if np.isposinf(fixed).any():  # referenced now: the Python path raises
                return None
        else:
            fixed = memory.fixed_activations()  # the base levels: every chunk fixed
        variant = self.variant
        tables = self._score_tables
        if tables is None or not tables.current(variant.low_card, variant.high_card):
            # chunks learned since the tables were made (learning-tom): score only those
            if tables is None or not (tables.deck == (variant.low_card, variant.high_card)
                                      and tables.extend(_takes(memory, tables.chunks))):
                tables = tom_kernel.ScoreTables(memory, _takes(memory, 0), variant.low_card,
                                                variant.high_card)
                if not tables.grow(tom_kernel.FIRST_ROWS):
                    return None
            self._score_tables = tables
        if rows > tables.rows and not tables.grow(rows):
            return None
        # the largest finite |base level|: only a ToM0 model's lazy retrieval reads it (a
        # learning model's inputs are made anew at every decision, so not made for ToM-k)
        finite = fixed[np.isfinite(fixed)] if self._tom0_only else ()
        inputs = _CoreInputs(compiled, tables, fixed,
                             float(np.abs(finite).max()) if len(finite) else 0.0,
                             parameters, {})
        if not memory.learned_count:  # what stays true until a chunk or setting changes
            self._kept_inputs = (count, parameters, memory.mismatch_version, inputs)
        return inputs, noise

    def _reason_compiled(self, view: View, world: tuple[Belief, ...]) -> Outcome | None:
        """:meth:`_reason` at the root in one compiled call (``tom_kernel``): the same
        outcome, bit for bit; None when the compiled recursion cannot take this memory
        or state (:meth:`_compiled_inputs`, or a negative count assumed)."""
        inputs = self._compiled_inputs(0)
        if inputs is None:
            return None
        tokens = view.own_tokens
        if tokens == 0:
            return _MUST_TAKE_OUTCOME  # as _reason: no retrieval, no noise drawn
        (compiled, tables, fixed, _, parameters, _), noise = inputs
        if noise is None:  # every ToM0 state asked may retrieve: drawn for all at once
            noise = self._instance_dm.per_time_noise()
        # the packed state (tom_core.decide): its head, each seat's category of the card,
        # each seat's count of assumed counts, then the counts, ``width`` rows of one per
        # seat (0 past a seat's counts)
        card = view.card
        counts = [len(belief.candidates) for belief in world]
        width = max(counts)
        if width == 1:  # one count per player (every leaf recalled): no padding
            assumed = [belief.candidates[0] for belief in world]
        else:
            assumed = [belief.candidates[c] if c < len(belief.candidates) else 0
                       for c in range(width) for belief in world]
        tail = [(card - 1 in cards) + (card + 1 in cards) for cards in view.cards]
        tail += counts
        tail += assumed
        predictions = self._predicted
        while True:
            state = np.array([self.k, view.seat, view.tokens_on_card, tokens, len(world),
                              width, self.seat, self._project_self, self._all_pass_rule,
                              tables.card_row(card), tables.on_start, tables.own_start,
                              *tail], dtype=np.int64)
            (take, latency, failures, tom0_takes, failed, taker, predicted,
             needed) = compiled.decide(state, tables.table, fixed, noise,
                                       parameters.mismatch_penalty,
                                       parameters.retrieval_threshold,
                                       parameters.latency_factor, predictions)
            if not needed:
                break
            if needed < 0 or not tables.grow(needed):  # a negative count, not all scored
                return None  # (the Python path reads the same per-time noise)
        tom0 = Action.TAKE if tom0_takes else Action.PASS
        made = tuple([_new_tuple(Prediction, (
            other, on, *world[other], _TAKES_ACTION[takes], ()))
            for other, on, takes in predictions[:predicted].tolist()]) if predicted else ()
        return _new_tuple(Outcome, (
            Action.TAKE if take else Action.PASS, latency, failures, None, tom0,
            _reason(self.k, tom0, failed, None if taker < 0 else taker, predicted), made))

    def _decide_tom0(self, view: View) -> Action | None:
        """A ToM0 model's decision without a trace or an opponent model, in one call of the
        compiled core (``tom_core.decide_tom0``: the retrieval :meth:`_reason` makes, the
        same outcome bit for bit) and without beliefs (ToM0 recalls nothing); None when
        the core cannot take it (:meth:`_compiled_inputs`): then :meth:`decide` reasons
        by the reference."""
        if tom_kernel.compiled() is None:  # the reference decides (reference_mode)
            return None
        tokens = view.own_tokens
        if tokens == 0:
            outcome = _MUST_TAKE_OUTCOME
        else:
            on_card = view.tokens_on_card
            inputs = self._compiled_inputs((on_card if on_card > tokens else tokens) + 1)
            if inputs is None:
                return None
            (compiled, tables, fixed, extent, parameters, windows), noise = inputs
            card = view.card
            cards = view.cards[view.seat]
            category = (card - 1 in cards) + (card + 1 in cards)
            card_row = tables.card_row(card)
            on_row = tables.on_start + on_card
            own_row = tables.own_start + tokens
            # the query's window, made when the query comes again (the same until the
            # tables or base levels change); the first time the core retrieves without one
            query = (card, category, on_card, tokens)
            window = windows.get(query)
            if window is None:
                if len(windows) >= WINDOWS_KEPT:
                    windows.clear()
                window = windows[query] = _NO_WINDOW
            elif window is _NO_WINDOW:
                table = tables.table
                window = windows[query] = compiled.window(
                    fixed, extent, table[tom_kernel.CATEGORY_ROW + category], table[card_row],
                    table[on_row], table[own_row], parameters.mismatch_penalty,
                    parameters.noise, tables.out)
            # the per-time noise: drawn already, or its stream positions reserved now and
            # drawn by the core only where an instance can win (pcg64 stream: drawn now)
            stream = None if noise is not None else self._instance_dm.reserve_per_time_noise()
            if stream is None:
                if noise is None:
                    noise = self._instance_dm.per_time_noise()
                stream = _NO_STREAM
            else:
                noise = _NOT_DRAWN
            take, latency, failed = compiled.decide_tom0(
                tables.table, fixed, extent, *window, noise, *stream, card_row, category,
                on_row, own_row, parameters.mismatch_penalty, parameters.retrieval_threshold,
                parameters.latency_factor, tables.out)
            if failed:
                self.instance_failures += 1
                outcome = _new_tuple(Outcome, (DEFAULT_ACTION, latency, 1, None,
                                                DEFAULT_ACTION, _DEFAULT_REASON, ()))
            else:
                action, reason = _TOM0_SAYS[take]
                outcome = _new_tuple(Outcome, (action, latency, 0, None, action, reason, ()))
        self._info = (view.seat, self._instance_dm.time, outcome, outcome.latency + 0.0,
                      None, ())
        return outcome.action

    def decision_info(self) -> dict[str, object]:
        if not self._info:
            return {}
        seat, model_time, outcome, latency, world, recalls = self._info
        return {
            "tom_order": self.k,
            "model_time": model_time,
            "reason": outcome.reason,
            # None when forced to take: ToM0 is not consulted without tokens
            "own_tom0_action": outcome.tom0,
            "latency": latency,
            "instance_failures": outcome.failures,
            "predictions": [p.as_dict() for p in outcome.predictions],
            # opponent seat -> candidate counts recalled; ToM0 recalls nothing
            "recalled_tokens": {other: world[other].candidates
                                for other in self._others[seat]} if self.k else None,
            # opponent seat -> whether the recalled leaf was its newest (None: no leaf)
            "leaf_is_newest": {r.seat: r.leaf_is_newest for r in recalls}
            if self._uses_token_memory else None,
        }

    def _beliefs(self, view: View) -> tuple[tuple[Belief, ...], float]:
        """What the model assumes about every count now: its own exactly, the others
        recalled once (or read from the tally in oracle mode); and the recall latency."""
        world = [_new_tuple(Belief, ((view.own_tokens,), "exact-own"))] * view.players
        latency = 0.0
        if self.k >= 1:
            for other in self._others[view.seat]:
                if self.oracle_tokens:
                    world[other] = _new_tuple(Belief, ((self._tally[other],), "oracle"))
                else:
                    recall = self.token_memory.recall(other, "decide")
                    world[other] = _new_tuple(Belief, (recall.candidates, recall.source))
                    latency += recall.latency
        return tuple(world), latency

    def _tom0(self, seat: int, tokens_on_card: int, tokens: int):
        """ToM0 from ``seat``'s view: (action, state, retrieval record, latency, failed)."""
        view = self._view
        if self._tom0_rule is not None:
            return self._tom0_rule(view, seat, tokens_on_card, tokens), None, None, 0.0, False
        category = self._categories.get(seat)
        if category is None:
            category = self._categories[seat] = category_name(view.cards[seat], view.card)
        if self._memoize:
            key = (category, tokens_on_card, tokens)
            known = self._tom0_cache.get(key)
            if known is not None:
                return known
        if self.traces:
            state = state_chunk(category, view.card, tokens_on_card, tokens)
            chunk, _, latency, record = self._instance_dm.retrieve(state, record=True)
        else:  # the state is read only by traces
            state = record = None
            chunk, _, latency, _ = self._instance_dm.retrieve_items(
                state_items(category, view.card, tokens_on_card, tokens))
        if chunk is None:
            result = (DEFAULT_ACTION, state, record, latency, True)
        else:
            result = (_ACTIONS[chunk["action"]], state, record, latency, False)
        if self._memoize:
            self._tom0_cache[key] = result
        return result

    def _reason(self, level: int, seat: int, tokens_on_card: int, tokens: int,
                world: tuple[Belief, ...], root: bool = False) -> Outcome:
        """ToM-``level`` from ``seat``'s view, assuming it holds ``tokens``.

        Outcomes are not kept: within a decision no projection repeats (each has its own
        seat, tokens on the card and beliefs; none repeats in ToM1–ToM4 or bayes-tom
        games), and what a projection retrieves _tom0 keeps per state when the noise is
        per time. A projection outside an opponent model's own call is the opponent
        model's, if there is one."""
        model = self._opponent_model
        if model is not None and not root and not self._projecting:
            self._projecting = True
            try:
                return model(level, seat, tokens_on_card, tokens, world)
            finally:
                self._projecting = False
        if tokens == 0:
            if not self.traces:
                return _MUST_TAKE_OUTCOME
            return Outcome(Action.TAKE, 0.0, 0, self._node(
                level, seat, tokens_on_card, tokens, world[seat].source, None, None, None, (),
                Action.TAKE, _MUST_TAKE), None, _MUST_TAKE)
        if level == 0 and not root and not self.traces:
            # ToM0 inside a projection: its outcome is its retrieval's
            tom0, _, _, latency, failed = self._tom0(seat, tokens_on_card, tokens)
            return _new_tuple(Outcome, (tom0, latency, int(failed), None, tom0, "", ()))
        return self._reason_with_tokens(level, seat, tokens_on_card, tokens, world, root)

    def _reason_with_tokens(self, level: int, seat: int, tokens_on_card: int, tokens: int,
                            world: tuple[Belief, ...], root: bool) -> Outcome:
        traces = self.traces
        tom0, state, record, latency, failed = self._tom0(seat, tokens_on_card, tokens)
        failures = int(failed)
        # Predictions are kept only where they are read: at the root (decision_info) and
        # in traces; inside a projection only their count and the first taker matter.
        keep = root or traces
        predictions: list[Prediction] = []
        predicted_count = 0
        taker = None
        # Inside a projection only the predicted action matters, so a projected player
        # whose ToM0 passes is not asked to predict anyone (the outcome is the same).
        if level >= 1 and (root or tom0 is Action.TAKE):
            source = world[seat].source
            world = replace_belief(world, seat,
                             _new_tuple(Belief, ((tokens - 1 if tokens > 0 else 0,), source)))
            on_card = tokens_on_card + 1
            others = self._others[seat]
            if not root and not self._project_self:
                others = [o for o in others if o != self.seat]
            for other in others:
                belief = world[other]
                candidates = belief.candidates
                if len(candidates) == 1:
                    # the one projection's world is this one: the belief it would put in
                    # place, one count from this source, is the one already there
                    projection = self._reason(level - 1, other, on_card, candidates[0], world)
                    latency += projection.latency
                    failures += projection.failures
                    passing = projection.action is Action.PASS
                    projections = (projection,)
                else:
                    projections = [
                        self._reason(level - 1, other, on_card, count,
                                     replace_belief(world, other,
                                              _new_tuple(Belief, ((count,), belief.source))))
                        for count in candidates]
                    passes = []
                    projected_latency = 0  # summed first, then added: as sum() did
                    for projection in projections:
                        projected_latency += projection.latency
                        failures += projection.failures
                        passes.append(projection.action is Action.PASS)
                    latency += projected_latency
                    passing = all(passes) if self._all_pass_rule else any(passes)
                predicted = Action.PASS if passing else Action.TAKE
                predicted_count += 1
                if keep:
                    predictions.append(_new_tuple(Prediction, (
                        other, on_card, candidates, belief.source, predicted,
                        tuple(p.node for p in projections) if traces else ())))
                if not passing:
                    taker = other
                    break
                world = replace_belief(world, other, belief.after_pass())
                on_card += 1
        action = tom0
        if level >= 1 and tom0 is Action.TAKE and taker is None:
            action = Action.PASS
        # the reason is read only at the root and in traces: not worded inside projections
        reason = _reason(level, tom0, failed, taker, predicted_count) if keep else ""
        made = tuple(predictions)
        node = self._node(level, seat, tokens_on_card, tokens, world[seat].source, state,
                          record, tom0, made, action, reason) if traces else None
        return _new_tuple(Outcome, (action, latency, failures, node, tom0, reason, made))

    def _node(self, level: int, seat: int, tokens_on_card: int, tokens: int, source: str,
              state, record, tom0, predictions, action: Action, reason: str) -> TraceNode | None:
        if not self.traces:
            return None
        return TraceNode(level, seat, tokens_on_card, tokens, source, state, record, tom0,
                         predictions, action, reason)


@functools.lru_cache(maxsize=4096)
def _reason(level: int, tom0: Action, failed: bool, taker: int | None,
            predicted: int) -> str:
    """Why a reasoner at ``level`` acts as it does, in words (decision logs, traces):
    ``taker`` is the first player predicted to take (None: nobody), ``predicted`` how
    many were predicted. Kept per combination (worded at every decision)."""
    says = (f"no instance above the threshold: default {DEFAULT_ACTION}" if failed
            else f"ToM0 says {tom0}")
    if level < 1:
        return says
    if tom0 != Action.TAKE:
        return f"{says} -> pass"
    if taker is not None:
        return f"{says}; player {taker} predicted to take -> take"
    return f"{says}; all {predicted} opponents predicted to pass -> pass"


#: A ToM0's action and reason by whether its retrieved instance took (0 or 1, as the
#: compiled core says), and its reason when no instance is retrieved (the wording of
#: _reason at level 0).
_TOM0_SAYS = {takes: (action, _reason(0, action, False, None, 0))
              for takes, action in enumerate(_TAKES_ACTION)}
_DEFAULT_REASON = _reason(0, DEFAULT_ACTION, True, None, 0)

#: Memories holding an instance set's chunks, by the set (kept alive here, so its id
#: is not reused), for the last few sets: every model copies its chunks from here.
_INSTANCE_CHUNKS: dict[int, tuple[InstanceSet, DeclarativeMemory]] = {}
_INSTANCE_CHUNKS_KEPT = 4


def _instance_chunks(instance_set: InstanceSet) -> DeclarativeMemory:
    """A memory with ``instance_set`` stored as fixed-activation chunks (activation 0),
    built once per set and kept for the sets used last (a model copies its chunks from
    it)."""
    kept = _INSTANCE_CHUNKS.get(id(instance_set))
    if kept is not None and kept[0] is instance_set:
        return kept[1]
    memory = DeclarativeMemory(seed=0)
    for instance in instance_set.instances:
        memory.add(instance.slots(), fixed_activation=0.0)
    if len(_INSTANCE_CHUNKS) >= _INSTANCE_CHUNKS_KEPT:
        _INSTANCE_CHUNKS.pop(next(iter(_INSTANCE_CHUNKS)))
    _INSTANCE_CHUNKS[id(instance_set)] = (instance_set, memory)
    return memory


def _takes(memory: DeclarativeMemory, start: int) -> np.ndarray:
    """1.0 for each instance chunk from row ``start`` on whose action is take, else 0.0."""
    return np.array([_ACTIONS[chunk["action"]] is Action.TAKE
                     for chunk in memory.chunks[start:]], dtype=np.float64)


def replace_belief(world: tuple[Belief, ...], seat: int, belief: Belief) -> tuple[Belief, ...]:
    """``world`` with ``seat``'s belief replaced by ``belief``."""
    return world[:seat] + (belief,) + world[seat + 1:]


def subclass_factory(cls: type[ToMAgent], own: Sequence[str], drop: Sequence[str],
                     name: str) -> Callable[..., ToMAgent]:
    """The registry factory of a :class:`ToMAgent` subclass whose spec keys are its own
    ``own`` keys plus every ToMAgent key not in ``drop``: its signature lists exactly those
    keys (keyword-only), so specs, docs and error messages know them."""
    keyword = inspect.Parameter.KEYWORD_ONLY
    mine = [p.replace(kind=keyword) for p in inspect.signature(cls.__init__).parameters.values()
            if p.name in own]
    inherited = [p.replace(kind=keyword) for p in inspect.signature(ToMAgent).parameters.values()
                 if p.name not in drop and p.name not in own]

    def make(**params) -> ToMAgent:
        return cls(**params)

    make.__signature__ = inspect.Signature(mine + inherited)  # type: ignore[attr-defined]
    make.__name__ = name
    make.__doc__ = cls.__doc__
    return make

