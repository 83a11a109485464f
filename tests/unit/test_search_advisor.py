"""The advisor: off by default in the play app, switchable there and in the explorer,
and absent from the experiment session apps (advice would change what participants'
decisions mean)."""
from __future__ import annotations

import inspect

import ipywidgets as w
import pytest

from nothanks.experiments import Design
from nothanks.ui import LabSessionApp, PlayApp, StepExplorer, ThinkingTime
from nothanks.ui import lab as lab_module
from nothanks.ui import session as session_module
from nothanks.ui.advisor import Advisor
from nothanks.ui.session import ExperimentSessionApp

SMALL = Design.from_dict({
    "name": "mini-schedule", "seed": 3, "rotate": True,
    "tables": [{"label": "A", "players": ["human", "heuristic", "heuristic", "heuristic"],
                "focal": 0}],
    "schedule": {"tables": ["A"], "blocks": [1]},
})


def widgets(root: w.Widget):
    """Every widget under ``root``."""
    yield root
    for child in getattr(root, "children", ()):
        yield from widgets(child)


def test_play_app_advisor_is_off_by_default_and_can_be_switched_on():
    app = PlayApp(["heuristic"] * 3, seed=4, thinking=ThinkingTime.off(), reasoning="off")
    app.advisor.iterations = 60
    assert app.advisor_toggle.value is False and app.advice.value == ""
    app.advisor_toggle.value = True
    assert "expected rank points" in app.advice.value
    assert "take" in app.advice.value and "pass" in app.advice.value
    app.pass_button.click()  # after the move, the advice is for the next decision
    assert "nt-advice" in app.advice.value
    app.advisor_toggle.value = False
    assert app.advice.value == ""


def test_explorer_advisor_follows_the_decision_at_hand():
    explorer = StepExplorer(["heuristic", "random", "heuristic", "random"], seed=2,
                            plots=False, advisor=True)
    explorer.advisor.iterations = 60
    explorer._advise()
    first = explorer.advice.value
    assert "Seat 0" in first and "expected rank points" in first
    explorer.next()
    assert "Seat 1" in explorer.advice.value
    explorer.advisor_toggle.value = False
    assert explorer.advice.value == ""


def test_advisor_values_come_from_an_even_search():
    from nothanks.rules import Game, Variant
    game = Game(Variant(players=3), seed=1)
    result = Advisor(iterations=80).evaluate(game.view(0))
    assert sorted(v.visits for v in result.values.values()) == [40, 40]


@pytest.mark.parametrize("app_class", [ExperimentSessionApp, LabSessionApp])
def test_session_apps_have_no_advisor(tmp_path, app_class):
    """No parameter, attribute or widget can switch advice on in an experiment session,
    and the session modules do not use the advisor at all."""
    assert "advisor" not in inspect.signature(app_class).parameters
    with pytest.raises(TypeError):
        app_class(tmp_path, design=SMALL, thinking=ThinkingTime.off(), advisor=True)
    app = app_class(tmp_path, design=SMALL, thinking=ThinkingTime.off())
    if app_class is ExperimentSessionApp:
        app.start("P01")
    else:
        app.participant_input.value = "P01"
        app.start_button.click()
    assert not hasattr(app, "advisor") and not hasattr(app, "advisor_toggle")
    for widget in widgets(app.widget):
        assert "advisor" not in str(getattr(widget, "description", "")).lower()
        assert "nt-advice" not in str(getattr(widget, "value", ""))
    for module in (session_module, lab_module):
        assert "advisor" not in inspect.getsource(module).lower()
