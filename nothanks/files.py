"""Durable file writing: a file is either complete or absent, never half-written; and
writer locks, so two processes never write the same folder (no game logged twice). Also
the safe reading of array archives (:func:`read_npz`), which never unpickles."""
from __future__ import annotations

import fcntl
import os
import tempfile
import time
import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import pandas as pd

from .processes import alive


def atomic_write_bytes(data: bytes, path: Path) -> None:
    """Write ``data`` to ``path`` via a temporary file and an atomic rename."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o666 & ~umask())  # as open() would: mkstemp makes files 0600
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def is_atomic_leftover(path: Path) -> bool:
    """Whether ``path`` is the temporary file of an :func:`atomic_write_bytes` that never
    finished (the process was killed before its rename): safe to delete."""
    name = Path(path).name
    return name.startswith(".") and name.endswith(".tmp") and Path(path).is_file()


def read_npz(path: Path) -> dict:
    """The arrays (name -> numpy array) of the ``.npz`` archive at ``path``; never
    unpickles anything.

    Raises:
        ValueError: the file is not an array archive (numpy would take any other bytes
            for a pickle and advise loading it unsafely), or a damaged one; the message
            says which, in words a user can act on.
    """
    import numpy as np
    if not zipfile.is_zipfile(path):
        raise ValueError("not an .npz archive (a zip file of numpy arrays)")
    try:
        with np.load(path, allow_pickle=False) as data:
            return {key: data[key] for key in data.files}
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as exc:
        if "pickle" in str(exc):
            raise ValueError("an archive holding pickled objects, which are never loaded"
                             ) from None
        raise ValueError(f"a damaged .npz archive ({type(exc).__name__}: {exc})") from None


def write_frame(frame: pd.DataFrame, path: Path) -> None:
    """Write a DataFrame as Parquet atomically."""
    import io as _io
    buffer = _io.BytesIO()
    frame.to_parquet(buffer, index=False)
    atomic_write_bytes(buffer.getvalue(), Path(path))


def umask() -> int:
    """The process's file-creation mask (read by setting it and restoring it)."""
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextmanager
def _folder_mutex(folder: Path) -> Iterator[None]:
    """Hold an exclusive ``flock`` on ``folder`` (briefly): every
    reading and writing of the locks in a folder happens under it, so a lock's check
    and its claim are one step for every other process. On a file system that cannot
    lock a folder (some network mounts) the locks work as before, unguarded."""
    fd = os.open(folder, os.O_RDONLY)
    try:
        with suppress(OSError):  # e.g. EBADF or ENOLCK on an NFS mount
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the flock


def _lock_holder(lock: Path) -> str | None:
    try:
        return lock.read_text().strip()
    except FileNotFoundError:
        return None


def _write_holder(lock: Path, pid: str) -> None:
    """Write ``pid`` into ``lock`` (under the folder's mutex, so no one reads it half
    written; a process dying mid-write leaves a lock with no valid id: a stale one)."""
    fd = os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)  # less the umask
    with os.fdopen(fd, "w") as out:
        out.write(pid)


def claim_lock(lock: Path, refuse: Callable[[str], Exception], *, wait: float = 0.0) -> Path:
    """Create ``lock`` holding this process's id, or raise ``refuse(holder_pid)``.

    Refused while another live process holds it; a lock left by a dead process (a crash)
    is taken over, and the same process may claim its own lock again (resume). Checking
    and claiming happen under an exclusive lock on the folder, so of several processes
    starting together (on a free or a stale lock) exactly one wins. ``wait``: seconds to
    keep trying while another live process holds the lock (one that is shutting down
    lets go), before refusing. As any file the suite writes, the lock is not executable.
    """
    lock.parent.mkdir(parents=True, exist_ok=True)
    mine = str(os.getpid())
    deadline = time.monotonic() + wait
    while True:
        with _folder_mutex(lock.parent):
            holder = _lock_holder(lock)
            if holder in (None, mine) or not (holder.isdigit()
                                              and alive(int(holder))):
                if holder != mine:  # free, or stale: its process is gone; claim it anew
                    _write_holder(lock, mine)
                return lock
        if time.monotonic() >= deadline:
            raise refuse(holder)
        time.sleep(0.1)


def release_lock(lock: Path | None) -> None:
    """Remove ``lock`` if this process holds it (never another process's lock)."""
    if lock is None or not lock.parent.is_dir():
        return
    with _folder_mutex(lock.parent):
        if _lock_holder(lock) == str(os.getpid()):
            lock.unlink(missing_ok=True)
