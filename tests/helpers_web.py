"""Shared by the browser tests: serve a notebook with Voilà on a free localhost port and
drive it in headless Debian Chromium with Playwright.

Importing this module skips the importing test module when Playwright is missing;
:data:`requirements` are the marks that skip it when Chromium or Voilà are.
"""
from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = os.environ.get("NOTHANKS_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
VOILA = Path(sys.executable).with_name("voila")

playwright_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")

#: Marks for every browser test module: slow, and skipped without Chromium or Voilà.
requirements = [
    pytest.mark.slow,
    pytest.mark.skipif(not Path(CHROMIUM).exists(),
                       reason=f"no Chromium at {CHROMIUM} (install it: apt-get install chromium)"),
    pytest.mark.skipif(not VOILA.exists(),
                       reason=f"voila is not installed next to {sys.executable}"),
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class VoilaServer:
    """A running Voilà (in its own process group, so a test can kill it as a crash would)."""

    process: subprocess.Popen
    url: str

    def kill(self) -> None:
        """SIGKILL Voilà's process group and its kernels (they run in sessions of their own)
        as a power cut or ``kill -9`` would: no shutdown code runs."""
        import psutil
        try:
            kernels = psutil.Process(self.process.pid).children(recursive=True)
        except psutil.NoSuchProcess:
            kernels = []
        with suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        for child in kernels:
            with suppress(psutil.NoSuchProcess):
                child.kill()
        self.process.wait(10)
        psutil.wait_procs(kernels, timeout=10)

    def stop(self) -> None:
        if self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.kill()


def start_voila(notebook: str, env: dict[str, str], log_path: Path,
                *options: str) -> VoilaServer:
    """Start Voilà on ``notebooks/<notebook>`` as ``make session`` does (through
    :mod:`nothanks.ui.serve`; ``options`` override its server options) and wait until it
    answers."""
    port = free_port()
    with open(log_path, "a") as log:
        process = subprocess.Popen(  # with make session's server options
            [sys.executable, "-m", "nothanks.ui.serve", str(ROOT / "notebooks" / notebook),
             f"--port={port}", *options],
            cwd=ROOT, env={**os.environ, **env}, stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True)
    server = VoilaServer(process, f"http://127.0.0.1:{port}/")
    deadline = time.monotonic() + 60
    while True:
        try:  # a connection, not a page request: a GET of the page would start a kernel
            # that runs the notebook (and, for a session page, claims the participant)
            socket.create_connection(("127.0.0.1", port), timeout=5).close()
            return server
        except OSError as exc:
            if process.poll() is not None or time.monotonic() > deadline:
                server.stop()
                raise RuntimeError(
                    f"voila did not start: {log_path.read_text()[-3000:]}") from exc
            time.sleep(0.3)


@contextmanager
def voila(notebook: str, env: dict[str, str], log_path: Path) -> Iterator[str]:
    """Serve ``notebooks/<notebook>`` with Voilà on a free localhost port; yields its URL."""
    server = start_voila(notebook, env, log_path)
    try:
        yield server.url
    finally:
        server.stop()


@contextmanager
def browser_page(height: int = 900) -> Iterator:
    """A tab of a fresh headless Chromium (``page.context.new_page()`` opens another).

    The tab belongs to a browser context of its own making, so ``page.close(
    run_before_unload=True)`` closes it as a person closes a tab (the page's
    ``beforeunload`` handlers run); a page from ``browser.new_page()`` takes its context
    down with it, and no handler runs."""
    with playwright_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            context = browser.new_context(viewport={"width": 1100, "height": height})
            yield context.new_page()
        finally:
            browser.close()


def update_screenshot(source: Path, name: str) -> None:
    """Copy a screenshot into docs/screenshots when NOTHANKS_UPDATE_SCREENSHOTS=1."""
    if os.environ.get("NOTHANKS_UPDATE_SCREENSHOTS") == "1":
        target = ROOT / "docs" / "screenshots"
        target.mkdir(parents=True, exist_ok=True)
        shutil.copy(source, target / name)
