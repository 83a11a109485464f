"""End to end: `make play`'s page (Voilà serving notebooks/01_play.ipynb) in headless Chromium.

The test starts Voilà on a free localhost port, plays a whole game by clicking the page's
Take / Pass buttons, and checks that the final scores on the page equal the rules
engine's replay of the same seed with the same human moves. Set
``NOTHANKS_UPDATE_SCREENSHOTS=1`` to refresh ``docs/screenshots/play_app.png``.
"""
from __future__ import annotations

import json
import time

import pytest
from helpers_web import browser_page, requirements, update_screenshot, voila

from nothanks.agents import make_agent
from nothanks.agents.baselines import ScriptedAgent
from nothanks.play.runner import play_game

SEED = 2024
pytestmark = requirements

Replayed = ScriptedAgent  # replays the human's logged moves


@pytest.fixture
def voila_page(tmp_path):
    """URL of the play page, served with tiny thinking pauses and a result file."""
    from nothanks.ui import opponent_choices
    offered = {s for _, s in opponent_choices()}
    opponents = [s if s in offered else "heuristic" for s in ("tom1", "tom2", "tom0")]
    result = tmp_path / "result.json"
    env = {"NOTHANKS_SEED": str(SEED), "NOTHANKS_OPPONENTS": ",".join(opponents),
           # pauses of 10 ms: the asyncio path Voilà uses, without slowing the test
           "NOTHANKS_THINKING": "1", "NOTHANKS_THINKING_MAX": "0.01",
           "NOTHANKS_PLAY_RESULT": str(result)}
    with voila("01_play.ipynb", env, tmp_path / "voila.log") as url:
        yield url, result, opponents


def test_play_a_full_game_in_the_browser(voila_page, tmp_path):
    url, result_file, opponents = voila_page
    with browser_page() as page:
        page.goto(url, timeout=120_000)
        take, passing = page.locator("button.nt-take"), page.locator("button.nt-pass")
        take.wait_for(state="visible", timeout=120_000)
        assert page.locator(".nt-seed-value").inner_text() == str(SEED)
        # no code is shown on the page
        assert page.locator(".jp-InputArea-editor").count() == 0
        count = page.locator(".nt-turn-count")
        game_over = page.locator(".nt-status", has_text="Game over:")
        last_click = 0.0
        screenshot_taken = False
        for _ in range(200):
            page.wait_for_function(
                "() => !document.querySelector('button.nt-take').disabled"
                " || document.body.innerText.includes('Game over:')", timeout=60_000)
            if game_over.count():
                break
            if not screenshot_taken and int(count.inner_text()) >= 40:  # the person's turn
                page.screenshot(path=str(tmp_path / "play_app_midgame.png"), full_page=True)
                screenshot_taken = True
            on_card = int(page.locator(".nt-on-card").inner_text())
            before = count.inner_text()
            button = take if passing.is_disabled() or on_card >= 3 else passing
            time.sleep(max(0.0, last_click + 0.4 - time.monotonic()))  # the app's debounce
            button.click()
            last_click = time.monotonic()
            page.wait_for_function(
                "(b) => document.querySelector('.nt-turn-count').innerText !== b", arg=before,
                timeout=60_000)
        game_over.wait_for(timeout=60_000)
        shown: dict[int, int] = {}
        for score in page.locator(".nt-score").all():
            shown[int(score.get_attribute("data-seat"))] = int(
                score.locator(".nt-final-score").inner_text())
        page.screenshot(path=str(tmp_path / "play_app_end.png"), full_page=True)

    record = json.loads(result_file.read_text())
    assert record["seed"] == SEED and record["human_seat"] == 0
    engine = play_game([Replayed(record["human_actions"]), *map(make_agent, opponents)],
                       seed=SEED)
    assert shown == dict(enumerate(engine.scores))
    assert record["scores"] == list(engine.scores)
    update_screenshot(tmp_path / "play_app_midgame.png", "play_app.png")
    update_screenshot(tmp_path / "play_app_end.png", "play_app_end.png")


def test_step_through_page(tmp_path):
    """Notebook 03 as a page: next/back move one decision; the reasoning tree is shown."""
    env = {"NOTHANKS_SEED": "7", "NOTHANKS_START_TURN": "35"}
    with voila("03_step_through.ipynb", env, tmp_path / "voila.log") as url, \
            browser_page(height=1900) as page:
        page.goto(url, timeout=120_000)
        # the model-game explorer comes first; the logged-game explorer below it has the
        # same controls (querySelector below also finds the first)
        position = page.locator(".nt-position").first
        position.wait_for(timeout=120_000)
        start = int(position.inner_text())
        page.locator("button.nt-next").first.click()
        page.wait_for_function("(n) => document.querySelector('.nt-position').innerText == n",
                               arg=str(start + 1), timeout=60_000)
        page.locator("button.nt-back").first.click()
        page.wait_for_function("(n) => document.querySelector('.nt-position').innerText == n",
                               arg=str(start), timeout=60_000)
        assert page.get_by_text("as player", exact=False).count() >= 1
        page.get_by_text("Retrieved instances and runners-up").first.click()
        page.get_by_text("base_level").first.wait_for(timeout=30_000)
        page.get_by_text("Retrieved instances and runners-up").first.click()  # fold it again
        page.wait_for_timeout(500)
        page.locator("h1").first.scroll_into_view_if_needed()
        page.screenshot(path=str(tmp_path / "step_explorer.png"), full_page=True)
    update_screenshot(tmp_path / "step_explorer.png", "step_explorer.png")


def test_experiment_session_page(tmp_path):
    """Notebook 02 as a page: models move after a thinking pause, an opponent can be
    marked (red, as in thesis Figure 7), and the participant's log folder exists."""
    env = {"NOTHANKS_OUT": str(tmp_path / "logs"), "NOTHANKS_PARTICIPANT": "P01",
           "NOTHANKS_THINKING": "0.1"}
    with voila("02_experiment_session.ipynb", env, tmp_path / "voila.log") as url, \
            browser_page(height=1000) as page:
        page.goto(url, timeout=120_000)
        passing = page.locator("button.nt-pass")
        passing.wait_for(timeout=120_000)
        assert page.get_by_text("practice game: not analysed").count() == 1
        passing.click()
        page.locator(".nt-status", has_text="is thinking").wait_for(timeout=30_000)
        page.wait_for_function("() => !document.querySelector('button.nt-take').disabled",
                               timeout=60_000)
        # each widget's state reaches the page in its own message: wait for the marks
        page.wait_for_function(
            "() => [...document.querySelectorAll('button[class*=nt-mark-]')]"
            ".some(b => !b.disabled)", timeout=30_000)
        movers = [s for s in (1, 2, 3) if page.locator(f"button.nt-mark-{s}").is_enabled()]
        assert movers, "after the models moved, at least one can be marked"
        page.locator(f"button.nt-mark-{movers[0]}").click()
        page.locator(f'.nt-player.nt-marked[data-seat="{movers[0]}"]').wait_for(timeout=30_000)
        page.screenshot(path=str(tmp_path / "experiment_session.png"), full_page=True)
    assert (tmp_path / "logs" / "P01" / "manifest.json").exists()
    update_screenshot(tmp_path / "experiment_session.png", "experiment_session.png")
