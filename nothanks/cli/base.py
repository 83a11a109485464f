"""What every subcommand module gives the parser: a ``configure_*`` function that adds
the command's options to its subparser and returns the :data:`Runner` that runs it."""
from __future__ import annotations

import argparse
from collections.abc import Callable

#: Runs a parsed command; returns the exit code.
Runner = Callable[[argparse.Namespace], int]
#: Adds a command's options to its subparser; returns its runner.
Configure = Callable[[argparse.ArgumentParser], Runner]


def add_scheduler(parser: argparse.ArgumentParser) -> None:
    """``--scheduler ADDRESS``: simulate on a Dask cluster instead of local processes."""
    parser.add_argument("--scheduler", default=None, metavar="ADDRESS",
                        help="simulate on the Dask cluster of this scheduler (e.g. "
                             "tcp://host:8786; default: local processes, --jobs)")
