"""The play layer: everything that advances games.

- :mod:`.match`: the one game driver, :class:`~nothanks.play.match.Match`, and its
  records;
- :mod:`.runner`: the one planned-games loop (:func:`~nothanks.play.runner.play_planned`)
  and what plays through it (:func:`~nothanks.play.runner.play_games`,
  :func:`~nothanks.play.runner.play_trial`; the experiment workers);
- :mod:`.batch`: the batch engine's Python side (baseline games in compiled batches,
  the records ``Match`` gives);
- :mod:`.replay`: a logged game played again from its seed, every decision checked
  (:func:`~nothanks.play.replay.replay_logged_game`).
"""
from .replay import LoggedMove, ReplayError, ReplayStep, logged_moves, replay_logged_game

__all__ = ["LoggedMove", "ReplayError", "ReplayStep", "logged_moves", "replay_logged_game"]
