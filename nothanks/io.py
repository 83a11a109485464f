"""Durable file writing: a file is either complete or absent, never half-written."""
from __future__ import annotations

import os
import tempfile
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
