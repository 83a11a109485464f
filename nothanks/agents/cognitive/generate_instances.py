"""Generate the ToM0 instance set from a stated rule (thesis §3.2).

The rule, in the thesis's words and ours:

* **sequence extension and sequence completion → take.** Such a card costs nothing or
  even lowers the score, so every instance of these categories says take.
* **no sequence → take once enough tokens lie on the card.** The higher the card, the
  more tokens must be on it: ``needed = round(fraction × card)``. When the model's own
  supply is low (fewer than ``low_tokens``), fewer are needed, in proportion:
  ``needed × (own + 1) / (low_tokens + 1)``, because a player about to run dry cannot
  afford to keep paying to avoid a card.

Instances sit on a grid of states (cards, tokens on the card, tokens owned); for the
no-sequence category the grid also contains, for every card and supply, the two states
just either side of the rule's boundary (``needed − 1`` → pass, ``needed`` → take), so
partial matching reproduces the boundary closely while states far from any instance
are decided by their nearest neighbours.

This rule makes the shipped set ``monotone``. Two more shipped sets reconstruct the
thesis's own description (:data:`RECONSTRUCTIONS`, :func:`reconstruct`): every choice the
text makes is cited, and every choice it leaves open is a parameter (docs/models.md,
"Instance sets").

Run ``python -m nothanks.agents.cognitive.generate_instances --set NAME --update-shipped``
to rewrite a shipped file, or ``--out PATH`` (with other parameters) to make a variant
for ``tom1:instances=PATH``.
"""
from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from ...files import atomic_write_bytes
from ...rules import Action
from .instances import COLUMNS, DEFAULT_SET, SHIPPED_DIR, Instance
from .state import Category

#: Default rule parameters (see the module docstring).
FRACTION = 0.35
LOW_TOKENS = 5
#: The state grid.
CARDS = tuple(range(3, 36, 2))
TOKENS_OWNED = (1, 2, 3, 5, 8, 11, 15, 20)
TOKENS_ON_CARD = (0, 1, 2, 3, 4, 5, 6, 8, 10, 12, 14, 17, 20)
SEQUENCE_CARDS = (3, 11, 19, 27, 35)
SEQUENCE_TOKENS_OWNED = (1, 3, 6, 11, 20)
SEQUENCE_TOKENS_ON_CARD = (0, 1, 2, 4, 8, 16)


def tokens_needed(card: int, tokens_owned: int, *, fraction: float = FRACTION,
                  low_tokens: int = LOW_TOKENS) -> int:
    """Tokens that must lie on a no-sequence ``card`` before the rule takes it."""
    needed = round(fraction * card)
    if tokens_owned < low_tokens:
        needed = round(needed * (tokens_owned + 1) / (low_tokens + 1))
    return needed


def generate(*, fraction: float = FRACTION, low_tokens: int = LOW_TOKENS) -> list[Instance]:
    """The instance set of the rule, sorted by category, card, supply and tokens on card."""
    if not fraction >= 0:
        raise ValueError(f"fraction={fraction} is invalid; valid: >= 0")
    if low_tokens < 0:
        raise ValueError(f"low_tokens={low_tokens} is invalid; valid: >= 0")
    return _on_grid(lambda card, owned: tokens_needed(card, owned, fraction=fraction,
                                                      low_tokens=low_tokens),
                    CARDS, TOKENS_OWNED, TOKENS_ON_CARD, SEQUENCE_CARDS,
                    SEQUENCE_TOKENS_OWNED, SEQUENCE_TOKENS_ON_CARD)


#: Version of the shipped sets' instances, in every shipped file's header: a change to a
#: set's instances raises it, so a logged spec ``instances=NAME`` plus the version in the
#: log's package fixes the instances.
SET_VERSION = 1
#: The thesis-reconstructed sets and the choices the text leaves open (:func:`reconstruct`).
RECONSTRUCTIONS: dict[str, dict[str, object]] = {
    "thesis-linear": {"threshold": "linear", "slope": 0.25, "low": 3, "grid": "sparse"},
    "thesis-bands": {"threshold": "bands", "low": 5, "grid": "dense"},
}
#: Card bands of the ``bands`` reading: (highest card of the band, tokens needed).
BANDS = ((9, 1), (16, 3), (23, 5), (29, 7), (35, 9))
#: The sparse grid of the ``sparse`` reading: what a person might type by hand.
SPARSE_CARDS = tuple(range(3, 36, 4))
SPARSE_OWNED = (2, 5, 8, 11, 15)
SPARSE_SEQUENCE_CARDS = (3, 11, 19, 27, 35)
SPARSE_SEQUENCE_OWNED = (2, 8, 15)
SPARSE_SEQUENCE_ON_CARD = (0, 4)


def reconstructed_needed(card: int, tokens_owned: int, *, threshold: str = "linear",
                         slope: float = 0.25, low: int = 3) -> int:
    """Tokens a no-sequence ``card`` needs before a thesis reconstruction takes it.

    Thesis §3.2: "how higher the card value, the more tokens have to be on the card"
    (rising in the card) and "when the model's token supply is low, less tokens are
    needed". The text is silent on the shape, so it is a parameter: ``linear``
    (``round(slope × card)``) or ``bands`` (:data:`BANDS`, steps a person entering
    instances by hand might use). It is silent on what "low" is and how much less: at
    ``tokens_owned <= low`` the ``linear`` reading halves the need; the ``bands`` reading
    grades it (two thirds at ``low``, one third at ``low // 2`` and below), reading
    §5.3's "the given instances avoid having a low token supply" as a stronger pull to
    take the poorer the model is.
    """
    if threshold == "linear":
        needed = round(slope * card)
        return needed // 2 if tokens_owned <= low else needed
    if threshold == "bands":
        needed = next(n for top, n in BANDS if card <= top) if card <= BANDS[-1][0] else \
            BANDS[-1][1]
        if tokens_owned <= low // 2:
            return needed // 3
        return (2 * needed) // 3 if tokens_owned <= low else needed
    raise ValueError(f"threshold={threshold!r} is unknown; valid: linear, bands")


def reconstruct(*, threshold: str = "linear", slope: float = 0.25, low: int = 3,
                grid: str = "sparse") -> list[Instance]:
    """A set built from the thesis's description (§3.2, Table 1).

    Cited: extension and completion instances always take (§3.2); no-sequence instances
    take once :func:`reconstructed_needed` tokens lie on the card (§3.2); slots and ranges
    as Table 1 (cards 3-35, tokens 0 or more). Silent, hence parameters: the threshold's
    shape and the meaning of a low supply (:func:`reconstructed_needed`), and how many
    instances there are: ``sparse`` (§3.2 says they were "manually entered": a few cards,
    supplies and token counts around each boundary) or ``dense`` (the ``monotone`` set's
    grid).
    """
    def needed(card: int, owned: int) -> int:
        return reconstructed_needed(card, owned, threshold=threshold, slope=slope, low=low)

    if grid == "dense":
        return _on_grid(needed, CARDS, TOKENS_OWNED, TOKENS_ON_CARD, SEQUENCE_CARDS,
                        SEQUENCE_TOKENS_OWNED, SEQUENCE_TOKENS_ON_CARD)
    if grid != "sparse":
        raise ValueError(f"grid={grid!r} is unknown; valid: sparse, dense")
    instances = [Instance(category, card, on_card, owned, Action.TAKE)
                 for category in (Category.EXTENSION, Category.COMPLETION)
                 for card in SPARSE_SEQUENCE_CARDS for owned in SPARSE_SEQUENCE_OWNED
                 for on_card in SPARSE_SEQUENCE_ON_CARD]
    for card in SPARSE_CARDS:
        for owned in SPARSE_OWNED:
            n = needed(card, owned)
            on_card = sorted({0, max(n - 1, 0), n, n + 4})
            instances.extend(Instance(Category.NO_SEQUENCE, card, tokens, owned,
                                      Action.TAKE if tokens >= n else Action.PASS)
                             for tokens in on_card)
    return instances


def _on_grid(needed, cards, owned_levels, on_card_levels, sequence_cards, sequence_owned,
             sequence_on_card) -> list[Instance]:
    """Sequence instances that take, and no-sequence instances on the grid plus the two
    states either side of each column's boundary ``needed(card, owned)``."""
    instances = [
        Instance(category, card, on_card, owned, Action.TAKE)
        for category in (Category.EXTENSION, Category.COMPLETION)
        for card in sequence_cards for owned in sequence_owned for on_card in sequence_on_card
    ]
    for card in cards:
        for owned in owned_levels:
            n = needed(card, owned)
            on_card = set(on_card_levels) | {n} | ({n - 1} if n > 0 else set())
            instances.extend(
                Instance(Category.NO_SEQUENCE, card, tokens, owned,
                         Action.TAKE if tokens >= n else Action.PASS)
                for tokens in sorted(on_card))
    return instances


def render(instances: Sequence[Instance], header: str) -> str:
    """The CSV text of an instance file, with ``header`` as leading comment lines."""
    lines = [f"# {line}".rstrip() for line in header.splitlines()]
    lines.append(",".join(COLUMNS))
    lines.extend(f"{i.category},{i.card},{i.tokens_on_card},{i.tokens_owned},{i.action}"
                 for i in instances)
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m nothanks.agents.cognitive.generate_instances",
        description="Write a ToM0 instance file: the monotone rule of this module's "
                    "docstring, or a reconstruction of the thesis's description.")
    parser.add_argument("--set", default=DEFAULT_SET, choices=(DEFAULT_SET, *RECONSTRUCTIONS),
                        help=f"which set (default {DEFAULT_SET})")
    parser.add_argument("--out", type=Path, default=None,
                        help="output CSV (a new file, or one to replace)")
    parser.add_argument("--update-shipped", action="store_true",
                        help="rewrite the shipped data/SET.csv instead of --out")
    parser.add_argument("--fraction", type=float, default=FRACTION,
                        help=f"monotone: tokens needed per card point, no sequence "
                             f"(default {FRACTION})")
    parser.add_argument("--low-tokens", type=int, default=LOW_TOKENS,
                        help="monotone: below this own supply, fewer tokens are needed "
                             f"(default {LOW_TOKENS})")
    args = parser.parse_args(argv)
    if (args.out is None) == (not args.update_shipped):
        parser.error("give --out PATH for a new file, or --update-shipped to rewrite the "
                     f"shipped {SHIPPED_DIR / (args.set + '.csv')} (not both)")
    out = args.out or SHIPPED_DIR / f"{args.set}.csv"
    target = "--update-shipped" if args.update_shipped else f"--out {out.name}"
    if args.set == DEFAULT_SET:
        instances = generate(fraction=args.fraction, low_tokens=args.low_tokens)
        header = (
            f"ToM0 instances for No Thanks! (thesis §3.2), set version {SET_VERSION}, "
            "written by\npython -m nothanks.agents.cognitive.generate_instances "
            f"--fraction {args.fraction} --low-tokens {args.low_tokens} {target}\n"
            "Rule: extension and completion -> take. No sequence -> take iff tokens_on_card >=\n"
            f"round({args.fraction} * card), scaled by (own + 1) / ({args.low_tokens} + 1) when "
            f"own < {args.low_tokens}.\n"
            "Edit freely or pass another file with tom1:instances=PATH.")
    else:
        choices = RECONSTRUCTIONS[args.set]
        instances = reconstruct(**choices)  # type: ignore[arg-type]
        header = (
            f"ToM0 instances for No Thanks!: {args.set}, a reconstruction of thesis §3.2, "
            f"set version {SET_VERSION}, written by\n"
            f"python -m nothanks.agents.cognitive.generate_instances --set {args.set} "
            f"{target}\n"
            "Cited: extension and completion -> take; no sequence -> take once enough tokens\n"
            "lie on the card, more for higher cards, fewer when the supply is low (§3.2).\n"
            "Silent in the thesis, chosen here: "
            + ", ".join(f"{k}={v}" for k, v in choices.items())
            + "\n(generate_instances.reconstruct; docs/models.md, \"Instance sets\").")
    atomic_write_bytes(render(instances, header).encode("utf-8"), out)
    print(f"wrote {len(instances)} instances to {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
