"""The resumable experiment store: one directory per design run or participant session.

::

    manifest.json            the design, its hash, chunking, status
    experiments.parquet      one row: design, code version, parameters, start/end time
    conditions.parquet       one row per condition (table × sweep values)
    parts/<table>/part-<first>-<stop>.parquet   while games are being played
    <table>.parquet          the parts merged, once every game is done

Chunk ``[start, stop)`` is complete iff its receipt exists: a small JSON file with the
row count and SHA-256 of each of the chunk's parts, written after them (each file
atomically), so an interrupted chunk is simply played again. A resumed run checks every
finished chunk against its receipt and replays damaged ones; once merged, the tables'
checksums are kept in the manifest (``merged``) and checked the same way.

``conditions`` and ``experiments`` (the :data:`DERIVED` tables) follow from the manifest
alone: their checksums are in the manifest too (``derived``), and a damaged or missing
one is set aside and written again, no game replayed. A folder written before these
checksums were recorded has its two tables compared with what the manifest says instead;
the next run (or ``nothanks verify --repair``) records them.
"""
from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from ..files import atomic_write_bytes, is_atomic_leftover, umask
from .schema import (
    KEEP,
    ROW_TABLES,
    SCHEMA_VERSION,
    LogError,
    arrow_schema,
    json_text,
    parquet_bytes,
    read_table,
    to_arrow,
)

MANIFEST = "manifest.json"
PARTS = "parts"
#: Folder (inside ``parts``) of the chunk receipts: row counts and checksums of a chunk's
#: parts, written after them; a chunk is done iff its receipt exists.
RECEIPTS = "_receipts"
#: Folder of files set aside by :meth:`ExperimentDir.repair` (never read by the loader).
DAMAGED = "damaged"
#: Rows per row group when merging parts (bounds the memory a merge needs).
MERGE_ROWS = 250_000
#: Tables written from the manifest (and the design it holds), never from played games.
DERIVED = ("conditions", "experiments")
#: Manifest keys of the derived tables' checksums and of the command that writes the run.
DERIVED_KEY, COMMAND_KEY = "derived", "command"
#: The receipt of a folder of finished tables that is not an experiment directory
#: (``nothanks simulate`` output): the command that wrote it and each table's checksum.
RECEIPT = "receipt.json"


def code_version() -> str:
    """The package version, plus the git commit when running from a checkout."""
    import subprocess

    from .. import __version__
    root = Path(__file__).resolve().parents[2]
    try:
        commit = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True, timeout=5,
                                check=False).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        commit = ""
    return f"{__version__}+g{commit}" if commit else __version__


def _now() -> str:
    from datetime import datetime
    return datetime.now(UTC).isoformat()


def part_name(start: int, stop: int) -> str:
    """The file name of the part holding games ``start`` to ``stop`` (exclusive)."""
    return f"part-{start:09d}-{stop:09d}.parquet"


def _part_range(path: Path) -> tuple[int, int]:
    try:
        _, start, stop = path.stem.split("-")
        return int(start), int(stop)
    except ValueError:
        raise LogError(f"{path}: not a part file name (expected part-<first>-<stop>.parquet)") \
            from None


class ExperimentDir:
    """One experiment's directory: manifest, part files as games finish, merged tables
    (see the module docstring for the layout and the integrity checks)."""

    def __init__(self, path: Path, manifest: dict) -> None:
        self.path = path
        self.manifest = manifest

    # ------------------------------------------------------------ opening
    @classmethod
    def open(cls, out: str | Path, design, chunk_size: int, *, traces: bool = False,
             participant: str | None = None, synthetic: bool = False,
             command: str | None = None) -> ExperimentDir:
        """Create ``out`` for ``design``, or reopen it if it holds the same experiment.

        ``command``: the command line that writes it (kept in the manifest so that
        ``nothanks verify`` can name it); a reopened folder keeps the one it has.
        A different design is refused with the fields (and options) that differ.
        """
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
                    f"){design_differences(manifest['design'], design.to_dict())}; write it "
                    f"to another directory (the run in {path} stays as it is)")
            if manifest["traces"] != traces:
                raise LogError(f"{path} was started {'with' if manifest['traces'] else 'without'}"
                               f" --traces; resume it the same way")
            # (a missing or damaged conditions table is written again by repair())
            return cls(path, manifest)
        if path.exists() and not path.is_dir():
            raise LogError(f"{path} is a file, not a directory; choose a new or empty "
                           "directory for the experiment")
        if path.exists():  # a kill during the first manifest write leaves its temp file
            found = [f for f in path.iterdir() if f.name != DAMAGED]  # (set aside: kept)
            if not all(is_atomic_leftover(f) for f in found):
                raise LogError(f"{path} is not empty and has no {MANIFEST}; refusing to write "
                               "an experiment into it (choose an empty or new directory; "
                               f"nothanks verify {path} says what it holds)")
            for leftover in found:
                leftover.unlink()
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise LogError(f"cannot create the experiment directory {path}: "
                           f"{exc.strerror or exc}") from None
        manifest = {
            "schema_version": SCHEMA_VERSION, "experiment": design.name,
            "design_hash": design.hash, "design": design.to_dict(),
            "participant": participant, "synthetic": synthetic, "chunk_size": chunk_size,
            "games": design.total_games, "traces": traces, "learning": design.learns,
            "compacted": False,
            "code_version": code_version(), "parameters": _parameters(design), "runs": [],
            DERIVED_KEY: {}, COMMAND_KEY: command,
        }
        self = cls(path, manifest)
        try:
            self._write_manifest()  # first: it marks the folder as this experiment's
            self._write_conditions(design)
            self._write_manifest()  # with the conditions table's checksum
        except OSError as exc:
            raise LogError(f"cannot write into {path}: {exc.strerror or exc} (is it "
                           "read-only?)") from None
        return self

    def _write_manifest(self) -> None:
        text = json.dumps(self.manifest, indent=2, sort_keys=True, default=str)
        atomic_write_bytes(text.encode(), self.path / MANIFEST)

    def _write_conditions(self, design) -> None:
        """Write the conditions table of ``design`` and record its checksum (the caller
        writes the manifest)."""
        self._write_derived("conditions", self._conditions_bytes(design))

    def _write_derived(self, table: str, data: bytes) -> None:
        atomic_write_bytes(data, self.path / f"{table}.parquet")
        self.manifest.setdefault(DERIVED_KEY, {})[table] = _record(data)

    def _conditions_bytes(self, design) -> bytes:
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
        return parquet_bytes(to_arrow("conditions", columns))

    def _write_experiment(self) -> None:
        """Write the one-row experiments table (status ``complete`` once merged) and
        record its checksum (the caller writes the manifest)."""
        self._write_derived("experiments", self._experiment_bytes())

    def _experiment_bytes(self) -> bytes:
        """The experiments table as the manifest says it: written only once a run has
        begun (its start time is the first run's)."""
        m = self.manifest
        runs = m["runs"]
        status = "complete" if m["compacted"] else "running"
        start = pd.Timestamp(runs[0]["started_at"])
        end = runs[-1].get("finished_at") if status == "complete" else None
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
        return parquet_bytes(to_arrow("experiments", columns))

    def design(self):
        """The design this folder runs, rebuilt from its manifest (hash checked)."""
        from .design import Design, DesignError
        try:
            design = Design.from_dict(self.manifest["design"], f"{self.path / MANIFEST}")
        except DesignError as exc:
            raise LogError(f"{self.path / MANIFEST}: its design cannot be read: {exc}") \
                from None
        if design.hash != self.manifest["design_hash"]:
            raise LogError(f"{self.path / MANIFEST}: its design has hash {design.hash}, but "
                           f"the manifest says {self.manifest['design_hash']} (edited?)")
        return design

    def _derived_bytes(self, table: str) -> bytes | None:
        """What ``table`` (one of :data:`DERIVED`) should hold; None for an experiments
        table before any run began."""
        if table == "conditions":
            return self._conditions_bytes(self.design())
        return self._experiment_bytes() if self.manifest["runs"] else None

    # ------------------------------------------------------------ chunks
    def chunks(self) -> list[tuple[int, int]]:
        """Every chunk of the run as ``(start, stop)`` game positions, in order."""
        size, total = self.manifest["chunk_size"], self.manifest["games"]
        return [(a, min(a + size, total)) for a in range(0, total, size)]

    def row_tables(self) -> tuple[str, ...]:
        """The row tables this run logs (``traces`` only when the run keeps traces,
        ``learning`` only when it seats a learning agent)."""
        kept = {"traces": self.manifest["traces"],
                "learning": self.manifest.get("learning", False)}  # older runs: no key
        return tuple(t for t in ROW_TABLES if kept.get(t, True))

    def _receipt(self, chunk: tuple[int, int]) -> Path:
        return self.path / PARTS / RECEIPTS / (part_name(*chunk)[:-len(".parquet")] + ".json")

    def done_chunks(self) -> set[tuple[int, int]]:
        """Chunks whose parts are all written (their receipt exists); see :meth:`verify`."""
        if self.manifest["compacted"]:
            return set(self.chunks())
        folder = self.path / PARTS / RECEIPTS
        if not folder.exists():
            return set()
        return {_part_range(p.with_suffix(".parquet")) for p in folder.glob("part-*.json")}

    def missing_chunks(self) -> list[tuple[int, int]]:
        """The chunks not yet done (see :meth:`done_chunks`), in order."""
        done = self.done_chunks()
        return [c for c in self.chunks() if c not in done]

    def begin_run(self, **info: object) -> None:
        """Record an invocation (a resume adds one) and mark the experiment running."""
        self.manifest["runs"].append({"started_at": _now(), "finished_at": None, **info})
        self._write_experiment()
        self._write_manifest()

    def write_chunk(self, start: int, stop: int, parts: Mapping[str, bytes]) -> None:
        """Write a chunk's parts atomically, then its receipt (row counts and checksums of
        every part), which marks the chunk complete."""
        receipt = {}
        for table in self.row_tables():
            folder = self.path / PARTS / table
            folder.mkdir(parents=True, exist_ok=True)
            atomic_write_bytes(parts[table], folder / part_name(start, stop))
            receipt[table] = _record(parts[table])
        target = self._receipt((start, stop))
        target.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(json.dumps(receipt, sort_keys=True).encode(), target)

    # ------------------------------------------------------------ integrity
    def problems(self) -> list[Damage]:
        """Every file that does not match its recorded checksum (or is missing).

        Before the merge, each finished chunk's parts are checked against its receipt;
        after it, the merged tables against the checksums in the manifest; always, the
        :data:`DERIVED` tables (:meth:`derived_problems`).
        """
        found = self.derived_problems()
        if self.manifest["compacted"]:
            for table, expected in self.manifest.get("merged", {}).items():
                path = self.path / f"{table}.parquet"
                found += _check_file(path, expected, None)
            return found
        for chunk in sorted(self.done_chunks()):
            receipt_path = self._receipt(chunk)
            try:
                receipt = json.loads(receipt_path.read_text())
            except (OSError, ValueError):
                found.append(Damage(receipt_path, "unreadable receipt", chunk))
                continue
            for table in self.row_tables():
                path = self.path / PARTS / table / part_name(*chunk)
                found += _check_file(path, receipt.get(table), chunk)
        return found

    def unrecorded(self) -> list[str]:
        """The :data:`DERIVED` tables whose checksum the manifest lacks (a folder written
        by an older nothanks, or a run killed before recording it)."""
        recorded = self.manifest.get(DERIVED_KEY) or {}
        return [t for t in DERIVED if t not in recorded
                and (t == "conditions" or self.manifest["runs"])]

    def derived_problems(self) -> list[Damage]:
        """The :data:`DERIVED` tables that are missing, differ from their checksum, or
        (no checksum recorded) hold other rows than the manifest says."""
        found: list[Damage] = []
        recorded = self.manifest.get(DERIVED_KEY) or {}
        for table in DERIVED:
            path = self.path / f"{table}.parquet"
            if table in recorded:
                found += _check_file(path, recorded[table], None, derived=True)
                continue
            expected = self._derived_bytes(table)
            if expected is None:
                continue
            if not path.exists():
                found.append(Damage(path, "missing", None, derived=True))
                continue
            try:
                same = read_table(path, table).equals(pq.read_table(io.BytesIO(expected)))
            except LogError as exc:
                found.append(Damage(path, f"unreadable ({exc})", None, derived=True))
                continue
            if not same:
                found.append(Damage(path, "no checksum recorded, and its rows differ from "
                                          "what the manifest says (changed?)", None,
                                    derived=True))
        return found

    def repair_derived(self) -> list[Damage]:
        """Set aside damaged :data:`DERIVED` tables and write them again from the
        manifest; record the checksums the manifest lacks. Plays no game."""
        damaged = self.derived_problems()
        todo = sorted({d.path.stem for d in damaged} | set(self.unrecorded()))
        if not todo:
            return damaged
        self._set_aside([d.path for d in damaged])
        for table in todo:
            path = self.path / f"{table}.parquet"
            if path.exists():  # unrecorded, with the rows the manifest says: kept as is
                self.manifest.setdefault(DERIVED_KEY, {})[table] = _record(path.read_bytes())
            else:
                self._write_derived(table, self._derived_bytes(table))
        self._write_manifest()
        return damaged

    def repair(self, *, replay_merged: bool = True) -> list[Damage]:
        """Set aside what :meth:`problems` finds so that the next run replays it.

        A damaged chunk's parts and receipt move to ``damaged/<time>/`` (kept as
        evidence, never read again) and the chunk counts as not played. A damaged merged
        table sets aside every merged table, so every game is played again (results are
        the same: a game depends only on its deal) — unless ``replay_merged`` is false
        (participants cannot replay their session): then nothing is changed and a
        :class:`LogError` says what is wrong. Damaged :data:`DERIVED` tables are written
        again from the manifest, and checksums it lacks recorded (:meth:`repair_derived`).
        """
        damaged = self.problems()
        played = [d for d in damaged if not d.derived]
        if self.manifest["compacted"] and played and not replay_merged:
            listed = "; ".join(str(d) for d in played)
            raise LogError(f"{listed}. Nothing was changed: restore the file from a "
                           "backup (the games cannot be played again)")
        self.repair_derived()
        if not played:
            return damaged
        if self.manifest["compacted"]:
            self._set_aside([self.path / f"{t}.parquet" for t in self.row_tables()])
            self.manifest["compacted"] = False
            self.manifest.pop("merged", None)
            self._write_experiment()
            self._write_manifest()
            return damaged
        for chunk in sorted({d.chunk for d in damaged if d.chunk is not None}):
            # the receipt first: once it is gone the chunk is not done any more
            self._set_aside([self._receipt(chunk)] + [
                self.path / PARTS / table / part_name(*chunk) for table in self.row_tables()])
        return damaged

    def _set_aside(self, files: list[Path]) -> None:
        set_aside(self.path, files)

    def finish(self) -> bool:
        """Merge the parts once every chunk is done; returns whether it is complete.

        The merge is all or nothing: every table is first written to a temporary file;
        only when all are written are they renamed into place and the manifest marked
        compacted (with their checksums), and only then are the parts deleted.
        """
        self.manifest["runs"][-1]["finished_at"] = _now()
        complete = not self.missing_chunks()
        if complete and not self.manifest["compacted"]:
            merged = {}
            temporary: dict[str, Path] = {}
            try:
                for table in self.row_tables():
                    temporary[table] = self._merge(table)
                for table, tmp in temporary.items():
                    merged[table] = file_record(tmp)
            except BaseException:
                for tmp in temporary.values():
                    tmp.unlink(missing_ok=True)
                raise
            for table, tmp in temporary.items():
                os.replace(tmp, self.path / f"{table}.parquet")
            self.manifest["compacted"] = True
            self.manifest["merged"] = merged
        self._write_experiment()  # before the manifest that records its checksum
        self._write_manifest()
        if complete:
            shutil.rmtree(self.path / PARTS, ignore_errors=True)
        return complete

    def _merge(self, table: str) -> Path:
        """Stream the parts of ``table`` into a temporary file beside the target, holding
        at most about ``MERGE_ROWS`` rows in memory (one row group each)."""
        fd, name = tempfile.mkstemp(dir=self.path, prefix=f".{table}.", suffix=".tmp")
        os.close(fd)
        tmp = Path(name)
        try:
            with pq.ParquetWriter(tmp, arrow_schema(table), **KEEP) as writer:
                buffered: list[pa.Table] = []
                for start, stop in self.chunks():
                    part = self.path / PARTS / table / part_name(start, stop)
                    try:
                        buffered.append(read_table(part, table))
                    except LogError as exc:
                        raise LogError(
                            f"{exc}. The run is not merged (no table was changed); re-run "
                            "the same command to replay the damaged games") from None
                    if sum(t.num_rows for t in buffered) >= MERGE_ROWS:
                        writer.write_table(pa.concat_tables(buffered))
                        buffered = []
                if buffered:
                    writer.write_table(pa.concat_tables(buffered))
            with open(tmp, "rb") as handle:
                os.fsync(handle.fileno())
            tmp.chmod(0o666 & ~umask())
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        return tmp


def set_aside(folder: Path, files: list[Path]) -> Path:
    """Move ``files`` of the experiment directory ``folder`` (those that exist) under
    ``folder/damaged/<UTC time>/``, kept as evidence and never read again; that folder."""
    stamp = _now().replace(":", "").replace("+0000", "Z")
    kept = Path(folder) / DAMAGED / stamp
    for file in files:
        if file.exists():
            target = kept / file.relative_to(folder)
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(file, target)
    return kept


def recorded_experiment(path: Path) -> dict:
    """The one row of ``path/experiments.parquet`` (design, participant, ...), with the
    design rebuilt (``"design"``: a :class:`~.design.Design`, its hash checked): what a
    folder that lost its manifest still says about how it was made.

    Raises:
        LogError: the table is missing or unreadable, or its design cannot be rebuilt.
    """
    from .design import Design, DesignError
    file = Path(path) / "experiments.parquet"
    if not file.exists():
        raise LogError(f"{file}: missing, so nothing records the design that made {path}")
    rows = read_table(file, "experiments").to_pylist()
    if len(rows) != 1:
        raise LogError(f"{file}: {len(rows)} rows; an experiments table has one")
    row = rows[0]
    try:
        design = Design.from_dict(json.loads(row["design"]), str(file))
    except (DesignError, ValueError) as exc:
        raise LogError(f"{file}: its design cannot be read: {exc}") from None
    if design.hash != row["design_hash"]:
        raise LogError(f"{file}: its design has hash {design.hash}, but the table says "
                       f"{row['design_hash']} (edited?)")
    return row | {"design": design}


@dataclass(frozen=True)
class Damage:
    """A file of an experiment directory that failed its check, and the chunk it holds."""

    path: Path
    problem: str
    chunk: tuple[int, int] | None  # None: a merged table
    #: a :data:`DERIVED` table: written again from the manifest, no game replayed
    derived: bool = False

    def __str__(self) -> str:
        games = "" if self.chunk is None else f" (games {self.chunk[0]}-{self.chunk[1] - 1})"
        return f"{self.path}: {self.problem}{games}"


def _check_file(path: Path, expected: Mapping | None, chunk, *,
                derived: bool = False) -> list[Damage]:
    if expected is None:
        return [Damage(path, "no checksum recorded", chunk, derived)]
    if not path.exists():
        return [Damage(path, "missing", chunk, derived)]
    if _sha256_file(path) != expected["sha256"]:
        return [Damage(path, "checksum differs (truncated or changed since written)", chunk,
                       derived)]
    return []


def check_files(folder: Path, recorded: Mapping[str, Mapping]) -> list[Damage]:
    """Each file ``folder/NAME`` of ``recorded`` (NAME -> :func:`file_record`) that is
    missing or does not match its checksum."""
    return [d for name, expected in sorted(recorded.items())
            for d in _check_file(Path(folder) / name, expected, None)]


def _record(data: bytes) -> dict:
    """Checksum and row count of the Parquet file ``data``, as receipts keep them."""
    return {"sha256": _sha256(data), "rows": pq.read_metadata(io.BytesIO(data)).num_rows}


def file_record(path: Path) -> dict:
    """:func:`_record` of the Parquet file at ``path``."""
    return {"sha256": _sha256_file(path), "rows": pq.read_metadata(path).num_rows}


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


#: Design fields a command-line option sets (``nothanks run``; a tournament's deals are
#: its design's games).
DESIGN_OPTIONS = {"games": "--games", "seed": "--seed", "human": "--human"}


def design_differences(found: Mapping, wanted: Mapping) -> str:
    """Why two designs (as :meth:`Design.to_dict`) differ: each field with both values
    and the option that sets it, and the options that resume the folder; '' if none."""
    keys = sorted((set(found) | set(wanted)) - {"description", "name"},
                  key=lambda k: (k not in DESIGN_OPTIONS, k))
    differing = [k for k in keys if found.get(k) != wanted.get(k)]
    if not differing:
        return ""
    shown = []
    for key in differing:
        option = f" ({DESIGN_OPTIONS[key]})" if key in DESIGN_OPTIONS else ""
        shown.append(f"{key}{option}: {_short(found.get(key))} in the folder, "
                     f"{_short(wanted.get(key))} now")
    text = "; they differ in " + "; ".join(shown)
    if all(k in DESIGN_OPTIONS and found.get(k) is not None for k in differing):
        words = " ".join(f"{DESIGN_OPTIONS[k]} {found[k]}" for k in differing)
        text += f". To resume it, give {words}"
    return text


def _short(value: object, limit: int = 80) -> str:
    text = json.dumps(value, sort_keys=True, default=str)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _parameters(design) -> dict[str, dict]:
    """Every agent spec of the design → all its parameters, defaults filled in."""
    from ..agents import AgentSpecError, agent_parameters, parse_spec
    from ..agents.spec import PRESET_KEY, resolve_params
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
        given = dict(parsed.params)
        if PRESET_KEY in given:  # the preset's values, not only its name
            given = resolve_params(parsed) | {PRESET_KEY: given[PRESET_KEY]}
        out[spec] = {k: (v if isinstance(v, (int, float, str, bool, type(None))) else str(v))
                     for k, v in defaults.items()} | given
    return out


def write_receipt(folder: Path, names: list[str], command: str) -> Path:
    """Record the checksum and rows of the Parquet files ``folder/NAME`` and the command
    that wrote them in ``folder/receipt.json`` (written last, atomically)."""
    receipt = {"command": command, "files": {n: file_record(folder / n) for n in names}}
    target = Path(folder) / RECEIPT
    atomic_write_bytes(json.dumps(receipt, indent=2, sort_keys=True).encode(), target)
    return target


def read_receipt(folder: Path) -> dict | None:
    """``folder``'s :func:`write_receipt` record; None if it has none."""
    file = Path(folder) / RECEIPT
    try:
        receipt = json.loads(file.read_text())
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise LogError(f"{file}: unreadable ({exc}); its checksums cannot be checked") \
            from None
    if not isinstance(receipt, dict) or not isinstance(receipt.get("files"), dict):
        raise LogError(f"{file}: not a receipt (expected keys command and files)")
    return receipt


def read_manifest(path: Path) -> dict:
    """The manifest of the experiment directory ``path``.

    Raises:
        LogError: no manifest, one that is not valid JSON, one missing a key, or one of
            another schema version; the message names the file.
    """
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


