"""Information-set Monte Carlo tree search for No Thanks! (the ``ismcts`` agent's engine).

:func:`root_state` turns a player's view into the search state (its information set),
:func:`search` runs the tree search from it. This package imports only
:mod:`nothanks.rules`; the compiled rules copy in :mod:`nothanks.search.kernel` (numba)
is loaded with the first search, so importing the package stays cheap.
:mod:`nothanks.agents.population` (the play-outs' stand-in for the ToM models and the
inference of each opponent's kind, for ``rollout="model"``) imports the cognitive
agents and is imported only by who asks for it.
"""
from .infoset import TokenTally, root_state
from .mcts import ROLLOUTS, ActionValue, SearchResult, search

__all__ = ["ROLLOUTS", "ActionValue", "SearchResult", "TokenTally", "root_state", "search"]
