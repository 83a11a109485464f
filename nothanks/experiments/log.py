"""The experiment log: tidy Parquet tables with a versioned schema, validated on read.

An experiment directory (one design run, or one participant's session) holds::

    manifest.json            the design, its hash, chunking, status
    experiments.parquet      one row: design, code version, parameters, start/end time
    conditions.parquet       one row per condition (table × sweep values)
    parts/<table>/part-<first>-<stop>.parquet   while games are being played
    <table>.parquet          the parts merged, once every game is done

for the row tables ``games`` (player × game), ``decisions`` (one per decision),
``predictions`` (one per prediction a model made about an opponent), ``recalls`` (one
per opponent whose tokens a model recalled at a decision) and, with ``--traces``,
``traces``. Every column is declared once, in :data:`TABLES`; ``data/README.md``
documents them (``schema_markdown()`` prints that section).
"""
from __future__ import annotations

import io
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

#: Bump when a column is added, removed or changes meaning; readers refuse other versions.
SCHEMA_VERSION = 1
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
    Column("seed", _I64, "game seed (runner.game_seed of the root seed and game_id)"),
)
_PLAYER = (
    Column("seat", _I8, "seat of the player (0 acts first)"),
    Column("role", _I8, "index of the player in the table's players list"),
    Column("focal", _B, "player is the table's focal player (false if none)"),
    Column("player_kind", _S, "model or human (a stand-in in the human seat is human)",
           choices=KINDS),
    Column("agent", _S, "agent spec with parameters (e.g. tom2:rt=-4.0); 'human' for people"),
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
        *_KEYS, *_GAME[:2], _GAME[2], _GAME[3], _GAME[4],
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
        Column("tom_order", _I8, "theory-of-mind order of a cognitive model", nullable=True),
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
}
#: Row tables written per game (in the order parts are written; games last marks a chunk
#: complete).
ROW_TABLES = ("traces", "recalls", "predictions", "decisions", "games")


def arrow_schema(table: str) -> pa.Schema:
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


def parquet_bytes(table: pa.Table) -> bytes:
    buffer = io.BytesIO()
    pq.write_table(table, buffer, compression="zstd")
    return buffer.getvalue()


# ---------------------------------------------------------------------- reading
def read_table(path: Path, table: str) -> pa.Table:
    """Read one Parquet file of ``table`` and check it against the schema, strictly."""
    path = Path(path)
    try:
        data = pq.read_table(path)
    except (pa.ArrowInvalid, OSError) as exc:
        raise LogError(f"{path}: cannot be read as Parquet (truncated or corrupted?): {exc}") \
            from None
    check_table(data, table, str(path))
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
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def empty_columns(table: str) -> dict[str, list]:
    return {c.name: [] for c in TABLES[table]}


def concat_parts(tables: Iterable[pa.Table]) -> pa.Table:
    return pa.concat_tables(list(tables))


# ------------------------------------------------------------- experiment directories
MANIFEST = "manifest.json"
PARTS = "parts"
#: Rows per row group when merging parts (bounds the memory a merge needs).
MERGE_ROWS = 250_000


def code_version() -> str:
    """The package version, plus the git commit when running from a checkout."""
    import subprocess

    from .. import __version__
    root = Path(__file__).resolve().parents[2]
    try:
        commit = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True, timeout=5, check=False).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        commit = ""
    return f"{__version__}+g{commit}" if commit else __version__


def _now() -> str:
    from datetime import datetime
    return datetime.now(UTC).isoformat()


def _part_name(start: int, stop: int) -> str:
    return f"part-{start:09d}-{stop:09d}.parquet"


def _part_range(path: Path) -> tuple[int, int]:
    try:
        _, start, stop = path.stem.split("-")
        return int(start), int(stop)
    except ValueError:
        raise LogError(f"{path}: not a part file name (expected part-<first>-<stop>.parquet)") \
            from None


class ExperimentDir:
    """One experiment's directory: manifest, part files as games finish, merged tables.

    Chunk ``[start, stop)`` is complete iff its ``games`` part exists; that part is
    written last, each part atomically, so an interrupted chunk is simply played again.
    """

    def __init__(self, path: Path, manifest: dict) -> None:
        self.path = path
        self.manifest = manifest

    # ------------------------------------------------------------ opening
    @classmethod
    def open(cls, out: str | Path, design, chunk_size: int, *, traces: bool = False,
             participant: str | None = None, synthetic: bool = False) -> ExperimentDir:
        """Create ``out`` for ``design``, or reopen it if it holds the same experiment."""
        path = Path(out)
        manifest_path = path / MANIFEST
        if manifest_path.exists():
            manifest = read_manifest(path)
            found = (manifest["experiment"], manifest["design_hash"], manifest["participant"])
            wanted = (design.name, design.hash, participant)
            if found != wanted:
                raise LogError(
                    f"{path} holds experiment {found[0]!r} (design hash {found[1]}"
                    f"{', participant ' + found[2] if found[2] else ''}), not {wanted[0]!r} "
                    f"(design hash {wanted[1]}{', participant ' + wanted[2] if wanted[2] else ''}"
                    f"); write it to another directory, or delete {path} to start over")
            if manifest["traces"] != traces:
                raise LogError(f"{path} was started {'with' if manifest['traces'] else 'without'}"
                               f" --traces; resume it the same way")
            return cls(path, manifest)
        if path.exists() and any(path.iterdir()):
            raise LogError(f"{path} is not empty and has no {MANIFEST}; refusing to write an "
                           "experiment into it (choose an empty or new directory)")
        path.mkdir(parents=True, exist_ok=True)
        manifest = {
            "schema_version": SCHEMA_VERSION, "experiment": design.name,
            "design_hash": design.hash, "design": design.to_dict(),
            "participant": participant, "synthetic": synthetic, "chunk_size": chunk_size,
            "games": design.total_games, "traces": traces, "compacted": False,
            "code_version": code_version(), "parameters": _parameters(design), "runs": [],
        }
        self = cls(path, manifest)
        self._write_manifest()
        self._write_conditions(design)
        return self

    def _write_manifest(self) -> None:
        from ..io import atomic_write_bytes
        text = json.dumps(self.manifest, indent=2, sort_keys=True, default=str)
        atomic_write_bytes(text.encode(), self.path / MANIFEST)

    def _write_conditions(self, design) -> None:
        from ..io import atomic_write_bytes
        conds = design.conditions
        columns = {
            "experiment": [design.name] * len(conds),
            "design_hash": [design.hash] * len(conds),
            "condition": [c.index for c in conds], "label": [c.label for c in conds],
            "table": [c.table for c in conds], "players": [list(c.players) for c in conds],
            "focal_role": [c.focal for c in conds],
            "sweep": [json_text(dict(c.sweep)) for c in conds],
            "games": [c.games for c in conds],
            "variant": [json_text(self.manifest["design"]["variant"])] * len(conds),
        }
        atomic_write_bytes(parquet_bytes(to_arrow("conditions", columns)),
                           self.path / "conditions.parquet")

    def _write_experiment(self, status: str) -> None:
        from ..io import atomic_write_bytes
        m = self.manifest
        runs = m["runs"]
        start = pd.Timestamp(runs[0]["started_at"]) if runs else pd.Timestamp.now(tz="UTC")
        end = runs[-1].get("finished_at") if runs and status == "complete" else None
        columns = {
            "experiment": [m["experiment"]], "design_hash": [m["design_hash"]],
            "participant": [m["participant"]], "synthetic": [m["synthetic"]],
            "status": [status], "design": [json_text(m["design"])],
            "parameters": [json_text(m["parameters"])], "code_version": [m["code_version"]],
            "root_seed": [m["design"]["seed"]], "games": [m["games"]],
            "started_at": [start.to_pydatetime()],
            "finished_at": [None if end is None else pd.Timestamp(end).to_pydatetime()],
            "runs": [len(runs)],
        }
        atomic_write_bytes(parquet_bytes(to_arrow("experiments", columns)),
                           self.path / "experiments.parquet")

    # ------------------------------------------------------------ chunks
    def chunks(self) -> list[tuple[int, int]]:
        size, total = self.manifest["chunk_size"], self.manifest["games"]
        return [(a, min(a + size, total)) for a in range(0, total, size)]

    def _tables(self) -> tuple[str, ...]:
        return tuple(t for t in ROW_TABLES if t != "traces" or self.manifest["traces"])

    def done_chunks(self) -> set[tuple[int, int]]:
        if self.manifest["compacted"]:
            return set(self.chunks())
        folder = self.path / PARTS / "games"
        return {_part_range(p) for p in folder.glob("part-*.parquet")} if folder.exists() \
            else set()

    def missing_chunks(self) -> list[tuple[int, int]]:
        done = self.done_chunks()
        return [c for c in self.chunks() if c not in done]

    def begin_run(self, **info: object) -> None:
        """Record an invocation (a resume adds one) and mark the experiment running."""
        self.manifest["runs"].append({"started_at": _now(), "finished_at": None, **info})
        self._write_manifest()
        self._write_experiment("complete" if self.manifest["compacted"] else "running")

    def write_chunk(self, start: int, stop: int, parts: Mapping[str, bytes]) -> None:
        """Write a chunk's parts atomically, the games part last (it marks completion)."""
        from ..io import atomic_write_bytes
        for table in self._tables():
            folder = self.path / PARTS / table
            folder.mkdir(parents=True, exist_ok=True)
            atomic_write_bytes(parts[table], folder / _part_name(start, stop))

    def finish(self) -> bool:
        """Merge the parts once every chunk is done; returns whether it is complete."""
        import shutil
        self.manifest["runs"][-1]["finished_at"] = _now()
        complete = not self.missing_chunks()
        if complete and not self.manifest["compacted"]:
            for table in self._tables():
                self._merge(table)
            self.manifest["compacted"] = True
        self._write_manifest()
        if complete:
            shutil.rmtree(self.path / PARTS, ignore_errors=True)
        self._write_experiment("complete" if complete else "running")
        return complete

    def _merge(self, table: str) -> None:
        """Stream the parts of ``table`` into one file, holding at most about
        ``MERGE_ROWS`` rows in memory (one row group each)."""
        import os
        import tempfile
        target = self.path / f"{table}.parquet"
        fd, tmp = tempfile.mkstemp(dir=self.path, prefix=f".{table}.", suffix=".tmp")
        os.close(fd)
        try:
            with pq.ParquetWriter(tmp, arrow_schema(table), compression="zstd") as writer:
                buffered: list[pa.Table] = []
                for start, stop in self.chunks():
                    part = self.path / PARTS / table / _part_name(start, stop)
                    buffered.append(read_table(part, table))
                    if sum(t.num_rows for t in buffered) >= MERGE_ROWS:
                        writer.write_table(pa.concat_tables(buffered))
                        buffered = []
                if buffered:
                    writer.write_table(pa.concat_tables(buffered))
            with open(tmp, "rb") as handle:
                os.fsync(handle.fileno())
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise


def _parameters(design) -> dict[str, dict]:
    """Every agent spec of the design → all its parameters, defaults filled in."""
    from ..agents import AgentSpecError, agent_parameters, parse_spec
    specs = {p for c in design.conditions for p in c.players}
    if design.human is not None:
        specs.add(design.human)
    out = {}
    for spec in sorted(specs):
        parsed = parse_spec(spec)
        try:
            defaults = agent_parameters(parsed.name)
        except AgentSpecError:
            defaults = {}  # the participant ("human") has no parameters
        out[spec] = {k: (v if isinstance(v, (int, float, str, bool, type(None))) else str(v))
                     for k, v in defaults.items()} | dict(parsed.params)
    return out


def read_manifest(path: Path) -> dict:
    file = Path(path) / MANIFEST
    try:
        manifest = json.loads(file.read_text())
    except FileNotFoundError:
        raise LogError(f"{path}: no {MANIFEST}; not an experiment directory") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise LogError(f"{file}: not valid JSON (truncated?): {exc}") from None
    required = ("schema_version", "experiment", "design_hash", "design", "participant",
                "synthetic", "chunk_size", "games", "traces", "compacted", "runs",
                "code_version", "parameters")
    missing = [k for k in required if k not in manifest]
    if missing:
        raise LogError(f"{file}: missing key(s) {missing}")
    if manifest["schema_version"] != SCHEMA_VERSION:
        raise LogError(f"{file}: schema version {manifest['schema_version']!r} is unknown; "
                       f"this nothanks reads version {SCHEMA_VERSION}")
    return manifest


# ------------------------------------------------------------------------- loading
@dataclass
class Log:
    """The tables of one or more experiment directories, as pandas DataFrames."""

    experiments: pd.DataFrame
    conditions: pd.DataFrame
    games: pd.DataFrame
    decisions: pd.DataFrame
    predictions: pd.DataFrame
    recalls: pd.DataFrame
    traces: pd.DataFrame

    def tables(self) -> dict[str, pd.DataFrame]:
        return {name: getattr(self, name) for name in TABLES}

    def sweep(self) -> pd.DataFrame:
        """The conditions with one column per swept parameter (e.g. ``rt``)."""
        values = pd.DataFrame([json.loads(s) for s in self.conditions["sweep"]],
                              index=self.conditions.index)
        return pd.concat([self.conditions, values], axis=1)


def experiment_dirs(path: str | Path) -> list[Path]:
    """``path`` if it is an experiment directory, else its experiment subdirectories."""
    path = Path(path)
    if (path / MANIFEST).exists():
        return [path]
    if not path.is_dir():
        raise LogError(f"{path}: no such directory")
    found = sorted(p.parent for p in path.glob(f"*/{MANIFEST}"))
    if not found:
        raise LogError(f"{path}: no {MANIFEST} in it or its subdirectories; not an "
                       "experiment directory")
    return found


def load(path: str | Path, *, allow_incomplete: bool = False) -> Log:
    """Read and validate an experiment directory (or a folder of them, e.g. participants).

    Raises :class:`LogError` naming the file, column or row on any schema violation,
    and, unless ``allow_incomplete``, when games are missing (an interrupted run).
    """
    loaded = [_load_one(d, allow_incomplete) for d in experiment_dirs(path)]
    tables = {}
    for name in TABLES:
        parts = [t[name] for t in loaded]
        tables[name] = to_pandas(pa.concat_tables(parts))
    return Log(**tables)


def _load_one(path: Path, allow_incomplete: bool) -> dict[str, pa.Table]:
    manifest = read_manifest(path)
    directory = ExperimentDir(path, manifest)
    expected = {"experiment": manifest["experiment"], "design_hash": manifest["design_hash"]}
    out = {"experiments": read_table(path / "experiments.parquet", "experiments"),
           "conditions": read_table(path / "conditions.parquet", "conditions")}
    if manifest["compacted"]:
        for table in directory._tables():
            out[table] = read_table(path / f"{table}.parquet", table)
        chunks = directory.chunks()
    else:
        chunks = sorted(directory.done_chunks())
        for table in directory._tables():
            files = [path / PARTS / table / _part_name(a, b) for a, b in chunks]
            for file in files:
                if not file.exists():
                    raise LogError(f"{file}: missing, although the chunk's games part exists")
            out[table] = pa.concat_tables([read_table(f, table) for f in files]) if files \
                else arrow_schema(table).empty_table()
    if "traces" not in out:
        out["traces"] = arrow_schema("traces").empty_table()
    for name, data in out.items():
        for column, value in expected.items():
            if data.num_rows and set(data.column(column).unique().to_pylist()) != {value}:
                raise LogError(f"{path}: table {name!r} has rows from another experiment "
                               f"({column} != {value!r}); mixed or mismatched files")
    _check_games(path, out, manifest, chunks, allow_incomplete)
    return out


def _check_games(path: Path, out: dict[str, pa.Table], manifest: dict,
                 chunks: Sequence[tuple[int, int]], allow_incomplete: bool) -> None:
    games = out["games"].select(["game_id", "seat"]).to_pandas()
    dup = games.duplicated(keep=False)
    if dup.any():
        row = int(dup.to_numpy().nonzero()[0][0])
        raise LogError(f"{path}: games row {row} duplicates game {games.game_id[row]} seat "
                       f"{games.seat[row]}; each game must be logged once")
    present = set(games["game_id"])
    wanted = {g for a, b in chunks for g in range(a, b)}
    if present != wanted:
        raise LogError(f"{path}: games table holds games {sorted(present ^ wanted)[:5]}... "
                       "that do not match its part files")
    decisions = out["decisions"].select(["game_id", "turn", "predictions"]).to_pandas()
    dup = decisions.duplicated(keep=False)
    if dup.any():
        row = int(dup.to_numpy().nonzero()[0][0])
        raise LogError(f"{path}: decisions row {row} duplicates game "
                       f"{decisions.game_id[row]} turn {decisions.turn[row]}")
    stray = set(decisions["game_id"]) - present
    if stray:
        raise LogError(f"{path}: decisions of games {sorted(stray)[:5]} that are not in the "
                       "games table")
    # nothing silently dropped: every seat of every game, every turn of every game
    players = manifest["design"]["variant"]["players"]
    rows = out["games"].select(["game_id", "seat", "turns"]).to_pandas()
    seats = rows.groupby("game_id").seat.nunique()
    short = seats[seats != players]
    if len(short):
        game = int(short.index[0])
        raise LogError(f"{path}: games table has {int(short.iloc[0])} of {players} seat rows "
                       f"for game {game}; each game needs one row per player")
    turns = rows.groupby("game_id").turns.first()
    logged = decisions.groupby("game_id").size().reindex(turns.index, fill_value=0)
    lost = turns[logged != turns]
    if len(lost):
        game = int(lost.index[0])
        raise LogError(f"{path}: decisions table has {int(logged[game])} rows for game {game}, "
                       f"whose games row says turns={int(lost.iloc[0])}; decision rows are "
                       "missing or extra")
    made = out["predictions"].select(["game_id", "turn"]).to_pandas().value_counts()
    said = decisions.set_index(["game_id", "turn"]).predictions.fillna(0).astype("int64")
    keys = said.index.union(made.index)
    diff = made.reindex(keys, fill_value=0) - said.reindex(keys, fill_value=0)
    if (diff != 0).any():
        game, turn = diff[diff != 0].index[0]
        raise LogError(f"{path}: predictions table has {int(made.get((game, turn), 0))} rows "
                       f"for game {game} turn {turn}, whose decision says predictions="
                       f"{int(said.get((game, turn), 0))}; prediction rows are missing or extra")
    total = manifest["games"]
    if not allow_incomplete and len(present) != total:
        missing = sorted(set(range(total)) - present)
        raise LogError(
            f"{path}: {len(missing)} of {total} games are missing (first: {missing[:5]}); "
            "the run or session was interrupted. Re-run the same command (or restart the "
            "session) to complete it, or load(..., allow_incomplete=True)")


# ------------------------------------------------------------------------ exporting
def export_csv(path: str | Path, out: str | Path, *, allow_incomplete: bool = False
               ) -> list[Path]:
    """Write every table of the log at ``path`` as ``out/<table>.csv`` (lists as JSON)."""
    data = load(path, allow_incomplete=allow_incomplete)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, frame in data.tables().items():
        frame = frame.copy()
        for column in TABLES[name]:
            if pa.types.is_list(column.type):
                frame[column.name] = [None if v is None else json.dumps(v)
                                      for v in frame[column.name]]
        target = out / f"{name}.csv"
        frame.to_csv(target, index=False)
        written.append(target)
    return written
