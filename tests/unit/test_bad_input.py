"""Bad input gets one clear line (exit code 2) before any work, and nothing is written."""
from __future__ import annotations

import re
import time

import numpy as np
import pytest

from nothanks.agents import AgentSpecError, make_agent, split_specs
from nothanks.cli import main
from nothanks.cli.experiments import first_sentence
from nothanks.compiled_cache import COMPILING
from nothanks.experiments import DesignError, load, load_design
from nothanks.experiments.design import shipped_designs
from nothanks.play.runner import summarize

from helpers import ROOT

PLAYERS = "random,random,random,random"


def run_cli(argv: list[str]) -> int:
    """``nothanks ARGV``'s exit code, whether argparse (a usage error) or the command
    ended it."""
    try:
        return main(argv)
    except SystemExit as exc:
        return exc.code


def one_line_error(capsys, argv: list[str], expected: str) -> str:
    assert run_cli(argv) == 2
    # a first run on a cold cache says that it compiles, on a line of its own
    err = "\n".join(line for line in capsys.readouterr().err.strip().splitlines()
                    if line != COMPILING)
    assert "\n" not in err and "Traceback" not in err, err
    assert expected in err, err
    return err


def test_simulate_refuses_a_non_empty_out_unless_forced(tmp_path, capsys):
    out = tmp_path / "sim"
    assert main(["simulate", "--players", PLAYERS, "--games", "2", "--out", str(out),
                 "--no-progress"]) == 0
    first = (out / "games.parquet").read_bytes()
    one_line_error(capsys, ["simulate", "--players", PLAYERS, "--games", "3", "--seed", "9",
                            "--out", str(out)], "is not empty")
    assert (out / "games.parquet").read_bytes() == first  # nothing overwritten
    assert main(["simulate", "--players", PLAYERS, "--games", "3", "--seed", "9", "--out",
                 str(out), "--force"]) == 0
    assert (out / "games.parquet").read_bytes() != first


def test_simulate_checks_its_output_before_playing(tmp_path, capsys, monkeypatch):
    import nothanks.play.runner as runner
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
    (["simulate", "--players", PLAYERS, "--seed", "-1"], "--seed: -1 is out of range; valid: "
                                                         "a whole number from 0 to"),
    (["simulate", "--players", PLAYERS, "--games", "0"], "--games: 0 is out of range"),
    (["simulate", "--players", ",random,random,random"], "player 1 of ',random,random,random' "
                                                         "is empty"),
    (["simulate", "--players", "heuristic:T=nan,random,random,random"], "T=nan is not"),
    (["run", "smoke", "--out", "{tmp}/r", "--jobs", "0"], "--jobs: 0 is out of range"),
    (["run", "smoke", "--out", "{tmp}/r", "--jobs", "-1"], "--jobs: -1 is out of range"),
    (["run", "smoke", "--out", "{tmp}/r", "--chunk-size", "0"], "--chunk-size: 0 is out of"),
    (["run", "smoke", "--out", "{tmp}/r", "--seed", "-1"], "--seed: -1 is out of range"),
    (["run", "smoke", "--out", "{tmp}/file"], "is a file; give a new or empty directory"),
    (["run", "smoke", "--out", "{tmp}/file/sub"], "cannot be written: "),
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


def test_an_instance_file_with_a_card_outside_the_deck_is_refused(tmp_path, capsys):
    from nothanks.agents.cognitive import DEFAULT_INSTANCES
    lines = DEFAULT_INSTANCES.read_text().splitlines()
    header = next(i for i, line in enumerate(lines) if not line.startswith("#"))
    fields = lines[header + 1].split(",")
    card = lines[header].split(",").index("card")
    fields[card] = "99"
    bad = tmp_path / "instances.csv"
    bad.write_text("\n".join(lines[: header + 1] + [",".join(fields)] + lines[header + 2:]))
    one_line_error(capsys, ["simulate", "--players", f"tom0:instances={bad},random,random,"
                            "random", "--games", "1"], "instance card(s) [99] lie outside")
    design = tmp_path / "d.toml"
    design.write_text(f'name = "d"\n[[tables]]\nlabel = "a"\nplayers = ["tom0:instances={bad}"'
                      ', "random", "random", "random"]\n')
    one_line_error(capsys, ["run", str(design), "--out", str(tmp_path / "out")],
                   "lie outside this game's deck 3-35")
    assert not (tmp_path / "out").exists()


# ------------------------------------------------------------------ check everything first
# Issue 28: every command validates all of its arguments (one shared validator per kind,
# nothanks/cli/checks.py) before it writes anything or starts work.
HUGE = "99999999999999999999999"
POOL = "random;heuristic;always-pass;random:p=0.2"
TINY_STUDY = ["--targets", "tom1_share", "--heldout", "", "--trials", "1", "--games", "2",
              "--stages", "1", "--no-progress"]
SESSION = str(ROOT / "data" / "synthetic" / "synthetic-01")


@pytest.fixture
def no_work(monkeypatch):
    """Make every command's work fail loudly: a refused call must not reach it."""
    import nothanks.cli.tournament
    import nothanks.experiments.run
    import nothanks.experiments.synthetic
    import nothanks.play.runner
    import nothanks.report
    import nothanks.studies.calibration
    import nothanks.studies.inference

    def work(*args, **kwargs):
        raise AssertionError("work started before the arguments were checked")
    for module, name in ((nothanks.experiments.run, "run_design"),
                         (nothanks.play.runner, "play_games"), (nothanks.report, "make_figures"),
                         (nothanks.cli.tournament, "play_and_rate"),
                         (nothanks.studies.calibration, "calibrate"),
                         (nothanks.studies.inference, "infer_order"),
                         (nothanks.studies.inference, "simulate_players"),
                         (nothanks.experiments.synthetic, "generate")):
        monkeypatch.setattr(module, name, work)


@pytest.mark.parametrize("argv,expected", [
    # --jobs / --processes: at most 4 x the cores (item 8)
    (["run", "smoke", "--jobs", "100000"], "--jobs: 100000 is out of range; valid: a whole "
                                           "number from 1 to {jobs}"),
    (["figures", "--quick", "--jobs", "100000"], "from 1 to {jobs}"),
    (["tournament", "--pool", POOL, "--deals", "1", "--jobs", "100000"], "from 1 to {jobs}"),
    (["calibrate", *TINY_STUDY, "--jobs", "100000"], "from 1 to {jobs}"),
    (["infer", SESSION, "--processes", "100000"], "--processes: 100000 is out of range"),
    # seeds and counts
    (["run", "smoke", "--seed", HUGE], f"--seed: {HUGE} is out of range; valid: a whole "
                                       "number from 0 to 9223372036854775807"),
    (["simulate", "--players", PLAYERS, "--seed", HUGE], "from 0 to 9223372036854775807"),
    (["simulate", "--players", PLAYERS, "--games", "99999999999999999999"],
     "--games: 99999999999999999999 is out of range; valid: a whole number from 1 to "
     "10,000,000"),
    # calibrate: every option before study.db is made
    (["calibrate", *TINY_STUDY, "--jobs", "0"], "--jobs: 0 is out of range"),
    (["calibrate", *TINY_STUDY, "--model-preset", "nope"],
     "--model-preset: unknown preset 'nope'; valid: thesis-fit"),
    (["calibrate", *TINY_STUDY, "--params", "d", "--fixed", "s=abc"],
     "--fixed s=abc: "),
    (["calibrate", *TINY_STUDY, "--params", "d", "--fixed", "s=-5"],
     "noise must be >= 0"),
    (["calibrate", *TINY_STUDY, "--params", "d", "--fixed", "candidate_rule=nope"],
     "candidate_rule='nope' is unknown; valid: all, any"),
    (["calibrate", *TINY_STUDY, "--start", "s=nan"], "--start s=nan: give a finite number"),
    (["calibrate", *TINY_STUDY, "--start", "s=5"], "valid: a number from 0.02 to 0.3"),
    (["calibrate", *TINY_STUDY, "--storage", "nonsense://x"],
     "--storage: 'nonsense://x' is not a database URL Optuna can open"),
    (["calibrate", *TINY_STUDY, "--check-seed", "-1"], "--check-seed: -1 is out of range"),
    (["calibrate", *TINY_STUDY, "--check-seed", "2018"], "--check-seed 2018 is a seed of "
                                                          "the fit"),
    (["calibrate", *TINY_STUDY, "--check-games", "0"], "--check-games: 0 is out of range"),
    (["calibrate", *TINY_STUDY, "--stages", "0.5,1", "--seed", str(2**63 - 1)],
     f"the fit plays seeds {2**63 - 1} to {2**63}, beyond {2**63 - 1} (2**63 - 1); valid: "
     f"--seed 0 to {2**63 - 2}"),
    # figures, synthetic
    (["figures", "--quick", "--participants", "{tmp}/file"],
     "--participants: {tmp}/file is a file; give a folder"),
    (["synthetic", "--participants", "-2"], "--participants: -2 is out of range; valid: a "
                                            "whole number from 1 to 999"),
    (["synthetic", "--participants", "0"], "--participants: 0 is out of range"),
    (["synthetic", "--seed", "-1"], "--seed: -1 is out of range"),
    # infer: checked before --out is made
    (["infer", "{out}/players", "--validate", "--player-lapse", "5"],
     "--player-lapse: 5 is out of range; valid: a probability from 0 to 1"),
    (["infer", SESSION, "--processes", "0"], "--processes: 0 is out of range"),
    (["infer", SESSION, "--participant", "nosuch"], "--participant nosuch: not in"),
    (["infer", SESSION, "--models", "ToM0,ToM9"], "valid: distinct names from"),
    (["infer", "{tmp}/missing"], "is not a folder of participant sessions"),
    # tournament: checked before a game is played
    (["tournament", "--pool", POOL, "--deals", "1", "--tau", "nan"],
     "--tau: nan is not a finite number; valid: a finite number >= 0"),
    (["tournament", "--pool", POOL, "--deals", "1", "--tau", "-1"], "--tau: -1 is negative"),
    (["tournament", "--pool", POOL, "--deals", "1", "--model", "nosuch"],
     "rating model 'nosuch' is unknown; valid: bradley-terry-full"),
    (["tournament", "--pool", POOL, "--deals", "1", "--leaderboard", "/proc/x"],
     "--leaderboard: /proc/x cannot be written"),
    # --out a file: says so, not a bare "File exists"
    (["calibrate", *TINY_STUDY, "--out", "{tmp}/file"], "is a file; give a new or empty"),
    (["tournament", "--pool", POOL, "--deals", "1", "--out", "{tmp}/file"], "is a file; give"),
])
def test_every_command_checks_all_arguments_before_any_work(tmp_path, capsys, no_work, argv,
                                                            expected):
    from nothanks.cli.checks import max_jobs
    (tmp_path / "file").write_text("mine")
    argv = [a.replace("{tmp}", str(tmp_path)).replace("{out}", str(tmp_path / "out"))
            for a in argv]
    if "--out" not in argv:
        argv += ["--out", str(tmp_path / "out")]
    expected = expected.replace("{tmp}", str(tmp_path)).replace("{jobs}", str(max_jobs()))
    one_line_error(capsys, argv, expected)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]  # nothing written
    assert (tmp_path / "file").read_text() == "mine"


def test_a_design_file_with_a_seed_beyond_64_bits_fails_before_making_a_folder(tmp_path,
                                                                               capsys):
    design = tmp_path / "big.toml"
    design.write_text(f'name = "big"\nseed = {HUGE}\n[[tables]]\nlabel = "a"\n'
                      'players = ["random", "random", "random", "random"]\n')
    one_line_error(capsys, ["run", str(design), "--out", str(tmp_path / "out")],
                   "valid: 0 to 9223372036854775807")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("stop", [KeyboardInterrupt(), SystemError("numba")])
def test_ctrl_c_is_one_line_that_says_how_to_go_on(tmp_path, capsys, monkeypatch, stop):
    import nothanks.experiments.run
    if isinstance(stop, SystemError):  # Ctrl-C inside compiled code
        stop.__context__ = KeyboardInterrupt()

    def interrupted(*args, **kwargs):
        raise stop
    monkeypatch.setattr(nothanks.experiments.run, "run_design", interrupted)
    assert main(["run", "smoke", "--out", str(tmp_path / "r"), "--no-progress"]) == 130
    err = capsys.readouterr().err.strip()
    assert err == ("nothanks run: interrupted (Ctrl-C); finished games are saved; re-run the "
                   "same command to go on from there")


def test_a_stopped_calibration_trial_prints_no_optuna_traceback(tmp_path, capfd, monkeypatch):
    import nothanks.experiments

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt
    monkeypatch.setattr(nothanks.experiments, "run_design", interrupted)
    assert main(["calibrate", *TINY_STUDY, "--params", "d", "--out",
                 str(tmp_path / "c")]) == 130
    err = capfd.readouterr().err.strip()
    assert err.startswith("nothanks calibrate: interrupted (Ctrl-C)") and "\n" not in err, err


def test_a_full_disk_says_the_finished_games_are_saved(tmp_path, capsys, monkeypatch):
    import errno

    import nothanks.experiments.run

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device", "part-0003.parquet")
    monkeypatch.setattr(nothanks.experiments.run, "run_design", full)
    one_line_error(capsys, ["run", "smoke", "--out", str(tmp_path / "r"), "--no-progress"],
                   "No space left on device (part-0003.parquet); free some space: finished "
                   "games are saved; re-run the same command to go on from there")


def test_agents_lists_the_presets(capsys):
    assert main(["agents"]) == 0
    listing = capsys.readouterr().out
    presets = listing[listing.index("presets (every agent spec also takes preset=NAME"):]
    assert "\nthesis-fit " in presets and "for tom, tom0, tom1, tom2" in presets
    assert "\nthesis-humans " in presets and "for human-standin" in presets


def test_run_list_keeps_an_ellipsis_inside_the_first_sentence(capsys):
    text = "One focal ToM-k model (k = 1 ... 5) against three (e.g. ToM0). The rest."
    assert first_sentence(text) == "One focal ToM-k model (k = 1 ... 5) against three (e.g. " \
                                   "ToM0)."
    assert main(["run", "--list"]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("higher-"))
    assert "(k = 1 ... 5)" in line and line.endswith("."), line


def test_an_agent_error_names_its_spec_once(capsys):
    err = one_line_error(capsys, ["simulate", "--players", "tom1:s=-1,random,random,random"],
                         "agent spec 'tom1:s=-1': noise must be >= 0")
    assert err.count("agent spec") == 1, err


def test_quick_figure_statistics_print_no_warnings(tmp_path):
    """A few participants make degenerate fits (a participant variance of 0, differences
    without spread): the statistics say so in their tables, not as printed warnings."""
    import warnings

    from statsmodels.tools.sm_exceptions import ConvergenceWarning

    from nothanks.analysis import cohens_dz, paired_tests, participant_means
    from nothanks.analysis import participant_mixed_model as mixed
    from nothanks.analysis.frames import focal_rows
    for name in ("synthetic-01", "synthetic-02", "synthetic-03"):  # as figures --quick
        (tmp_path / name).symlink_to(ROOT / "data" / "synthetic" / name)
    focal = focal_rows(load(tmp_path).games)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        warnings.simplefilter("error", ConvergenceWarning)
        table = mixed(focal)
        tests = paired_tests(participant_means(focal))
        assert np.isnan(cohens_dz(np.array([1.0, 2.0]), np.array([1.0, 2.0])))
    assert table.attrs["fit_warnings"] == ["The MLE may be on the boundary of the parameter "
                                           "space."]
    assert tests["effect_size"].isna().any()  # identical play: d_z undefined, no warning


def test_participants_options_say_what_they_take(capsys):
    with pytest.raises(SystemExit):
        main(["synthetic", "--help"])
    assert "--participants N" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["figures", "--help"])
    assert "--participants DIR" in capsys.readouterr().out


def test_the_validators_state_the_valid_range_and_leave_nothing_behind(tmp_path):
    import argparse

    from nothanks.cli import checks
    assert checks.seed(str(2**63 - 1)) == 2**63 - 1
    assert checks.jobs(str(checks.max_jobs())) == checks.max_jobs()
    assert checks.probability("1") == 1.0 and checks.non_negative_float("0") == 0.0
    for check, text, message in (
            (checks.seed, str(2**63), "valid: a whole number from 0 to 9223372036854775807"),
            (checks.seed, "x", "'x' is not a whole number; valid: a whole number from 0"),
            (checks.jobs, str(checks.max_jobs() + 1), f"from 1 to {checks.max_jobs()} "
                                                      f"({checks.JOBS_PER_CORE} x the"),
            (checks.probability, "1.5", "valid: a probability from 0 to 1"),
            (checks.positive_float, "0", "valid: a finite number > 0"),
            (checks.positive_float, "inf", "inf is not a finite number"),
            (checks.folder_to_read, str(tmp_path / "none"), "does not exist"),
            (checks.folder_to_write, "/proc/x/y", "/proc/x/y cannot be written")):
        with pytest.raises(argparse.ArgumentTypeError, match=re.escape(message)):
            check(text)
    deep = tmp_path / "a" / "b" / "c"
    assert checks.folder_to_write(str(deep)) == deep
    assert not (tmp_path / "a").exists()  # the check made and removed it


def test_a_late_failure_removes_the_empty_out_it_made(tmp_path):
    from nothanks.outputs import check_output, removed_if_new
    out = tmp_path / "out"
    with pytest.raises(RuntimeError), removed_if_new(out):
        check_output(out, "infer", "the results")
        raise RuntimeError("a replay failed")
    assert not out.exists()
    out.mkdir()
    with pytest.raises(RuntimeError), removed_if_new(out):
        raise RuntimeError("an existing folder stays")
    assert out.is_dir()


def test_an_agent_object_given_as_a_spec_says_what_to_pass():
    from nothanks.play.runner import play_games

    built = make_agent("tom2")
    with pytest.raises(TypeError, match=r"agent spec .*not a ToMAgent.*play_trial"):
        make_agent(built)
    with pytest.raises(TypeError, match="play_trial"):
        next(play_games([built, "tom0", "tom0", "tom0"], 1))


def test_human_on_a_design_without_a_human_seat_is_refused(tmp_path, capsys):
    one_line_error(capsys, ["run", "smoke", "--human", "human-standin", "--out",
                            str(tmp_path / "r")], "design 'smoke' has no human seat")
    assert not (tmp_path / "r").exists()


def test_a_batch_larger_than_the_buffer_is_refused(tmp_path, capsys):
    one_line_error(capsys, ["train", "--batch-size", "1000", "--buffer", "10",
                            "--iterations", "1", "--out", str(tmp_path / "t")],
                   "batch_size=1000 is larger than buffer=10")
    assert not (tmp_path / "t").exists()


def test_conv_options_without_the_conv_trunk_are_refused(tmp_path, capsys):
    one_line_error(capsys, ["train", "--conv-channels", "4", "--iterations", "1", "--out",
                            str(tmp_path / "t")],
                   "conv_channels=4 apply only to trunk='conv'")
    one_line_error(capsys, ["train", "--trunk", "conv", "--conv-kernel", "4",
                            "--iterations", "1", "--out", str(tmp_path / "t")],
                   "conv_kernel=4 is invalid; valid: an odd number of cards from 1 to 33")
    assert not (tmp_path / "t").exists()


@pytest.mark.parametrize("content", [b"garbage\n", bytes(range(256)) * 8])
def test_a_garbage_checkpoint_is_one_line_before_any_work(tmp_path, capsys, monkeypatch,
                                                          content):
    """Random bytes are not read as a pickle: no numpy advice to load it unsafely, and
    ``studies`` (where move quality is graded) refuses the file before it simulates
    anything."""
    import nothanks.report.studies
    from nothanks.studies.selfplay.checkpoint import CheckpointError, load_state
    checkpoint = tmp_path / "junk.npz"
    checkpoint.write_bytes(content)
    monkeypatch.setattr(nothanks.report.studies, "make_studies",
                        lambda *a, **k: pytest.fail("studies began its work"))
    err = one_line_error(capsys, ["studies", "--grader", "network", "--checkpoint",
                                  str(checkpoint), "--out", str(tmp_path / "out"), "--cache",
                                  str(tmp_path / "cache"), "--quick"],
                         "junk.npz is not a network checkpoint: not an .npz archive")
    assert "pickle" not in err and "valid: an .npz written by nothanks train" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["junk.npz"]
    with pytest.raises(CheckpointError, match="not an .npz archive") as refused:
        load_state(checkpoint)
    assert "pickle" not in str(refused.value)
