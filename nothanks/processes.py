"""Processes by id: whether one runs, the processes below one, and ending those that
outlived their parent. Writer locks (:mod:`nothanks.files`) ask whether their holder
runs; the fault tests and the random-kill driver (benchmarks/random_kills.py) find a
command's workers and check that none outlives a kill. Linux: the process tree is read
from ``/proc``."""
from __future__ import annotations

import contextlib
import os
import signal
from pathlib import Path


def alive(pid: int) -> bool:
    """Whether process ``pid`` runs: exists and is not a zombie (a process that has
    ended but whose parent has not yet collected it, e.g. a kernel just shut down)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, owned by someone else
        pass
    try:  # Linux: the state letter follows the parenthesised command name
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:  # no /proc (or it vanished meanwhile): trust kill()
        return True
    return stat[stat.rindex(")") + 2:][:1] != "Z"


def descendants(pid: int) -> list[int]:
    """The processes below ``pid``: its children, their children, and so on (read from
    ``/proc``; empty without it)."""
    parents: dict[int, int] = {}
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            for line in status.read_text().splitlines():
                if line.startswith("PPid:"):
                    parents[int(status.parent.name)] = int(line.split()[1])
                    break
        except (OSError, ValueError):  # the process ended meanwhile
            continue
    found, frontier = [], [pid]
    while frontier:
        parent = frontier.pop()
        children = [p for p, pp in parents.items() if pp == parent]
        found += children
        frontier += children
    return found


def end_orphans(pids: list[int]) -> list[int]:
    """The processes of ``pids`` still alive, each killed with SIGKILL (e.g. a killed
    command's workers that failed to exit by themselves: they would otherwise run on)."""
    orphans = [pid for pid in pids if alive(pid)]
    for pid in orphans:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    return orphans
