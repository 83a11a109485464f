"""What every subcommand module gives the parser: a ``configure_*`` function that adds
the command's options to its subparser and returns the :data:`Runner` that runs it."""
from __future__ import annotations

import argparse
from collections.abc import Callable

#: Runs a parsed command; returns the exit code.
Runner = Callable[[argparse.Namespace], int]
#: Adds a command's options to its subparser; returns its runner.
Configure = Callable[[argparse.ArgumentParser], Runner]
