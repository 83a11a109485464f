"""The paired-deals test's placebo in the case it is used in (issue 43): two arms on the
same deals with every other seat's noise key shared, differing only in the focal seat's."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from nothanks.analysis import placebo as pl
from nothanks.analysis import wilson_interval
from nothanks.analysis.instance_sets import NO_FLAG, verdicts


def test_a_focal_key_replay_changes_only_the_focal_seats_noise(tmp_path):
    from nothanks.studies.placebo import load_pool, play_pool

    # a deterministic focal model among random players: another focal key changes
    # nothing, so every other seat kept its seed; another key for every seat does
    for keys in ("focal", "replay"):
        play_pool("heuristic", 60, tmp_path / keys, seed=3, progress=False,
                  opponents="random", keys=keys)
    play_pool("heuristic", 60, tmp_path / "pool", seed=3, progress=False, opponents="random")
    pool = load_pool(tmp_path / "pool")
    focal, replay = load_pool(tmp_path / "focal"), load_pool(tmp_path / "replay")
    assert np.array_equal(pool["deal"], focal["deal"])
    assert np.array_equal(pool["rank_points"], focal["rank_points"])
    assert not np.array_equal(pool["rank_points"], replay["rank_points"])
    # a random focal model: the arms part on some deals, never on the deal or seating
    play_pool("random", 60, tmp_path / "r", seed=3, progress=False)
    play_pool("random", 60, tmp_path / "rf", seed=3, progress=False, keys="focal")
    differences = pl.paired_differences(load_pool(tmp_path / "r"), load_pool(tmp_path / "rf"))
    assert len(differences) == 60 and 0 < (differences != 0).sum() < 60
    play_pool("random", 60, tmp_path / "other", seed=4, progress=False, keys="focal")
    with pytest.raises(pl.AnalysisInputError, match="other deals"):
        pl.paired_differences(load_pool(tmp_path / "r"), load_pool(tmp_path / "other"))


def test_sets_pad_with_the_deals_both_arms_played_alike():
    differences = np.array([1.0, -1.0, 0.5, 0.0, 2.0, -0.5] * 10 + [0.0] * 4)
    table = pl.paired_placebo_table(differences, {"all-4": (4, 4), "100-4": (100, 4)})
    assert table.groupby("shape").size().to_dict() == {"all-4": 16, "100-4": 16}
    last = table[table["set"] == 15]  # the four zeros: no test, no rejection
    assert last["p_paired_deals"].isna().all()
    padded = table[table["shape"] == "100-4"]
    assert (padded["deals_differ"] <= 4).all() and (padded["deals"] == 100).all()
    rates = pl.paired_placebo_rates(table)
    assert set(rates["sets"]) == {16} and not rates["judged"].any()
    row = rates.iloc[0]
    assert (row["ci_low"], row["ci_high"]) == pytest.approx(
        wilson_interval(int(row["rejections"]), 16))


def test_the_paired_test_holds_its_level_on_a_true_null():
    # differences symmetric around 0 with many zeros (arms that agree on most deals)
    rng = np.random.default_rng(4)
    values = rng.choice([-1.5, -1, -0.5, 0, 0.5, 1, 1.5], size=40 * 2000,
                        p=[0.05, 0.1, 0.1, 0.5, 0.1, 0.1, 0.05])
    rates = pl.paired_placebo_rates(pl.paired_placebo_table(values, {"all-40": (40, 40)}))
    t = rates[rates["test"] == "paired_deals"].iloc[0]
    assert t["ci_low"] <= 0.05 <= t["ci_high"] and t["may_flag"] and t["judged"]


def test_instance_set_verdicts_give_no_flag_when_the_test_over_rejects():
    identical, flags, tost = [True, False, False], ["n.s.", "higher", "n.s."], [1, 0.5, 0.01]
    assert verdicts(identical, flags, tost) == ["identical play", "higher",
                                                "equivalent (TOST)"]
    assert verdicts(identical, flags, tost, may_flag=False) == ["identical play", NO_FLAG,
                                                                NO_FLAG]


def test_the_judgement_reads_every_placebo_table(tmp_path):
    frame = pd.DataFrame({"p_parity": [0.01] * 10 + [0.5] * 90,
                          "t_parity": np.linspace(-2, 2, 100)})
    frame.to_csv(tmp_path / "pool.csv", index=False)
    (tmp_path / "pool.json").write_text("{}")
    assert pl.placebo_judgement(tmp_path) == {"parity": False}  # 10% [5.5%, 17.4%]
    rates = pd.DataFrame({"test": ["paired_deals"], "may_flag": [True], "judged": [True]})
    rates.to_csv(tmp_path / "paired_deals_rates.csv", index=False)
    (tmp_path / "paired_deals.json").write_text("{}")
    assert pl.placebo_judgement(tmp_path) == {"parity": False, "paired_deals": True}


def test_a_test_some_pool_ran_on_too_few_sets_gives_no_flags(tmp_path):
    # 5% on 1,000 sets may flag; the same test on a second pool of 200 sets at 5% (its
    # interval holds 5%) is too few sets to judge, so the test gives no flags
    for name, sets in (("big", 1000), ("small", 200)):
        p = np.where(np.arange(sets) % 20 == 0, 0.01, 0.5)
        pd.DataFrame({"p_parity": p, "t_parity": np.linspace(-2, 2, sets)}).to_csv(
            tmp_path / f"{name}.csv", index=False)
        (tmp_path / f"{name}.json").write_text("{}")
        if name == "big":
            assert pl.placebo_judgement(tmp_path) == {"parity": True}
    assert pl.placebo_judgement(tmp_path) == {"parity": False}
    rates = pd.DataFrame({"test": ["paired_deals"], "may_flag": [True], "judged": [False]})
    rates.to_csv(tmp_path / "paired_deals_rates.csv", index=False)
    (tmp_path / "paired_deals.json").write_text("{}")
    assert pl.placebo_judgement(tmp_path)["paired_deals"] is False
