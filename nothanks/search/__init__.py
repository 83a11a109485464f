"""Information-set Monte Carlo tree search for No Thanks! (the ``ismcts`` agent's engine).

:func:`root_state` turns a player's view into the search state (its information set),
:func:`search` runs the tree search from it. This package imports only
:mod:`nothanks.rules`; the compiled rules copy in :mod:`nothanks.search.kernel` (numba)
is loaded with the first search, so importing the package stays cheap.
"""
from .infoset import TokenTally, root_state
from .mcts import ROLLOUTS, ActionValue, SearchResult, search

__all__ = ["ROLLOUTS", "ActionValue", "SearchResult", "TokenTally", "root_state", "search"]
