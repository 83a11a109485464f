"""Where numba keeps the compiled code between runs: a folder per version of its sources.

numba checks a cached function against the file that defines it and nothing else, so a
compiled function calling compiled code of another file (the search kernel calling the
ToM-k core, PUCT calling the rules kernel) would keep the other file's old machine code
after that file changed: stale results, silently, in a working copy that was edited or
pulled. When the package first imports numba (the modules with compiled code call
:func:`numba_imported`), it points numba's cache (``NUMBA_CACHE_DIR`` and numba's
``config.CACHE_DIR``) at a folder named after a digest of every source in the packages
holding compiled code (:data:`COMPILED_PACKAGES`); any change to any of them starts a
fresh folder. A folder the user chose (``NUMBA_CACHE_DIR`` set, or numba's
``config.CACHE_DIR`` set before) is left as it is (docs/architecture.md, "Compiled
code"). ``import nothanks`` itself does none of this: it reads no source, sets nothing
and removes nothing.

Cleaning is an explicit step: ``make clean`` removes every version's folder, and the
first compile of a version (its folder is new) removes other versions' folders unused
for :data:`STALE_AFTER_SECONDS` (:func:`remove_stale`).

A first run compiles the kernels (seconds; later runs load them from the cache). The
command line says so (:func:`announce_compiling`): once numba has compiled for more than
:data:`ANNOUNCE_AFTER_SECONDS` in a process, :data:`COMPILING` goes to stderr, once.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import sys
import threading
import time
from pathlib import Path
from typing import TextIO

#: The packages (under ``nothanks``) whose modules hold numba-compiled code or code it
#: calls: a change to any of their sources starts a new cache folder.
COMPILED_PACKAGES = ("actr", "kernels", "search")
#: numba's setting of its cache folder, read once when numba is imported.
SETTING = "NUMBA_CACHE_DIR"
#: Set beside :data:`SETTING` when ``nothanks`` chose the folder (a child process may
#: hold other sources and choose its own); absent when the user chose it.
CHOSEN_HERE = "NOTHANKS_NUMBA_CACHE"
#: Folders of other versions not used for this long are removed when a new version
#: compiles first (:func:`remove_stale`).
STALE_AFTER_SECONDS = 7 * 24 * 3600

PACKAGE_ROOT = Path(__file__).resolve().parent


def sources_digest(root: Path = PACKAGE_ROOT) -> str:
    """A digest of every Python source in :data:`COMPILED_PACKAGES` under ``root``
    (their paths and contents, in a fixed order): 16 hexadecimal digits."""
    digest = hashlib.sha256()
    for package in COMPILED_PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            digest.update(path.relative_to(root).as_posix().encode())
            digest.update(b"\0")
            digest.update(path.read_bytes())
            digest.update(b"\0")
    return digest.hexdigest()[:16]


def cache_home(root: Path = PACKAGE_ROOT) -> Path:
    """Where the versions' folders live: the package's ``__pycache__`` (where numba puts
    its cache by default) when it can be written, else the user's cache folder
    (``$XDG_CACHE_HOME``, default ``~/.cache``) under ``nothanks``.

    Raises:
        RuntimeError: neither can be found (no home folder, as ``Path.home`` says).
    """
    local = root / "__pycache__"
    try:
        local.mkdir(exist_ok=True)
        if os.access(local, os.W_OK):
            return local
    except OSError:
        pass
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "nothanks"


def use_versioned_cache(root: Path = PACKAGE_ROOT) -> Path | None:
    """Point numba's cache at ``numba-<digest>`` in :func:`cache_home` for the sources
    under ``root`` (``NUMBA_CACHE_DIR``, inherited by worker processes, and numba's
    ``config.CACHE_DIR`` when numba is imported). A new folder is this version's first
    compile: other versions' folders unused for a week go (:func:`remove_stale`); a folder
    that exists is marked as in use. Returns the folder, or None when the choice is not
    ours to make: ``NUMBA_CACHE_DIR`` set by the user, or numba's ``config.CACHE_DIR``
    set before (by the user)."""
    if os.environ.get(SETTING) and not os.environ.get(CHOSEN_HERE):
        return None
    config = _numba_config()
    if config is not None and config.CACHE_DIR and os.environ.get(SETTING) != config.CACHE_DIR:
        return None
    try:
        home = cache_home(root)
    except RuntimeError:  # no package folder to write and no home folder: numba decides
        return None
    folder = home / f"numba-{sources_digest(root)}"
    os.environ[SETTING] = str(folder)
    os.environ[CHOSEN_HERE] = "1"
    if config is not None:
        config.CACHE_DIR = str(folder)  # read when a cached function is defined
    first_compile = not folder.exists()
    now = time.time()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        os.utime(folder, (now, now))  # in use: not stale
    except OSError:
        pass  # numba finds it unwritable and uses its own default
    if first_compile:
        remove_stale(home, keep=folder, now=now)
    return folder


def remove_stale(home: Path, keep: Path, now: float | None = None) -> list[Path]:
    """Remove the ``numba-*`` folders in ``home`` other than ``keep`` unused for
    :data:`STALE_AFTER_SECONDS` (every process marks its version's folder when it first
    imports numba; numba makes a folder again before it saves into it, so even a process
    outliving its folder only compiles anew). Returns the folders removed."""
    now = time.time() if now is None else now
    removed = []
    for other in home.glob("numba-*"):
        try:
            if other != keep and now - other.stat().st_mtime > STALE_AFTER_SECONDS:
                shutil.rmtree(other, ignore_errors=True)
                removed.append(other)
        except OSError:
            pass
    return removed


def _numba_config():
    """numba's configuration module when numba is imported, else None."""
    if "numba" not in sys.modules:
        return None
    try:
        from numba.core import config
    except ImportError:  # a stand-in module of that name
        return None
    return config


#: What a process that compiles kernels for long says (once), and after how many seconds
#: of compiling in all.
COMPILING = "compiling kernels (first run only)"
ANNOUNCE_AFTER_SECONDS = 1.0


class _Announcer:
    """Counts numba's compile time in this process (its ``numba:compile`` events, which
    fire only for code not found in the cache) and writes :data:`COMPILING` once, as
    soon as the count passes :data:`ANNOUNCE_AFTER_SECONDS` (a timer fires during a long
    compilation, so the line comes while the user waits, not after)."""

    def __init__(self, stream: TextIO | None) -> None:
        self.stream = stream  # None: sys.stderr when the line is written
        self.seconds = 0.0  # compiling, in all, before the current outermost compile
        self.depth = 0  # compilations nest (a kernel compiles the kernels it calls)
        self.began = 0.0
        self.said = False
        self.timer: threading.Timer | None = None
        self.lock = threading.RLock()

    def start(self) -> None:
        with self.lock:
            self.depth += 1
            if self.depth > 1 or self.said:
                return
            self.began = time.perf_counter()
            left = max(0.0, ANNOUNCE_AFTER_SECONDS - self.seconds)
            self.timer = threading.Timer(left, self.say)
            self.timer.daemon = True
            self.timer.start()

    def end(self) -> None:
        with self.lock:
            self.depth -= 1
            if self.depth > 0:
                return
            self.seconds += time.perf_counter() - self.began
            if self.timer is not None:
                self.timer.cancel()
                self.timer = None
            if self.seconds > ANNOUNCE_AFTER_SECONDS:
                self.say()

    def say(self) -> None:
        """Write :data:`COMPILING` unless written before, or this is a worker process
        (its parent speaks for it)."""
        import multiprocessing
        with self.lock:
            if self.said or multiprocessing.parent_process() is not None:
                return
            self.said = True
            from tqdm.auto import tqdm
            tqdm.write(COMPILING, file=self.stream or sys.stderr)  # above a progress bar


#: The announcer :func:`announce_compiling` made (None: the process stays silent),
#: whether numba's events reach it (registered once per process), and whether this
#: process chose numba's cache folder (once, when the package first imports numba).
_announcer: _Announcer | None = None
_listening = False
_cache_chosen = False


def announce_compiling(stream: TextIO | None = None) -> None:
    """From now on this process says :data:`COMPILING` on ``stream`` (default stderr)
    when numba compiles for more than :data:`ANNOUNCE_AFTER_SECONDS` (the command line
    turns it on; a library user sees nothing). numba is not imported for it: the
    modules with compiled code call :func:`numba_imported` when they import numba."""
    global _announcer
    if _announcer is None:
        _announcer = _Announcer(stream)
        if "numba" in sys.modules:
            numba_imported()


def numba_imported() -> None:
    """Called by a module that has just imported numba, before it defines any compiled
    function: the first call in a process points numba's cache at this version's folder
    (:func:`use_versioned_cache`); then listen to numba's compilations if
    :func:`announce_compiling` asked for it (registered once per process)."""
    global _listening, _cache_chosen
    if not _cache_chosen:
        _cache_chosen = True
        use_versioned_cache()
    if _announcer is None or _listening:
        return
    from numba.core import event

    class Listener(event.Listener):
        def on_start(self, _event) -> None:
            if _announcer is not None:
                _announcer.start()

        def on_end(self, _event) -> None:
            if _announcer is not None:
                _announcer.end()

    event.register("numba:compile", Listener())
    _listening = True
