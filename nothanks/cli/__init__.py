"""The command line, ``nothanks``: one module per group of subcommands.

:mod:`.main` builds the parser and dispatches; :mod:`.experiments` (run, export,
verify, synthetic), :mod:`.calibrate`, :mod:`.inference` and :mod:`.tournament` add their
subcommands. Every command checks all of its options first
(:mod:`nothanks.cli.checks`). Building the parser imports no heavy library, so
``nothanks --help`` answers at once.
"""
from .main import build_parser, commands, main

__all__ = ["build_parser", "commands", "main"]
