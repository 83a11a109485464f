"""End to end: `make session`'s page (Voilà serving notebooks/08_lab_session.ipynb) in
headless Chromium, through a crash.

The experimenter enters a participant id; the participant plays the practice game and
a scored game with the page's buttons (marking an opponent once); the server and its
kernel are killed with SIGKILL in the middle of the next game; a new server is started,
the id entered again, and the page must continue at that game while the log on disk
holds every finished game exactly once. A short design (10-card games, baseline
opponents, no thinking pauses) keeps the test quick.

And the page lets go: a tab reloaded or closed shuts its kernel down, so the same
participant resumes in a new tab within seconds, with no server restart, and no kernel
is left behind.
"""
from __future__ import annotations

import time
import urllib.request

import psutil
import pytest
from helpers_web import (
    browser_page,
    playwright_api,
    requirements,
    start_voila,
    update_screenshot,
)

from nothanks.experiments import ParticipantSession, load

pytestmark = requirements

#: Table 6 in miniature: a practice game, then two scored games; 10 cards per game.
DESIGN = """
name = "lab-rehearsal"
seed = 11
rotate = true

[variant]
removed = 23

[[tables]]
label = "A"
players = ["human", "heuristic", "heuristic", "heuristic"]
focal = 0

[[tables]]
label = "B"
players = ["human", "random", "random", "random"]
focal = 0

[schedule]
tables = ["A", "B", "A"]
blocks = [1, 2, 2]
practice_blocks = [1]
"""
PID = "P01"
#: Seconds between clicks: over the app's double-click guard (0.3 s).
CLICK_GAP = 0.4


class SessionPage:
    """The lab page in the browser, driven the way the experimenter and participant do."""

    def __init__(self, page) -> None:
        self.page = page
        self.last_click = 0.0

    def open(self, url: str) -> None:
        self.page.goto(url, timeout=120_000)
        self.page.locator("button.nt-lab-start").wait_for(state="visible", timeout=120_000)

    def enter_id(self, participant_id: str) -> None:
        self.page.locator(".nt-lab-id input").fill(participant_id)
        self.page.locator("button.nt-lab-start").click()

    def game_number(self) -> int:
        return int(self.page.locator(".nt-game-number").inner_text())

    def wait_for_turn_or_end(self) -> bool:
        """Wait until the participant may act (True) or the game is over (False)."""
        self.page.wait_for_function(
            "() => !document.querySelector('button.nt-take').disabled"
            " || document.body.innerText.includes('Game over:')", timeout=60_000)
        return self.page.locator(".nt-status", has_text="Game over:").count() == 0

    def move(self) -> None:
        """Take a card with chips on it (or when passing is impossible), else pass."""
        page = self.page
        on_card = int(page.locator(".nt-on-card").inner_text())
        passing = page.locator("button.nt-pass")
        button = "button.nt-take" if on_card >= 1 or passing.is_disabled() else "button.nt-pass"
        before = page.locator(".nt-table-widget").inner_html()
        time.sleep(max(0.0, self.last_click + CLICK_GAP - time.monotonic()))
        page.locator(button).click()
        page.wait_for_function(
            "(b) => document.querySelector('.nt-table-widget').innerHTML !== b", arg=before,
            timeout=60_000)
        self.last_click = time.monotonic()  # the app has taken the click by now

    def mark_someone(self) -> bool:
        """Mark the first opponent who can be marked now (thesis Figure 7)."""
        # the last game's buttons are gone: this game's three are on the page
        self.page.wait_for_function(
            "() => document.querySelectorAll('button[class*=\"nt-mark-\"]').length == 3",
            timeout=30_000)
        time.sleep(max(0.0, self.last_click + CLICK_GAP - time.monotonic()))
        for seat in (1, 2, 3):
            button = self.page.locator(f"button.nt-mark-{seat}")
            if button.count() and button.is_enabled():
                button.click()
                try:  # a click the app refused (e.g. still settling) is tried next turn
                    self.page.locator(f'.nt-player.nt-marked[data-seat="{seat}"]').wait_for(
                        timeout=5_000)
                except playwright_api.TimeoutError:
                    continue
                return True
        return False

    def play_to_the_end(self, mark: bool = False) -> None:
        marked = not mark
        while self.wait_for_turn_or_end():
            if not marked:
                marked = self.mark_someone()
            self.move()
        assert marked, "no opponent could be marked in a whole game"

    def next_game(self, number: int) -> None:
        self.page.locator("button.nt-next-game").click()
        self.page.wait_for_function(
            "(n) => document.querySelector('.nt-game-number').innerText == n", arg=str(number),
            timeout=60_000)


def assert_each_game_once(directory, games: list[int]) -> None:
    log = load(directory, allow_incomplete=True)
    assert sorted(log.games["game_id"].unique()) == games
    assert not log.games.duplicated(["game_id", "seat"]).any()
    assert log.games.groupby("game_id").size().tolist() == [4] * len(games)  # a row per seat


@pytest.mark.timeout(240)
def test_a_lab_session_survives_a_crash(tmp_path):
    sessions = tmp_path / "sessions"
    design = tmp_path / "lab-rehearsal.toml"
    design.write_text(DESIGN)
    ParticipantSession("P99", sessions, design)  # another participant: never shown
    env = {"NOTHANKS_SESSIONS": str(sessions), "NOTHANKS_SESSION_DESIGN": str(design),
           "NOTHANKS_THINKING": "0"}
    log_path = tmp_path / "voila.log"

    server = start_voila("08_lab_session.ipynb", env, log_path)
    try:
        with browser_page(height=1000) as page:
            lab = SessionPage(page)
            lab.open(server.url)
            source = page.content()
            assert page.locator(".jp-InputArea-editor").count() == 0  # no code cells
            assert "LabSessionApp" not in source and "NOTHANKS_" not in source
            page.screenshot(path=str(tmp_path / "lab_start.png"), full_page=True)

            lab.enter_id("../x")
            page.locator(".nt-lab-error", has_text="invalid").wait_for(timeout=30_000)
            lab.enter_id(PID)
            page.locator("button.nt-take").wait_for(state="visible", timeout=60_000)
            assert lab.game_number() == 1 and page.get_by_text("practice game").count() == 1
            lab.play_to_the_end()
            lab.next_game(2)
            assert page.get_by_text("practice game").count() == 0
            lab.play_to_the_end(mark=True)
            lab.next_game(3)
            assert lab.wait_for_turn_or_end()
            lab.move()  # the crash comes in the middle of game 3
            text = page.locator("body").inner_text()
            assert "P99" not in text and str(sessions) not in text
            server.kill()
        assert_each_game_once(sessions / PID, [0, 1])

        server = start_voila("08_lab_session.ipynb", env, log_path)
        with browser_page(height=1000) as page:
            lab = SessionPage(page)
            lab.open(server.url)
            lab.enter_id(PID)
            page.locator(".nt-game-number").wait_for(timeout=60_000)
            assert lab.game_number() == 3
            assert page.get_by_text("resuming after 2 finished games").count() == 1
            page.screenshot(path=str(tmp_path / "lab_resumed.png"), full_page=True)
            lab.play_to_the_end()
            page.locator("button.nt-next-game").click()
            page.get_by_text("All 3 games are done").wait_for(timeout=30_000)
            assert str(sessions) not in page.locator("body").inner_text()
    finally:
        server.stop()
    assert_each_game_once(sessions / PID, [0, 1, 2])
    assert len(load(sessions / PID).games) == 12  # complete: loads without allow_incomplete
    update_screenshot(tmp_path / "lab_start.png", "lab_session_start.png")


# ------------------------------------------------------------------ reload and close
@pytest.fixture(scope="module")
def lab_env(tmp_path_factory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("lab")
    design = folder / "lab-rehearsal.toml"
    design.write_text(DESIGN)
    return {"NOTHANKS_SESSIONS": str(folder / "sessions"),
            "NOTHANKS_SESSION_DESIGN": str(design), "NOTHANKS_THINKING": "0"}


def kernels(server) -> int:
    """Kernels the server runs (each a child process of Voilà)."""
    return len(psutil.Process(server.process.pid).children(recursive=True))


def assert_one_kernel_left(server, log) -> None:
    """Only the open page's kernel runs: the closed or reloaded page's was shut down at
    its request (not culled: that takes a minute)."""
    deadline = time.monotonic() + 15
    while kernels(server) > 1 and time.monotonic() < deadline:
        time.sleep(0.2)
    assert kernels(server) == 1
    text = log.read_text()
    assert "_xsrf" not in text and "Culling" not in text.replace("Culling kernels with", "")


def start(lab: SessionPage, participant_id: str) -> str:
    """Enter the id; the text the page then shows (the game, not a refusal)."""
    lab.enter_id(participant_id)
    lab.page.locator(".nt-game-number").wait_for(timeout=30_000)
    return lab.page.locator("body").inner_text()


@pytest.mark.timeout(150)
def test_a_reloaded_or_closed_tab_lets_its_participant_resume(lab_env, tmp_path):
    log = tmp_path / "voila.log"
    server = start_voila("08_lab_session.ipynb", lab_env, log)
    try:
        with browser_page() as page:
            lab = SessionPage(page)
            lab.open(server.url)
            assert "new session" in start(lab, "P02")
            page.reload()  # the old page's kernel, still holding P02, would refuse it
            page.locator("button.nt-lab-start").wait_for(state="visible", timeout=120_000)
            assert "new session" in start(lab, "P02") and lab.game_number() == 1
            assert_one_kernel_left(server, log)

            page.close(run_before_unload=True)  # as a person closes the tab
            again = SessionPage(page.context.new_page())
            again.open(server.url)
            assert "new session" in start(again, "P02") and again.game_number() == 1
            assert_one_kernel_left(server, log)
    finally:
        server.stop()


@pytest.mark.timeout(120)
def test_a_kernel_whose_page_never_connects_is_culled(lab_env, tmp_path):
    """The backstop for a page that could not ask for its kernel's shutdown (the browser
    crashed, the network dropped): with no page connected, Voilà's culler shuts the
    kernel down (after a minute idle in the lab, 2 s here; the culler's round every 5 s
    is make session's) and with it the participant's lock. A plain GET stands in for the
    lost page: it starts a kernel and never connects."""
    log = tmp_path / "voila.log"
    server = start_voila("08_lab_session.ipynb", lab_env, log,
                         "--MappingKernelManager.cull_idle_timeout=2")
    try:
        with urllib.request.urlopen(server.url, timeout=120) as response:
            assert b"widget-view+json" in response.read()  # the notebook ran: the app
        assert kernels(server) == 1
        began = time.monotonic()
        while kernels(server) and time.monotonic() - began < 30:
            time.sleep(0.2)
        assert kernels(server) == 0 and "Culling 'idle' kernel" in log.read_text()
    finally:
        server.stop()
