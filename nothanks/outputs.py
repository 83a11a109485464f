"""Where commands write: the folder they are told, never the shipped results unasked.

Every ``nothanks`` command that writes follows three rules:

* its outputs go to the folder it is given (``--out``); a command that has a default
  folder makes a fresh one, ``runs/<command>-<timestamp>`` (:func:`fresh_folder`;
  ``runs/`` is not tracked by git);
* a folder that holds committed results (files git tracks: the shipped figures,
  leaderboard, synthetic set, calibration studies) is written only when the command is
  told so by name, ``--update-shipped`` (:func:`check_shipped`); commands that ship no
  results refuse such a folder outright;
* a command that replaces a set of outputs replaces all of it (:func:`replacing`): the
  new set is made in a staging folder inside the target, then the old set is removed and
  the new one moved in, so the folder never holds half of one set and half of another,
  and a failure leaves the old set whole.
"""
from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

#: Parent of the fresh folders of commands that have a default output folder.
RUNS = Path("runs")
#: The option that lets a command write into a folder holding committed results.
UPDATE_SHIPPED = "--update-shipped"
#: Staging folder of :func:`replacing`, inside the target folder.
STAGING = ".staging"


class OutputError(ValueError):
    """An output location that cannot be used (says why and what to do)."""


def fresh_folder(command: str) -> Path:
    """A new folder name for ``command``'s outputs: ``runs/<command>-<timestamp>``."""
    base = RUNS / f"{command}-{datetime.now():%Y%m%d-%H%M%S}"
    path, number = base, 1
    while path.exists():
        number += 1
        path = base.with_name(f"{base.name}-{number}")
    return path


def typed_path(path: str | Path) -> str:
    """``path`` as a user would type it in the repository, for the command a shipped
    output records (its provenance): a relative path as given; an absolute one inside
    the working directory relative to it; a scratch folder in the system's temporary
    folder (``/tmp/x/y``, somewhere only the machine that ran the command has) as the
    untracked folder a user would use instead, ``runs/x/y`` (what a command computes does
    not depend on where its scratch folder is); any other path as given."""
    path = Path(path)
    if not path.is_absolute():
        return str(path)
    for base, shown in ((Path.cwd(), Path()), (Path(tempfile.gettempdir()), RUNS)):
        try:
            return str(shown / path.resolve().relative_to(base.resolve()))
        except ValueError:
            continue
    return str(path)


def committed_files(folder: str | Path) -> list[str]:
    """The files in ``folder`` (or the file ``folder``) that git tracks, as repository
    paths; empty outside a git work tree or where git is not installed."""
    folder = Path(folder).resolve()
    anchor = folder
    while not anchor.is_dir() and anchor != anchor.parent:
        anchor = anchor.parent
    top = _git(anchor, "rev-parse", "--show-toplevel")
    if top is None:
        return []
    root = Path(top.strip()).resolve()
    try:
        inside = folder.relative_to(root)
    except ValueError:
        return []
    if inside.parts and inside.parts[0] == ".git":
        return []
    listed = _git(root, "--literal-pathspecs", "ls-files", "-z", "--", str(inside))
    return [name for name in (listed or "").split("\0") if name]


def _git(where: Path, *args: str) -> str | None:
    """``git -C where ARGS`` output, or None when git is missing or says no."""
    try:
        done = subprocess.run(["git", "-C", str(where), *args], capture_output=True,
                              text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


def check_shipped(folder: Path, command: str, *, update_shipped: bool | None = None,
                  option: str = "--out", role: str = "") -> bool:
    """Refuse ``folder`` if it holds committed results and the command was not told
    ``--update-shipped``; returns whether it was told (then it replaces its whole set
    there, with or without git to say what is committed).

    ``update_shipped`` None: the command ships no results into such a folder, so the
    refusal offers only a new folder. ``option`` names the folder in the message, with
    ``role`` after it (e.g. what the command writes there).
    """
    if update_shipped:
        return True
    tracked = committed_files(folder)
    if not tracked:
        return False
    example = ", e.g. " + tracked[0] if len(tracked) > 1 else ": " + tracked[0]
    message = (f"{option} {folder}{role} holds committed results ({len(tracked)} file"
               f"{'s' if len(tracked) > 1 else ''} tracked by git{example}); "
               f"give a new folder, e.g. {option} {fresh_folder(command)}")
    if update_shipped is not None:
        message += f", or add {UPDATE_SHIPPED} to replace the whole set in it"
    raise OutputError(message)


def check_output(folder: Path, command: str, replaces: str, *, force: bool = False,
                 update_shipped: bool | None = None, option: str = "--out") -> None:
    """Before any work: make sure ``command`` may write its set (``replaces``, named in
    the error) into ``folder``, and create it.

    Refuses a folder holding committed results (:func:`check_shipped`), a file, a
    non-empty folder unless ``force`` or ``update_shipped``, and a place we cannot
    write to.
    """
    shipped = check_shipped(folder, command, update_shipped=update_shipped, option=option)
    if entries(folder) and not (force or shipped):
        raise OutputError(f"{option} {folder} is not empty; give a new or empty directory, "
                          f"or --force to replace {replaces} in it")
    check_writable(folder, option)


def check_writable(folder: Path, option: str = "--out") -> None:
    """Make ``folder`` (a directory we can write into), or say why it cannot be used."""
    if folder.exists() and not folder.is_dir():
        raise OutputError(f"{option} {folder} is a file; give a new or empty directory")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        raise OutputError(f"{option} {folder} cannot be written: {exc.strerror or exc}"
                          ) from None


@contextmanager
def removed_if_new(folder: Path) -> Iterator[None]:
    """Run a block that may create ``folder`` (e.g. :func:`check_output`): when the
    block fails, ``folder`` is removed again if it did not exist before and is still
    empty, so a refused or failed command leaves no empty output folder behind."""
    existed = folder.exists()
    try:
        yield
    except BaseException:
        if not existed and folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()
        raise


def entries(folder: Path) -> list[Path]:
    """What ``folder`` holds (none if it does not exist), the staging folder aside."""
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if p.name != STAGING)


@contextmanager
def replacing(folder: Path, members: Sequence[str], *, keep_staging: bool = False
              ) -> Iterator[Path]:
    """Make a set of outputs in a staging folder and swap it into ``folder`` whole.

    Yields the staging folder (``folder/.staging``) to write the new set into. When the
    block succeeds, the old set (everything in ``folder`` matching the glob patterns
    ``members``, and whatever has the name of a new entry) is removed and the new
    entries are moved in; the rest of ``folder`` stays. When it fails, ``folder`` is
    untouched and the staging folder removed, or with ``keep_staging`` kept for the
    next run to resume (a calibration study).
    """
    staging = folder / STAGING
    if staging.exists() and not keep_staging:
        _remove(staging)
    staging.mkdir(parents=True, exist_ok=True)
    try:
        yield staging
    except BaseException:
        if not keep_staging:
            shutil.rmtree(staging, ignore_errors=True)
        raise
    new = sorted(staging.iterdir())
    old = {p for pattern in members for p in folder.glob(pattern) if p.name != STAGING}
    old |= {folder / p.name for p in new if (folder / p.name).exists()}
    for path in sorted(old):
        _remove(path)
    for path in new:
        path.replace(folder / path.name)
    staging.rmdir()


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink()


__all__ = ["RUNS", "STAGING", "UPDATE_SHIPPED", "OutputError", "check_output", "check_shipped",
           "typed_path",
           "check_writable", "committed_files", "entries", "fresh_folder", "removed_if_new",
           "replacing"]
