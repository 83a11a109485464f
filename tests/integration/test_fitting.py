"""Per-participant fits and their recovery (nothanks.studies.fitting, .recovery,
``nothanks fit``): common random numbers, determinism across workers, resuming, the
tables, a small recovery, and one-line errors. Short games keep it to seconds."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from nothanks.cli import main
from nothanks.experiments import Design, load
from nothanks.experiments.design import Schedule, Table
from nothanks.rules import Variant
from nothanks.studies import fitting
from nothanks.studies.fitting import (
    FitError,
    FitSettings,
    ParameterRange,
    decision_loglik,
    evaluate,
    evidence_table,
    fit_participants,
)
from nothanks.studies.inference import game_tasks
from nothanks.studies.recovery import (
    fitted_correlations,
    model_confusion,
    parameter_recovery,
    plant_players,
    simulate_planted,
)

#: Short games (13 cards) against ToM0 and ToM1 tables: a practice block, then two games.
MINI = Design(
    name="mini-fitting", seed=11, rotate=True, variant=Variant(removed=20),
    tables=(Table("T0", ("human", "tom0", "tom0", "tom0"), 0),
            Table("T1", ("human", "tom1", "tom1", "tom1"), 1)),
    schedule=Schedule(("T0", "T1", "T0", "T1"), (1, 1, 2, 2), (1,)),
)
PRIOR = {"s": (0.05, 0.3), "rt": (-3.0, -1.0)}


@pytest.fixture(scope="module")
def planted_log(tmp_path_factory):
    """Two ToM1 players and one ToM0 player with planted s (and rt)."""
    out = tmp_path_factory.mktemp("planted")
    planted = plant_players({"ToM1": 2, "ToM0": 1}, PRIOR, seed=3)
    simulate_planted(out, planted, 0.05, design=MINI)
    return load(out), planted, out


def test_planted_players_are_drawn_from_the_prior_reproducibly():
    planted = plant_players({"ToM1": 4, "ToM0": 2}, PRIOR, seed=3)
    assert planted.equals(plant_players({"ToM1": 4, "ToM0": 2}, PRIOR, seed=3))
    tom1 = planted[planted["true_model"] == "ToM1"]
    assert tom1["planted_s"].between(0.05, 0.3).all()
    assert tom1["planted_rt"].between(-3.0, -1.0).all()
    assert planted.loc[planted["true_model"] == "ToM0", "planted_rt"].isna().all()
    assert (planted["source"] == "synthetic").all()
    assert tom1["spec"].iloc[0].startswith("tom1:rt=")
    # the first players of a bigger draw are the same players
    assert planted.iloc[:4].equals(plant_players({"ToM1": 4}, PRIOR, seed=3))


def test_common_random_numbers_make_the_likelihood_a_function_of_the_parameters(
        planted_log):
    """The same value gives the same log-likelihood to the bit; another value is judged on
    the same noise draws (equal P(take) wherever the decision does not depend on s)."""
    log, _, _ = planted_log
    tasks = game_tasks(log.decisions, log.conditions, "recovery-tom1-01")
    settings = FitSettings("ToM1", ("s",), samples=6)
    first = evaluate(tasks, settings.inference({"s": 0.12}))
    again = evaluate(tasks, settings.inference({"s": 0.12}))
    pd.testing.assert_frame_equal(first, again)
    other = evaluate(tasks, settings.inference({"s": 0.4}))
    assert len(other) == len(first) and (other["decision"] == first["decision"]).all()
    ll = decision_loglik(first, 0.05)
    assert (ll[first["forced"].to_numpy(bool)] == 0).all()
    assert np.isfinite(ll).all() and (ll <= 0).all()


def test_a_fit_is_the_best_evaluated_point_the_same_on_any_workers_and_resumes(
        planted_log, tmp_path, monkeypatch):
    log, _, _ = planted_log
    settings = FitSettings("ToM1", ("s", "rt"), trials=4, samples=4, bootstrap=200)
    one = fit_participants(log, ["recovery-tom1-01"], settings, folder=tmp_path)
    table = one.table()
    assert list(table["parameter"]) == ["s", "rt"]
    evaluations = one.evaluations()
    totals = evaluations.groupby("trial")["loglik"].sum()
    assert len(totals) == 4
    assert table["loglik"].iloc[0] == pytest.approx(totals.max())
    best = evaluations[evaluations["trial"] == totals.idxmax()].iloc[0]
    assert table["estimate"].tolist() == pytest.approx([best["s"], best["rt"]])
    assert (table["ci_low"] <= table["estimate"]).all()
    assert (table["estimate"] <= table["ci_high"]).all()
    assert table["decisions"].iloc[0] == int((~one.predictions()["forced"]).sum())
    assert table["log_evidence"].iloc[0] == pytest.approx(
        totals.max() - np.log(table["decisions"].iloc[0]))
    assert (table["source"] == "synthetic").all()
    # two worker processes: the same trials, the same fit
    two = fit_participants(log, ["recovery-tom1-01"], settings, processes=2).table()
    pd.testing.assert_frame_equal(table, two)
    # a rerun reads the finished participant and evaluates nothing

    def refuse(*args):
        raise AssertionError("a finished participant was evaluated again")
    monkeypatch.setattr(fitting, "evaluate", refuse)
    pd.testing.assert_frame_equal(
        table, fit_participants(log, ["recovery-tom1-01"], settings, folder=tmp_path).table())


def test_a_small_recovery_gives_its_tables(planted_log):
    log, planted, _ = planted_log
    tables = [fit_participants(log, None, FitSettings(model, params, trials=3, samples=3,
                                                      bootstrap=50)).table()
              for model, params in (("ToM1", ("s",)), ("ToM0", ("s",)))]
    fits = pd.concat(tables, ignore_index=True)
    plain = planted.drop(columns="source")
    recovery = parameter_recovery(fits, plain)
    assert set(recovery["model"]) == {"ToM1", "ToM0"}
    assert recovery.set_index("model")["players"].to_dict() == {"ToM1": 2, "ToM0": 1}
    assert recovery["r"].isna().all()  # fewer than 4 players: no correlation is claimed
    evidence = evidence_table(tables)
    assert evidence.shape == (3, 2)
    confusion = model_confusion(evidence, plain)
    assert confusion.matrix["players"].sum() == 3
    assert confusion.matrix[["ToM1", "ToM0"]].to_numpy().sum() == 3
    chosen = evidence.idxmax(axis=1)
    assert confusion.binary["correct"] == sum(
        (chosen[p] != "ToM0") == (t != "ToM0")
        for p, t in zip(plain["participant"], plain["true_model"], strict=True))
    corr = fitted_correlations(fits.merge(plain, on="participant"))
    assert corr.empty  # one fitted parameter per model: no pair


def test_recovery_statistics_on_known_numbers():
    """r and its Fisher-z interval on constructed estimates; the CI lower end decides."""
    rng = np.random.default_rng(0)
    planted = pd.DataFrame({"participant": [f"p{i}" for i in range(30)],
                            "true_model": "ToM1", "planted_s": rng.uniform(0, 1, 30)})
    fits = pd.DataFrame({"participant": planted["participant"], "model": "ToM1",
                         "parameter": "s", "estimate": planted["planted_s"] * 2 + 1,
                         "ci_low": 0.0, "ci_high": 3.0, "at_bound": False})
    row = parameter_recovery(fits, planted).iloc[0]
    assert row["r"] == pytest.approx(1.0) and row["recovered"]
    assert row["bias"] == pytest.approx(float((planted["planted_s"] + 1).mean()))
    fits["estimate"] = rng.uniform(0, 1, 30)
    row = parameter_recovery(fits, planted).iloc[0]
    assert row["ci_low"] < row["r"] < row["ci_high"] and not row["recovered"]


def test_bad_settings_fail_with_what_is_valid():
    with pytest.raises(FitError, match="unknown or unread: rt; valid: distinct names from s"):
        FitSettings("ToM0", ("rt",))
    with pytest.raises(FitError, match="model 'ToM9'; valid: ToM0, ToM1, ToM2"):
        FitSettings("ToM9", ("s",))
    with pytest.raises(FitError, match="log scale; valid: LOW > 0"):
        FitSettings("ToM1", ("s",), (("s", ParameterRange(0.0, 1.0, log=True)),))
    with pytest.raises(FitError, match="not fitted"):
        FitSettings("ToM1", ("s",), (("rt", ParameterRange(-3, -1)),))
    with pytest.raises(FitError, match="0 < lapse"):
        FitSettings("ToM1", ("s",), lapse=0.0)


@pytest.mark.parametrize("argv, message", [
    (["--model", "ToM1", "--params", "s", "--model", "ToM0", "--params", "s", "--params",
      "s"], "2 --model and 3 --params"),
    (["--model", "ToM1", "--params", "s,x"], "unknown or unread: x"),
    (["--model", "ToM1", "--params", "s", "--range", "rt=-3:-1"], "not a fitted parameter"),
    (["--model", "ToM1", "--params", "s", "--participant", "nobody"], "nobody is not in"),
    (["--model", "ToM1", "--params", "s", "--types", "ToM1=3"], "are for --recover"),
])
def test_the_command_line_fails_in_one_line(planted_log, tmp_path, capsys, argv, message):
    folder = planted_log[2]
    code = main(["fit", str(folder), "--out", str(tmp_path / "out"), "--no-progress", *argv])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and message in err, err
    assert not (tmp_path / "out").exists()


def test_a_fit_on_a_dask_cluster_is_the_local_fit(planted_log):
    distributed = pytest.importorskip("distributed")
    log, _, _ = planted_log
    settings = FitSettings("ToM0", ("s",), trials=2, samples=3, bootstrap=50)
    local = fit_participants(log, ["recovery-tom0-01"], settings).table()
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        on_dask = fit_participants(log, ["recovery-tom0-01"], settings,
                                   scheduler=cluster.scheduler_address).table()
    pd.testing.assert_frame_equal(local, on_dask)
