"""Step through a model-only game one decision at a time (thesis §4.2's debugging button).

For the decision at hand the explorer shows the table as the deciding model saw it, the
action, the model's full reasoning tree (its trace: predictions per ToM level, token
counts assumed and where they came from, the retrieved instance and the runners-up with
their activation components), and each opponent's token-memory activations over time
against the retrieval threshold; for a learning agent, its learning state (utilities, blended
values, instance counts). Going back replays the game from its seed, so the same seed
always shows the same decisions.
"""
from __future__ import annotations

import html
import io
from collections.abc import Sequence

import ipywidgets as w
import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.figure import Figure

from ..agents import Agent
from ..play.match import DecisionRecord as Decision
from ..play.match import Match, play_to_decision
from ..rules import Variant
from .advisor import Advisor
from .pacing import load_cognitive_models, spec_label
from .render import TableState, table_html


def memory_frame(agent: Agent) -> pd.DataFrame | None:
    """The token-memory recall history of a cognitive model (``None`` for baselines)."""
    memory = getattr(agent, "token_memory", None)
    if memory is None or not hasattr(memory, "history_frame"):
        return None
    return memory.history_frame()


def memory_figure(frame: pd.DataFrame, names: Sequence[str], owner: int) -> Figure:
    """Per opponent: leaf and root activation of each recall against the retrieval
    threshold (top), and the recalled versus true token count (bottom)."""
    seats = sorted(int(s) for s in frame["seat"].unique()) if len(frame) else []
    columns = max(len(seats), 1)
    fig, axes = plt.subplots(2, columns, figsize=(4.2 * columns, 5.2), sharex="col",
                             squeeze=False, constrained_layout=True)
    time = "time" if "time" in frame.columns else None
    for column, seat in enumerate(seats):
        rows = frame[frame["seat"] == seat]
        x = rows[time] if time else range(len(rows))
        top, bottom = axes[0][column], axes[1][column]
        for name, style in (("leaf_activation", "o-"), ("root_activation", "s--")):
            if name in rows.columns:
                top.plot(x, rows[name], style, ms=3, lw=1, label=name.split("_")[0])
        if "threshold" in rows.columns:
            top.plot(x, rows["threshold"], ":", color="k", lw=1, label="threshold τ")
        top.set_title(f"{names[owner]}'s memory of\n{names[seat]}", fontsize=9)
        if "true_tokens" in rows.columns:
            bottom.step(x, rows["true_tokens"], where="post", color="k", lw=1, label="true")
        if "value" in rows.columns:
            bottom.plot(x, pd.to_numeric(rows["value"], errors="coerce"), "x", color="C3",
                        label="remembered")
        bottom.set_xlabel("model time (s)" if time else "recall")
        if column == 0:
            top.set_ylabel("activation")
            bottom.set_ylabel("tokens")
            top.legend(fontsize=7)
            bottom.legend(fontsize=7)
    if not seats:
        axes[0][0].text(0.5, 0.5, "no recalls yet", ha="center", va="center")
    return fig


def runners_up(retrievals: pd.DataFrame, keep: int = 4) -> pd.DataFrame:
    """Per retrieval in a trace: the retrieved instance and the best runners-up, with
    every activation component (base level, mismatch per slot, noise, total)."""
    if retrievals.empty:
        return retrievals
    frame = retrievals.drop(columns=["chunk", "time"], errors="ignore")
    order = {path: i for i, path in enumerate(dict.fromkeys(frame["path"]))}  # tree order
    frame = frame.assign(_order=frame["path"].map(order)).sort_values(
        ["_order", "activation"], ascending=[True, False], kind="stable")
    return frame.groupby("_order").head(keep).drop(columns="_order").reset_index(drop=True)


def learning_html(state: dict) -> str:
    """A learning agent's state at a decision (its decision info's ``learning``): plain
    values as one line, each mapping (utilities, blended values) as a table sorted by
    value, highest first, with the chosen strategy marked."""
    chosen = state.get("strategy")
    plain = [f"{k}: {v:.3f}" if isinstance(v, float) else f"{k}: {v}"
             for k, v in state.items() if not isinstance(v, dict)]
    parts = [f"<div><b>learning state</b> · {html.escape(' · '.join(plain))}</div>"]
    for key, values in state.items():
        if not isinstance(values, dict):
            continue
        rows = "".join(
            f"<tr><td>{'▶ ' if name == chosen else ''}{html.escape(str(name))}</td>"
            f"<td style='text-align:right'>{value:.3f}</td></tr>"
            for name, value in sorted(values.items(), key=lambda item: -item[1]))
        parts.append(f"<table class='nt-learning'><tr><th>{html.escape(key)}</th><th></th>"
                     f"</tr>{rows}</table>")
    return "".join(parts)


def frame_html(frame: pd.DataFrame) -> str:
    if frame.empty:
        return "<i>none</i>"
    return frame.to_html(index=False, float_format=lambda x: f"{x:.3f}", na_rep="",
                         classes="nt-frame", border=0)


class StepExplorer:
    """A model-only game advanced with ``next_button`` / ``back_button`` / ``jump_button``.

    ``position`` is the number of decisions already applied; the decision shown is the
    next one (decision ``position + 1``), already decided but not yet applied.
    """

    def __init__(
        self,
        agents: Sequence[str] | None = None,
        seed: int = 0,
        *,
        variant: Variant | None = None,
        plots: bool = True,
        advisor: bool = False,
    ) -> None:
        load_cognitive_models()
        self.variant = variant or Variant()
        self.specs = list(agents) if agents is not None else self._default_specs()
        if len(self.specs) != self.variant.players:
            raise ValueError(
                f"{len(self.specs)} agents given for a {self.variant.players}-player game; "
                "give one spec per seat"
            )
        self.seed = seed
        self.plots = plots
        # seats from 0, as in the logs and the models' traces
        self.names = [f"Seat {s} · {spec_label(spec)}" for s, spec in enumerate(self.specs)]
        self.back_button = w.Button(description="◀ back")
        self.next_button = w.Button(description="next ▶")
        self.jump_input = w.BoundedIntText(value=1, min=1, max=10_000, description="turn",
                                           layout=w.Layout(width="150px"))
        self.jump_button = w.Button(description="jump")
        self.position_label = w.HTML()
        self.table = w.HTML()
        self.decision_panel = w.HTML()
        self.trace_table = w.HTML()
        self.retrievals = w.HTML()
        self.memory_plot = w.Image(format="png")
        self.memory_note = w.HTML()
        self.advisor = Advisor()
        self.advisor_toggle = w.Checkbox(value=advisor, indent=False,
                                         description="advisor: expected value of take and pass")
        self.advice = w.HTML()
        self.advisor_toggle.observe(lambda _: self._advise(), names="value")
        for widget, css in ((self.back_button, "nt-back"), (self.next_button, "nt-next"),
                            (self.jump_button, "nt-jump"), (self.table, "nt-table-widget")):
            widget.add_class(css)
        #: the large tables are built only while their section is open
        self.details = w.Accordion(
            children=[self.retrievals, self.trace_table],
            titles=("Retrieved instances and runners-up", "Trace as a table"),
            selected_index=None)
        self.details.observe(lambda _: self._fill_details(), names="selected_index")
        self.next_button.on_click(lambda _: self.next())
        self.back_button.on_click(lambda _: self.back())
        self.jump_button.on_click(lambda _: self.go_to(self.jump_input.value - 1))
        self.widget = w.VBox([
            w.HBox([self.back_button, self.next_button, self.jump_input, self.jump_button,
                    self.position_label]),
            self.table,
            self.decision_panel,
            self.advisor_toggle,
            self.advice,
            self.details,
            self.memory_note,
            self.memory_plot,
        ])
        self.match = Match(self.specs, self.variant, seed, traces=True)
        self._show()

    @staticmethod
    def _default_specs() -> list[str]:
        from .pacing import opponent_choices
        offered = [s for _, s in opponent_choices()]
        wanted = ["tom2", "tom1", "tom0", "heuristic"]
        return [s if s in offered else "heuristic" for s in wanted]

    # --- navigation ---------------------------------------------------------------------
    @property
    def position(self) -> int:
        return len(self.match.decisions)

    @property
    def current(self) -> Decision | None:
        """The decision at hand (decided, not yet applied), or ``None`` after the end."""
        return self.match.pending

    def next(self) -> None:
        """Apply the decision at hand and decide the next one."""
        if self.match.pending is not None:
            self.match.commit()
        self._show()

    def back(self) -> None:
        """One decision back: the game is replayed from its seed (same seed, same game)."""
        self.go_to(self.position - 1)

    def go_to(self, position: int) -> None:
        """Show the decision after ``position`` applied decisions (clamped to the game)."""
        position = max(position, 0)
        if position < self.position:
            self.match = play_to_decision(self.specs, self.variant, self.seed, position,
                                          traces=True)
        while self.position < position and not self.match.over:
            self.match.step()
        self._show()

    def decisions(self) -> list[Decision]:
        """Applied decisions, then the one at hand."""
        pending = [self.match.pending] if self.match.pending is not None else []
        return [*self.match.decisions, *pending]

    # --- drawing ------------------------------------------------------------------------
    def _show(self) -> None:
        m = self.match
        if not m.over:
            m.propose()
        d = m.pending
        status = "" if d is None else f"{self.names[d.seat]} decides"
        state = TableState.from_game(m.game, self.names, status)
        self.table.value = table_html(state)
        self.back_button.disabled = self.position == 0
        self.jump_input.value = self.position + 1
        self.next_button.disabled = d is None
        self.position_label.value = (
            f"seed <b>{self.seed}</b> · turn <b class='nt-position'>{self.position + 1}</b>"
            if d is not None else f"seed <b>{self.seed}</b> · game over after "
            f"<b class='nt-position'>{self.position}</b> decisions")
        self.decision_panel.value = self._decision_html(d)
        self._advise()
        self._fill_details()
        self._plot_memory(d)

    def _advise(self) -> None:
        """The advisor's values for the decision at hand, from the decider's view."""
        d = self.match.pending
        self.advice.value = (
            self.advisor.html(self.match.game.view(d.seat), f"{self.names[d.seat]}'s")
            if d is not None and self.advisor_toggle.value else "")

    def _fill_details(self) -> None:
        d = self.match.pending
        trace = d.trace if d is not None else None
        open_section = self.details.selected_index
        self.retrievals.value = (
            frame_html(runners_up(trace.retrievals_frame()))
            if open_section == 0 and hasattr(trace, "retrievals_frame") else "")
        self.trace_table.value = (
            frame_html(trace.to_frame())
            if open_section == 1 and hasattr(trace, "to_frame") else "")

    def _decision_html(self, d: Decision | None) -> str:
        if d is None:
            over = self.match.game.history[-1]
            return f"<b>Game over.</b> Scores: {list(over.scores)}, places: {list(over.ranks)}"
        text = html.escape(
            f"{self.names[d.seat]} sees card {d.card} with {d.tokens_on_card} tokens on it, "
            f"holds {d.tokens_before} tokens, and will {d.action}"
            + (" (forced: no tokens)" if d.forced else ""))
        if d.trace is not None and hasattr(d.trace, "render"):
            body = (f"<pre style='font-size:12px;line-height:1.35;margin:4px 0;white-space:pre'>"
                    f"{html.escape(d.trace.render())}</pre>")
        elif d.info:
            body = "<pre>" + html.escape("\n".join(
                f"{k}: {v}" for k, v in d.info.items() if k != "learning")) + "</pre>"
        else:
            body = "<div style='color:#777'>baseline agent: no reasoning trace</div>"
        if isinstance(d.info.get("learning"), dict):
            body += learning_html(d.info["learning"])
        return f"<div><b>Turn {d.turn + 1}:</b> {text}</div>{body}"

    def _plot_memory(self, d: Decision | None) -> None:
        if not self.plots:
            return
        owner = d.seat if d is not None else None
        frame = memory_frame(self.match.agents[owner]) if owner is not None else None
        if frame is None or frame.empty:
            self.memory_note.value = (
                "<i>No token-memory recalls to plot: a baseline or ToM0 agent (ToM0 does not "
                "model the opponents' tokens), or the game is over.</i>")
            self.memory_plot.layout.display = "none"
            return
        fig = memory_figure(frame, self.names, owner)
        buffer = io.BytesIO()
        dpi = 80
        fig.savefig(buffer, format="png", dpi=dpi)
        self.memory_plot.width = str(int(fig.get_figwidth() * dpi))  # no stretching
        plt.close(fig)
        self.memory_note.value = (
            f"<b>{html.escape(self.names[owner])}'s token memory</b>: every recall so far")
        self.memory_plot.value = buffer.getvalue()
        self.memory_plot.layout.display = None

    def _ipython_display_(self) -> None:
        from IPython.display import display
        display(self.widget)
