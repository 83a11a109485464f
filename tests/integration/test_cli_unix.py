"""The command line behaves like a Unix tool: a closed pipe ends it quietly, ``--version``,
help that shows every default and marks what is required, ``agents`` that says what each
parameter means, and Ctrl-C as one line (workers included)."""
from __future__ import annotations

import argparse
import inspect
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from nothanks import __version__
from nothanks.cli import build_parser, main
from nothanks.compiled_cache import COMPILING
from nothanks.processes import alive, descendants

from helpers import ROOT


def _cli(argv: list[str], **kwargs) -> subprocess.Popen:
    env = os.environ | {"PYTHONPATH": str(ROOT), "MPLBACKEND": "Agg"}
    return subprocess.Popen([sys.executable, "-m", "nothanks", *argv], cwd=ROOT, env=env,
                            stderr=subprocess.PIPE, text=True, **kwargs)


def _subparsers() -> dict[str, argparse.ArgumentParser]:
    parser, _ = build_parser()
    [sub] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(sub.choices)


def test_a_closed_pipe_ends_the_command_quietly():
    """``nothanks agents | head -1``: the reader goes away; no error, exit code 0. (The
    pipe is closed before the command writes, so it always meets the closed pipe.)"""
    run = _cli(["agents"], stdout=subprocess.PIPE)
    run.stdout.close()
    err = run.stderr.read()
    assert run.wait(timeout=120) == 0, err
    assert err == ""


def test_version(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0
    assert capsys.readouterr().out.strip() == f"nothanks {__version__}"


def test_every_option_shows_its_default_or_is_required():
    """Each option's help names its default (written, or added by the formatter), says it
    is required, or is a flag (off unless given)."""
    unshown = []
    for name, parser in _subparsers().items():
        text = parser.format_help()
        for action in parser._actions:
            if isinstance(action, argparse._HelpAction | argparse._StoreTrueAction):
                continue
            formatter = parser._get_formatter()
            help_text = formatter._get_help_string(action) % {"default": action.default}
            if not (action.required or "default" in help_text or "required" in help_text):
                unshown.append(f"{name} {'/'.join(action.option_strings) or action.dest}")
            assert " ".join(help_text.split()[:3]) in " ".join(text.split())
    assert not unshown, f"options whose help shows no default: {unshown}"


def _help(command: str) -> str:
    return " ".join(_subparsers()[command].format_help().split())


def test_calibrate_help_shows_its_defaults_and_the_cost_of_the_default_study():
    text = _help("calibrate")
    assert "default 20)" in text and "default 2018)" in text
    assert re.search(r"The default study, 20 trials of 2000 games .* takes about \d+ minutes",
                     text), text


def test_tournament_help_shows_the_default_tournaments_deals_seed_and_tables():
    from nothanks.studies.tournament import load_tournament
    default = load_tournament("default")
    text = _help("tournament")
    for option, value in (("--deals DEALS", default.deals), ("--seed SEED", default.seed),
                          ("--tables N|all", len(default.lineups))):
        part = text[text.index(f"{option} ", text.index("options:")):]
        assert f"{value} for default" in part[:part.index("--", 2)], (option, part[:300])


def test_required_options_are_marked():
    assert "required, except with --list" in _help("run")
    assert "budget (required: --iterations, --hours or both" in _help("train")


def test_agents_explains_every_parameter_from_the_docstrings(capsys):
    from nothanks.agents import agent_parameters, registered
    from nothanks.agents.spec import parameter_meanings
    assert main(["agents"]) == 0
    listing = capsys.readouterr().out
    for name in registered():
        meanings = parameter_meanings(name)
        assert set(meanings) == set(agent_parameters(name)), name
        for key, meaning in meanings.items():
            assert re.search(rf"^  {re.escape(key)}=\S.* {re.escape(meaning)}$", listing,
                             re.M), (name, key)
    from nothanks.agents.cognitive import ToMAgent
    tom_doc = " ".join(inspect.getdoc(ToMAgent).split())
    assert parameter_meanings("tom2")["rt"] in tom_doc  # a phrase of the docstring itself
    assert parameter_meanings("tom2")["rt"] == ("retrieval threshold of the token memory "
                                                "(the thesis's swept RT)")



def test_ctrl_c_is_one_line_and_the_parent_stops_its_workers(tmp_path):
    """SIGINT to the whole process group, as a terminal's Ctrl-C sends it: the busy
    worker and the idle one (one chunk for two workers) print nothing, the parent stops
    both at once (not after the chunk) and says in one line what it kept."""
    design = tmp_path / "slow.toml"
    design.write_text('name = "slow"\nseed = 4\ngames = 400\n[[tables]]\nlabel = "ToM1"\n'
                      'players = ["tom1", "tom1", "tom1", "tom1"]\n')
    run = _cli(["run", str(design), "--out", str(tmp_path / "out"), "--jobs", "2",
                "--chunk-size", "400", "--no-progress"], stdout=subprocess.PIPE,
               start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while len(children := descendants(run.pid)) < 2:
            assert run.poll() is None, run.stderr.read()
            assert time.monotonic() < deadline, "the run started no workers within 120 s"
            time.sleep(0.2)
        time.sleep(1.0)  # the workers are past their start: one plays, one waits
        # Ctrl-C, pressed again while the run goes on: under full-suite load a first
        # interrupt at the workers' start was once not acted on (docs: noticed, open)
        for _ in range(24):
            os.killpg(run.pid, signal.SIGINT)
            try:
                _, err = run.communicate(timeout=5)
                break
            except subprocess.TimeoutExpired:
                continue
        else:
            _, err = run.communicate(timeout=120)
    finally:
        run.kill()
    assert run.returncode == 130, err
    lines = [line for line in err.splitlines() if line != COMPILING]  # a first run says so
    assert len(lines) == 1 and lines[0].startswith(
        "nothanks run: interrupted after 0 new games; every finished game is saved"), err
    deadline = time.monotonic() + 15
    while [c for c in children if alive(c)] and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not [c for c in children if alive(c)], "workers outlived the Ctrl-C"


def test_a_stopped_training_says_its_finished_iterations_are_kept(tmp_path, capsys,
                                                                    monkeypatch):
    import nothanks.studies.selfplay.train

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt
    monkeypatch.setattr(nothanks.studies.selfplay.train, "train", interrupted)
    assert main(["train", "--iterations", "1", "--out", str(tmp_path / "t"),
                 "--no-progress"]) == 130
    assert capsys.readouterr().err == ("nothanks train: interrupted (Ctrl-C); finished "
                                       "iterations are saved; re-run the same command to go "
                                       "on from there\n")


def test_simulate_shows_progress_and_ends_saying_what_it_wrote_where(tmp_path, capsys):
    out = tmp_path / "sim"
    assert main(["simulate", "--players", "heuristic,random,random,random", "--games", "3",
                 "--out", str(out)]) == 0
    printed = capsys.readouterr()
    assert "simulate: 100%" in printed.err and "3/3" in printed.err  # tqdm's bar
    assert "mean_score: card points minus tokens, lower is better" in printed.out
    assert printed.out.splitlines()[-1] == (f"wrote 3 games to {out / 'games.parquet'} and "
                                            f"their decisions to {out / 'decisions.parquet'}")
    assert main(["simulate", "--players", "heuristic,random,random,random", "--games", "2",
                 "--no-progress"]) == 0
    printed = capsys.readouterr()
    assert printed.err == ""
    assert printed.out.splitlines()[-1] == "wrote nothing (give --out DIR to keep the games)"


def test_infer_shows_progress_and_ends_saying_what_it_wrote_where(tmp_path, capsys):
    out = tmp_path / "inferred"
    assert main(["infer", str(ROOT / "data" / "synthetic"), "--participant", "synthetic-01",
                 "--models", "random,heuristic", "--samples", "1", "--processes", "1",
                 "--out", str(out)]) == 0
    printed = capsys.readouterr()
    assert re.search(r"infer: 100%.* (\d+)/\1 ", printed.err), printed.err[-500:]
    assert printed.out.splitlines()[-1] == (
        "wrote decisions.parquet, map.csv, blocks.csv, group.csv, settings.json, "
        f"trajectories.png to {out}")
    from nothanks.outputs import typed_path
    command = json.loads((out / "settings.json").read_text())["command"]
    assert command == (  # every setting, the folders as typed in the repository
        f"nothanks infer {typed_path(ROOT / 'data' / 'synthetic')} --participant "
        "synthetic-01 --models random,heuristic --samples 1 --lapse 0.05 --tokens memory "
        f"--seed 0 --processes 1 --out {typed_path(out)}")
    assert str(out) not in command


@pytest.mark.parametrize("command, last", [
    (["synthetic", "--participants", "1"],
     "wrote 1 participant session folder (synthetic-NN) to {out}"),
    (["calibrate", "--params", "d", "--targets", "tom1_share", "--heldout", "", "--trials",
      "1", "--games", "2", "--stages", "1", "--no-progress"],
     "wrote the study to {out}: study.db, trials, trials.csv, summary.md, history.png, "
     "importances.png, thesis-fit.toml"),
])
def test_long_commands_end_saying_what_they_wrote_where(tmp_path, capsys, command, last):
    out = tmp_path / "out"
    assert main([*command, "--out", str(out)]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == last.format(out=out)


def test_a_recorded_command_names_paths_as_typed_in_the_repository(tmp_path, monkeypatch):
    from nothanks.outputs import typed_path
    monkeypatch.chdir(tmp_path)
    assert typed_path("figures/tournament") == "figures/tournament"  # as typed
    assert typed_path(tmp_path / "data" / "synthetic") == "data/synthetic"
    assert typed_path(Path(tempfile.gettempdir()) / "scratch-az" / "x") == "runs/scratch-az/x"
    assert typed_path("/opt/shared/runs") == "/opt/shared/runs"


def test_the_shipped_outputs_record_no_scratch_folder():
    """The committed results whose provenance names a command: no path of the machine
    that made them (its temporary folder, its checkout)."""
    shipped = [ROOT / "figures" / "tournament" / "leaderboard.md",
               *sorted((ROOT / "figures" / "inference").glob("*/settings.json"))]
    assert len(shipped) >= 3
    for path in shipped:
        text = path.read_text()
        assert "nothanks " in text, path
        assert tempfile.gettempdir() + "/" not in text and str(ROOT) not in text, path
