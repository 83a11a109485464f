"""The step-through explorer shows exactly the engine's decisions, forwards and back."""
from __future__ import annotations

import matplotlib
import pandas as pd
import pytest

from nothanks.agents import make_agent
from nothanks.play.runner import play_game
from nothanks.ui import opponent_choices
from nothanks.ui.explorer import StepExplorer, memory_figure, runners_up

matplotlib.use("Agg")

BASELINES = ["heuristic", "random", "heuristic:T=-3", "random:p=0.3"]
COGNITIVE = [s for _, s in opponent_choices() if s.startswith("tom")]


def rows(decisions):
    return [d.move() for d in decisions]


def engine_rows(specs, seed):
    return [d.move() for d in play_game([make_agent(s) for s in specs], seed=seed).decisions]


@pytest.mark.parametrize("specs", [BASELINES] + ([COGNITIVE + ["heuristic"] * (4 - len(COGNITIVE))]
                                                 if COGNITIVE else []))
def test_next_back_and_jump_give_the_engine_decisions(specs):
    explorer = StepExplorer(specs, seed=5, plots=False)
    expected = engine_rows(specs, 5)
    seen = []
    while explorer.current is not None:
        seen.append(explorer.current.move())
        explorer.next_button.click()
    assert seen == expected
    assert explorer.next_button.disabled and "game over" in explorer.position_label.value
    assert rows(explorer.match.decisions) == expected

    explorer.back_button.click()
    explorer.back_button.click()
    assert explorer.position == len(expected) - 2
    assert explorer.current.move() == expected[-2]
    explorer.jump_input.value = 4
    explorer.jump_button.click()
    assert explorer.position == 3
    assert rows(explorer.decisions()) == expected[:4]
    explorer.next_button.click()
    assert explorer.current.move() == expected[4]
    assert "Turn 5:" in explorer.decision_panel.value


def test_back_at_the_start_stays_at_the_start():
    explorer = StepExplorer(BASELINES, seed=1, plots=False)
    assert explorer.back_button.disabled
    explorer.back()
    assert explorer.position == 0 and explorer.current is not None


def test_memory_figure_draws_one_column_per_opponent():
    frame = pd.DataFrame({
        "time": [1.0, 2.0, 3.0, 1.0, 2.0],
        "seat": [1, 1, 1, 2, 2],
        "value": [11, 10, 10, 11, 8],
        "leaf_activation": [0.5, 0.1, -0.3, 0.4, -2.5],
        "root_activation": [1.0, 0.7, 0.5, 0.9, 0.2],
        "threshold": [-2.0] * 5,
        "true_tokens": [11, 10, 9, 11, 10],
    })
    fig = memory_figure(frame, ["A", "B", "C", "D"], owner=0)
    axes = fig.get_axes()
    assert len(axes) == 4
    assert "A's memory of\nB" in axes[0].get_title()
    assert [tuple(line.get_ydata()) for line in axes[0].get_lines()][:2] == [
        (0.5, 0.1, -0.3), (1.0, 0.7, 0.5)]


@pytest.mark.skipif("tom2" not in COGNITIVE, reason="cognitive models not installed")
def test_cognitive_decision_shows_tree_runners_up_and_memory_plot():
    explorer = StepExplorer(["tom2", "tom1", "tom0", "tom1"], seed=7)
    explorer.go_to(30)
    d = explorer.current
    assert d.trace is not None
    assert f"ToM{d.trace.root.level} as player" in explorer.decision_panel.value
    assert "predict player" in explorer.decision_panel.value
    # the runners-up table: at most 4 candidates per retrieval, best first
    table = runners_up(d.trace.retrievals_frame())
    assert table.groupby("path").size().max() <= 4
    assert table.groupby("path")["winner"].first().all()  # the retrieved one heads each group
    assert explorer.retrievals.value == ""  # built only when opened
    explorer.details.selected_index = 0
    assert "base_level" in explorer.retrievals.value
    assert "mismatch_card" in explorer.retrievals.value
    if d.seat != 2:  # ToM1/ToM2 recall opponents' tokens: the plot is a PNG
        assert explorer.memory_plot.value[:4] == b"\x89PNG"


def test_learning_agents_show_their_state_at_each_decision():
    explorer = StepExplorer(["utility", "ibl", "heuristic", "heuristic"], seed=3, plots=False)
    seen = {"utility": False, "ibl": False}
    while explorer.current is not None:
        d = explorer.current
        panel = explorer.decision_panel.value
        state = d.info.get("learning")
        if d.seat == 0 and state and state.get("strategy"):
            chosen = state["strategy"]
            assert "<th>utilities</th>" in panel and f"▶ {chosen}</td>" in panel
            for name, value in state["utilities"].items():
                assert f"<td>{'▶ ' if name == chosen else ''}{name}</td>" \
                       f"<td style='text-align:right'>{value:.3f}</td>" in panel
            seen["utility"] = True
        if d.seat == 1 and state:
            assert f"instances: {state['instances']}" in panel
            seen["ibl"] = True
        explorer.next_button.click()
    assert all(seen.values()), seen
