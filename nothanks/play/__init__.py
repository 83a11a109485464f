"""Playing games: the logged-game replay (:mod:`.replay`).

The one game driver is :class:`nothanks.play.match.Match`; the runner of many games is
:mod:`nothanks.play.runner`.
"""
from .replay import LoggedMove, ReplayError, ReplayStep, logged_moves, replay_logged_game

__all__ = ["LoggedMove", "ReplayError", "ReplayStep", "logged_moves", "replay_logged_game"]
