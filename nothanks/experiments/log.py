"""Reading the experiment log: load and validate directories, export them as CSV.

:func:`load` reads one experiment directory (or a folder of them, e.g. participant
sessions) into a :class:`Log` of pandas DataFrames, checking every file against the
schema (:mod:`.schema`) and that no game, decision or prediction row is missing or
duplicated.
"""
from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pyarrow as pa

from ..outputs import removed_if_new, replacing
from .schema import TABLES, LogError, arrow_schema, read_table, to_pandas
from .store import MANIFEST, PARTS, ExperimentDir, part_name, read_manifest


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
    learning: pd.DataFrame

    def tables(self) -> dict[str, pd.DataFrame]:
        """Every table of the log by name, in schema order."""
        return {name: getattr(self, name) for name in TABLES}

    def sweep(self) -> pd.DataFrame:
        """The conditions with one column per swept parameter (e.g. ``rt``)."""
        values = pd.DataFrame([json.loads(s) for s in self.conditions["sweep"]],
                              index=self.conditions.index)
        return pd.concat([self.conditions, values], axis=1)


def experiment_dirs(path: str | Path) -> list[Path]:
    """``path`` if it is an experiment directory, else its experiment subdirectories;
    :class:`LogError` if ``path`` does not exist or holds none."""
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


def load(path: str | Path | Sequence[str | Path], *, allow_incomplete: bool = False) -> Log:
    """Read and validate an experiment directory (or a folder of them, e.g. participants,
    or a list of such paths: their tables together).

    Raises :class:`LogError` naming the file, column or row on any schema violation,
    and, unless ``allow_incomplete``, when games are missing (an interrupted run).
    """
    loaded = _load_arrow(path, allow_incomplete)
    tables = {}
    for name in TABLES:
        parts = [t[name] for t in loaded]
        tables[name] = to_pandas(pa.concat_tables(parts))
    return Log(**tables)


def check(path: str | Path | Sequence[str | Path], *, allow_incomplete: bool = False
          ) -> None:
    """Validate as :func:`load` does, without making DataFrames (``nothanks verify``);
    raises the same :class:`LogError`."""
    _load_arrow(path, allow_incomplete)


def _load_arrow(path: str | Path | Sequence[str | Path], allow_incomplete: bool
                ) -> list[dict[str, pa.Table]]:
    """The validated Arrow tables of every experiment directory of ``path``."""
    paths = [path] if isinstance(path, str | Path) else list(path)
    return [_load_one(d, allow_incomplete) for p in paths for d in experiment_dirs(p)]


def _load_one(path: Path, allow_incomplete: bool) -> dict[str, pa.Table]:
    manifest = read_manifest(path)
    directory = ExperimentDir(path, manifest)
    expected = {"experiment": manifest["experiment"], "design_hash": manifest["design_hash"]}
    out = {"experiments": read_table(path / "experiments.parquet", "experiments"),
           "conditions": read_table(path / "conditions.parquet", "conditions")}
    # (ExperimentDir has no public list of its row tables yet: store.py's owner to add)
    if manifest["compacted"]:
        for table in directory.row_tables():
            out[table] = read_table(path / f"{table}.parquet", table)
        chunks = directory.chunks()
    else:
        chunks = sorted(directory.done_chunks())
        for table in directory.row_tables():
            files = [path / PARTS / table / part_name(a, b) for a, b in chunks]
            for file in files:
                if not file.exists():
                    raise LogError(f"{file}: missing, although the chunk's games part exists")
            out[table] = pa.concat_tables([read_table(f, table) for f in files]) if files \
                else arrow_schema(table).empty_table()
    for table in ("traces", "learning"):  # kept only by some runs
        if table not in out:
            out[table] = arrow_schema(table).empty_table()
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
    """Write every table of the log at ``path`` as ``out/<table>.csv`` (lists as JSON).

    The CSV files are published together (:func:`~nothanks.outputs.replacing`): a
    failure (e.g. a full disk) leaves ``out`` as it was, and no new ``out`` behind; a
    new export replaces every table of an old one. Other files in ``out`` stay.
    """
    data = load(path, allow_incomplete=allow_incomplete)
    out = Path(out)
    names = [f"{name}.csv" for name in TABLES]
    with removed_if_new(out), replacing(out, names) as staging:
        for name, frame in data.tables().items():
            frame = frame.copy()
            for column in TABLES[name]:
                if pa.types.is_list(column.type):
                    frame[column.name] = [None if v is None else json.dumps(v)
                                          for v in frame[column.name]]
            frame.to_csv(staging / f"{name}.csv", index=False)
    return [out / name for name in names]
