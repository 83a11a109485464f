"""Baseline agents, the runner and the `nothanks simulate` command."""
from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter

import pandas as pd
import pytest

from nothanks.agents import AgentSpecError, make_agent, parse_spec
from nothanks.cli import main
from nothanks.experiments.rows import DECISION_COLUMNS, GAME_COLUMNS, compact_frames
from nothanks.play.runner import game_seed, play_game, play_games, seating
from nothanks.rules import Action, Game, Variant

from helpers import VARIANT, view_of


def test_spec_parsing_and_overrides():
    assert str(parse_spec("heuristic:T=-3")) == "heuristic:T=-3"
    agent = make_agent("heuristic:T=-3")
    assert agent.T == -3.0 and agent.spec == "heuristic:T=-3"
    assert make_agent("random:p=0.3").p == 0.3


@pytest.mark.parametrize("spec,message", [
    ("nope", "unknown agent 'nope'.*valid: alphazero, always-pass, bayes-tom, heuristic, "
             "human-standin, ibl, ismcts, learning-tom, openspiel-ismcts, openspiel-mcts, "
             "random, tom, tom0, tom1, tom2, utility"),
    ("random:q=1", "agent 'random' has no parameter 'q'; valid: p"),
    ("random:p=abc", "'abc' is not a valid float"),
    ("random:p=2", "not a probability"),
    ("random:p", "not of the form key=value"),
])
def test_bad_specs_fail_clearly(spec, message):
    with pytest.raises(AgentSpecError, match=message):
        make_agent(spec)


def test_heuristic_takes_iff_cost_at_most_threshold():
    game = Game(Variant(), seed=0, order=tuple(range(3, 27)))
    view = game.view(0)  # card 3, no tokens, no cards: cost 3 > 0
    assert make_agent("heuristic").decide(view) == Action.PASS
    assert make_agent("heuristic:T=3").decide(view) == Action.TAKE


def test_always_pass_and_random_respect_forced_take():
    game = Game(Variant(starting_tokens=0), seed=0)
    view = game.view(0)
    assert make_agent("always-pass").decide(view) == Action.TAKE
    agent = make_agent("random:p=0")
    agent.start(0, Variant(), 1)
    assert agent.decide(view) == Action.TAKE


def test_seat_rotation_covers_every_seat_equally():
    specs = ["a", "b", "c", "d"]
    counts = Counter()
    for g in range(8):
        for seat, idx in enumerate(seating(specs, g)):
            counts[(specs[idx], seat)] += 1
    assert set(counts.values()) == {2} and len(counts) == 16


def test_same_seed_same_games_and_position_based_seeds():
    specs = ["random", "random:p=0.3", "heuristic", "always-pass"]
    a = list(play_games(specs, 6, seed=9))
    b = list(play_games(specs, 6, seed=9))
    assert [r.decisions for r in a] == [r.decisions for r in b]
    # game 4 played alone equals game 4 of the run
    alone = next(play_games(specs, 1, seed=9, start=4))
    assert alone.decisions == a[4].decisions and alone.seed == game_seed(9, 4)
    assert len({r.seed for r in a}) == 6


def test_play_game_checks_agent_count():
    with pytest.raises(ValueError, match="3 agents given for a 4-player variant"):
        play_game([make_agent("random")] * 3)


def test_simulate_writes_tables_and_summary(tmp_path, capsys):
    out = tmp_path / "run"
    code = main(["simulate", "--players", "heuristic,heuristic,random,random", "--games", "40",
                 "--seed", "1", "--out", str(out), "--json"])
    assert code == 0
    summary = json.loads(capsys.readouterr().out)
    assert {row["agent"] for row in summary} == {"heuristic", "random"}
    assert all(row["player_games"] == 80 for row in summary)
    games = pd.read_parquet(out / "games.parquet")
    decisions = pd.read_parquet(out / "decisions.parquet")
    assert list(games.columns) == list(GAME_COLUMNS)
    assert list(decisions.columns) == list(DECISION_COLUMNS)
    assert len(games) == 160 and games.groupby("game_id").size().eq(4).all()
    # every game awards 3+2+1+0 rank points and ends with 24 takes
    assert games.groupby("game_id")["rank_points"].sum().eq(6).all()
    assert decisions[decisions.action == "take"].groupby("game_id").size().eq(24).all()
    # forced decisions are exactly those with no tokens, and they are takes
    assert (decisions.forced == (decisions.tokens_before == 0)).all()
    assert (decisions[decisions.forced].action == "take").all()
    # the same command reproduces the same tables
    main(["simulate", "--players", "heuristic,heuristic,random,random", "--games", "40",
          "--seed", "1", "--out", str(tmp_path / "again")])
    again = pd.read_parquet(tmp_path / "again" / "decisions.parquet")
    pd.testing.assert_frame_equal(decisions, again)


def test_simulate_reports_bad_agent(capsys):
    assert main(["simulate", "--players", "foo,random,random,random", "--games", "1"]) == 2
    assert "unknown agent 'foo'" in capsys.readouterr().err


def test_rank_points_agree_with_results():
    results = list(play_games(["heuristic"] * 2 + ["random"] * 2, 5, seed=3))
    games, decisions = compact_frames(results)
    assert (games.score == games.card_points - games.tokens).all()


def test_module_entry_point_prints_help():
    proc = subprocess.run([sys.executable, "-m", "nothanks", "--help"], capture_output=True,
                          text=True)
    assert proc.returncode == 0 and "usage: nothanks" in proc.stdout


def test_every_registered_subcommand_has_help(capsys):
    from nothanks.cli import build_parser
    _, runners = build_parser()
    assert {"simulate", "agents"} <= set(runners)
    for name in runners:
        with pytest.raises(SystemExit) as exit_info:
            main([name, "--help"])
        assert exit_info.value.code == 0, name
        assert f"usage: nothanks {name}" in capsys.readouterr().out


def test_simulate_with_models_and_baselines_writes_model_columns(tmp_path):
    out = tmp_path / "mixed"
    assert main(["simulate", "--players", "tom1,tom0,random,heuristic", "--games", "4",
                 "--seed", "2", "--out", str(out)]) == 0
    decisions = pd.read_parquet(out / "decisions.parquet")
    models = decisions[decisions.agent.str.startswith("tom")]
    baselines = decisions[~decisions.agent.str.startswith("tom")]
    assert models.reason.notna().all() and baselines.reason.isna().all()
    tom1 = decisions[decisions.agent == "tom1"]
    predictions = tom1.predictions.dropna().map(json.loads)
    assert any(len(p) > 0 for p in predictions)
    assert all({"seat", "action"} <= set(p[0]) for p in predictions if p)


# ------------------------------------------------------------------ baseline policies
@pytest.mark.parametrize("p", [0.0, 0.3, 1.0])
def test_random_agent_takes_with_probability_p(p):
    agent = make_agent(f"random:p={p}")
    agent.start(0, VARIANT, seed=4)
    view = view_of([[], [], [], []], 30)
    takes = sum(agent.decide(view) is Action.TAKE for _ in range(4000)) / 4000
    assert takes == pytest.approx(p, abs=0.03)


@pytest.mark.parametrize(("own", "card", "on_card", "T", "expected"), [
    ((20,), 21, 0, 0, Action.TAKE),        # extends a run: gain 0 <= 0
    ((20, 22), 21, 0, 0, Action.TAKE),     # completes 20-22: gain 20 - 42 = -22
    ((5,), 30, 29, 0, Action.PASS),        # gain 30 - 29 tokens = 1 > 0
    ((5,), 30, 30, 0, Action.TAKE),        # 30 - 30 = 0
    ((5,), 30, 27, 3, Action.TAKE),        # 30 - 27 = 3 <= T = 3
    ((5,), 30, 28, -3, Action.PASS),       # 2 > -3
    ((19,), 21, 0, 0, Action.PASS),        # a gap does not make a run
])
def test_heuristic_cost_is_card_point_increase_minus_tokens(own, card, on_card, T, expected):
    agent = make_agent(f"heuristic:T={T}")
    agent.start(0, VARIANT, seed=0)
    assert agent.decide(view_of([own, [], [], []], card, on_card)) is expected


def test_always_pass_passes_whenever_allowed():
    agent = make_agent("always-pass")
    agent.start(0, VARIANT, seed=0)
    for tokens in (1, 5, 11):
        assert agent.decide(view_of([[20], [], [], []], 21, 30, own_tokens=tokens)) is Action.PASS


# ------------------------------------------------------------------ simulate summary
def test_simulate_summary_agrees_with_the_written_tables(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["simulate", "--players", "heuristic,heuristic,random,always-pass",
                 "--games", "12", "--seed", "3", "--out", str(out), "--json"]) == 0
    summary = {row["agent"]: row for row in json.loads(capsys.readouterr().out)}
    games = pd.read_parquet(out / "games.parquet")
    decisions = pd.read_parquet(out / "decisions.parquet")
    assert set(summary) == {"heuristic", "random", "always-pass"}
    for agent, row in summary.items():
        mine = games[games.agent == agent]
        moves = decisions[decisions.agent == agent]
        assert row["player_games"] == len(mine) == (24 if agent == "heuristic" else 12)
        assert row["mean_score"] == pytest.approx(mine.score.mean())
        assert row["mean_rank_points"] == pytest.approx(mine.rank_points.mean())
        assert row["win_share"] == pytest.approx((mine["rank"] == 1).mean())
        assert row["pass_share"] == pytest.approx((moves.action == "pass").mean())
        assert row["decisions_per_game"] == pytest.approx(len(moves) / len(mine))
    assert summary["always-pass"]["pass_share"] > 0.5
    # the plain-text table names every agent too
    assert main(["simulate", "--players", "heuristic,heuristic,random,always-pass",
                 "--games", "2", "--seed", "3"]) == 0
    text = capsys.readouterr().out
    assert all(agent in text for agent in summary)
