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

Run ``python -m nothanks.agents.cognitive.generate_instances`` to rewrite the shipped
file, or ``--out PATH`` (with other rule parameters) to make a variant for
``tom1:instances=PATH``.
"""
from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from ...io import atomic_write_bytes
from ...rules import Action
from .instances import COLUMNS, DEFAULT_INSTANCES, Instance
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
    instances = [
        Instance(category, card, on_card, owned, Action.TAKE)
        for category in (Category.EXTENSION, Category.COMPLETION)
        for card in SEQUENCE_CARDS for owned in SEQUENCE_TOKENS_OWNED
        for on_card in SEQUENCE_TOKENS_ON_CARD
    ]
    for card in CARDS:
        for owned in TOKENS_OWNED:
            needed = tokens_needed(card, owned, fraction=fraction, low_tokens=low_tokens)
            on_card = set(TOKENS_ON_CARD) | {needed} | ({needed - 1} if needed > 0 else set())
            instances.extend(
                Instance(Category.NO_SEQUENCE, card, tokens, owned,
                         Action.TAKE if tokens >= needed else Action.PASS)
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
        description="Write a ToM0 instance file from the rule in this module's docstring.")
    parser.add_argument("--out", type=Path, default=DEFAULT_INSTANCES,
                        help=f"output CSV (default: the shipped {DEFAULT_INSTANCES.name})")
    parser.add_argument("--fraction", type=float, default=FRACTION,
                        help=f"tokens needed per card point, no sequence (default {FRACTION})")
    parser.add_argument("--low-tokens", type=int, default=LOW_TOKENS,
                        help="below this own supply, fewer tokens are needed "
                             f"(default {LOW_TOKENS})")
    args = parser.parse_args(argv)
    instances = generate(fraction=args.fraction, low_tokens=args.low_tokens)
    header = (
        "ToM0 instances for No Thanks! (thesis §3.2), written by\n"
        "python -m nothanks.agents.cognitive.generate_instances "
        f"--fraction {args.fraction} --low-tokens {args.low_tokens}\n"
        "Rule: extension and completion -> take. No sequence -> take iff tokens_on_card >=\n"
        f"round({args.fraction} * card), scaled by (own + 1) / ({args.low_tokens} + 1) when "
        f"own < {args.low_tokens}.\n"
        "Edit freely or pass another file with tom1:instances=PATH.")
    atomic_write_bytes(render(instances, header).encode("utf-8"), args.out)
    print(f"wrote {len(instances)} instances to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
