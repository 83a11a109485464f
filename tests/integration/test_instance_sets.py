"""The instance-set family (names, perturbations, reconstructions) and the tested
proposition about when ToM2 makes ToM1's moves (docs/models.md, "Instance sets")."""
from __future__ import annotations

import pytest

from nothanks.agents import AgentSpecError, make_agent
from nothanks.agents.cognitive import InstanceFileError, is_monotone, load_instances
from nothanks.agents.cognitive.generate_instances import (
    RECONSTRUCTIONS,
    main,
    reconstruct,
    reconstructed_needed,
)
from nothanks.agents.cognitive.instance_sets import (
    parse_set_name,
    shipped_sets,
    write_set,
)
from nothanks.rules import Action, Category


def test_shipped_family_lists_the_monotone_set_and_two_reconstructions():
    names = set(shipped_sets())
    assert {"monotone", "thesis-linear", "thesis-bands"} <= names
    assert load_instances("").source == load_instances("monotone").source
    for name in names:
        assert is_monotone(load_instances(name)), name


@pytest.mark.parametrize("name", sorted(RECONSTRUCTIONS))
def test_reconstructions_are_reproduced_by_their_recorded_command(tmp_path, name):
    out = tmp_path / f"{name}.csv"
    assert main(["--set", name, "--out", str(out)]) == 0
    shipped = shipped_sets()[name].read_text().splitlines()
    made = out.read_text().splitlines()
    assert [x for x in made if not x.startswith("#")] == \
        [x for x in shipped if not x.startswith("#")]
    assert f"--set {name} --out {name}.csv" in made[1]
    assert f"--set {name} --update-shipped" in shipped[1]


def test_the_generator_writes_only_where_told(tmp_path, capsys):
    with pytest.raises(SystemExit):
        main(["--set", "thesis-linear"])
    assert "--update-shipped" in capsys.readouterr().err


@pytest.mark.parametrize("threshold", ["linear", "bands"])
def test_reconstructions_follow_the_thesis_description(threshold):
    """§3.2: sequence cards always take; more tokens for higher cards; fewer when poor."""
    assert reconstructed_needed(35, 11, threshold=threshold) > \
        reconstructed_needed(5, 11, threshold=threshold)
    assert reconstructed_needed(30, 1, threshold=threshold) < \
        reconstructed_needed(30, 11, threshold=threshold)
    instances = reconstruct(threshold=threshold)
    assert all(i.action is Action.TAKE for i in instances if i.category is not
               Category.NO_SEQUENCE)


def test_perturbations_are_seeded_and_change_what_they_say():
    base = load_instances("monotone").instances
    flipped = load_instances("monotone+flip=0.08+seed=1").instances
    again = load_instances("monotone+seed=1+flip=0.08").instances  # order does not matter
    other = load_instances("monotone+flip=0.08+seed=2").instances
    assert flipped == again and flipped != other
    changed = [a for a, b in zip(base, flipped, strict=True) if a.action != b.action]
    none = sum(i.category is Category.NO_SEQUENCE for i in base)
    assert all(i.category is Category.NO_SEQUENCE for i in changed)
    assert 0.05 * none < len(changed) < 0.11 * none  # about 8% of the no-sequence ones
    assert not is_monotone(flipped)
    jittered = load_instances("monotone+jitter=2+seed=3")
    assert is_monotone(jittered) and jittered.instances != base
    waiting = load_instances("monotone+seqwait=2").instances
    assert any(i.action is Action.PASS and i.category is Category.EXTENSION for i in waiting)
    assert load_instances("monotone+jitter=0").instances == base


@pytest.mark.parametrize(("text", "words"), [
    ("nonesuch", "neither a shipped instance set nor an existing file"),
    ("monotone+flip", "not a perturbation"),
    ("monotone+spin=0.2", "not a perturbation"),
    ("monotone+flip=2", "a probability 0..1"),
    ("monotone+flip=x", "not a number"),
    ("monotone+seed=1.5", "a whole number >= 0"),
])
def test_bad_set_names_say_what_is_valid(text, words):
    with pytest.raises(InstanceFileError, match=words):
        load_instances(text)
    with pytest.raises(AgentSpecError, match="valid"):
        make_agent(f"tom1:instances={text}")


def test_a_path_still_works_and_write_set_records_the_name(tmp_path):
    out = write_set("monotone+flip=0.03+seed=4", tmp_path / "f.csv")
    assert parse_set_name(str(out)) is None
    loaded = load_instances(out)
    assert loaded.instances == load_instances("monotone+flip=0.03+seed=4").instances
    assert "monotone+flip=0.03+seed=4" in out.read_text().splitlines()[0]


# --- The proposition: tests/integration/test_tom2_proposition.py ----------------------------------


# --- The study's analysis --------------------------------------------------------------
@pytest.fixture(scope="module")
def small_study(tmp_path_factory):
    """The instance-sets design on 12 deals and two sets (a real run and log)."""
    from dataclasses import replace

    from nothanks.experiments import load, load_design, run_design
    design = load_design("instance-sets")
    design = design.with_options(games=12, sweeps=(replace(
        design.sweeps[0], values=("monotone", "monotone+flip=0.15+seed=1")),))
    out = tmp_path_factory.mktemp("instance-sets")
    run_design(design, out, jobs=1, progress=False)
    return load(out)


def test_study_table_says_identical_play_under_the_monotone_set(small_study):
    from nothanks.analysis.instance_sets import instance_sets_rows, instance_sets_table
    log = small_study
    table = instance_sets_table(log.games, log.decisions, log.conditions)
    assert set(table["instances"]) == {"monotone", "monotone+flip=0.15+seed=1"}
    assert set(table["comparison"] + " " + table["opponents"]) == {
        "ToM2 - ToM1 3 x ToM0", "ToM2 - ToM1 3 x ToM1", "ToM3 - ToM2 3 x ToM2"}
    tom2 = table[(table["instances"] == "monotone") & (table["comparison"] == "ToM2 - ToM1")]
    assert (tom2["deals_differ"] == 0).all() and (tom2["difference"] == 0).all()
    assert (tom2["verdict"] == "identical play").all() and tom2["p_holm"].isna().all()
    flipped = table[table["instances"] != "monotone"]
    assert (flipped["deals_differ"] > 0).any()
    assert flipped.loc[flipped["deals_differ"] > 0, "p"].notna().all()
    assert ((table["deals_differ_ci_low"] <= table["deals_differ"])
            & (table["deals_differ"] <= table["deals_differ_ci_high"])).all()
    rows = instance_sets_rows(table)
    assert len(rows) == len(table) and "identical play" in set(rows["verdict"])


def test_tost_rejects_for_a_tiny_difference_and_not_for_a_large_one():
    import numpy as np

    from nothanks.analysis.instance_sets import tost_paired
    rng = np.random.default_rng(1)
    a = rng.choice([0.0, 1.0, 2.0, 3.0], size=2000)
    same = a + rng.normal(0, 0.3, size=2000)
    assert tost_paired(same, a, 0.05) < 0.05
    assert tost_paired(a + 0.2, a + rng.normal(0, 0.3, size=2000), 0.05) > 0.5
    assert np.isnan(tost_paired(a, a))


def test_dose_response_figure_draws_every_comparison(small_study, tmp_path):
    from nothanks.analysis.instance_sets import instance_sets_table
    from nothanks.figures.instance_sets import instance_set_dose_response
    log = small_study
    fig = instance_set_dose_response(instance_sets_table(log.games, log.decisions,
                                                         log.conditions))
    assert len(fig.axes) == 3
    fig.savefig(tmp_path / "f.png")
    assert (tmp_path / "f.png").stat().st_size > 10_000


# --- The whole-profile fit --------------------------------------------------------------
def test_profile_targets_are_measured_and_the_family_enters_the_trial(tmp_path):
    """A one-trial profile study: every profile target gets a finite value, and the trial's
    instance file is the rule's set after the seeded flip (recorded in its header)."""
    import math

    from nothanks.agents.cognitive.instance_sets import perturb
    from nothanks.studies import calibration as c
    from nothanks.studies.calibration.space import INSTANCE_SEED
    from nothanks.studies.calibration.targets import PROFILE_TARGETS
    from nothanks.studies.calibration.trials import write_instances
    result = c.calibrate(tmp_path / "study", params=("flip", "jitter"),
                         targets=PROFILE_TARGETS, heldout=(), trials=1, games=4,
                         stages=(0.5, 1.0), progress=False, study_name="profile-test",
                         start={"flip": 0.1, "jitter": 1})
    metrics = result.study.best_trial.user_attrs["metrics"]
    assert set(PROFILE_TARGETS) <= set(metrics)
    assert all(math.isfinite(metrics[t]) for t in PROFILE_TARGETS)
    path = write_instances({"flip": 0.1, "jitter": 1}, tmp_path / "i.csv")
    assert "perturb({'flip': 0.1, 'jitter': 1.0}, seed=1)" in path.read_text()
    from nothanks.agents.cognitive.generate_instances import generate
    expected = perturb(generate(), {"flip": 0.1, "jitter": 1.0}, INSTANCE_SEED)
    assert list(load_instances(path).instances) == expected
    assert not is_monotone(load_instances(path))


def test_figure14_by_set_has_one_curve_per_set(tmp_path):
    """The figure14-instance-sets design on 4 deals and two thresholds, with the
    default set's rows from the figure14 design on the same deals."""
    from dataclasses import replace

    from nothanks.analysis.instance_sets import rt_sweep_by_set
    from nothanks.experiments import load, load_design, run_design
    from nothanks.figures.instance_sets import rt_sweep_by_set_lines
    design = load_design("figure14-instance-sets")
    rts = replace(design.sweeps[0], values=(-2.5, 0.5))
    design = design.with_options(games=4, sweeps=(rts, design.sweeps[1]))
    default = load_design("figure14").with_options(games=4, sweeps=(rts,))
    run_design(design, tmp_path / "sets", jobs=1, progress=False)
    run_design(default, tmp_path / "default", jobs=1, progress=False)
    log, base = load(tmp_path / "sets"), load(tmp_path / "default")
    table = rt_sweep_by_set(log, base)
    assert set(table["instances"]) == {"monotone", "monotone+flip=0.08+seed=1",
                                       "thesis-linear"}
    tom2 = table[table["higher"] == "ToM2"]
    assert len(tom2) == 3 * 2 * 2  # sets x opponents x thresholds
    fig = rt_sweep_by_set_lines(table)
    assert len(fig.axes) == 2 and len(fig.axes[0].lines) >= 3


@pytest.mark.parametrize(("args", "expected"), [
    ((True, "n.s.", float("nan")), "identical play"),
    ((False, "n.s.", 0.01), "equivalent (TOST)"),
    ((False, "n.s.", 0.3), "n.s."),
    ((False, "higher", 0.01), "higher, within ±0.05 (TOST)"),
    ((False, "higher", 0.9), "higher"),
    ((False, "lower", float("nan")), "lower"),
])
def test_verdicts(args, expected):
    from nothanks.analysis.instance_sets import verdict
    assert verdict(*args) == expected
