"""Where numba keeps the compiled code between runs: a folder per version of its sources.

numba checks a cached function against the file that defines it and nothing else, so a
compiled function calling compiled code of another file (the search kernel calling the
ToM-k core, PUCT calling the rules kernel) would keep the other file's old machine code
after that file changed: stale results, silently, in a working copy that was edited or
pulled. Importing ``nothanks`` therefore points numba's cache (``NUMBA_CACHE_DIR``) at a
folder named after a digest of every source in the packages holding compiled code
(:data:`COMPILED_PACKAGES`); any change to any of them starts a fresh folder. A process
that set ``NUMBA_CACHE_DIR`` itself, or imported numba before ``nothanks``, keeps numba's
own choice (docs/architecture.md, "Compiled code").
"""
from __future__ import annotations

import hashlib
import os
import shutil
import sys
import time
from pathlib import Path

#: The packages (under ``nothanks``) whose modules hold numba-compiled code or code it
#: calls: a change to any of their sources starts a new cache folder.
COMPILED_PACKAGES = ("actr", "kernels", "search")
#: numba's setting of its cache folder, read once when numba is imported.
SETTING = "NUMBA_CACHE_DIR"
#: Set beside :data:`SETTING` when ``nothanks`` chose the folder (a child process may
#: hold other sources and choose its own); absent when the user chose it.
CHOSEN_HERE = "NOTHANKS_NUMBA_CACHE"
#: Folders of other versions not used for this long are removed (every process touches
#: its version's folder when it starts; numba makes a folder again before it saves into
#: it, so even a process outliving its folder only compiles anew).
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
    under ``root``, and remove other versions' folders unused for a week. Returns the
    folder, or None when the choice is not ours to make: ``NUMBA_CACHE_DIR`` set by the
    user, or numba already imported (it read its setting then)."""
    if (os.environ.get(SETTING) and not os.environ.get(CHOSEN_HERE)) or "numba" in sys.modules:
        return None
    try:
        home = cache_home(root)
    except RuntimeError:  # no package folder to write and no home folder: numba decides
        return None
    folder = home / f"numba-{sources_digest(root)}"
    os.environ[SETTING] = str(folder)
    os.environ[CHOSEN_HERE] = "1"
    now = time.time()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        os.utime(folder, (now, now))  # in use: not stale
    except OSError:
        pass  # numba finds it unwritable and uses its own default
    for other in home.glob("numba-*"):
        try:
            if other != folder and now - other.stat().st_mtime > STALE_AFTER_SECONDS:
                shutil.rmtree(other, ignore_errors=True)
        except OSError:
            pass
    return folder
