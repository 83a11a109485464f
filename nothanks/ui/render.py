"""Drawing the No Thanks! table as HTML: the one place every app renders cards and tokens.

What is drawn comes from a :class:`TableState`, built either from one player's
:class:`~nothanks.rules.View` (the person's screen: opponents' token counts stay hidden,
as in the game) or from the full :class:`~nothanks.rules.Game` (a researcher watching
a model-only game sees everything).
"""
from __future__ import annotations

import html
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from ..rules import Action, Event, Game, GameOver, Passed, Took, Variant, View, card_points

CSS = """
<style>
.nt-table{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;font-size:14px;color:#222}
.nt-row{display:flex;gap:10px;flex-wrap:wrap;justify-content:center;margin:6px 0}
.nt-player{border:2px solid #ccc;border-radius:8px;padding:6px 8px;min-width:210px;
  background:#fff;flex:1 1 210px;max-width:340px}
.nt-player.nt-turn{border-color:#2f6fd6;background:#e8f0fd}
.nt-player.nt-marked{border-color:#d63030;background:#fde8e8}
.nt-name{font-weight:600;display:flex;justify-content:space-between;gap:8px}
.nt-tokens{font-weight:normal;color:#555}
.nt-cards{display:flex;flex-wrap:wrap;gap:6px;margin-top:4px;min-height:30px}
.nt-run{display:flex;gap:1px;background:#eee;border-radius:4px;padding:2px}
.nt-card{display:inline-block;width:24px;text-align:center;border:1px solid #888;
  border-radius:3px;background:#fffdf5;padding:3px 0;font-weight:600}
.nt-card.nt-free{color:#999;font-weight:normal}
.nt-center{display:flex;gap:18px;align-items:center;justify-content:center;margin:10px 0}
.nt-faceup{width:62px;height:86px;border:2px solid #444;border-radius:8px;display:flex;
  align-items:center;justify-content:center;font-size:30px;font-weight:700;background:#fffdf5}
.nt-chips{font-size:16px}
.nt-status{text-align:center;margin:4px 0;font-weight:600}
.nt-score{font-size:13px;margin-top:4px}
.nt-notes{text-align:center;color:#555;font-size:13px}
</style>
"""


def runs(cards: Iterable[int]) -> list[list[int]]:
    """Cards grouped into runs of consecutive values, ascending (only a run's lowest counts)."""
    grouped: list[list[int]] = []
    for card in sorted(cards):
        if grouped and card == grouped[-1][-1] + 1:
            grouped[-1].append(card)
        else:
            grouped.append([card])
    return grouped


def move_line(name: str, action: Action | str, card: int, tokens_before: int,
              forced: bool = False) -> str:
    """One move in words; ``tokens_before`` were on the card when the player decided."""
    if Action(action) == Action.PASS:
        return f"{name} passed on {card} ({tokens_before + 1} tokens on it)"
    return f"{name} took {card} with {tokens_before} tokens" + (
        " (no tokens left: forced)" if forced else "")


def event_line(names: Sequence[str], event: Event) -> str | None:
    """A public move event in words (``None`` for reveals and the end)."""
    if isinstance(event, Passed):
        return move_line(names[event.seat], Action.PASS, event.card, event.tokens_on_card - 1)
    if isinstance(event, Took):
        return move_line(names[event.seat], Action.TAKE, event.card, event.tokens)
    return None


def moves_since(history: Sequence[Event], names: Sequence[str], seat: int,
                limit: int = 6) -> list[str]:
    """The other players' moves since ``seat`` last moved, oldest first (public events)."""
    lines: list[str] = []
    for event in reversed(history):
        if isinstance(event, (Passed, Took)) and event.seat == seat:
            break
        line = event_line(names, event)
        if line is not None:
            lines.append(line)
    return list(reversed(lines[:limit]))


@dataclass(frozen=True)
class TableState:
    """Everything one screen shows; ``tokens[seat]`` is ``None`` where it is hidden."""

    names: tuple[str, ...]
    cards: tuple[tuple[int, ...], ...]
    tokens: tuple[int | None, ...]
    card: int | None
    tokens_on_card: int
    cards_left: int
    to_move: int | None
    you: int | None = None
    scores: tuple[int, ...] | None = None
    ranks: tuple[int, ...] | None = None
    marked: frozenset[int] = field(default_factory=frozenset)
    status: str = ""
    #: short lines under the status, e.g. the opponents' moves since the person's last
    notes: tuple[str, ...] = ()

    @classmethod
    def from_view(cls, view: View, names: Sequence[str], status: str = "",
                  marked: Iterable[int] = ()) -> TableState:
        """The screen of ``view.seat``: own tokens shown, others' hidden unless the game
        is over (final scores reveal them) or the variant has open tokens."""
        n = view.players
        over = next((e for e in reversed(view.history) if isinstance(e, GameOver)), None)
        if over is not None:
            tokens = tuple(card_points(view.cards[s]) - over.scores[s] for s in range(n))
        else:
            tokens = tuple(
                view.own_tokens if s == view.seat
                else (view.tokens_of(s) if view.variant.open_tokens else None)
                for s in range(n)
            )
        return cls(
            tuple(names), view.cards, tokens, view.card, view.tokens_on_card,
            view.cards_left, None if over else view.to_move, view.seat,
            over.scores if over else None, over.ranks if over else None,
            frozenset(marked), status,
        )

    @classmethod
    def from_game(cls, game: Game, names: Sequence[str], status: str = "") -> TableState:
        """The full state, every token count visible (for model-only games)."""
        n = game.variant.players
        over = game.history[-1] if game.over else None
        return cls(
            tuple(names), tuple(game.cards(s) for s in range(n)),
            tuple(game.tokens(s) for s in range(n)), None if game.over else game.card,
            game.tokens_on_card, game.cards_left, None if game.over else game.seat, None,
            over.scores if over else None, over.ranks if over else None, frozenset(), status,
        )


def _player_html(state: TableState, seat: int) -> str:
    classes = ["nt-player"]
    if state.to_move == seat:
        classes.append("nt-turn")
    if seat in state.marked:
        classes.append("nt-marked")
    tokens = state.tokens[seat]
    token_text = "tokens: ?" if tokens is None else f"tokens: {tokens}"
    groups = "".join(
        '<span class="nt-run">' + "".join(
            f'<span class="nt-card{" nt-free" if i else ""}">{c}</span>'
            for i, c in enumerate(run)
        ) + "</span>"
        for run in runs(state.cards[seat])
    ) or '<span class="nt-tokens">no cards yet</span>'
    score = ""
    if state.scores is not None and state.ranks is not None:
        score = (
            f'<div class="nt-score" data-seat="{seat}">score <b class="nt-final-score">'
            f"{state.scores[seat]}</b> · place {state.ranks[seat]} "
            f"({card_points(state.cards[seat])} card points − {tokens} tokens)</div>"
        )
    return (
        f'<div class="{" ".join(classes)}" data-seat="{seat}">'
        f'<div class="nt-name"><span>{html.escape(state.names[seat])}</span>'
        f'<span class="nt-tokens">{token_text}</span></div>'
        f'<div class="nt-cards">{groups}</div>{score}</div>'
    )


def table_html(state: TableState) -> str:
    """The table: opponents on top, the face-up card in the middle, the person below."""
    seats = range(len(state.names))
    others = [s for s in seats if s != state.you]
    if state.card is None:
        center = '<div class="nt-status">Game over</div>'
    else:
        chips = "●" * state.tokens_on_card if state.tokens_on_card <= 12 else ""
        center = (
            f'<div class="nt-faceup" data-card="{state.card}">{state.card}</div>'
            f'<div><div>tokens on card: <b class="nt-on-card">{state.tokens_on_card}</b> '
            f'<span class="nt-chips">{chips}</span></div>'
            f"<div>cards left face down: <b>{state.cards_left}</b></div></div>"
        )
    parts = [CSS, '<div class="nt-table">',
             '<div class="nt-row">' + "".join(_player_html(state, s) for s in others) + "</div>",
             f'<div class="nt-center">{center}</div>']
    if state.you is not None:
        parts.append(f'<div class="nt-row">{_player_html(state, state.you)}</div>')
    if state.status:
        parts.append(f'<div class="nt-status">{html.escape(state.status)}</div>')
    if state.notes:
        parts.append('<div class="nt-notes">' + "<br>".join(
            html.escape(n) for n in state.notes) + "</div>")
    parts.append("</div>")
    return "".join(parts)


def rules_html(variant: Variant) -> str:
    """How to play, with the numbers of ``variant``."""
    v = variant
    hidden = ("Your own token count is shown; other players' counts are hidden (every "
              "token placed or taken is public, so you can try to keep track)."
              if not v.open_tokens else "Every player's token count is visible.")
    return f"""
<div class="nt-table" style="max-width:720px">
<p><b>No Thanks!</b> is played with the cards {v.low_card}–{v.high_card}; {v.removed} of
them are removed unseen, so {v.cards_played} cards are played. Every player starts with
{v.tokens} tokens.</p>
<p>On your turn the face-up card is in the middle. Either</p>
<ul>
<li><b>Pass</b>: put one of your tokens on the card; the next player (clockwise) decides.
With no tokens left you cannot pass and must take.</li>
<li><b>Take</b>: take the card and every token on it. A new card is turned up and it is
<i>your</i> turn again.</li>
</ul>
<p>The game ends when the last card is taken. Your score is the sum of your cards minus
your tokens, but a <b>run</b> of consecutive cards (e.g. 20-21-22) counts only its lowest
card (20). The <b>lowest</b> score wins. Taken cards are public; runs are drawn grouped,
with the cards that do not count greyed out. {hidden}</p>
</div>"""
