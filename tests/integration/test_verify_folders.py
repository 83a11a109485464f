"""Every table of a run has a checksum, and ``nothanks verify`` knows every folder the
suite writes (runs, tournaments, participant sessions, calibration studies, simulate
output) and names the command, with its options, that repairs it (issue 28)."""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest

from nothanks.cli import main
from nothanks.experiments import LogError, load, run_design
from nothanks.experiments.design import Design, Table
from nothanks.experiments.store import MANIFEST, PARTS
from nothanks.experiments.synthetic import play_session
from nothanks.experiments.verify import verify

from helpers import ROOT

#: The manifest key of the conditions and experiments tables' checksums.
DERIVED_KEY = "derived"


def repair(path: Path, **options):
    """``nothanks verify --repair`` in Python (imported late: it is new in issue 28)."""
    from nothanks.experiments.verify import repair
    return repair(path, **options)

#: 2 conditions x 2 games of baseline agents, chunks of 2 games: a run takes ~0.1 s.
TINY = Design(name="tiny", seed=3, games=2, tables=(
    Table("random", ("random",) * 4, 0), Table("heuristic", ("heuristic",) * 4, 0)))
SESSION = Design(name="mini-session", seed=2, games=2, tables=(
    Table("ToM0", ("human", "heuristic", "random", "random"), 0),))


def tables(path: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(path.glob("*.parquet"))}


def edit(path: Path, column: str, value: object) -> None:
    """Rewrite a Parquet table with one column changed (a valid file, other rows)."""
    data = pq.read_table(path)
    frame = data.to_pandas()
    frame[column] = value
    pq.write_table(data.from_pandas(frame, schema=data.schema, preserve_index=False), path)


@pytest.fixture
def finished(tmp_path) -> tuple[Path, dict[str, bytes]]:
    out = tmp_path / "run"
    run_design(TINY, out, jobs=1, chunk_size=2, progress=False)
    return out, tables(out)


def test_every_table_of_a_run_has_a_checksum_and_a_rerun_rebuilds_a_truncated_conditions(
        finished, capsys):
    out, before = finished
    manifest = json.loads((out / MANIFEST).read_text())
    assert set(manifest[DERIVED_KEY]) == {"conditions", "experiments"}
    assert set(manifest["merged"]) | set(manifest[DERIVED_KEY]) == {
        p.stem for p in out.glob("*.parquet")}  # every table
    conditions = out / "conditions.parquet"
    conditions.write_bytes(conditions.read_bytes()[:300])
    [report] = verify(out)
    assert not report.ok and f"{conditions}: checksum differs" in report.render()
    summary = run_design(TINY, out, jobs=1, progress=False)
    assert summary.played == 0  # the games were fine; the table is written again
    assert "written again from the design" in capsys.readouterr().err
    assert conditions.read_bytes() == before["conditions.parquet"]
    assert verify(out)[0].ok
    assert len(load(out).conditions) == 2


@pytest.mark.parametrize(("table", "column", "value"), [
    ("conditions", "label", "edited"), ("experiments", "code_version", "0.0-edited")])
def test_an_edit_to_conditions_or_experiments_is_detected_and_repaired(
        finished, table, column, value):
    out, before = finished
    edit(out / f"{table}.parquet", column, value)
    load(out)  # the edited table is valid: only its checksum tells
    [report] = verify(out)
    assert not report.ok and f"{table}.parquet: checksum differs" in report.render()
    assert f"nothanks verify --repair {out}" in report.repair
    assert main(["verify", "--repair", str(out)]) == 0
    assert tables(out) == before  # identical to the untouched run, no game replayed
    assert len(list((out / "damaged").rglob(f"{table}.parquet"))) == 1  # kept as evidence


def test_a_folder_without_the_new_checksums_verifies_with_a_note_and_repair_adds_them(
        finished):
    out, before = finished
    manifest = json.loads((out / MANIFEST).read_text())
    del manifest[DERIVED_KEY]  # as written before conditions/experiments had checksums
    (out / MANIFEST).write_text(json.dumps(manifest))
    [report] = verify(out)
    assert report.ok and "no checksum recorded for conditions, experiments" in report.render()
    edit(out / "conditions.parquet", "label", "edited")
    [report] = verify(out)  # compared with what the manifest says instead
    assert not report.ok and "rows differ from what the manifest says" in report.render()
    [report] = repair(out, jobs=1, progress=False)
    assert report.ok and "no checksum recorded" not in report.render()
    assert set(json.loads((out / MANIFEST).read_text())[DERIVED_KEY]) == {
        "conditions", "experiments"}
    assert tables(out) == before


def test_verify_repair_replays_a_damaged_run_from_its_manifest(finished):
    out, before = finished
    games = out / "games.parquet"
    games.write_bytes(games.read_bytes()[:100])
    [report] = repair(out, jobs=1, progress=False)
    assert report.ok
    pd.testing.assert_frame_equal(pd.read_parquet(games),
                                  pd.read_parquet(__import__("io").BytesIO(
                                      before["games.parquet"])))


def test_a_run_names_its_command_with_options_and_a_rerun_without_them_says_which_differ(
        tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["run", "smoke", "--games", "2", "--seed", "5", "--out", str(out),
                 "--jobs", "1", "--no-progress"]) == 0
    (out / "recalls.parquet").write_bytes(b"damaged")
    capsys.readouterr()
    assert main(["verify", str(out)]) == 1
    text = capsys.readouterr().out
    assert f"re-run `nothanks run smoke --games 2 --seed 5 --out {out}`" in text
    assert main(["run", "smoke", "--out", str(out), "--jobs", "1", "--no-progress"]) == 2
    error = capsys.readouterr().err
    assert "games (--games): 2 in the folder, 3 now" in error
    assert "seed (--seed): 5 in the folder, 1 now" in error
    assert "To resume it, give --games 2 --seed 5" in error


def test_a_run_of_a_shipped_design_made_in_python_gets_its_command_too(tmp_path):
    from nothanks.experiments.design import load_design
    out = tmp_path / "run"
    run_design(load_design("smoke").with_options(seed=9), out, jobs=1, progress=False)
    (out / "games.parquet").unlink()
    [report] = verify(out)
    assert f"re-run `nothanks run smoke --seed 9 --out {out}`" in report.repair


def test_verify_knows_simulate_output_and_names_its_command(tmp_path, capsys):
    out = tmp_path / "sim"
    assert main(["simulate", "--players", "heuristic,random,random", "--games", "5",
                 "--seed", "3", "--removed", "8", "--out", str(out)]) == 0
    capsys.readouterr()
    assert main(["verify", str(out)]) == 0
    assert "(simulate output): OK" in capsys.readouterr().out
    edit(out / "games.parquet", "score", 0)
    assert main(["verify", str(out)]) == 1
    text = capsys.readouterr().out
    assert f"{out / 'games.parquet'}: checksum differs" in text
    assert ("re-run `nothanks simulate --players 'heuristic;random;random' --games 5 --seed 3 "
            f"--low-card 3 --high-card 35 --removed 8 --out {out} --force`") in text
    (out / "decisions.parquet").unlink()  # still found by its receipt
    [report] = verify(tmp_path)
    assert report.kind == "simulate output" and "decisions.parquet: missing" in report.render()


def test_verify_knows_a_tournament_and_names_its_command(tmp_path, capsys):
    out = tmp_path / "tour"
    pool = "random;heuristic;random:p=0.2;always-pass"
    assert main(["tournament", "--pool", pool, "--deals", "1", "--seed", "3", "--out",
                 str(out), "--jobs", "1", "--no-progress"]) == 0
    (out / "decisions.parquet").unlink()
    capsys.readouterr()
    assert main(["verify", str(out)]) == 1
    text = capsys.readouterr().out
    assert "(tournament): 1 problem(s)" in text
    assert f"--pool '{pool}' --deals 1 --seed 3 --jobs 1 --out {out}`" in text


def test_verify_knows_a_calibration_study_and_names_its_command(tmp_path, capsys):
    optuna = pytest.importorskip("optuna")
    study_dir = tmp_path / "study"
    study_dir.mkdir()
    study = optuna.create_study(study_name="fit", storage=f"sqlite:///{study_dir}/study.db")
    study.set_user_attr("settings", {  # as nothanks calibrate records them
        "params": ["s", "d"], "targets": ["tom1_share"], "games": 40, "seed": 7,
        "stages": [0.25, 1.0], "model_preset": None, "weights": {}})
    study.enqueue_trial({})
    stage = study_dir / "trials" / "abc123" / "stage0"
    run_design(TINY, stage, jobs=1, progress=False)
    assert main(["verify", str(study_dir)]) == 0
    text = capsys.readouterr().out
    assert "(calibration study): OK" in text and "(calibration trial): OK" in text
    (stage / "games.parquet").unlink()
    assert main(["verify", str(study_dir)]) == 1
    text = capsys.readouterr().out
    assert f"nothanks verify --repair {stage}" in text
    assert (f"nothanks calibrate --out {study_dir} --study-name fit --params s,d --targets "
            "tom1_share --games 40 --seed 7 --stages 0.25,1 --trials 1") in text
    [_, trial] = repair(study_dir, jobs=1, progress=False)
    assert trial.ok and trial.path == stage


def test_a_participant_sessions_derived_tables_are_checked_and_rebuilt(tmp_path):
    play_session("P01", tmp_path, "human-standin", SESSION)
    folder = tmp_path / "P01"
    before = tables(folder)
    edit(folder / "experiments.parquet", "games", 99)
    [report] = verify(tmp_path)  # the folder of sessions
    assert report.kind == "participant session" and not report.ok
    assert "experiments.parquet: checksum differs" in report.render()
    [report] = repair(tmp_path)
    assert report.ok and tables(folder) == before
    assert not (tmp_path / ".P01.lock").exists()


def test_verify_on_a_folder_with_nothing_of_the_suite_says_what_it_looks_for(tmp_path):
    (tmp_path / "notes.txt").write_text("x")
    [report] = verify(tmp_path)
    assert not report.ok and "study.db (a calibration study)" in report.problems[0]
    assert not (tmp_path / PARTS).exists()


def test_every_shipped_data_folder_verifies_clean(capsys):
    """The README tour runs ``nothanks verify data/synthetic``: every folder shipped in
    data/ (synthetic sessions, calibration studies and their trials) is OK with no note
    (no "written by an older nothanks", no --repair advice on committed data)."""
    reports = verify(ROOT / "data")
    kinds = {r.kind for r in reports}
    assert {"participant session", "calibration study", "calibration trial"} <= kinds
    unclean = [r.render() for r in reports if not r.ok or r.notes]
    assert not unclean, "\n".join(unclean)
    assert main(["verify", str(ROOT / "data" / "synthetic")]) == 0
    text = capsys.readouterr().out
    assert text.count(": OK; all 24 games finished") == 30 and "·" not in text


def test_a_run_without_its_manifest_is_reported_damaged_and_the_named_repair_works(
        tmp_path, capsys):
    """Issue 44: a run folder whose manifest.json was deleted was reported as "(simulate
    output): OK" (its games and decisions tables look like one), and re-running the run
    was refused. It is a damaged run; the repair it names plays its design again."""
    out = tmp_path / "run"
    assert main(["run", "smoke", "--games", "2", "--seed", "5", "--out", str(out),
                 "--jobs", "1", "--no-progress"]) == 0
    before = {name: pd.read_parquet(out / name) for name in ("games.parquet",
                                                             "decisions.parquet")}
    (out / MANIFEST).unlink()
    capsys.readouterr()
    assert main(["verify", str(out)]) == 1
    text = capsys.readouterr().out
    assert f"{out} (run): 1 problem(s)" in text and "OK" not in text
    assert f"{out / MANIFEST}: missing; nothing vouches for the folder's tables" in text
    repair_line = next(line for line in text.splitlines() if "repair:" in line)
    command = repair_line.split("repair: ", 1)[1].split(" (", 1)[0]
    assert command == f"nothanks verify --repair {out}"
    assert main(command.split()[1:]) == 0  # the command it names, as named
    for name, frame in before.items():
        pd.testing.assert_frame_equal(pd.read_parquet(out / name), frame, obj=name)
    assert len(list((out / "damaged").rglob("games.parquet"))) == 1  # the old ones kept
    [report] = verify(out)
    assert report.ok and report.kind == "run"
    assert main(["run", "smoke", "--games", "2", "--seed", "5", "--out", str(out),
                 "--jobs", "1", "--no-progress"]) == 0  # the re-run works again


def test_a_session_without_its_manifest_says_to_restore_it_and_repair_changes_nothing(
        tmp_path):
    play_session("P01", tmp_path, "human-standin", SESSION)
    folder = tmp_path / "P01"
    (folder / MANIFEST).unlink()
    before = tables(folder)
    [report] = verify(tmp_path)
    assert not report.ok and report.kind == "participant session"
    assert f"restore {folder / MANIFEST} from a backup" in report.repair
    with pytest.raises(LogError, match="a participant's games cannot be played again"):
        repair(tmp_path)
    assert tables(folder) == before and not (folder / "damaged").exists()
