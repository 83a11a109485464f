"""Calibration studies: outputs, resuming after a kill, presets, one-line errors."""
from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from pathlib import Path

import pytest

from nothanks import experiments as ex
from nothanks.agents import AgentSpecError, load_preset, make_agent, presets
from nothanks.agents import spec as spec_module
from nothanks.cli import main
from nothanks.studies import calibration as cal
from nothanks.studies.calibration import space
from nothanks.studies.calibration import study as cal_study
from nothanks.studies.calibration.targets import STANDIN_TARGETS
from nothanks.studies.calibration.trials import stage_games

optuna = pytest.importorskip("optuna")
ROOT = Path(__file__).resolve().parents[2]
#: A study small enough for a test: one cheap parameter, one target.
TINY = {"params": ["fraction", "s"], "targets": ["tom1_share"], "heldout": [],
        "games": 4, "stages": (0.5, 1.0), "progress": False}


def test_a_tiny_study_writes_its_outputs(tmp_path):
    result = cal.calibrate(tmp_path, trials=2, **TINY)
    assert len(result.study.trials) == 2
    for name in ("study.db", "trials.csv", "summary.md", "thesis-fit.toml",
                 "thesis-fit-instances.csv"):
        assert (tmp_path / name).exists(), name
    preset = (tmp_path / "thesis-fit.toml").read_text()
    assert "[provenance]" in preset and "instances" in preset
    # every trial played its games through the runner, in stages, into its own folder
    folders = {t.user_attrs["folder"] for t in result.study.trials}
    assert all((tmp_path / f / "stage1" / "manifest.json").exists() for f in folders)
    # extending the study keeps the trials and adds one
    more = cal.calibrate(tmp_path, trials=3, **TINY)
    assert len(more.study.trials) == 3


def test_a_resumed_study_must_keep_its_settings(tmp_path):
    cal.calibrate(tmp_path, trials=1, **TINY)
    with pytest.raises(cal.CalibrationError, match="games"):
        cal.calibrate(tmp_path, trials=2, **(TINY | {"games": 6}))


def _finished(database: Path) -> int:
    """Trials finished so far, read without writing: opening the database through Optuna
    while the study's process is still creating its tables races with it."""
    if not database.exists():
        return 0
    try:
        with closing(sqlite3.connect(f"file:{database}?mode=ro", uri=True)) as db:
            (count,), = db.execute(
                "SELECT COUNT(*) FROM trials WHERE state IN ('COMPLETE', 'PRUNED')")
    except sqlite3.Error:  # the tables may not exist yet
        return 0
    return int(count)


@pytest.mark.timeout(300)
def test_the_study_resumes_after_a_kill(tmp_path):
    out = tmp_path / "study"
    command = [sys.executable, "-m", "nothanks", "calibrate", "--out", str(out),
               "--params", "fraction,s", "--targets", "tom1_share", "--heldout", "",
               "--trials", "3", "--games", "4", "--stages", "0.5,1", "--no-progress"]
    env = os.environ | {"PYTHONPATH": str(ROOT)}
    database = (out / "study.db").resolve()
    storage = f"sqlite:///{database}"
    log = tmp_path / "first-run.log"
    with log.open("w") as stderr:
        process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=stderr)
    try:
        deadline = time.monotonic() + 200
        while _finished(database) < 1 and process.poll() is None:
            assert time.monotonic() < deadline, "no trial finished in time"
            time.sleep(0.2)
        process.send_signal(signal.SIGKILL)
        process.wait()
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode in (0, -signal.SIGKILL), log.read_text()
    first = optuna.load_study(study_name="thesis-fit", storage=storage).trials
    kept = {t.number: t.params for t in first if t.state.is_finished() and
            t.state != optuna.trial.TrialState.FAIL}
    assert kept, "the first trial was kept"
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=250)
    assert done.returncode == 0, done.stderr
    study = optuna.load_study(study_name="thesis-fit", storage=storage)
    assert _finished(database) == 3
    for number, params in kept.items():
        assert study.trials[number].params == params


# ------------------------------------------------------------------ presets
def test_the_shipped_preset_loads_and_explicit_params_override():
    assert "thesis-fit" in presets()
    preset = load_preset("thesis-fit")
    assert Path(preset.params["instances"]).is_file()
    agent = make_agent("tom1:preset=thesis-fit")
    assert agent.params["s"] == pytest.approx(float(preset.params["s"]))
    assert agent.spec == "tom1:preset=thesis-fit"
    override = make_agent("tom1:preset=thesis-fit,s=0.05")
    assert override.params["s"] == 0.05
    assert make_agent("tom1").params["s"] == 0.1  # the default stays the default


def test_the_shipped_stand_in_preset_was_checked_within_3_points_of_figure_8():
    """The stand-in preset records its held-out check (issue: Figure 8 within 3 points):
    on a seed its study did not fit, every first-place share is within 3 points of the
    thesis's people and the pass share within 3 points of about 80%; and the preset the
    synthetic set is drawn around is this one."""
    import tomllib

    from nothanks.experiments import synthetic
    shipped = spec_module.PRESETS_DIR / "thesis-humans.toml"
    study = ROOT / "data" / "calibration" / "thesis-humans" / "thesis-humans.toml"
    assert shipped.read_text() == study.read_text()  # shipped from the study folder
    provenance = tomllib.loads(shipped.read_text())["provenance"]
    check = provenance["check"]
    assert check["seed"] != provenance["seed"] and check["games"] >= 2000
    thesis = {"human_vs_tom0": 0.362, "human_vs_tom1": 0.177, "human_vs_tom2": 0.148,
              "human_pass_share": 0.80}
    for target, value in thesis.items():
        measured, low, high = check[target]
        assert low <= measured <= high
        assert abs(measured - value) <= 0.03, (target, measured, value)
    assert synthetic.PRESET == "thesis-humans"


def test_a_preset_from_a_folder_applies_only_to_its_agents(tmp_path, monkeypatch):
    (tmp_path / "quiet.toml").write_text(
        'agents = ["tom1"]\n[params]\ns = 0.02\nleaf_penalty = 1.0\n[provenance]\nseed = 1\n')
    monkeypatch.setattr(spec_module, "PRESETS_DIR", tmp_path)
    agent = make_agent("tom1:preset=quiet,leaf_penalty=0.25")
    assert agent.params["s"] == 0.02 and agent.params["leaf_penalty"] == 0.25
    with pytest.raises(AgentSpecError, match="not 'tom2'"):
        make_agent("tom2:preset=quiet")


def test_an_unknown_preset_lists_the_valid_ones():
    with pytest.raises(AgentSpecError, match="unknown preset 'nope'; valid: .*thesis-fit"):
        make_agent("tom1:preset=nope")


# ------------------------------------------------------------------ errors
@pytest.mark.parametrize("option, value, valid", [
    ("--params", "fraction,nope", "fraction"),
    ("--targets", "tom1_share,bogus", "older_chunk_rate"),
    ("--heldout", "bogus", "tom2_share"),
])
def test_bad_names_give_one_line_errors_listing_the_valid_ones(tmp_path, capsys, option,
                                                              value, valid):
    code = main(["calibrate", "--out", str(tmp_path), option, value, "--trials", "1",
                 "--games", "2", "--no-progress"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and "\n" not in err and "valid:" in err and valid in err, err


def test_list_names_every_parameter_and_target(capsys):
    assert main(["calibrate", "--list"]) == 0
    listing = capsys.readouterr().out
    assert all(name in listing for name in [*cal.PARAMETERS, *cal.TARGETS])


def test_targets_are_ranges_with_a_loss_of_zero_inside():
    share = cal.TARGETS["tom1_share"]
    assert share.loss(0.5) == 0 and share.loss(0.46) == pytest.approx(1.0)
    assert cal.TARGETS["older_chunk_rate"].loss(0.07) == pytest.approx(4.0)
    assert stage_games(2000, (0.25, 1.0)) == [500, 1500]


def test_a_preset_plays_exactly_like_its_values_written_out():
    from nothanks.play.runner import play_games
    values = ",".join(f"{k}={v}" for k, v in load_preset("thesis-fit").params.items())
    by_preset = [r.scores for r in play_games(
        ["tom0:preset=thesis-fit"] * 3 + ["tom1:preset=thesis-fit"], 2, 5)]
    written = [r.scores for r in play_games([f"tom0:{values}"] * 3 + [f"tom1:{values}"], 2, 5)]
    assert by_preset == written


def test_a_new_study_tries_the_start_values_first(tmp_path, monkeypatch):
    # no games: the trials' measurements are stubbed, only the order of trials matters
    monkeypatch.setattr(ex, "run_design", lambda *args, **kwargs: None)
    monkeypatch.setattr(ex, "load", lambda folder: None)
    monkeypatch.setattr(cal_study, "measure", lambda log, targets: {
        t: cal.Measure(0.5) for t in targets})
    points = [{"fraction": 0.3, "s": 0.05}, {"fraction": 0.45}]
    result = cal.calibrate(tmp_path, trials=3, start=points, **TINY)
    trials = result.study.trials
    assert trials[0].params == points[0] and trials[1].params["fraction"] == 0.45
    assert trials[2].params != trials[0].params
    with pytest.raises(cal.CalibrationError, match="start parameter.*'d'"):
        cal.calibrate(tmp_path / "other", trials=1, start=[{"d": 0.4}], **TINY)


def test_fixed_values_play_in_every_trial_and_reach_the_preset(tmp_path, monkeypatch):
    played = []
    monkeypatch.setattr(ex, "run_design", lambda design, *a, **k: played.append(design))
    monkeypatch.setattr(ex, "load", lambda folder: None)
    monkeypatch.setattr(cal_study, "measure", lambda log, targets: {
        t: cal.Measure(0.2) for t in targets})
    result = cal.calibrate(tmp_path, params=["T"], targets=STANDIN_TARGETS, heldout=(),
                           trials=1, fixed={"greed": 0.41, "poor": "4"}, games=4, stages=[1],
                           progress=False, study_name="humans")
    standin = played[0].tables[0].players[-1]
    assert "greed=0.41" in standin and "poor=4" in standin and "T=" in standin
    assert result.best_params["greed"] == 0.41 and "T" in result.best_params
    preset = (tmp_path / "humans.toml").read_text()
    assert "greed = 0.41" in preset and "poor = 4" in preset
    with pytest.raises(cal.CalibrationError, match="settings"):  # resumed: same fixed values
        cal.calibrate(tmp_path, params=["T"], targets=STANDIN_TARGETS, heldout=(),
                      trials=1, fixed={"greed": 0.5, "poor": 4}, games=4, stages=[1],
                      progress=False, study_name="humans")
    with pytest.raises(cal.CalibrationError, match="both free and fixed"):
        cal.calibrate(tmp_path / "b", **(TINY | {"params": ["T"]}), fixed={"T": 1.0})
    assert space.parse_fixed("greed=0.41,poor=4") == {"greed": 0.41, "poor": 4}
    assert space.parse_fixed(None) == {}
    with pytest.raises(cal.CalibrationError, match="one set"):
        space.parse_fixed("T=1;T=2")


def test_the_report_section_reads_the_shipped_studies():
    import pandas as pd
    text = cal.report_markdown(ROOT / "data" / "calibration")
    assert "defaults stay the default" in text
    for study in ("thesis-fit", "thesis-humans"):
        rows = pd.read_csv(ROOT / "data" / "calibration" / study / "heldout.csv")
        section = text.split(f"### Preset `{study}`")[1].split("### Preset")[0]
        assert "| target | role | source | thesis | " + " | ".join(
            dict.fromkeys(rows["config"])) + " |" in section
        for row in rows.itertuples():  # every measured value, as the target shows it
            shown = cal.TARGETS[row.target].show(cal.Measure(row.value, row.ci_low,
                                                             row.ci_high))
            assert shown in section, (study, row.target, row.config)
    assert "SYNTHETIC" in text.split("### Preset `thesis-humans`")[1]
    assert cal.report_markdown(ROOT / "no-such-folder") == cal.report_markdown(None) == ""


def test_start_points_parse_from_the_command_line():
    assert space.parse_start("T=-1,low=3; near=2.5") == [{"T": -1, "low": 3}, {"near": 2.5}]
    assert space.parse_start(None) == []
    with pytest.raises(cal.CalibrationError, match="NAME=VALUE"):
        space.parse_start("T")


def test_target_weights_parse_from_the_command_line_and_reach_the_study(tmp_path):
    assert space.parse_weights("human_vs_tom0=2,human_pass_share=0.5") == {
        "human_vs_tom0": 2.0, "human_pass_share": 0.5}
    assert space.parse_weights(None) == {}
    with pytest.raises(cal.CalibrationError, match="positive number"):
        space.parse_weights("human_vs_tom0=0")
    with pytest.raises(cal.CalibrationError, match="valid"):
        cal.calibrate(tmp_path / "bad", trials=1, weights={"bogus": 2.0}, **TINY)


def test_the_rerun_command_rebuilt_from_study_db_names_every_option(tmp_path, monkeypatch):
    """Issue 44: the command ``nothanks verify`` rebuilds from study.db left out
    --heldout (and --start, --check-seed, --check-games); it names every option the
    study was started with, and it runs (resumes the study, nothing refused)."""
    import shlex

    from nothanks.cli.main import build_parser
    from nothanks.experiments.verify import verify
    monkeypatch.setattr(ex, "run_design", lambda *args, **kwargs: None)  # no games:
    monkeypatch.setattr(ex, "load", lambda folder: None)  # only the options matter
    monkeypatch.setattr(cal_study, "measure", lambda log, targets: {
        t: cal.Measure(0.5) for t in targets})
    checked = []

    def heldout_check(out, *args, **kwargs):
        checked.append(kwargs)
        (out / "heldout.md").write_text("held out")
        return out / "heldout.md"
    monkeypatch.setattr(cal, "heldout_check", heldout_check)
    out = tmp_path / "study"
    given = ["calibrate", "--out", str(out), "--params", "fraction,s", "--targets",
             "tom1_share", "--heldout", "tom2_share,tom2_edge", "--trials", "2", "--games",
             "4", "--seed", "7", "--stages", "0.5,1", "--study-name", "fit", "--start",
             "fraction=0.3,s=0.05;fraction=0.45", "--fixed", "d=0.5", "--weights",
             "tom1_share=2", "--model-preset", "thesis-fit", "--check-seed", "99",
             "--check-games", "3", "--jobs", "1", "--no-progress"]
    assert main(given) == 0
    [report] = [r for r in verify(out) if r.kind == "calibration study"]
    command = report.repair.removeprefix("re-run the study: ")
    rebuilt = shlex.split(command)
    assert rebuilt[:2] == ["nothanks", "calibrate"]
    assert "--heldout" in rebuilt, command

    parser, _ = build_parser()
    how_to_run = {"jobs", "scheduler", "no_progress", "storage"}  # not what is written

    def meaning(argv: list[str]) -> dict:
        args = vars(parser.parse_args(argv))
        for key in ("params", "targets", "heldout", "stages"):
            args[key] = None if args[key] is None else space.split_names(args[key])
        args["stages"] = [float(x) for x in args["stages"]]
        args["start"] = space.parse_start(args["start"])
        args["fixed"] = space.parse_fixed(args["fixed"])
        args["weights"] = space.parse_weights(args["weights"])
        return {k: v for k, v in args.items() if k not in how_to_run}
    assert meaning(rebuilt[1:]) == meaning(given)
    assert main(rebuilt[1:]) == 0  # the named command runs: it resumes the study
    assert len(checked) == 2 and checked[1]["seed"] == 99 and checked[1]["games"] == 3
    assert len(optuna.load_study(study_name="fit",
                                 storage=f"sqlite:///{out / 'study.db'}").trials) == 2
