"""The play app: a person against three models (thesis §2.2), as an ipywidgets application.

The controls are attributes (``take_button``, ``pass_button``, ``new_game_button``,
``opponent_pickers``, ``seed_input``...) so tests can drive the app with
``button.click()``. Every human move goes through the rules engine
(:meth:`Match.human_acts`); clicks while models are moving, on a pass with no tokens, or
repeated faster than ``min_click_interval`` are ignored.
"""
from __future__ import annotations

import html
import json
import random
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import ipywidgets as w

from ..files import atomic_write_bytes
from ..play.match import DecisionRecord as Decision
from ..play.match import Match
from ..rules import Action, IllegalActionError, Variant
from .advisor import Advisor
from .pacing import Pacer, ThinkingTime, opponent_choices, spec_label
from .render import TableState, move_line, moves_since, rules_html, table_html


def player_names(specs: Sequence[str], human_seat: int | None) -> list[str]:
    """Screen names: "You" for the person, "Player k · ToM1" for models."""
    return [
        "You" if seat == human_seat else f"Player {seat + 1} · {spec_label(spec)}"
        for seat, spec in enumerate(specs)
    ]


def move_text(names: Sequence[str], decision: Decision) -> str:
    """One decision in words, e.g. ``Player 3 · ToM1 passed on 22 (3 tokens on it)``."""
    return move_line(names[decision.seat], decision.action, decision.card,
                     decision.tokens_on_card, decision.forced)


def reasoning_html(names: Sequence[str], decisions: Sequence[Decision]) -> str:
    """Why each model did what it did: its reasoning trace, or its stated reason."""
    items = []
    for d in decisions:
        if d.agent == "human":
            continue
        head = f"<b>Move {d.index + 1}</b> — {html.escape(move_text(names, d))}"
        if d.trace is not None and hasattr(d.trace, "render"):
            body = (f"<pre style='font-size:12px;line-height:1.35;margin:4px 0;"
                    f"white-space:pre-wrap'>{html.escape(d.trace.render())}</pre>")
        elif d.info.get("reason"):
            body = f"<div>{html.escape(str(d.info['reason']))}</div>"
        else:
            body = "<div style='color:#777'>baseline agent: no reasoning trace</div>"
        items.append(f"<div style='margin-bottom:8px'>{head}{body}</div>")
    if not items:
        return "<i>No model moves yet.</i>"
    legend = ("<div style='color:#555'>Latest first. The models' traces number players by "
              "seat from 0: player 0 is Player 1, player 1 is Player 2, and so on.</div>")
    return legend + "".join(reversed(items))


class PlayApp:
    """Play No Thanks! against three models whose order of ToM is chosen per opponent.

    Args:
        opponents: agent specs of the three opponents (default: ToM1 if the cognitive
            models are installed, else the heuristic baseline).
        seed: seed of the first game (``None``: a fresh random seed, shown on screen).
        human_seat: the person's seat (0 moves first).
        thinking: pause before each model move (``ThinkingTime.off()`` for tests).
        reasoning: ``"after"`` (panel filled when the game ends), ``"live"`` or ``"off"``.
        result_path: if given, a JSON record of each finished game is written there.
        min_click_interval: seconds during which a second click is ignored.
        advisor: start with the advisor on (the expected value of take and of pass for
            your decision, from a search; a checkbox switches it; off by default).
    """

    def __init__(
        self,
        opponents: Sequence[str] | None = None,
        seed: int | None = None,
        *,
        human_seat: int = 0,
        variant: Variant | None = None,
        thinking: ThinkingTime | float | None = None,
        reasoning: str = "after",
        result_path: str | Path | None = None,
        min_click_interval: float = 0.3,
        advisor: bool = False,
    ) -> None:
        self.variant = variant or Variant()
        if reasoning not in ("after", "live", "off"):
            raise ValueError(f"reasoning={reasoning!r}; valid: 'after', 'live', 'off'")
        if isinstance(thinking, (int, float)):
            thinking = ThinkingTime.fixed(float(thinking))
        self.thinking = thinking if thinking is not None else ThinkingTime()
        self.human_seat = human_seat
        self.result_path = Path(result_path) if result_path is not None else None
        self.min_click_interval = min_click_interval
        self._last_click = -1e9
        self.pacer = Pacer(self.thinking)
        choices = opponent_choices()
        specs = [s for _, s in choices]
        default = "tom1" if "tom1" in specs else "heuristic"
        opponents = list(opponents) if opponents is not None else [default] * (
            self.variant.players - 1)
        if len(opponents) != self.variant.players - 1:
            raise ValueError(
                f"{len(opponents)} opponents given for a {self.variant.players}-player game; "
                f"give {self.variant.players - 1}"
            )
        for spec in opponents:  # custom specs (e.g. tom2:rt=-1) join the menu
            if spec not in specs:
                choices.append((spec_label(spec), spec))
                specs.append(spec)
        other_seats = [s for s in range(self.variant.players) if s != human_seat]
        self.opponent_pickers = [
            w.Dropdown(options=choices, value=spec, description=f"Player {seat + 1}",
                       layout=w.Layout(width="210px"))
            for seat, spec in zip(other_seats, opponents, strict=True)
        ]
        self.seed_input = w.Text(value="", placeholder="random", description="Seed",
                                 layout=w.Layout(width="190px"))
        self.new_game_button = w.Button(description="New game", icon="refresh")
        self.take_button = w.Button(description="Take", button_style="success")
        self.pass_button = w.Button(description="No thanks! (pass)", button_style="warning")
        self.live_reasoning = w.Checkbox(value=reasoning == "live",
                                         description="show reasoning live",
                                         indent=False)
        self.advisor = Advisor()
        self.advisor_toggle = w.Checkbox(value=advisor, indent=False,
                                         description="advisor: expected value of take and pass")
        self.advice = w.HTML()
        self.table = w.HTML()
        self.seed_label = w.HTML()
        self.moves = w.HTML()
        self.reasoning_panel = w.HTML()
        self.rules_panel = w.HTML(rules_html(self.variant))
        for widget, css in ((self.take_button, "nt-take"), (self.pass_button, "nt-pass"),
                            (self.new_game_button, "nt-new-game"), (self.table, "nt-table-widget"),
                            (self.seed_label, "nt-seed"), (self.moves, "nt-moves")):
            widget.add_class(css)
        self.take_button.on_click(lambda _: self.act(Action.TAKE))
        self.pass_button.on_click(lambda _: self.act(Action.PASS))
        self.new_game_button.on_click(lambda _: self.new_game())
        self.live_reasoning.observe(lambda _: self._render(), names="value")
        self.advisor_toggle.observe(lambda _: self._render(), names="value")
        self._reasoning_mode = reasoning
        panels = [w.VBox([self.rules_panel]), self.moves]
        titles = ["How to play", "Moves"]
        if reasoning != "off":
            panels.append(w.VBox([self.live_reasoning, self.reasoning_panel]))
            titles.append("Why the models did what they did")
        self.panels = w.Accordion(children=panels, titles=tuple(titles), selected_index=None)
        self.widget = w.VBox([
            w.HBox([*self.opponent_pickers]),
            w.HBox([self.seed_input, self.new_game_button, self.seed_label]),
            self.table,
            w.HBox([self.take_button, self.pass_button]),
            w.VBox([self.advisor_toggle, self.advice]),
            self.panels,
        ])
        self.match: Match
        self.new_game(seed)

    # --- game flow ----------------------------------------------------------------------
    @property
    def opponents(self) -> list[str]:
        return [p.value for p in self.opponent_pickers]

    def _seat_specs(self) -> list[str]:
        specs = iter(self.opponents)
        return ["human" if s == self.human_seat else next(specs)
                for s in range(self.variant.players)]

    def new_game(self, seed: int | None = None) -> None:
        """Deal a new game with the opponents currently picked (any time, even mid-game)."""
        self.pacer.cancel()
        if seed is None:
            text = self.seed_input.value.strip()
            if text:
                try:
                    seed = int(text)
                except ValueError:
                    self.seed_label.value = (
                        f"<span style='color:#b00'>seed {html.escape(text)!s} is not an "
                        "integer; using a random seed</span>")
            if seed is None:
                seed = random.SystemRandom().randrange(2**31)
        traces = self._reasoning_mode != "off"
        self.match = Match(self._seat_specs(), self.variant, seed,
                           human_seat=self.human_seat, traces=traces)
        self.names = player_names(self.match.specs, self.human_seat)
        self.thinking_seat: int | None = None
        self._written = False
        self._advance()

    def act(self, action: Action | str) -> bool:
        """The person's move; returns whether it was applied (False if ignored)."""
        now = time.monotonic()
        if self.pacer.busy or not self.match.human_turn:
            return False
        if now - self._last_click < self.min_click_interval:
            return False
        try:
            self.match.human_acts(action)
        except IllegalActionError:
            return False
        self._last_click = now
        self._advance()
        return True

    def _advance(self) -> None:
        def propose() -> Decision | None:
            if self.match.over or self.match.to_move == self.human_seat:
                return None
            return self.match.propose()

        def commit(decision: Decision) -> None:
            self.match.commit()

        def show(decision: Decision | None) -> None:
            self.thinking_seat = None if decision is None else decision.seat
            self._render()

        self.pacer.run(propose, commit, show, self._after_models)
        if self.pacer.busy:  # models move in a task: lock the buttons now
            self._render()

    def _after_models(self) -> None:
        self.thinking_seat = None
        if self.match.over:
            self._write_result()
        self._render()

    # --- drawing ------------------------------------------------------------------------
    def status(self) -> str:
        m = self.match
        if m.over:
            over = m.game.history[-1]
            place = over.ranks[self.human_seat]
            best = min(over.scores)
            return (f"Game over: you scored {over.scores[self.human_seat]} and placed "
                    f"{place} of {len(over.scores)} (best score {best}).")
        if self.thinking_seat is not None:
            return f"{self.names[self.thinking_seat]} is thinking…"
        if m.human_turn:
            if m.game.tokens(self.human_seat) == 0:
                return "Your turn: you have no tokens left, so you must take."
            return "Your turn: take the card or pass."
        return f"{self.names[m.to_move]} to move."

    def recent_moves(self) -> list[str]:
        """The models' moves since the person last acted (at most the last six)."""
        return moves_since(self.match.game.history, self.names, self.human_seat)

    def _render(self) -> None:
        m = self.match
        view = m.game.view(self.human_seat)
        state = TableState.from_view(view, self.names, self.status())
        state = replace(state, notes=tuple(self.recent_moves()))
        if self.thinking_seat is not None:
            state = replace(state, to_move=self.thinking_seat)
        self.table.value = table_html(state)
        can_act = m.human_turn and not self.pacer.busy
        self.take_button.disabled = not can_act
        self.pass_button.disabled = not (can_act and Action.PASS in m.legal_actions())
        self.advice.value = (self.advisor.html(view) if can_act and self.advisor_toggle.value
                             else "")
        self.seed_label.value = (
            f"game seed <b class='nt-seed-value'>{m.seed}</b> · "
            f"<span class='nt-turn-count'>{len(m.decisions)}</span> moves"
        )
        lines = [move_text(self.names, d) for d in m.decisions if d.seat != self.human_seat]
        self.moves.value = "<br>".join(html.escape(x) for x in reversed(lines[-40:])) or "—"
        if self._reasoning_mode != "off":
            if m.over or self.live_reasoning.value:
                self.reasoning_panel.value = reasoning_html(self.names, m.decisions)
            else:
                self.reasoning_panel.value = (
                    "<i>The models' reasoning is shown when the game ends, or tick "
                    "<b>show reasoning live</b> (live reasoning reveals the models' own "
                    "token counts, which the game keeps hidden).</i>")

    def _write_result(self) -> None:
        if self.result_path is None or self._written:
            return
        result = self.match.record()
        record = {
            "seed": result.seed, "agents": list(result.agents), "human_seat": self.human_seat,
            "players": self.variant.players,
            "human_actions": [str(d.action) for d in self.match.decisions
                              if d.seat == self.human_seat],
            "scores": list(result.scores), "ranks": list(result.ranks),
            "rank_points": list(result.rank_points),
            "cards": [list(c) for c in result.cards], "tokens": list(result.tokens),
        }
        self.result_path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(json.dumps(record, indent=1).encode(), self.result_path)
        self._written = True

    def _ipython_display_(self) -> None:
        from IPython.display import display
        display(self.widget)

