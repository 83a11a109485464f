"""Bad input gets one clear line (exit code 2) before any work, and nothing is written."""
from __future__ import annotations

import time

import pytest

from nothanks.agents import AgentSpecError, make_agent, split_specs
from nothanks.cli import main
from nothanks.experiments import DesignError, load, load_design
from nothanks.experiments.cli import first_sentence
from nothanks.experiments.design import shipped_designs
from nothanks.runner import summarize

PLAYERS = "random,random,random,random"


def one_line_error(capsys, argv: list[str], expected: str) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Traceback" not in err, err
    assert expected in err, err


def test_simulate_refuses_a_non_empty_out_unless_forced(tmp_path, capsys):
    out = tmp_path / "sim"
    assert main(["simulate", "--players", PLAYERS, "--games", "2", "--out", str(out)]) == 0
    first = (out / "games.parquet").read_bytes()
    one_line_error(capsys, ["simulate", "--players", PLAYERS, "--games", "3", "--seed", "9",
                            "--out", str(out)], "is not empty")
    assert (out / "games.parquet").read_bytes() == first  # nothing overwritten
    assert main(["simulate", "--players", PLAYERS, "--games", "3", "--seed", "9", "--out",
                 str(out), "--force"]) == 0
    assert (out / "games.parquet").read_bytes() != first


def test_simulate_checks_its_output_before_playing(tmp_path, capsys, monkeypatch):
    import nothanks.runner as runner
    played = []
    monkeypatch.setattr(runner, "play_games", lambda *a, **k: played.append(1) or [])
    a_file = tmp_path / "file"
    a_file.write_text("x")
    one_line_error(capsys, ["simulate", "--players", PLAYERS, "--out", str(a_file)],
                   "is a file")
    one_line_error(capsys, ["simulate", "--players", PLAYERS, "--out", str(a_file / "sub")],
                   "cannot be written")
    assert not played


@pytest.mark.parametrize("argv,expected", [
    (["simulate", "--players", PLAYERS, "--seed", "-1"], "--seed must be a non-negative"),
    (["simulate", "--players", PLAYERS, "--games", "0"], "--games must be at least 1"),
    (["simulate", "--players", ",random,random,random"], "player 1 of ',random,random,random' "
                                                         "is empty"),
    (["simulate", "--players", "heuristic:T=nan,random,random,random"], "T=nan is not"),
    (["run", "smoke", "--out", "{tmp}/r", "--jobs", "0"], "jobs=0 is invalid"),
    (["run", "smoke", "--out", "{tmp}/r", "--jobs", "-1"], "jobs=-1 is invalid"),
    (["run", "smoke", "--out", "{tmp}/r", "--chunk-size", "0"], "chunk_size=0 is invalid"),
    (["run", "smoke", "--out", "{tmp}/r", "--seed", "-1"], "'seed' must be a non-negative"),
    (["run", "smoke", "--out", "{tmp}/file"], "is a file, not a directory"),
    (["run", "smoke", "--out", "{tmp}/file/sub"], "cannot create the experiment directory"),
    (["export", "{tmp}/missing", "--csv", "{tmp}/csv"], "no such directory"),
    (["figures", "--out", "{tmp}/file", "--quick"], "is a file"),
])
def test_bad_options_get_one_line_and_leave_nothing_behind(tmp_path, capsys, argv, expected):
    (tmp_path / "file").write_text("x")
    one_line_error(capsys, [a.replace("{tmp}", str(tmp_path)) for a in argv], expected)
    assert not (tmp_path / "r").exists()


def test_a_design_with_a_negative_seed_fails_before_making_a_folder(tmp_path, capsys):
    design = tmp_path / "bad.toml"
    design.write_text('name = "bad"\nseed = -1\n[[tables]]\nlabel = "a"\n'
                      f'players = {PLAYERS.split(",")!r}\n'.replace("'", '"'))
    one_line_error(capsys, ["run", str(design), "--out", str(tmp_path / "out")],
                   "'seed' must be a non-negative integer (got -1)")
    assert not (tmp_path / "out").exists()
    design.write_text(design.read_text().replace("seed = -1", "seed = 1"))
    assert main(["run", str(design), "--out", str(tmp_path / "out"), "--jobs", "1",
                 "--no-progress"]) == 0


def test_a_toml_type_error_names_the_file_once(tmp_path):
    design = tmp_path / "typed.toml"
    design.write_text('name = "typed"\nseed = "a"\n[[tables]]\nlabel = "a"\n'
                      'players = ["random", "random", "random", "random"]\n')
    with pytest.raises(DesignError) as error:
        load_design(design)
    assert str(error.value) == f"{design}: 'seed' must be an integer, got 'a'"


def test_an_unreachable_dask_scheduler_fails_fast_with_one_line(tmp_path, capsys):
    begun = time.monotonic()
    one_line_error(capsys, ["run", "smoke", "--out", str(tmp_path / "r"), "--dask",
                            "tcp://127.0.0.1:1"], "cannot reach the Dask scheduler")
    assert time.monotonic() - begun < 20
    assert not (tmp_path / "r").exists()


def test_export_of_an_incomplete_run_suggests_its_own_flag(tmp_path, capsys):
    from nothanks.experiments import LogContext, play_chunk
    from nothanks.experiments.store import ExperimentDir
    design = load_design("smoke")
    directory = ExperimentDir.open(tmp_path / "run", design, 3)
    directory.begin_run()
    directory.write_chunk(0, 3, play_chunk(design, 0, 3, LogContext(design.name, design.hash)))
    one_line_error(capsys, ["export", str(tmp_path / "run"), "--csv", str(tmp_path / "csv")],
                   "--allow-incomplete")


@pytest.mark.parametrize("text,specs", [
    ("tom2:rt=-1.5,s=0.2,tom0,tom0,tom0", ["tom2:rt=-1.5,s=0.2", "tom0", "tom0", "tom0"]),
    ("tom2:rt=-1.5,s=0.2;tom0;tom0;tom0", ["tom2:rt=-1.5,s=0.2", "tom0", "tom0", "tom0"]),
    ("heuristic:T=-3,random:p=0.3,tom:k=3,tom1",
     ["heuristic:T=-3", "random:p=0.3", "tom:k=3", "tom1"]),
])
def test_player_lists_take_specs_with_several_parameters(text, specs):
    assert split_specs(text) == specs
    for spec in specs:
        make_agent(spec)


def test_simulate_plays_multi_parameter_specs_and_repeated_players(tmp_path, capsys):
    assert main(["simulate", "--players", "tom1:rt=-1.5,s=0.2,tom0,tom0,tom0", "--games", "1",
                 "--json"]) == 0
    assert '"agent": "tom1:rt=-1.5,s=0.2"' in capsys.readouterr().out
    assert main(["simulate", "--players", "heuristic:T=-3", "--players", "random", "--players",
                 "random", "--players", "random", "--games", "1"]) == 0


@pytest.mark.parametrize("text", [",random,random", "random,,random", "random;;random"])
def test_an_empty_seat_is_an_error(text):
    with pytest.raises(AgentSpecError, match="is empty"):
        split_specs(text)


def test_summary_counts_player_games(tmp_path):
    assert main(["simulate", "--players", PLAYERS, "--games", "3", "--out",
                 str(tmp_path / "s")]) == 0
    import pandas as pd
    games = pd.read_parquet(tmp_path / "s" / "games.parquet")
    decisions = pd.read_parquet(tmp_path / "s" / "decisions.parquet")
    assert summarize(games, decisions)["player_games"].sum() == 12


def test_run_list_descriptions_end_with_a_whole_sentence(capsys):
    assert main(["run", "--list"]) == 0
    listing = capsys.readouterr().out
    for name in shipped_designs():
        line = next(line for line in listing.splitlines() if line.startswith(name + " "))
        assert line.rstrip().endswith(".") or line.rstrip().endswith(":"), line
    assert first_sentence("One. Two.") == "One."


def test_loading_a_finished_run_after_bad_input_still_works(tmp_path):
    assert main(["run", "smoke", "--out", str(tmp_path / "ok"), "--jobs", "1",
                 "--no-progress"]) == 0
    assert len(load(tmp_path / "ok").games) == 48
