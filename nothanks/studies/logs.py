"""The parts of the studies' finished runs their tables read: only the tables and columns
each analysis needs (a whole log of the readings or higher-orders designs, every column,
takes gigabytes)."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from ..analysis import readings as readings_columns
from ..experiments.cache import load_finished_tables

__all__ = ["INSTANCE_SETS_DECISION_COLUMNS", "ORDERS_DECISION_COLUMNS", "InstanceSetsLog",
           "OrdersLog", "ReadingsTables", "load_instance_sets", "load_orders",
           "load_readings"]

@dataclass
class InstanceSetsLog:
    """The tables of the instance-sets log its table reads (decisions: four columns)."""

    conditions: pd.DataFrame
    games: pd.DataFrame
    decisions: pd.DataFrame


#: Columns of the instance-sets decisions that :func:`instance_sets_table` reads.
INSTANCE_SETS_DECISION_COLUMNS = ("condition", "deal", "turn", "focal", "action")


def load_instance_sets(directory: Path) -> InstanceSetsLog:
    """The tables and columns :class:`InstanceSetsLog` keeps of a finished run."""
    return InstanceSetsLog(**load_finished_tables(directory, {
        "conditions": None, "games": None, "decisions": INSTANCE_SETS_DECISION_COLUMNS}))


@dataclass
class OrdersLog:
    """The two tables of the higher-orders log its table reads (its 2.3 million decisions
    with every column, and its predictions and recalls, would take gigabytes)."""

    games: pd.DataFrame
    decisions: pd.DataFrame


@dataclass
class ReadingsTables:
    """The four tables of the readings log its ablation table reads
    (:class:`nothanks.analysis.readings.ReadingsLog`), decisions and recalls with only the
    columns it reads: the whole log (5 million decisions, 12 million recalls, 9 million
    predictions, every column) took most of the figures' 11 GB peak memory."""

    conditions: pd.DataFrame
    games: pd.DataFrame
    decisions: pd.DataFrame
    recalls: pd.DataFrame


def load_readings(directory: Path) -> ReadingsTables:
    """The tables and columns :class:`ReadingsTables` keeps of a finished readings run."""
    return ReadingsTables(**load_finished_tables(directory, {
        "conditions": None, "games": None, "decisions": readings_columns.DECISION_COLUMNS,
        "recalls": readings_columns.RECALL_COLUMNS}))


#: Columns of the higher-orders decisions that :func:`nothanks.analysis.orders_table` reads.
ORDERS_DECISION_COLUMNS = ("condition", "deal", "turn", "focal", "action", "own_tom0_action")


def load_orders(directory: Path) -> OrdersLog:
    """The games and the needed decision columns of a finished higher-orders run."""
    return OrdersLog(**load_finished_tables(directory, {
        "games": None, "decisions": ORDERS_DECISION_COLUMNS}))
