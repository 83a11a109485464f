"""One validator per kind of command-line value, shared by every ``nothanks`` command.

The rule of the command line (docs/cli.md, "Bad input fails first"): a
command checks *all* of its arguments before it writes anything or starts work. The
validators here are argparse ``type=`` callables: each takes the text given on the
command line and returns the value, or raises :class:`argparse.ArgumentTypeError` with
a message that says what was wrong and what would be valid, which argparse prints as one
line (``nothanks run: error: argument --seed: ...``) before any command code runs.

Kinds: a seed (:func:`seed`), a count with a sane upper bound (:func:`count`, and the
ready-made :func:`jobs`, :func:`games`), a probability (:func:`probability`), a finite
number above a bound (:func:`positive_float`, :func:`non_negative_float`), a folder to
write (:func:`folder_to_write`) and a folder to read (:func:`folder_to_read`).
"""
from __future__ import annotations

import argparse
import math
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from ..rules.seeding import MAX_SEED

#: Most games (per condition, or in all) one command may be asked for: about a day of
#: the fastest agents on one core, far beyond any study of the suite (2,000 per
#: condition).
MAX_GAMES = 10_000_000
#: Worker processes allowed per core (``--jobs``, ``--processes``): more only thrash.
JOBS_PER_CORE = 4


def max_jobs() -> int:
    """Most worker processes a command may start: :data:`JOBS_PER_CORE` x the cores."""
    return JOBS_PER_CORE * (os.cpu_count() or 1)


def _whole(text: str, valid: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number; valid: {valid}"
                                         ) from None


def seed(text: str) -> int:
    """A root seed: a whole number from 0 to :data:`MAX_SEED`."""
    valid = f"a whole number from 0 to {MAX_SEED} (2**63 - 1)"
    value = _whole(text, valid)
    if not 0 <= value <= MAX_SEED:
        raise argparse.ArgumentTypeError(f"{text} is out of range; valid: {valid}")
    return value


def count(upper: int | Callable[[], int], what: str = "", lower: int = 1
          ) -> Callable[[str], int]:
    """A validator of whole numbers from ``lower`` to ``upper`` (a number, or a function
    giving it when a value is checked); ``what`` says where the bound comes from."""
    def check(text: str) -> int:
        top = upper() if callable(upper) else upper
        valid = f"a whole number from {lower} to {top:,}" + (f" ({what})" if what else "")
        value = _whole(text, valid)
        if not lower <= value <= top:
            raise argparse.ArgumentTypeError(f"{text} is out of range; valid: {valid}")
        return value
    check.__name__ = "count"
    return check


def jobs(text: str) -> int:
    """Worker processes (``--jobs``, ``--processes``): 1 to :func:`max_jobs`."""
    return count(max_jobs, f"{JOBS_PER_CORE} x the {os.cpu_count() or 1} cores")(text)


def games(text: str) -> int:
    """Games (per condition, or in all): 1 to :data:`MAX_GAMES`."""
    return count(MAX_GAMES)(text)


def _number(text: str, valid: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number; valid: {valid}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text} is not a finite number; valid: {valid}")
    return value


def probability(text: str) -> float:
    """A probability: a number from 0 to 1."""
    valid = "a probability from 0 to 1"
    value = _number(text, valid)
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"{text} is out of range; valid: {valid}")
    return value


def positive_float(text: str) -> float:
    """A finite number above 0."""
    valid = "a finite number > 0"
    value = _number(text, valid)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"{text} is not positive; valid: {valid}")
    return value


def non_negative_float(text: str) -> float:
    """A finite number from 0 up."""
    valid = "a finite number >= 0"
    value = _number(text, valid)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text} is negative; valid: {valid}")
    return value


def folder_to_write(text: str) -> Path:
    """A folder a command may write into: an existing directory or one that can be made.

    Refuses a file and a place that cannot be written (the check makes the missing
    folders and a temporary file, then removes what it made: nothing is left behind).
    """
    folder = Path(text)
    if folder.exists() and not folder.is_dir():
        raise argparse.ArgumentTypeError(f"{text} is a file; give a new or empty directory")
    made: list[Path] = []
    try:
        missing = [p for p in (folder, *folder.parents) if not p.exists()]
        for path in reversed(missing):
            path.mkdir()
            made.append(path)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        where = f" ({exc.filename})" if exc.filename and str(exc.filename) != text else ""
        blocker = next((p for p in folder.parents if p.exists() and not p.is_dir()), None)
        why = f"{blocker} is a file" if blocker else f"{exc.strerror or exc}{where}"
        raise argparse.ArgumentTypeError(f"{text} cannot be written: {why}") from None
    finally:
        for path in reversed(made):
            path.rmdir()
    return folder


def folder_to_read(text: str) -> Path:
    """An existing directory the command can read."""
    folder = Path(text)
    if not folder.exists():
        raise argparse.ArgumentTypeError(f"{text} does not exist; give an existing folder")
    if not folder.is_dir():
        raise argparse.ArgumentTypeError(f"{text} is a file; give a folder")
    if not os.access(folder, os.R_OK | os.X_OK):
        raise argparse.ArgumentTypeError(f"{text} cannot be read (no permission)")
    return folder


class DefaultsFormatter(argparse.HelpFormatter):
    """Help that shows every option's default: an option whose help does not name its
    default already gets ``(default: VALUE)``. Options whose default is None (their help
    says what leaving them out does) and flags (off unless given) are left as written."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if ("default" in text or action.required or action.default in (None, False)
                or action.default is argparse.SUPPRESS
                or not (action.option_strings or action.nargs in ("?", "*"))):
            return text
        return f"{text} (default: %(default)s)"


class Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line: the command, what was wrong
    and where to read the valid options (exit code 2, as argparse's); its help shows
    every default (:class:`DefaultsFormatter`)."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("formatter_class", DefaultsFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


__all__ = ["JOBS_PER_CORE", "MAX_GAMES", "MAX_SEED", "DefaultsFormatter", "Parser", "count",
           "folder_to_read", "folder_to_write", "games", "jobs", "max_jobs", "non_negative_float",
           "positive_float", "probability", "seed"]
