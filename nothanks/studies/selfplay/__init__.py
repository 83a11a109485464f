"""Self-play training of the AlphaZero-style agent (issue 32; docs/alphazero.md).

- :mod:`.learner`: the JAX/Optax learner (the only module that imports JAX);
- :mod:`.replay`: the replay buffer of self-play samples;
- :mod:`.checkpoint`: the training state (resumes exactly) and the play checkpoint;
- :mod:`.settings`: a run's settings (``nothanks train``'s options);
- :mod:`.train`: the training loop behind ``nothanks train``.

Importing the package imports none of them (the command line stays fast).
"""
from __future__ import annotations


class TrainError(ValueError):
    """A training setting, checkpoint or sample that cannot be used (the message says
    what was wrong and what would be valid)."""


__all__ = ["TrainError"]
