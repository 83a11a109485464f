"""``learning-tom``: a ToM-k model whose ToM0 instances come from watching its opponents.

The thesis's instances are hand-made and never change (§3.2); its §6.2 names learning
from experience as the next step. This model starts from a starting set (none by
default: ``start=empty``) and, each time an opponent takes or passes, stores an instance
of that opponent's situation with the action it took (docs/models.md, "learning-tom"):

* ``category``: the card's sequence category against the opponent's cards, which are
  public (tallied here from the ``Took`` events);
* ``card`` and ``tokens_on_card``: the face-up card and the tokens on it before the
  move, both public (``Passed.tokens_on_card`` counts the token just placed);
* ``tokens_owned``: the opponent's count as this model's token memory recalled it for
  that very move (the recall :meth:`TokenMemory.update` makes before changing the
  remembered count: ``Recall.value``, a leaf's count, or a root class's or the no-recall
  default); with ``oracle_tokens=true`` (a debug switch) the perfect tally instead.
  The model never reads a count it was not shown: its inputs are the events and its
  own views; a move whose recalled count is 0 (a forced take, or a pass its memory got
  wrong) is not stored, as ToM0 is never asked about a player without tokens.

Each observation is a presentation of its chunk in the ToM0 memory at the move's model
time: a new situation makes a new chunk, a repeated one adds a reference to the same
chunk, so its base level ``ln Σ (t − t_j)^(−d)`` grows with repetition and decays with
time (ACT-R's declarative memory; docs/actr.md). Starting instances keep their fixed
activation 0 (an observation identical to one only adds a reference that never counts).
The ToM-k recursion is :class:`~.tom.ToMAgent`'s, unchanged: its compiled fast path
reads the learned chunks' base levels at each decision and remakes its score tables only
when the set of chunks changed since the last decision.

With ``carry=true`` the observations persist across the games the same object plays
(a design's ``trial = N``): each game's memory is a copy of the last game's (the
starting set and every observation with its references), its noise seeded by the new
game's seed and its clock running on from where the last game ended (model time is the
experience's time), so old observations have decayed.
With ``carry=false`` every game starts from the starting set alone.

:meth:`LearningToMAgent.export_instances` writes what it learned as an instance file
(``tom2:instances=PATH`` loads it).
"""
from __future__ import annotations

from pathlib import Path

from ... import __version__
from ...actr import DeclarativeMemory
from ...rules import Action, Event, Passed, Took, Variant
from .generate_instances import render
from .instance_sets import load_instances
from .instances import Instance, InstanceFileError, InstanceSet, validated
from .state import Category, category_name, state_items
from .tom import DEFAULT_ACTION, ToMAgent, subclass_factory

#: ``start=`` value of a model that starts with no instances (the default).
EMPTY_START = "empty"
#: The version of the exported file format's header (raised when its content changes).
EXPORT_VERSION = 1
#: The (category, card, tokens_on_card, tokens_owned, action) of one observed situation.
Situation = tuple[str, int, int, int, str]


#: The starting set of ``start=empty`` (one object: models copy a set's chunks from a
#: memory kept per set object).
_EMPTY = InstanceSet((), EMPTY_START)


def _start_set(start: str) -> InstanceSet:
    """The starting set ``start=`` names: none (``empty``), a shipped set (with seeded
    perturbations) or a file (errors from :func:`load_instances` name what is valid)."""
    if not isinstance(start, str) or not start.strip():
        raise ValueError(f"start={start!r} is invalid; valid: {EMPTY_START} (no instances), "
                         "the name of a shipped instance set (e.g. monotone), or the path "
                         "of an instance file")
    if start == EMPTY_START:
        return _EMPTY
    try:
        return load_instances(start)
    except InstanceFileError as error:  # named by this model's key
        message = str(error).removeprefix(f"instances={start!r}: ")
        raise InstanceFileError(f"start={start!r}: {message} (or {EMPTY_START}: no "
                                "instances)") from None


class LearningToMAgent(ToMAgent):
    """A ToM-k model whose ToM0 instances are accumulated from its opponents' moves
    (module doc; docs/models.md, "learning-tom").

    Args:
        k: theory-of-mind order (0, 1, 2, ...); the recursion is :class:`ToMAgent`'s.
        start: the starting instances: ``empty`` (none, the default: everything it
            knows it saw), a shipped set by name (with perturbations, e.g.
            ``monotone+flip=0.1``) or the path of an instance file.
        carry: keep the observations from one game to the next (``trial = N``
            designs); ``false`` starts every game from ``start``.
        **params: every other key of :class:`ToMAgent` (not ``instances``: ``start``
            names the starting set).
    """

    name = "learning-tom"
    learns = True

    def __init__(self, k: int = 2, *, start: str = EMPTY_START, carry: bool = False,
                 **params) -> None:
        if "instances" in params:
            raise ValueError("learning-tom has no key 'instances'; valid: start=empty|NAME|"
                             "PATH names its starting instance set")
        if not isinstance(carry, bool):
            raise ValueError(f"carry={carry!r} is invalid; valid: true or false")
        self._start = _start_set(start)
        self.start_set = start
        self._presentations = 0  # observations stored (carried ones included)
        #: situation -> [presentations, model time of the latest]
        self._seen: dict[Situation, list] = {}
        self._cards: list[tuple[int, ...]] = []  # every player's cards (public)
        self._stored_this_game = 0
        self._skipped_this_game = 0
        self._games = 0  # games begun with the current experience
        self._stored_any = False  # the memory holds observations (it cannot restart)
        super().__init__(k, instances="" if start == EMPTY_START else start, **params)
        self.name = "learning-tom"
        self.carries = carry

    @property
    def label(self) -> str:
        """``learning-ToM<k>``: not to be pooled with the fixed ``ToM<k>`` models."""
        return f"learning-ToM{self.k}"

    # ------------------------------------------------------------------ memories
    @property
    def _uses_token_memory(self) -> bool:
        # every order tracks its opponents' counts: a ToM0 learner needs them to store
        return not self.oracle_tokens

    def _build_instance_memory(self, variant: Variant,
                               source: DeclarativeMemory | None = None, seed=0) -> None:
        """ToMAgent's: the starting set's chunks (from the kept copy), or ``source``'s
        chunks, references and clock."""
        self.instance_set = self._start  # the set ToMAgent builds from and checks decks of
        super()._build_instance_memory(variant, source, seed)
        if source is None:
            self._stored_any = False

    def _restart_instance_memory(self, variant: Variant, seed) -> None:
        """A game's ToM0 memory: with ``carry`` a copy of the last game's (the starting
        set and every observation, its clock running on), its noise seeded anew; else
        the starting set alone (a memory holding learned chunks cannot be restarted)."""
        if self._stored_any and self.carries:
            self._build_instance_memory(variant, source=self._instance_dm, seed=seed)
            return
        if self._stored_any:
            self._build_instance_memory(variant)
        super()._restart_instance_memory(variant, seed)

    def _new_memories(self, variant: Variant, seed: int) -> None:
        if not self.carries:  # every game from the starting set
            self._seen = {}
            self._presentations = 0
            self._games = 0
        super()._new_memories(variant, seed)

    def start(self, seat: int, variant: Variant, seed: int) -> None:
        super().start(seat, variant, seed)
        self._cards = [()] * variant.players
        self._stored_this_game = 0
        self._skipped_this_game = 0
        self._games += 1

    # ------------------------------------------------------------------ learning
    def observe(self, event: Event) -> None:
        """ToMAgent's tracking (the token memory recalls and updates the mover's count,
        the clock ticks), and an opponent's move stored as an instance."""
        kind = type(event)
        if kind is not Passed and kind is not Took:
            super().observe(event)
            return
        seat = event.seat
        if seat == self.seat:
            super().observe(event)
        else:
            time = self._instance_dm.time
            tallied = self._tally[seat]
            super().observe(event)
            if self.oracle_tokens:
                owned = tallied
            else:
                recall = self.token_memory.history[-1]  # update()'s recall of this move
                if recall.seat != seat or recall.purpose != "update":
                    raise RuntimeError(f"learning-tom: the token memory's last recall is "
                                       f"{recall!r}, not the update of player {seat}")
                owned = recall.value
            self._learn(time, seat, kind is Took, event, owned)
        if kind is Took:
            self._cards[seat] = (*self._cards[seat], event.card)

    def _learn(self, time: float, seat: int, took: bool, event: Passed | Took,
               owned: int) -> None:
        """Store one observed move at model time ``time`` (module doc)."""
        if owned <= 0:
            self._skipped_this_game += 1
            return
        card = event.card
        on_card = event.tokens if took else event.tokens_on_card - 1
        action = str(Action.TAKE if took else Action.PASS)
        category = category_name(self._cards[seat], card)
        slots = {"category": category, "card": card, "tokens_on_card": on_card,
                 "tokens_owned": owned, "action": action}
        self._instance_dm.add_past([(time, slots)])
        self._stored_any = True
        self._presentations += 1
        situation = (category, card, on_card, owned, action)
        seen = self._seen.get(situation)
        if seen is None:
            self._seen[situation] = [1, time]
        else:
            seen[0] += 1
            seen[1] = time
        self._stored_this_game += 1

    # ------------------------------------------------------------------ reporting
    def learning_state(self) -> dict[str, object]:
        """The learning state (JSON-able): distinct situations stored (``instances``),
        observations in all (``presentations``), stored and skipped this game, games
        played with this experience, and the chunks in the ToM0 memory."""
        return {"instances": len(self._seen), "presentations": self._presentations,
                "stored_this_game": self._stored_this_game,
                "skipped_this_game": self._skipped_this_game, "games": self._games,
                "chunks": len(self._instance_dm)}

    def decision_info(self) -> dict[str, object]:
        info = super().decision_info()
        if info:
            info["learning"] = self.learning_state()
        return info

    def tom0_action(self, category: str, card: int, tokens_on_card: int,
                    tokens_owned: int) -> Action:
        """What ToM0 does in this state from the instances held now: one retrieval at the
        memory's current time (its per-time noise), the default pass when none is above
        the threshold. Nothing is stored; for measuring what the model has learned
        (e.g. how well it predicts a player), not called by its own decisions."""
        chunk = self._instance_dm.retrieve_items(
            state_items(str(category), card, tokens_on_card, tokens_owned))[0]
        return DEFAULT_ACTION if chunk is None else Action(chunk["action"])

    def learned_instances(self) -> list[Instance]:
        """One instance per observed state (category, card, tokens on the card, tokens
        owned), sorted: the action seen more often there, on a tie the latest seen."""
        best: dict[tuple, tuple[int, float, str]] = {}
        for (category, card, on_card, owned, action), (count, last) in self._seen.items():
            state = (category, card, on_card, owned)
            mine = (count, last, action)
            if state not in best or mine[:2] > best[state][:2]:
                best[state] = mine
        return [Instance(Category(state[0]), state[1], state[2], state[3],
                         Action(best[state][2])) for state in sorted(best)]

    def export_instances(self, out: str | Path, *, command: str = "") -> Path:
        """Write the learned instances (:meth:`learned_instances`) as an instance file at
        ``out`` (written whole or not at all), its header recording the format version,
        the model's spec, its starting set, what it saw and ``command`` (how it was run).
        ``instances=PATH`` loads it into any model.

        Raises:
            InstanceFileError: the learned set could not be loaded back (nothing learned
                yet, or a category never seen: every category needs an instance).
        """
        from ...files import atomic_write_bytes

        path = Path(out)
        instances = validated(self.learned_instances(),
                              f"learned by {self.spec} (not written to {path})")
        contradicted = len(self._seen) - len(instances)
        header = [
            f"ToM0 instances learned from watching opponents, export version "
            f"{EXPORT_VERSION}, nothanks {__version__}, written by",
            "nothanks.agents.cognitive.learning_tom.LearningToMAgent.export_instances",
            f"Model: {self.spec} (starting set {self.start_set!r}, carry={self.carries})",
            f"Seen: {self._presentations} moves over {self._games} game(s), "
            f"{len(self._seen)} distinct situations; {contradicted} state(s) seen with both "
            "actions keep the more frequent (ties: the latest).",
        ]
        if command:
            header.append(f"Command: {command}")
        header.append("Load with tom2:instances=PATH.")
        atomic_write_bytes(render(instances.instances, "\n".join(header)).encode("utf-8"), path)
        return path


def learning_tom_factory():
    """The registry factory: ``k``, ``start``, ``carry`` and every ToMAgent key but
    ``instances``."""
    return subclass_factory(LearningToMAgent, ("k", "start", "carry"), ("k", "instances"),
                            "learning_tom")


__all__ = ["EMPTY_START", "EXPORT_VERSION", "LearningToMAgent", "learning_tom_factory"]
