"""What every subcommand module gives the parser: a ``configure_*`` function that adds
the command's options to its subparser and returns the :data:`Runner` that runs it."""
from __future__ import annotations

import argparse
from collections.abc import Callable

from . import checks

#: Runs a parsed command; returns the exit code.
Runner = Callable[[argparse.Namespace], int]
#: Adds a command's options to its subparser; returns its runner.
Configure = Callable[[argparse.ArgumentParser], Runner]


def add_scheduler(parser: argparse.ArgumentParser) -> None:
    """``--scheduler ADDRESS``: simulate on a Dask cluster instead of local processes."""
    parser.add_argument("--scheduler", default=None, metavar="ADDRESS",
                        help="simulate on the Dask cluster of this scheduler (e.g. "
                             "tcp://host:8786; default: local processes, --jobs)")


#: Fresh-noise re-decisions per decision at most (``--samples``).
MAX_SAMPLES = 10_000


def add_likelihood_options(parser: argparse.ArgumentParser, *, seed_help: str) -> None:
    """The options of order inference's likelihood (``--samples``, ``--lapse``,
    ``--tokens``, ``--param``, ``--seed``), shared by ``infer`` and ``fit``."""
    parser.add_argument("--samples", type=checks.count(MAX_SAMPLES), default=30,
                        help="fresh-noise re-decisions per ToM model and decision, 1 to "
                             f"{MAX_SAMPLES} (default 30)")
    parser.add_argument("--lapse", type=checks.probability, default=0.05,
                        help="lapse rate, 0 to 1 (default 0.05)")
    parser.add_argument("--tokens", default="memory",
                        help="what the player knows of others' tokens: memory (the model's "
                             "token memory on the public moves; default) or exact")
    parser.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                        help="spec parameter for every ToM model, e.g. project_self=false")
    parser.add_argument("--seed", type=checks.seed, default=0, help=seed_help)
