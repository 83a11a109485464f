"""Designs with trials: a trial's games are played in order by the same agents, fresh at
every trial, whatever the chunking or the number of workers; learning agents' states are
logged in the ``learning`` table."""
from __future__ import annotations

import json

import pandas as pd
import pytest

from nothanks.agents import register, unregister
from nothanks.experiments import load, run_design
from nothanks.experiments.design import Design, DesignError, Table, load_design
from nothanks.experiments.run import RunError
from nothanks.experiments.verify import verify

from helpers import CountingLearner


@pytest.fixture(autouse=True, scope="module")
def counting_learner():
    """The test learner is known by name while this module runs, and forgotten after (the
    registry is global: other modules in this process list the registered agents)."""
    register(CountingLearner.name, CountingLearner)
    yield
    unregister(CountingLearner.name)


def learner_design(trial: int | None = 3, games: int = 6, carry: bool = True) -> Design:
    learner = f"test-counting-learner:carry={str(carry).lower()}"
    return Design(name="trials", seed=5, games=games, trial=trial, tables=(
        Table("learner vs random", (learner, "random", "random", "random"), focal=0),
        Table("two learners", (learner, learner, "random", "random")),
    ))


def learning_rows(out) -> pd.DataFrame:
    rows = load(out).learning
    state = pd.DataFrame([json.loads(s) for s in rows["state"]], index=rows.index)
    return pd.concat([rows.drop(columns=["state"]), state], axis=1)


def test_trials_are_whole_and_fresh_whatever_the_chunks_and_workers(tmp_path):
    design = learner_design()
    runs = {}
    for name, options in {"chunks of 3": dict(jobs=1, chunk_size=3),
                          "chunks of 6": dict(jobs=1, chunk_size=6),
                          "2 workers": dict(jobs=2, chunk_size=3)}.items():
        run_design(design, tmp_path / name.replace(" ", "-"), progress=False, **options)
        runs[name] = learning_rows(tmp_path / name.replace(" ", "-"))
    first = runs["chunks of 3"]
    for other in runs.values():
        pd.testing.assert_frame_equal(first, other)
    # the learner has finished exactly the earlier games of its trial: carried within a
    # trial, never across trials or conditions
    assert (first["finished"] == first["trial_game"]).all()
    assert set(first["trial_game"]) == {0, 1, 2} and set(first["trial"]) == {0, 1}
    log = load(tmp_path / "chunks-of-3")
    learner_decisions = log.decisions["agent"].str.startswith("test-counting-learner")
    assert len(first) == learner_decisions.sum()  # one learning row per learner decision
    assert (tmp_path / "chunks-of-3" / "learning.parquet").exists()
    report, = verify(tmp_path / "chunks-of-3")
    assert report.ok, report.render()
    (tmp_path / "chunks-of-3" / "learning.parquet").unlink()
    report, = verify(tmp_path / "chunks-of-3")
    assert not report.ok and "learning.parquet" in report.render()


def test_without_carry_every_game_starts_from_nothing(tmp_path):
    run_design(learner_design(carry=False), tmp_path / "run", jobs=1, progress=False)
    rows = learning_rows(tmp_path / "run")
    assert len(rows) and (rows["finished"] == 0).all()


def test_a_carrying_learner_needs_trials():
    with pytest.raises(DesignError, match=r"carries what it learns .* give the design "
                                          r"'trial = N'"):
        learner_design(trial=None).validate_agents()
    learner_design(trial=None, carry=False).validate_agents()  # learns within a game only


def test_trial_errors_say_what_is_valid(tmp_path):
    with pytest.raises(DesignError, match=r"'games' \(7\) must be a multiple of 'trial' "
                                          r"\(3\).*games = 6"):
        learner_design(games=7)
    with pytest.raises(DesignError, match="'trial' must be a whole number of games >= 1"):
        learner_design(trial=0)
    with pytest.raises(RunError, match="chunk_size=4 splits the design's trials of 3 games; "
                                       "valid: a multiple of 3"):
        run_design(learner_design(), tmp_path / "run", chunk_size=4, progress=False)
    assert not (tmp_path / "run").exists()


def test_designs_without_trials_keep_their_hash_and_log_no_learning_table(tmp_path):
    design = load_design("smoke")
    assert "trial" not in design.to_dict() and not design.learns
    with_trial = Design.from_dict(design.to_dict() | {"trial": 1})
    assert with_trial.hash != design.hash and with_trial.trial == 1
    run_design(design, tmp_path / "smoke", jobs=1, progress=False)
    assert not (tmp_path / "smoke" / "learning.parquet").exists()
    assert load(tmp_path / "smoke").learning.empty


def test_a_learning_design_gives_its_tables_and_figures(tmp_path):
    from nothanks.analysis.learning import learning_markdown, learning_tables, trial_length
    from nothanks.figures.learning import learning_curves, states_over_games_lines

    learner = "test-counting-learner:carry=true"
    design = Design(name="learning-mini", seed=3, games=12, trial=4, tables=(
        Table("counter vs 3 random", (learner, "random", "random", "random"), focal=0),
        Table("no learning vs 3 random",
              ("test-counting-learner:carry=false", "random", "random", "random"), focal=0),
        Table("random vs 3 random", ("random:p=0.4", "random", "random", "random"), focal=0),
    ))
    run_design(design, tmp_path / "run", jobs=1, progress=False)
    log = load(tmp_path / "run")
    tables = learning_tables(log.games, log.conditions, log.learning,
                             trial_length(log.experiments))
    curves = tables["learning_curves"]
    assert set(curves["arm"]) == {"counter", "no learning", "random"}
    assert (curves["trials"] == 3).all() and set(curves["game"]) == {0, 1, 2, 3}
    paired = tables["learning_paired"]  # the learner against the other two arms; the
    assert set(zip(paired["arm"], paired["versus"], strict=True)) == {  # control is no learner
        ("counter", "no learning"), ("counter", "random")}
    states = tables["learning_states"]
    carried = states[(states["arm"] == "counter") & (states["name"] == "finished")]
    assert list(carried["mean"]) == [0, 1, 2, 3]  # the state carried through each trial
    fresh = states[(states["arm"] == "no learning") & (states["name"] == "finished")]
    assert (fresh["mean"] == 0).all()
    final = tables["learning_final"].set_index(["arm", "name"])
    assert final.loc[("counter", "left"), "mean"] == 6  # 9 - 3 finished games
    text = learning_markdown(tables)
    assert "| 3 random | counter | no learning | last game | 3 |" in text
    for fig in (learning_curves(curves), states_over_games_lines(states)):
        assert len(fig.axes) >= 1
