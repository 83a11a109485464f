"""The log schema: every column of every table, declared once, and its Arrow checks.

An experiment directory (see :mod:`.store`) holds the row tables ``games`` (player ×
game), ``decisions`` (one per decision), ``predictions`` (one per prediction a model made
about an opponent), ``recalls`` (one per opponent whose tokens a model recalled at a
decision) and, with ``--traces``, ``traces``, plus the one-row ``experiments`` table and
the ``conditions`` table. Every column is declared once, in :data:`TABLES`;
``data/README.md`` documents them (:func:`schema_markdown` prints that section).
"""
from __future__ import annotations

import io
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

#: Bump when a column is added, removed or changes meaning; readers refuse other versions.
SCHEMA_VERSION = 2
_META_VERSION = b"nothanks.schema_version"
_META_TABLE = b"nothanks.table"


class LogError(ValueError):
    """A log file or directory is not what the schema expects; says where and what."""


@dataclass(frozen=True)
class Column:
    """One column of a log table: name, Arrow type, nullability, unit, meaning."""

    name: str
    type: pa.DataType
    doc: str
    unit: str = ""
    nullable: bool = False
    choices: tuple[str, ...] = ()


_S, _I8, _I16, _I32, _I64 = pa.string(), pa.int8(), pa.int16(), pa.int32(), pa.int64()
_F, _B, _TS = pa.float64(), pa.bool_(), pa.timestamp("us", tz="UTC")
_L16, _L8 = pa.list_(pa.int16()), pa.list_(pa.int8())
ACTIONS = ("take", "pass")
KINDS = ("model", "human")
SOURCES = ("leaf", "root", "default", "exact-own", "oracle")

#: Columns every row table starts with: which experiment and participant a row is from.
_KEYS = (
    Column("experiment", _S, "design name (e.g. table7, human-schedule)"),
    Column("design_hash", _S, "short SHA-256 of the design (see manifest.json)"),
    Column("participant", _S, "participant/session id; null in simulations", nullable=True),
    Column("synthetic", _B, "true when the human seat was played by a stand-in agent, "
                            "i.e. the row is not real participant data"),
)
_GAME = (
    Column("game_id", _I64, "global position of the game in the design (0-based)"),
    Column("condition", _I32, "condition index (see conditions table)"),
    Column("block", _I16, "block number of the schedule (Table 6); null without schedule",
           nullable=True),
    Column("practice", _B, "game belongs to a practice block (excluded from analysis)"),
    Column("deal", _I64, "index of the game within its condition: game i of every "
                         "condition is played on the same deal (same seed and seating)"),
    Column("seed", _I64, "game seed (runner.game_seed of the root seed and deal)"),
)
_PLAYER = (
    Column("seat", _I8, "seat of the player (0 acts first)"),
    Column("role", _I8, "index of the player in the table's players list"),
    Column("focal", _B, "player is the table's focal player (false if none)"),
    Column("player_kind", _S, "model or human (a stand-in in the human seat is human)",
           choices=KINDS),
    Column("agent", _S, "agent spec with parameters (e.g. tom2:rt=-4.0); 'human' for people"),
    Column("agent_label", _S, "short label: ToM0, ToM1, ... for cognitive models, else the "
                              "agent's name (human for a person)"),
    Column("tom_order", _I8, "theory-of-mind order of a cognitive model", nullable=True),
)

TABLES: dict[str, tuple[Column, ...]] = {
    "experiments": (
        Column("experiment", _S, "design name"),
        Column("design_hash", _S, "short SHA-256 of the design"),
        Column("participant", _S, "participant id; null in simulations", nullable=True),
        Column("synthetic", _B, "the human seat was played by a stand-in agent"),
        Column("status", _S, "running, or complete once every game is logged",
               choices=("running", "complete")),
        Column("design", _S, "the design as JSON (Design.to_dict)"),
        Column("parameters", _S, "JSON: for every agent spec used, all its parameters "
                                 "with defaults filled in"),
        Column("code_version", _S, "nothanks version (and git commit when available)"),
        Column("root_seed", _I64, "root seed the game seeds derive from"),
        Column("games", _I64, "games in the design"),
        Column("started_at", _TS, "first start of the run", "UTC"),
        Column("finished_at", _TS, "when the last game was logged", "UTC", nullable=True),
        Column("runs", _I32, "invocations it took (1 unless resumed)"),
    ),
    "conditions": (
        *_KEYS[:2],
        Column("condition", _I32, "condition index"),
        Column("label", _S, "table label plus sweep values, e.g. 'ToM2 vs ToM1 | rt=-4.0'"),
        Column("table", _S, "table label from the design"),
        Column("players", pa.list_(_S), "agent specs in role order, sweeps applied"),
        Column("focal_role", _I8, "role index of the focal player", nullable=True),
        Column("sweep", _S, "JSON object: swept parameter -> value in this condition"),
        Column("games", _I64, "games played in this condition"),
        Column("variant", _S, "JSON of the rules variant (nothanks.rules.Variant)"),
    ),
    "games": (
        *_KEYS, *_GAME, *_PLAYER,
        Column("cards", _L16, "cards taken, ascending"),
        Column("card_points", _I16, "sum of the lowest card of each run", "points"),
        Column("tokens", _I16, "tokens held at the end", "tokens"),
        Column("score", _I16, "card points minus tokens (lower is better)", "points"),
        Column("rank", _I8, "place, 1 = lowest score; tied players share the best place"),
        Column("rank_points", _F, "3/2/1/0 for places 1-4 (ties share the mean)", "points"),
        Column("turns", _I16, "decisions in the game (all players)"),
    ),
    "decisions": (
        *_KEYS, *_GAME,
        Column("turn", _I16, "turn index within the game (0-based, one per action)"),
        *_PLAYER,
        Column("card", _I8, "face-up card"),
        Column("tokens_on_card", _I16, "tokens on the card before acting", "tokens"),
        Column("tokens_before", _I16, "the player's own tokens before acting", "tokens"),
        Column("cards_before", _L16, "the player's cards before acting, ascending"),
        Column("cards_left", _I8, "cards still face down (the face-up card excluded)"),
        Column("sequence_category", _S, "card relative to the player's cards (thesis §3.1)",
               choices=("none", "extension", "completion")),
        Column("action", _S, "take or pass", choices=ACTIONS),
        Column("forced", _B, "the player had no tokens and had to take"),
        Column("model_time", _F, "the model's clock at the decision", "s (model time)",
               nullable=True),
        Column("latency", _F, "summed retrieval latencies of the decision", "s (model time)",
               nullable=True),
        Column("reason", _S, "the model's final reason for its action", nullable=True),
        Column("own_tom0_action", _S, "what ToM0 on the model's own state said (forced: "
                                      "no tokens, ToM0 not consulted)",
               nullable=True, choices=(*ACTIONS, "forced")),
        Column("instance_failures", _I16, "instance retrievals that failed", nullable=True),
        Column("predictions", _I16, "predictions made (rows in the predictions table)",
               nullable=True),
        Column("recall_failures", _I16, "opponents whose exact count (leaf) was not "
                                        "recalled (recalls rows with source root/default)",
               nullable=True),
        Column("decision_time", _F, "human: wall-clock time from the turn's start to the "
                                    "action", "s", nullable=True),
        Column("marks", _L8, "human: opponent seats marked as having made a bad move at "
                             "this turn", nullable=True),
        Column("marked_bad", _B, "model, participant sessions: the participant marked this "
                                 "move bad at their next turn", nullable=True),
    ),
    "predictions": (
        *_KEYS, _GAME[0],
        Column("turn", _I16, "turn of the predicting decision"),
        Column("seat", _I8, "seat of the predicting model"),
        Column("agent", _S, "agent spec of the predicting model"),
        Column("index", _I8, "order of the prediction within the decision"),
        Column("target_seat", _I8, "seat whose action is predicted"),
        Column("predicted_action", _S, "predicted action", choices=ACTIONS),
        Column("tokens_assumed", _L16, "token counts of the target the model assumed",
               "tokens"),
        Column("source", _S, "where the assumed counts came from", choices=SOURCES),
        Column("true_tokens", _I16, "the target's true token count (known to the runner)",
               "tokens"),
        Column("actual_action", _S, "the target's next action on the same card; null if "
                                    "it did not act on that card", nullable=True,
               choices=ACTIONS),
        Column("correct", _B, "predicted_action == actual_action (null if no action)",
               nullable=True),
    ),
    "recalls": (
        *_KEYS, _GAME[0],
        Column("turn", _I16, "turn of the decision"),
        Column("seat", _I8, "seat of the recalling model"),
        Column("agent", _S, "agent spec of the recalling model"),
        Column("target_seat", _I8, "opponent whose tokens were recalled"),
        Column("recalled", _L16, "candidate token counts recalled", "tokens"),
        Column("source", _S, "leaf, root, default (nothing recalled: 3, 8, 11) or oracle; "
                            "from the model's prediction about the opponent, else from the "
                            "number of candidates (1 leaf, 2 root, 3 default)",
               nullable=True, choices=SOURCES),
        Column("true_tokens", _I16, "the opponent's true token count", "tokens"),
        Column("exact", _B, "the recall is exactly the true count"),
        Column("leaf_is_newest", _B, "a leaf was recalled and it is the opponent's most "
                                     "recently stored one (false: an older leaf won; null: "
                                     "no leaf recalled, or exact counts were used)",
               nullable=True),
    ),
    "traces": (
        *_KEYS, _GAME[0],
        Column("turn", _I16, "turn of the decision"),
        Column("seat", _I8, "seat of the model"),
        Column("trace", _S, "JSON object: seat, model_time, card; nodes = the reasoning "
                            "tree (per level and projection: path, level, seat, tokens "
                            "assumed and their source, state chunk, retrieved instance, "
                            "best activation, ToM0 action, action, reason); recalls = the "
                            "token-memory retrievals (source, candidates, leaf and root "
                            "activations, threshold, latency, true count)"),
    ),
    "learning": (
        *_KEYS, _GAME[0],
        Column("turn", _I16, "turn of the decision"),
        Column("seat", _I8, "seat of the learning agent"),
        Column("role", _I8, "index of the learning agent in the table's players list (its "
                            "seat changes from game to game when roles rotate)"),
        Column("agent", _S, "agent spec of the learning agent"),
        Column("trial", _I32, "trial of the design (deal // trial); null in designs without "
                              "trials", nullable=True),
        Column("trial_game", _I32, "game within its trial (deal % trial, 0-based); null in "
                                   "designs without trials", nullable=True),
        Column("state", _S, "JSON object: the agent's learning state after the decision "
                            "(utility agents: utilities and the chosen strategy; IBL agents: "
                            "the instance count and blended values)"),
    ),
}
#: Row tables written per game (in the order parts are written; games last marks a chunk
#: complete). ``traces`` is written only by runs with traces, ``learning`` only by runs
#: that seat a learning agent.
ROW_TABLES = ("traces", "learning", "recalls", "predictions", "decisions", "games")


def arrow_schema(table: str) -> pa.Schema:
    """The Arrow schema of ``table`` (a name of :data:`TABLES`; ``KeyError`` otherwise),
    its metadata naming the schema version and the table."""
    columns = TABLES[table]
    return pa.schema(
        [pa.field(c.name, c.type, nullable=c.nullable) for c in columns],
        metadata={_META_VERSION: str(SCHEMA_VERSION).encode(), _META_TABLE: table.encode()},
    )


def to_arrow(table: str, columns: Mapping[str, Sequence]) -> pa.Table:
    """Columnar data → an Arrow table of ``table``'s schema (raises on a wrong type)."""
    schema = arrow_schema(table)
    missing = [n for n in schema.names if n not in columns]
    extra = [n for n in columns if n not in schema.names]
    if missing or extra:
        raise LogError(f"{table}: columns missing {missing}, unexpected {extra}")
    return pa.Table.from_pydict({n: columns[n] for n in schema.names}, schema=schema)


#: Write options of the files an experiment keeps (merged tables, experiments,
#: conditions): zstd, with column statistics for readers that filter.
KEEP: Mapping[str, object] = MappingProxyType({"compression": "zstd"})
#: Write options of part files, which live only until the merge reads them back once:
#: snappy without statistics (faster to write and read back, slightly larger:
#: docs/benchmarks.md). The values read back are the same as with :data:`KEEP`.
PART: Mapping[str, object] = MappingProxyType({"compression": "snappy",
                                               "write_statistics": False})


def parquet_bytes(table: pa.Table, options: Mapping[str, object] = KEEP) -> bytes:
    """``table`` as the bytes of a Parquet file written with ``options``."""
    buffer = io.BytesIO()
    pq.write_table(table, buffer, **options)
    return buffer.getvalue()


# ---------------------------------------------------------------------- reading
def read_table(path: Path, table: str) -> pa.Table:
    """Read one Parquet file of ``table`` and check it against the schema, strictly.

    Raises:
        LogError: the file cannot be read as Parquet (truncated or corrupted) or does
            not match the schema of ``table``.
    """
    path = Path(path)
    try:
        data = pq.read_table(path)
        check_table(data, table, str(path))
    except (pa.ArrowInvalid, OSError, UnicodeDecodeError) as exc:
        # (a damaged footer can leave column names that are not UTF-8)
        raise LogError(f"{path}: cannot be read as Parquet (truncated or corrupted?): {exc}") \
            from None
    return data


def check_table(data: pa.Table, table: str, where: str) -> None:
    """Raise :class:`LogError` unless ``data`` matches ``table``'s schema exactly."""
    meta = data.schema.metadata or {}
    version = meta.get(_META_VERSION)
    if version is None:
        raise LogError(f"{where}: no schema version in the file metadata; not a nothanks log "
                       f"file (expected {_META_VERSION.decode()}={SCHEMA_VERSION})")
    if version != str(SCHEMA_VERSION).encode():
        raise LogError(f"{where}: schema version {version.decode()!r} is unknown; this "
                       f"nothanks reads version {SCHEMA_VERSION}")
    if meta.get(_META_TABLE) != table.encode():
        found = meta.get(_META_TABLE, b"?").decode()
        raise LogError(f"{where}: holds the {found!r} table, expected {table!r}")
    expected = {c.name: c for c in TABLES[table]}
    for column in TABLES[table]:
        if column.name not in data.column_names:
            raise LogError(f"{where}: missing column {column.name!r} (expected type "
                           f"{column.type}: {column.doc})")
        found = data.schema.field(column.name).type
        if found != column.type:
            raise LogError(f"{where}: column {column.name!r} has type {found}, expected "
                           f"{column.type}")
        values = data.column(column.name)
        if not column.nullable and values.null_count:
            row = values.to_pandas().isna().to_numpy().nonzero()[0][0]
            raise LogError(f"{where}: column {column.name!r} row {row} is null; the column "
                           f"may not be null")
        if column.choices:
            bad = set(values.drop_null().unique().to_pylist()) - set(column.choices)
            if bad:
                raise LogError(f"{where}: column {column.name!r} has value(s) {sorted(bad)}; "
                               f"valid: {', '.join(column.choices)}")
    extra = [n for n in data.column_names if n not in expected]
    if extra:
        raise LogError(f"{where}: unexpected column(s) {extra}; schema version "
                       f"{SCHEMA_VERSION} of {table!r} has {list(expected)}")


def to_pandas(data: pa.Table) -> pd.DataFrame:
    """Arrow → pandas without lossy coercion: nullable ints/bools keep their nulls
    (pandas Int64/boolean), lists become Python lists, timestamps stay tz-aware."""
    frame = data.to_pandas(types_mapper=_nullable_dtype)
    for field in data.schema:
        if pa.types.is_list(field.type):
            frame[field.name] = [None if v is None else list(v)
                                 for v in data.column(field.name).to_pylist()]
    return frame


def _nullable_dtype(arrow_type: pa.DataType):
    if pa.types.is_integer(arrow_type):
        return pd.api.types.pandas_dtype(f"Int{arrow_type.bit_width}")
    if pa.types.is_boolean(arrow_type):
        return pd.BooleanDtype()
    if pa.types.is_string(arrow_type):
        return pd.StringDtype()
    return None


# ------------------------------------------------------------------- documenting
def schema_markdown() -> str:
    """The column reference of every table, as Markdown (pasted into data/README.md)."""
    lines = [f"Schema version {SCHEMA_VERSION}.", ""]
    for table, columns in TABLES.items():
        lines += [f"### `{table}`", "", "| column | type | unit | null | meaning |",
                  "| --- | --- | --- | --- | --- |"]
        for c in columns:
            doc = c.doc + (f" ({', '.join(c.choices)})" if c.choices else "")
            lines.append(f"| `{c.name}` | {_type_name(c.type)} | {c.unit} | "
                         f"{'yes' if c.nullable else ''} | {doc.replace('|', '&#124;')} |")
        lines.append("")
    return "\n".join(lines)


def _type_name(arrow_type: pa.DataType) -> str:
    if pa.types.is_list(arrow_type):
        return f"list<{arrow_type.value_type}>"
    return str(arrow_type)


def json_text(value: object) -> str:
    """``value`` as compact JSON with sorted keys (the same text for equal values)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def empty_columns(table: str) -> dict[str, list]:
    """An empty list per column of ``table``, in schema order."""
    return {c.name: [] for c in TABLES[table]}


def concat_parts(tables: Iterable[pa.Table]) -> pa.Table:
    """The parts' rows in the order given, as one table (their schemas must be equal)."""
    return pa.concat_tables(list(tables))


