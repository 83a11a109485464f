"""Playing games: the logged-game replay (:mod:`.replay`).

The one game driver is :class:`nothanks.match.Match`; the runner of many games is
:mod:`nothanks.runner`.
"""
from .replay import LoggedMove, ReplayError, ReplayStep, logged_moves, replay

__all__ = ["LoggedMove", "ReplayError", "ReplayStep", "logged_moves", "replay"]
