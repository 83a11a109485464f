"""Durable file writing: a file is either complete or absent, never half-written; and
writer locks, so two processes never write the same folder (no game logged twice)."""
from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path

import pandas as pd


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


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, owned by someone else
        return True
    return True


def claim_lock(lock: Path, refuse: Callable[[str], Exception]) -> Path:
    """Create ``lock`` holding this process's id, or raise ``refuse(holder_pid)``.

    Refused while another live process holds it; a lock left by a dead process (a crash)
    is taken over, and the same process may claim its own lock again (resume).
    """
    lock.parent.mkdir(parents=True, exist_ok=True)
    mine = str(os.getpid())
    while True:
        try:
            fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            try:
                holder = lock.read_text().strip()
            except FileNotFoundError:  # released meanwhile: try again
                continue
            if holder == mine:
                return lock
            if holder.isdigit() and _process_alive(int(holder)):
                raise refuse(holder) from None
            lock.unlink(missing_ok=True)  # stale: its process is gone; claim it anew
            continue
        with os.fdopen(fd, "w") as out:
            out.write(mine)
        return lock


def release_lock(lock: Path | None) -> None:
    """Remove ``lock`` if this process holds it (never another process's lock)."""
    if lock is None:
        return
    try:
        if lock.read_text().strip() == str(os.getpid()):
            lock.unlink(missing_ok=True)
    except FileNotFoundError:
        pass
