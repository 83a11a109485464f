"""The play app driven through its buttons gives exactly the engine's game."""
from __future__ import annotations

import asyncio
import json

import pytest

from nothanks.agents import Agent, make_agent
from nothanks.agents.baselines import ScriptedAgent
from nothanks.play.match import Match
from nothanks.play.runner import play_game
from nothanks.rules import Action, IllegalActionError, Variant
from nothanks.ui import PlayApp, ThinkingTime, opponent_choices
from nothanks.ui.render import TableState, runs, table_html

Scripted = ScriptedAgent  # replays the human's logged moves


def as_agent(spec: str | Agent) -> Agent:
    return spec if isinstance(spec, Agent) else make_agent(spec)


def click_through(app: PlayApp, policy) -> list[str]:
    """Play the person's side by clicking; returns the actions clicked."""
    clicked = []
    guard = 0
    while not app.match.over:
        guard += 1
        assert guard < 500, "game did not end"
        assert not app.take_button.disabled, "the app waits for the human but take is disabled"
        view = app.match.game.view(app.human_seat)
        action = policy(view)
        if action == Action.PASS and app.pass_button.disabled:
            action = Action.TAKE
        (app.take_button if action == Action.TAKE else app.pass_button).click()
        clicked.append(str(action))
    return clicked


def keep_tokens_policy(view) -> Action:
    return Action.TAKE if view.tokens_on_card >= 3 or view.own_tokens == 0 else Action.PASS


def test_runs_group_consecutive_cards():
    assert runs([22, 20, 21, 5, 30, 7, 6]) == [[5, 6, 7], [20, 21, 22], [30]]
    assert runs([]) == []


@pytest.mark.parametrize("human_seat", [0, 2])
def test_clicking_a_full_game_equals_the_engine(tmp_path, human_seat):
    opponents = ["heuristic", "random", "heuristic:T=-2"]
    out = tmp_path / "result.json"
    app = PlayApp(opponents, seed=11, human_seat=human_seat, thinking=ThinkingTime.off(),
                  min_click_interval=0, result_path=out)
    clicked = click_through(app, keep_tokens_policy)
    human_actions = [str(d.action) for d in app.match.decisions if d.seat == human_seat]
    assert clicked == human_actions

    seats = list(opponents)
    seats.insert(human_seat, Scripted(clicked))
    engine = play_game([as_agent(s) for s in seats], Variant(), seed=11)
    shown = app.match.record()
    assert shown.scores == engine.scores
    assert shown.cards == engine.cards
    assert [d.move() for d in shown.decisions] == [d.move() for d in engine.decisions]
    # the final scores are on screen, and written to the result file
    for seat, points in enumerate(engine.scores):
        assert f'data-seat="{seat}">score <b class="nt-final-score">{points}</b>' in app.table.value
    record = json.loads(out.read_text())
    assert record["scores"] == list(engine.scores)
    assert record["human_actions"] == clicked
    assert app.take_button.disabled and app.pass_button.disabled


def test_opponents_token_counts_are_hidden_until_the_end():
    app = PlayApp(["heuristic"] * 3, seed=2, thinking=ThinkingTime.off(), min_click_interval=0)
    assert app.table.value.count("tokens: ?") == 3
    assert "tokens: 11" in app.table.value
    click_through(app, lambda v: Action.TAKE)
    assert "tokens: ?" not in app.table.value


def test_pass_is_impossible_without_tokens():
    app = PlayApp(["heuristic"] * 3, seed=5, variant=Variant(starting_tokens=0),
                  thinking=ThinkingTime.off(), min_click_interval=0)
    assert app.match.human_turn
    assert app.pass_button.disabled and not app.take_button.disabled
    before = len(app.match.decisions)
    app.pass_button.click()  # a click that reaches the kernel anyway is refused
    assert len(app.match.decisions) == before
    assert app.act(Action.PASS) is False
    with pytest.raises(IllegalActionError):
        app.match.human_acts(Action.PASS)


def test_a_double_click_acts_once():
    app = PlayApp(["always-pass"] * 3, seed=4, thinking=ThinkingTime.off(),
                  min_click_interval=60)
    app.take_button.click()
    app.take_button.click()  # the taker moves again, but this is the same click twice
    human = [d for d in app.match.decisions if d.seat == 0]
    assert len(human) == 1


def test_clicks_while_models_think_are_ignored():
    async def scenario():
        app = PlayApp(["heuristic"] * 3, seed=8, thinking=ThinkingTime.fixed(0.01),
                      min_click_interval=0)
        await app.pacer.wait()
        assert app.match.human_turn
        app.pass_button.click()  # models now move, one at a time, each after a pause
        assert app.pacer.busy and app.take_button.disabled
        await asyncio.sleep(0)  # the task starts: the first model is shown thinking
        assert "Player 2 · heuristic is thinking" in app.table.value
        moves = len(app.match.decisions)
        app.take_button.click()
        app.pass_button.click()
        assert len(app.match.decisions) == moves
        await app.pacer.wait()
        assert not app.pacer.busy
        assert app.match.human_turn or app.match.over
        assert [d.seat for d in app.match.decisions[:4]] == [0, 1, 2, 3]
    asyncio.run(scenario())


def test_new_game_any_time_uses_the_picked_opponents_and_seed():
    app = PlayApp(["heuristic"] * 3, seed=1, thinking=ThinkingTime.off(), min_click_interval=0)
    app.take_button.click()
    app.opponent_pickers[1].value = "random"
    app.seed_input.value = "77"
    app.new_game_button.click()
    assert app.match.seed == 77
    assert app.match.specs == ("human", "heuristic", "random", "heuristic")
    assert app.match.decisions == [] and app.match.human_turn
    assert "77" in app.seed_label.value


def test_reasoning_panel_after_the_game_and_live():
    app = PlayApp(["heuristic"] * 3, seed=3, thinking=ThinkingTime.off(), min_click_interval=0)
    app.pass_button.click()
    recent = app.recent_moves()
    assert recent and recent[0].startswith("Player 2 · heuristic ")
    assert recent[-1] in app.table.value
    assert "shown when the game ends" in app.reasoning_panel.value
    app.live_reasoning.value = True
    assert "Move 2" in app.reasoning_panel.value
    app.live_reasoning.value = False
    click_through(app, keep_tokens_policy)
    assert "Move 2" in app.reasoning_panel.value


def test_bad_arguments_say_what_is_valid():
    with pytest.raises(ValueError, match="give 3"):
        PlayApp(["heuristic"] * 2)
    with pytest.raises(ValueError, match="valid: 'after', 'live', 'off'"):
        PlayApp(reasoning="sometimes")
    with pytest.raises(ValueError, match="human_seat=9"):
        Match(["heuristic"] * 4, human_seat=9)


def test_thinking_time_is_latency_scaled_and_clamped():
    from nothanks.play.match import DecisionRecord as Decision
    t = ThinkingTime(scale=2.0, minimum=0.5, maximum=3.0, default=0.8)

    def with_latency(latency):
        info = {} if latency is None else {"latency": latency}
        return Decision(0, 0, 1, "x", 3, 0, 11, (), 20, "none", (11,) * 4, Action.PASS,
                        False, info)
    assert t(with_latency(0.1)) == 0.5
    assert t(with_latency(1.0)) == 2.0
    assert t(with_latency(9.0)) == 3.0
    assert t(with_latency(None)) == 0.8
    assert ThinkingTime.off()(with_latency(5.0)) == 0.0
    with pytest.raises(ValueError, match="minimum"):
        ThinkingTime(minimum=4, maximum=1)


def test_table_html_from_game_shows_every_token_count():
    m = Match(["heuristic"] * 4, seed=0)
    m.step()
    html = table_html(TableState.from_game(m.game, ["a", "b", "c", "d"]))
    assert "tokens: ?" not in html and html.count("tokens: ") >= 4


@pytest.mark.parametrize("spec", [s for _, s in opponent_choices() if s.startswith("tom")])
def test_cognitive_opponents_play_the_engine_game(spec):
    app = PlayApp([spec] * 3, seed=21, thinking=ThinkingTime.off(), min_click_interval=0)
    clicked = click_through(app, keep_tokens_policy)
    engine = play_game([Scripted(clicked), *(as_agent(spec) for _ in range(3))], seed=21)
    assert app.match.record().scores == engine.scores
    assert [d.move() for d in app.match.record().decisions] == [d.move() for d in engine.decisions]


def test_moves_since_lists_the_others_moves_after_mine():
    from nothanks.rules import CardRevealed, Passed, Took
    from nothanks.ui.render import moves_since
    names = ["You", "P2", "P3", "P4"]
    history = [CardRevealed(0, 20, 23), Passed(0, 0, 20, 1), Passed(1, 1, 20, 2),
               Took(2, 2, 20, 2), CardRevealed(3, 9, 22), Passed(3, 2, 9, 1)]
    assert moves_since(history, names, 0) == [
        "P2 passed on 20 (2 tokens on it)", "P3 took 20 with 2 tokens",
        "P3 passed on 9 (1 tokens on it)"]
    assert moves_since(history, names, 2) == []
