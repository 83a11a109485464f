"""The rated tournament: planning (tables, seat rotations, shared deals), ratings
(reproducible, ties, a sensible order), resuming an interrupted run, bad input."""
from __future__ import annotations

import itertools
import json
import tempfile
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from nothanks.analysis import (
    AnalysisInputError,
    leaderboard,
    leaderboard_markdown,
    tournament_results,
    weng_lin_ratings,
)
from nothanks.cli import main
from nothanks.cli.tournament import LEADERBOARD_FILES, play_and_rate
from nothanks.experiments import load
from nothanks.studies.tournament import (
    Tournament,
    TournamentError,
    load_tournament,
    plan_tables,
    pool_from_text,
    run_tournament,
    shipped_tournaments,
)

#: Baselines only (a game takes about a millisecond): 5 tables x 4 rotations x 6 deals.
POOL = ("random", "always-pass", "heuristic:T=-3", "heuristic:T=0", "heuristic:T=3")
SMALL = Tournament("tiny-tournament", POOL, deals=6, seed=11)


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    out = tmp_path_factory.mktemp("tournament") / "run"
    run_tournament(SMALL, out, jobs=1, progress=False)
    return load(out)


# ------------------------------------------------------------------ planning
def test_every_subset_is_a_table_and_every_member_plays():
    assert SMALL.lineups == tuple(itertools.combinations(range(5), 4))
    assert SMALL.games == 5 * 4 * 6 == SMALL.design.total_games
    assert SMALL.balance() == {"tables_per_member_min": 4, "tables_per_member_max": 4,
                               "tables_per_pair_min": 3, "tables_per_pair_max": 3}


def test_a_balanced_sample_spreads_members_and_pairs_evenly_and_is_seeded():
    sample = plan_tables(11, 4, 55, seed=3)
    assert len(set(sample)) == 55 and all(len(set(t)) == 4 for t in sample)
    assert set(Counter(i for t in sample for i in t).values()) == {20}
    pairs = Counter(p for t in sample for p in itertools.combinations(t, 2))
    assert len(pairs) == 55 and max(pairs.values()) - min(pairs.values()) <= 2
    assert plan_tables(11, 4, 55, seed=3) == sample != plan_tables(11, 4, 55, seed=4)


def test_each_deal_is_played_in_every_seat_rotation_on_the_same_cards(played):
    games = played.games.merge(played.conditions[["condition", "players"]], on="condition")
    games["member"] = [p[r] for p, r in zip(games["players"], games["role"], strict=True)]
    # every member sits in every seat exactly once per table and deal
    games["lineup"] = games["condition"] // 4
    seats = games.groupby(["lineup", "deal", "member"])["seat"].agg(sorted)
    assert all(s == [0, 1, 2, 3] for s in seats)
    # deal i has one seed at every table and rotation (common random numbers)
    assert (games.groupby("deal")["seed"].nunique() == 1).all()
    assert games["seed"].nunique() == SMALL.deals
    # the four conditions of a table are the cyclic rotations of one lineup
    players = played.conditions.set_index("condition")["players"].map(list)
    for table in range(len(SMALL.lineups)):
        first = players[4 * table]
        assert [players[4 * table + r] for r in range(4)] == [
            first[r:] + first[:r] for r in range(4)]


# ------------------------------------------------------------------ ratings
def test_ratings_are_reproducible_and_do_not_depend_on_row_order(played):
    board = leaderboard(played.games, played.conditions)
    shuffled = played.games.sample(frac=1.0, random_state=0)
    pd.testing.assert_frame_equal(board, leaderboard(shuffled, played.conditions))
    assert list(board.columns[:8]) == ["place", "player", "label", "games", "matches", "mu",
                                       "sigma", "ordinal"]
    assert (board["games"] == 4 * 4 * SMALL.deals).all()
    assert "| 1 |" in leaderboard_markdown(board)


def test_the_order_is_sensible_heuristic_beats_random(played):
    board = leaderboard(played.games, played.conditions).set_index("player")
    # random takes at random and runs out of tokens: last by every measure
    assert board["ordinal"].idxmin() == "random" and board["rank_points"].idxmin() == "random"
    best = board.loc["heuristic:T=0"]
    worst = board.loc["random"]
    assert best["ordinal"] > worst["mu"] + 3 * worst["sigma"]
    assert best["rank_points_low"] > worst["rank_points_high"]
    assert best["first_low"] > worst["first_high"]
    # the rating order and the mean rank points agree on the extremes
    assert board["ordinal"].corr(board["rank_points"], method="spearman") > 0.6


def _game(ranks: list[int], players=("a", "b", "c", "d"), game_id=0) -> pd.DataFrame:
    return pd.DataFrame({"game_id": game_id, "deal": game_id, "condition": 0,
                         "seat": range(4), "player": list(players), "rank": ranks})


def test_ties_are_ties_tied_players_move_together_and_above_the_next():
    rated = weng_lin_ratings(_game([1, 1, 3, 4])).set_index("player")
    assert rated.loc["a", "mu"] == pytest.approx(rated.loc["b", "mu"])
    assert rated.loc["b", "mu"] > rated.loc["c", "mu"] > rated.loc["d", "mu"]
    rated = weng_lin_ratings(_game([1, 2, 2, 4])).set_index("player")
    assert rated.loc["b", "mu"] == pytest.approx(rated.loc["c", "mu"])
    assert rated.loc["a", "mu"] > rated.loc["b", "mu"] > rated.loc["d", "mu"]


def test_rating_inputs_are_checked(played):
    with pytest.raises(AnalysisInputError, match="unknown; valid: bradley-terry-full"):
        weng_lin_ratings(_game([1, 2, 3, 4]), model="elo")
    with pytest.raises(AnalysisInputError, match="seats one player twice"):
        weng_lin_ratings(_game([1, 2, 3, 4], players=("a", "a", "b", "c")))
    with pytest.raises(AnalysisInputError, match="not in the conditions table"):
        tournament_results(played.games, played.conditions.iloc[:2])


# ------------------------------------------------------------------ resuming
def test_an_interrupted_tournament_resumes_to_the_same_leaderboard(tmp_path, played,
                                                                   monkeypatch):
    import nothanks.experiments.backends as backends
    real = backends.play_chunk

    def interrupted(design, start, stop, context, traces=False):
        if start >= 40:
            raise KeyboardInterrupt
        return real(design, start, stop, context, traces)

    monkeypatch.setattr(backends, "play_chunk", interrupted)
    with pytest.raises(KeyboardInterrupt):
        run_tournament(SMALL, tmp_path / "run", jobs=1, chunk_size=10, progress=False)
    monkeypatch.undo()
    assert len(load(tmp_path / "run", allow_incomplete=True).games) == 40 * 4
    made = play_and_rate(SMALL, tmp_path / "run", tmp_path / "board", progress=False)
    assert made.run.skipped == 40 and made.run.played == SMALL.games - 40
    pd.testing.assert_frame_equal(made.board, leaderboard(played.games, played.conditions))
    assert [p.name for p in made.files] == list(LEADERBOARD_FILES)
    assert pd.read_csv(tmp_path / "board" / "leaderboard.csv")["player"].tolist() == \
        made.board["player"].tolist()


def test_the_command_runs_a_tournament_and_writes_the_leaderboard(tmp_path, capsys):
    pool = "random;heuristic:T=0;heuristic:T=3;always-pass"
    code = main(["tournament", "--pool", pool, "--deals", "2", "--out", str(tmp_path / "r"),
                 "--leaderboard", str(tmp_path / "b"), "--jobs", "1", "--no-progress"])
    assert code == 0
    text = (tmp_path / "b" / "leaderboard.md").read_text()
    assert "1 tables of 4" in text and "8 games" in text and "`random`" in text
    assert "--pool" in text  # the command that made it
    # ... as typed in the repository: the scratch folder in /tmp as an untracked runs/ one;
    # the run itself records its real folder (verify's rerun command resumes it)
    typed = f"--out {Path('runs') / (tmp_path / 'r').relative_to(tempfile.gettempdir())}"
    assert typed in text and str(tmp_path) not in text, text
    manifest = json.loads((tmp_path / "r" / "manifest.json").read_text())
    assert f"--out {tmp_path / 'r'}" in manifest["command"]
    assert main(["tournament", "--plan", "--tables", "3"]) == 0
    assert "table   2:" in capsys.readouterr().out


# ------------------------------------------------------------------ bad input
@pytest.mark.parametrize(("changes", "message"), [
    ({"pool": ("random", "tom1", "tom2")}, "a table of 4 needs at least 4"),
    ({"pool": ("random", "tom1", "tom2", "heuristic:T=0", "heuristic:T=0.0")},
     "are the same agent"),
    ({"pool": ("random", "tom1", "tom2", "heuristic:T")}, "pool entry 'heuristic:T'"),
    ({"tables": 6}, "'tables' must be a whole number from 1 to 5"),
    ({"deals": 0}, "'deals' must be at least 1"),
    ({"seats": 8}, "'seats' must be 3 to 7"),
])
def test_bad_tournaments_are_refused_with_the_reason(changes, message):
    with pytest.raises(TournamentError, match=message):
        SMALL.with_options(**changes)


def test_unknown_agents_and_files_fail_before_a_game_is_played(tmp_path, capsys):
    assert main(["tournament", "--pool", "random;tom1;tom2;nobody", "--out",
                 str(tmp_path / "r"), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "unknown agent 'nobody'" in err and not (tmp_path / "r").exists()
    assert main(["tournament", str(tmp_path / "missing.toml"), "--plan"]) == 2
    assert "not a shipped tournament" in capsys.readouterr().err
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "x"\npool = ["random"]\nplayers = 4\n')
    with pytest.raises(TournamentError, match=r"unknown key\(s\) \['players'\]"):
        load_tournament(bad)
    assert pool_from_text(" random; tom1 ;") == ("random", "tom1")


def test_the_shipped_tournaments_load():
    assert "default" in shipped_tournaments()
    for path in shipped_tournaments().values():
        t = load_tournament(path)
        assert t.games == len(t.lineups) * t.seats * t.deals
        assert np.all([len(set(x)) == t.seats for x in t.lineups])
