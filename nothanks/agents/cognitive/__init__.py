"""The thesis's cognitive models: ToM0, ToM1, ToM2 and ToM-k on ACT-R memory.

Agent specs: ``tom0``, ``tom1``, ``tom2`` and ``tom:k=N`` (any order N >= 0), each with
the parameters of :class:`ToMAgent` as spec keys, e.g. ``tom2:rt=-1.5,trace=true``;
``bayes-tom`` (:class:`BayesToMAgent`) infers each opponent's model as it plays;
``learning-tom`` (:class:`LearningToMAgent`) learns its ToM0 instances from its opponents;
``utility`` (:class:`UtilityAgent`) chooses among strategies by learned ACT-R utility;
``ibl`` (:class:`IBLAgent`) learns the value of take and pass by blending its instances.
"""
from __future__ import annotations

import inspect

from ..spec import register
from .bayes import BayesToMAgent, bayes_factory
from .ibl import IBLAgent
from .instance_sets import is_monotone, load_instances, shipped_sets
from .instances import DEFAULT_INSTANCES, Instance, InstanceFileError, InstanceSet
from .learning_tom import LearningToMAgent, learning_tom_factory
from .state import state_chunk
from .token_memory import TOKEN_CLASSES, Recall, TokenMemory, token_class
from .tom import Belief, ToMAgent
from .traces import DecisionTrace, Prediction, TraceNode
from .utility import UtilityAgent


def _factory(k: int | None):
    """A registry factory for ToM-``k`` (``k=None``: the order is the spec key ``k``)."""
    parameters = [p for p in inspect.signature(ToMAgent).parameters.values()
                  if k is None or p.name != "k"]

    def make(**params) -> ToMAgent:
        return ToMAgent(**params) if k is None else ToMAgent(k, **params)

    make.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in parameters])
    make.__name__ = "tom" if k is None else f"tom{k}"
    make.__doc__ = ToMAgent.__doc__
    return make


for _order in (0, 1, 2):
    register(f"tom{_order}", _factory(_order))
register("tom", _factory(None))
register("bayes-tom", bayes_factory())
register(IBLAgent.name, IBLAgent)
register(LearningToMAgent.name, learning_tom_factory())
register(UtilityAgent.name, UtilityAgent)

__all__ = [
    "DEFAULT_INSTANCES", "TOKEN_CLASSES", "BayesToMAgent", "Belief", "DecisionTrace", "IBLAgent",
    "Instance", "InstanceFileError", "InstanceSet", "LearningToMAgent", "Prediction", "Recall",
    "ToMAgent", "TokenMemory", "TraceNode", "UtilityAgent", "is_monotone", "load_instances",
    "shipped_sets", "state_chunk", "token_class",
]
