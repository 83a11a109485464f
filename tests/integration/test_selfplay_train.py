"""``nothanks train`` (issue 32): the replay buffer, the training checkpoint, and the loop's
promises: a run killed with SIGKILL at any moment resumes to exactly what an uninterrupted
run computes; the result does not depend on the number of workers; a resume with other
settings is refused; the curve table and figure are written.

Tiny runs only (a 3-player network of 8 units, 2 simulations, 2 games an iteration).
"""
from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from nothanks.cli import main
from nothanks.studies.selfplay.checkpoint import (
    PLAY_FILE,
    STATE_FILE,
    CheckpointError,
    TrainingState,
    check_play_size,
    check_settings,
    load_state,
    save_state,
)
from nothanks.studies.selfplay.replay import ReplayBuffer, ReplayBufferError

from helpers import ROOT

#: The trainer runs JAX in the test process (make test runs these in a run of their own).
pytestmark = pytest.mark.jax

#: The tiny run's settings (options of ``nothanks train``).
TINY = ["--players", "3", "--games-per-iteration", "2", "--sims", "2",
        "--steps-per-iteration", "3", "--batch-size", "16", "--buffer", "150",
        "--hidden", "8", "--layers", "1", "--seed", "5", "--eval-every", "2",
        "--eval-deals", "1", "--no-progress"]


# ------------------------------------------------------------------ replay buffer
def _game(length: int, value: float, features: int = 4, players: int = 3):
    return (np.full((length, features), value, np.float32), np.full(length, value, np.float32),
            np.full((length, players), value, np.float32))


def test_the_buffer_drops_whole_oldest_games_first():
    buffer = ReplayBuffer(10, 4, 3)
    for value, length in ((1, 4), (2, 3), (3, 3)):
        buffer.add_game(*_game(length, value))
    assert len(buffer) == 10 and buffer.games == 3
    buffer.add_game(*_game(2, 4))  # game 1 (4 samples) goes, whole
    arrays = buffer.to_arrays()
    assert arrays["policy"].tolist() == [2, 2, 2, 3, 3, 3, 4, 4]
    assert arrays["game_lengths"].tolist() == [3, 3, 2]
    buffer.add_game(*_game(12, 5))  # longer than the buffer: its last 10 samples
    assert len(buffer) == 10 and buffer.games == 1


def test_sampling_is_seeded_and_survives_a_round_trip():
    buffer = ReplayBuffer(7, 4, 3)
    for value in range(5):
        buffer.add_game(*_game(3, value))  # wraps around the ring
    copy = ReplayBuffer.from_arrays(buffer.to_arrays(), 7)
    for a, b in zip(buffer.sample(20, np.random.default_rng(3)),
                    copy.sample(20, np.random.default_rng(3)), strict=True):
        np.testing.assert_array_equal(a, b)
    features, policy, outcome = buffer.sample(50, np.random.default_rng(4))
    assert set(policy.tolist()) == {3.0, 4.0}  # 7 samples hold the last two games of 3
    assert features.shape == (50, 4) and outcome.shape == (50, 3)


def test_bad_samples_and_saved_arrays_are_refused():
    buffer = ReplayBuffer(10, 4, 3)
    with pytest.raises(ReplayBufferError, match=r"features has shape \(2, 5\)"):
        buffer.add_game(np.zeros((2, 5)), np.zeros(2), np.zeros((2, 3)))
    with pytest.raises(ReplayBufferError, match="empty"):
        buffer.sample(4, np.random.default_rng(0))
    buffer.add_game(*_game(3, 1))
    arrays = buffer.to_arrays()
    with pytest.raises(ReplayBufferError, match="capacity of 2"):
        ReplayBuffer.from_arrays(arrays, 2)
    with pytest.raises(ReplayBufferError, match="lacks game_lengths"):
        ReplayBuffer.from_arrays({k: v for k, v in arrays.items() if k != "game_lengths"}, 10)


# ------------------------------------------------------------------ checkpoint
def test_the_training_state_round_trips(tmp_path):
    state = TrainingState(settings={"sims": 2, "tokens": "public"}, iteration=3, games=6,
                          seconds=1.5, curve=[{"iteration": 1, "loss": 0.1 + 0.2}],
                          learner={"w": np.arange(6, dtype=np.float32).reshape(2, 3),
                                   "opt/count": np.array(7)},
                          replay={"policy": np.ones(3, np.float32)})
    save_state(tmp_path / STATE_FILE, state)
    back = load_state(tmp_path / STATE_FILE)
    assert (back.settings, back.iteration, back.games, back.curve) == (
        state.settings, 3, 6, state.curve)
    np.testing.assert_array_equal(back.learner["w"], state.learner["w"])
    assert back.learner["opt/count"] == 7 and back.replay["policy"].dtype == np.float32
    (tmp_path / "bad.npz").write_bytes(b"not a zip")
    with pytest.raises(CheckpointError, match="bad.npz is not a readable training checkpoint"):
        load_state(tmp_path / "bad.npz")


def test_a_play_checkpoint_above_10_mb_is_refused_before_training(tmp_path, capsys):
    from nothanks.search.network import NetworkConfig
    check_play_size(NetworkConfig(players=7, hidden=512, layers=9))  # 9.4 MB
    with pytest.raises(CheckpointError, match="above the play checkpoint's limit.*--hidden"):
        check_play_size(NetworkConfig(players=7, hidden=512, layers=10))  # 10.5 MB
    assert main(["train", "--hidden", "2048", "--iterations", "1", "--out",
                 str(tmp_path / "big")]) == 2
    assert "above the play checkpoint's limit" in capsys.readouterr().err
    assert not (tmp_path / "big").exists()


def test_other_settings_are_named_with_the_way_on(tmp_path):
    check_settings({"sims": 2, "seed": 5}, {"sims": 2, "seed": 5}, tmp_path)
    with pytest.raises(CheckpointError) as info:
        check_settings({"sims": 2, "seed": 5}, {"sims": 4, "seed": 5}, tmp_path)
    message = str(info.value)
    assert "--sims: the run has 2, this command gives 4" in message
    assert "rerun with --sims 2" in message and "give a new --out" in message


# ------------------------------------------------------------------ the loop
def _command(out: Path, iterations: int, *extra: str) -> list[str]:
    return ["train", *TINY, "--iterations", str(iterations), "--out", str(out), *extra]


def _state(out: Path) -> dict:
    """Everything a run computed: the training state (wall-clock seconds aside), the
    play checkpoint's weights and the curve table without its seconds."""
    state = load_state(out / STATE_FILE)
    weights = {}
    for path in [out / PLAY_FILE, *sorted((out / "snapshots").iterdir())]:
        with np.load(path) as play:
            weights |= {f"{path.name} {k}": play[k] for k in play.files
                        if k.startswith("weight_")}
    curve = pd.read_csv(out / "curve.csv").drop(columns="seconds")
    rows = [{k: v for k, v in row.items() if k != "seconds"} for row in state.curve]
    return {"meta": (state.settings, state.iteration, state.games, rows, state.league),
            "learner": state.learner, "replay": state.replay, "weights": weights,
            "curve": curve}


def _assert_same(a: dict, b: dict) -> None:
    assert a["meta"] == b["meta"]
    for part in ("learner", "replay", "weights"):
        assert a[part].keys() == b[part].keys(), part
        for key in a[part]:
            np.testing.assert_array_equal(a[part][key], b[part][key], err_msg=f"{part} {key}")
    pd.testing.assert_frame_equal(a["curve"], b["curve"])


def _cli(argv: list[str]) -> subprocess.Popen:
    env = os.environ | {"PYTHONPATH": str(ROOT), "MPLBACKEND": "Agg"}
    return subprocess.Popen([sys.executable, "-m", "nothanks", *argv], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


#: Iterations of the runs compared (an evaluation after the 2nd and the 4th).
ITERATIONS = 4


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> Path:
    """An uninterrupted run of :data:`ITERATIONS` in this process, one worker."""
    out = tmp_path_factory.mktemp("reference") / "run"
    assert main(_command(out, ITERATIONS, "--jobs", "1")) == 0
    return out


def test_a_run_killed_at_a_random_moment_resumes_exactly(tmp_path, reference):
    killed = tmp_path / "killed"
    run = _cli(_command(killed, ITERATIONS, "--jobs", "1"))
    try:
        deadline = time.monotonic() + 120
        while not (killed / STATE_FILE).exists():
            assert run.poll() is None, run.stderr.read()[-3000:]
            assert time.monotonic() < deadline, "no checkpoint within 120 s"
            time.sleep(0.01)
        time.sleep(random.uniform(0.0, 0.3))  # then anywhere: mid-iteration or mid-write
        run.send_signal(signal.SIGKILL)
        run.communicate(timeout=60)
    finally:
        run.kill()
    assert run.returncode == -signal.SIGKILL, "the run ended before it was killed"
    assert load_state(killed / STATE_FILE).iteration < ITERATIONS
    assert main(_command(killed, ITERATIONS, "--jobs", "1")) == 0
    _assert_same(_state(killed), _state(reference))
    assert not [p.name for p in killed.iterdir() if p.name.endswith(".tmp")]


@pytest.mark.parametrize("workers", ["2 local processes", "a Dask cluster"])
def test_the_workers_do_not_change_the_result(tmp_path, reference, workers):
    out = tmp_path / "run"
    if workers == "a Dask cluster":
        distributed = pytest.importorskip("distributed")
        with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                      dashboard_address=None) as cluster:
            assert main(_command(out, ITERATIONS, "--scheduler", cluster.scheduler_address)) == 0
    else:
        assert main(_command(out, ITERATIONS, "--jobs", "2")) == 0
    _assert_same(_state(out), _state(reference))


def test_a_resume_with_other_settings_is_refused(tmp_path, reference, capsys):
    out = tmp_path / "run"
    shutil.copytree(reference, out)
    before = (out / STATE_FILE).read_bytes()
    argv = _command(out, ITERATIONS + 1, "--jobs", "1")
    argv[argv.index("--sims") + 1] = "3"
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "--sims: the run has 2, this command gives 3" in err and "--out" in err
    assert (out / STATE_FILE).read_bytes() == before  # untouched
    assert main(_command(out, ITERATIONS, "--jobs", "1")) == 0  # the same settings go on
    assert "4 iterations (0 now, resumed at iteration 4)" in capsys.readouterr().out


def test_the_curve_table_and_figure_are_written(reference):
    curve = pd.read_csv(reference / "curve.csv")
    assert curve["iteration"].tolist() == [1, 2, 3, 4]
    assert curve["games"].tolist() == [2, 4, 6, 8]
    assert curve[["loss", "policy_loss", "value_loss", "seconds"]].notna().all().all()
    evaluated = curve.dropna(subset=["first_vs_random"])
    assert evaluated["iteration"].tolist() == [2, 4]
    assert (evaluated[["n_vs_random", "n_vs_heuristic"]] == 3).all().all()  # 1 deal x 3 seats
    assert evaluated[["first_vs_random", "first_vs_heuristic"]].isin(
        [0, 1 / 3, 2 / 3, 1]).all().all()
    assert (reference / "curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    snapshots = sorted(p.name for p in (reference / "snapshots").iterdir())
    assert snapshots == ["alphazero-000002.npz", "alphazero-000004.npz"]  # the evaluated
    last, final = np.load(reference / "snapshots" / snapshots[-1]), np.load(reference / PLAY_FILE)
    for key in (k for k in final.files if k.startswith("weight_")):
        np.testing.assert_array_equal(last[key], final[key])
    meta = json.loads(str(np.load(reference / PLAY_FILE)["meta"]))
    assert meta["iteration"] == ITERATIONS


def test_bad_input_fails_before_any_work(tmp_path, capsys):
    out = tmp_path / "run"
    argv = _command(out, 1)
    del argv[argv.index("--iterations"):argv.index("--iterations") + 2]
    assert main(argv) == 2
    assert "give a budget: --iterations N or --hours H" in capsys.readouterr().err
    assert not out.exists()
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    assert main(_command(out, 1)) == 2
    assert "holds other files than a training run's (notes.txt)" in capsys.readouterr().err
    assert [p.name for p in out.iterdir()] == ["notes.txt"]


def test_the_hours_budget_counts_the_whole_run(tmp_path, reference, capsys):
    """A run that has trained longer than --hours plays no further iteration on a
    resume, however many --iterations it is allowed."""
    out = tmp_path / "run"
    shutil.copytree(reference, out)
    trained = load_state(out / STATE_FILE).seconds
    hours = f"{trained / 3600 / 2:.9f}"
    assert main([*_command(out, ITERATIONS + 10, "--jobs", "1"), "--hours", hours]) == 0
    printed = capsys.readouterr().out
    assert f"{ITERATIONS} iterations (0 now, resumed" in printed
    assert "last evaluation (iteration 4), first-place share: " in printed
    assert main([*_command(out, ITERATIONS + 1, "--jobs", "1"), "--hours", "1"]) == 0
    assert f"{ITERATIONS + 1} iterations (1 now, resumed" in capsys.readouterr().out


def test_ctrl_c_to_the_process_group_is_one_line_naming_the_iterations(tmp_path):
    """A terminal's Ctrl-C reaches the run and its spawned workers, here while the workers
    may still be starting up: only the run speaks, in one line."""
    from nothanks.processes import descendants
    env = os.environ | {"PYTHONPATH": str(ROOT), "MPLBACKEND": "Agg"}
    run = subprocess.Popen([sys.executable, "-m", "nothanks",
                            *_command(tmp_path / "run", 1000, "--jobs", "2")], cwd=ROOT,
                           env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while len(descendants(run.pid)) < 2:
            assert run.poll() is None, run.stderr.read()[-3000:]
            assert time.monotonic() < deadline, "no workers within 120 s"
            time.sleep(0.05)
        os.killpg(run.pid, signal.SIGINT)
        # a bound far beyond any load (the run stops within seconds when idle; a cold
        # start on a loaded 2-core machine once took more than 120 s): a hung run still fails
        _, err = run.communicate(timeout=600)
    finally:
        run.kill()
    assert run.returncode == 130, err
    from nothanks.compiled_cache import COMPILING
    assert [line for line in err.splitlines() if line != COMPILING] == [  # a first run says so
        "nothanks train: interrupted (Ctrl-C); finished iterations are saved; re-run the "
        "same command to go on from there"], err


# ------------------------------------------------------------------ the league (issue 46)
#: A tiny league run: the other seats drawn from self, past snapshots and fixed agents; a
#: panel of two fixed opponents; every snapshot passes the gate (margin -0.5), so past
#: members join and are drawn from the second evaluation on.
LEAGUE = ["--league", "0.4*self; 0.3*past; 0.2*heuristic; 0.1*tom0", "--gate-deals", "2",
          "--gate-margin", "-0.5", "--panel", "2*heuristic; 1*tom1"]


@pytest.fixture(scope="module")
def league_reference(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("league") / "run"
    assert main([*_command(out, ITERATIONS, "--jobs", "1"), *LEAGUE]) == 0
    return out


def test_a_league_run_gates_snapshots_into_the_league_and_draws_from_it(league_reference):
    state = load_state(league_reference / STATE_FILE)
    assert state.league == [2, 4]  # every evaluated snapshot passed the lowered gate
    curve = pd.read_csv(league_reference / "curve.csv")
    gated = curve.dropna(subset=["gate_first"])
    assert gated["iteration"].tolist() == [2, 4]
    assert gated["league_size"].tolist() == [1, 2] and (gated["joined"] == 1).all()
    assert (gated["gate_n"] == 2 * 3).all()  # 2 deals x 3 rotations
    assert (gated["gate_low"] <= gated["gate_first"]).all()
    assert (gated["gate_first"] <= gated["gate_high"]).all()
    panel = curve.dropna(subset=["first_vs_heuristic"])
    assert (panel["n_vs_heuristic"] == 6).all() and (panel["n_vs_tom1"] == 3).all()
    for who in ("heuristic", "tom1"):
        assert (panel[f"first_low_vs_{who}"] <= panel[f"first_vs_{who}"]).all()
        assert (panel[f"first_vs_{who}"] <= panel[f"first_high_vs_{who}"]).all()


def test_a_league_run_resumed_computes_what_an_uninterrupted_one_does(tmp_path,
                                                                       league_reference):
    out = tmp_path / "run"
    assert main([*_command(out, 3, "--jobs", "1"), *LEAGUE]) == 0  # past drawn at 3
    assert main([*_command(out, ITERATIONS, "--jobs", "1"), *LEAGUE]) == 0
    _assert_same(_state(out), _state(league_reference))


def test_a_gate_no_snapshot_passes_keeps_past_out_of_the_tables(tmp_path):
    from nothanks.studies.selfplay.league import draw_seating, parse_league
    out = tmp_path / "run"
    argv = [*_command(out, 2, "--jobs", "1"), *LEAGUE]  # one evaluation, one gate
    argv[argv.index("--gate-margin") + 1] = "0.99"  # a first-place share above 1.3
    assert main(argv) == 0
    assert load_state(out / STATE_FILE).league == []
    entries = parse_league(LEAGUE[1])
    rng = np.random.default_rng(0)
    seatings = [draw_seating(entries, 4, g, 0, rng) for g in range(400)]
    assert not any("past" in s for s in seatings)
    assert all(s[g % 4] == "self" for g, s in enumerate(seatings))  # the learner's seat
    drawn = [who for g, s in enumerate(seatings) for seat, who in enumerate(s)
             if seat != g % 4]
    shares = {who: drawn.count(who) / len(drawn) for who in ("self", "heuristic", "tom0")}
    # the weights 0.4 : 0.2 : 0.1 renormalized without past: 4/7, 2/7, 1/7 (1,200 draws)
    assert shares == pytest.approx({"self": 4 / 7, "heuristic": 2 / 7, "tom0": 1 / 7},
                                   abs=0.05)


def test_a_league_game_gives_the_learners_samples_with_their_outcomes(league_reference):
    from nothanks.search.network import load_checkpoint
    from nothanks.search.puct import rank_rewards
    from nothanks.studies.selfplay.league import league_game
    weights, config, _ = load_checkpoint(league_reference / PLAY_FILE)
    game = league_game(weights, config, 2, 11, ("heuristic", "self", "tom0"))
    rewards = rank_rewards(game.scores)
    assert len(game) >= 5 and game.features.shape == (len(game), game.features.shape[1])
    assert np.all(game.outcome[:, 0] == np.float32(rewards[1]))  # the learner's seat
    assert np.all(game.outcome[:, 1] == np.float32(rewards[2]))  # then turn order
    assert np.all((game.policy >= 0) & (game.policy <= 1))
    again = league_game(weights, config, 2, 11, ("heuristic", "self", "tom0"))
    np.testing.assert_array_equal(game.features, again.features)
    np.testing.assert_array_equal(game.policy, again.policy)


def test_a_greedy_search_seat_plays_as_the_alphazero_agent(league_reference):
    """The panel's and the gate's network seat (in memory) decides as the ``alphazero``
    agent with the same network: the same games."""
    from nothanks.agents import AlphaZeroAgent, make_agent
    from nothanks.play.runner import play_game
    from nothanks.rules import Variant
    from nothanks.search.network import Network, load_checkpoint
    from nothanks.studies.selfplay.league import SearchSeat
    weights, config, _ = load_checkpoint(league_reference / PLAY_FILE)
    for seed in (3, 4):
        records = []
        for seat in (AlphaZeroAgent(sims=3, checkpoint=str(league_reference / PLAY_FILE)),
                     SearchSeat(Network(weights, config), 3, explore=False)):
            agents = [make_agent("heuristic"), seat, make_agent("random")]
            records.append(play_game(agents, Variant(players=3), seed))
        moves = [[(d.seat, d.action) for d in r.decisions] for r in records]
        assert len(moves[0]) > 10 and moves[0] == moves[1]
        assert (records[0].cards, records[0].scores) == (records[1].cards, records[1].scores)


@pytest.mark.parametrize("option, value, says", [
    ("--league", "0.5*self; heuristic", "write N*WHO"),
    ("--league", "0.5*self; 0.5*nobody", "nobody"),
    ("--league", "0.5*self; 0.5*self", "appears twice"),
    ("--league", "0*self", "write N*WHO"),
    ("--panel", "0.5*heuristic", "write N*WHO with N an integer >= 1"),
    ("--panel", "2*past", "past"),
    ("--gate-margin", "1.5", "gate_margin=1.5"),
])
def test_a_bad_league_or_panel_is_one_line_before_any_work(tmp_path, capsys, option, value,
                                                           says):
    out = tmp_path / "run"
    argv = [*_command(out, 1), *LEAGUE]
    argv[len(argv) - len(LEAGUE) + LEAGUE.index(option) + 1] = value
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert says in err and len(err.splitlines()) == 1, err
    assert not out.exists()


def test_a_conv_run_resumes_exactly_plays_and_keeps_its_trunk(tmp_path, capsys):
    """``--trunk conv``: stopped after one iteration and resumed, it computes what a run
    that never stopped does (batch normalization's running statistics included); its
    play checkpoint is a conv network the agent evaluates; a resume as an MLP is
    refused, naming ``--trunk``."""
    from nothanks.search.network import load_checkpoint
    conv = ["--trunk", "conv", "--conv-channels", "2", "--table-units", "4", "--jobs", "1"]
    straight, stopped = tmp_path / "straight", tmp_path / "stopped"
    assert main(_command(straight, 2, *conv)) == 0
    assert main(_command(stopped, 1, *conv)) == 0
    assert main(_command(stopped, 2, *conv)) == 0
    _assert_same(_state(stopped), _state(straight))
    weights, config, meta = load_checkpoint(straight / PLAY_FILE)
    assert (config.trunk, config.conv_channels, config.table_units) == ("conv", 2, 4)
    assert meta["settings"]["trunk"] == "conv" and "bn_conv_mean" in weights
    assert not np.array_equal(weights["bn_conv_mean"], np.zeros(2))  # trained statistics
    assert pd.read_csv(straight / "curve.csv")["first_vs_random"].notna().sum() == 1
    capsys.readouterr()
    assert main(_command(stopped, 3, "--jobs", "1")) == 2
    assert ("--trunk: the run has 'conv', this command gives none (an MLP run)"
            in capsys.readouterr().err)
