"""The calibration section of results.md says what each study is (issue 43): a study with
no shipped preset is not called one, missed targets are listed, and a held-out row that
repeats another target's numbers is called a copy, not a prediction."""
from __future__ import annotations

import pandas as pd

from nothanks.studies.calibration import heldout
from nothanks.studies.calibration.targets import Measure


def test_the_shipped_studies_are_described_as_they_are():
    text = heldout.report_markdown("data/calibration")
    assert "### Preset `thesis-fit`" in text and "### Preset `thesis-profile`" not in text
    assert "### Study `thesis-profile` (not shipped: no preset `thesis-profile`)" in text
    assert "`tom1:preset=thesis-profile` is refused" in text
    profile = text[text.index("### Study `thesis-profile`"):]
    assert "Missed on the check: 3 of 6 fitted targets" in profile
    fit = text[text.index("### Preset `thesis-fit`"):text.index("### Preset `thesis-humans`")]
    rows = {line.split(" | ")[0].strip("| "): line for line in fit.splitlines()
            if line.startswith("| tom")}
    assert "copy of `tom1_share`" in rows["tom2_share"]
    assert "copy of `tom1_welch_t`" in rows["tom2_welch_t"]
    assert "held out |" in rows["tom1_welch_t"]


def test_met_reads_ranges_and_single_numbers():
    assert heldout.met("tom1_share", {"value": 0.5, "ci_low": 0.45, "ci_high": 0.55})
    assert not heldout.met("tom1_lower_places", {"value": 0.28, "ci_low": 0.24,
                                                 "ci_high": 0.32})
    # a single thesis number: met when the interval holds it
    assert heldout.met("human_vs_tom1", {"value": 0.17, "ci_low": 0.16, "ci_high": 0.18})
    assert not heldout.met("human_vs_tom1", {"value": 0.169, "ci_low": 0.162,
                                             "ci_high": 0.176})


def test_a_target_both_fitted_and_held_out_has_one_row(tmp_path, monkeypatch):
    calls = []

    def evaluate(params, targets, out, **kwargs):
        calls.append(tuple(targets))
        return {t: Measure(0.5, 0.4, 0.6, 100) for t in targets}

    monkeypatch.setattr(heldout, "evaluate", evaluate)
    path = heldout.heldout_check(tmp_path, {"s": 0.1}, ["tom1_share", "tom2_share"],
                                 ["tom2_share", "fig14_tom1_slope"], games=10, seed=9)
    rows = [line for line in path.read_text().splitlines() if line.startswith("| tom2_share")]
    assert len(rows) == 1 and "| fitted |" in rows[0]
    assert all(c == ("tom1_share", "tom2_share", "fig14_tom1_slope") for c in calls)
    table = pd.read_csv(tmp_path / "heldout.csv")
    assert not table.duplicated(["target", "config"]).any()
