"""Random kills of the long jobs at small sizes (issue 28): ``run``, ``tournament``,
``calibrate`` and ``infer`` are each killed (SIGKILL) at three seeded random moments in a
row, then completed, and must end identical to an uninterrupted run, with no worker
outliving a killed attempt. The driver, and the benchmark that kills them for an hour:
benchmarks/random_kills.py, run here as a script, as a user runs it.
"""
from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys

import pytest

from helpers import ROOT

#: Size of each job (games per condition, per simulated player; about the tournament's).
SIZES = {"run": 2, "tournament": 2, "calibrate": 2, "infer": 2}
KILLS = 3
#: calibrate needs Optuna (the calibrate extra, part of dev)
OPTUNA = importlib.util.find_spec("optuna") is not None
JOBS = [pytest.param(job, marks=pytest.mark.skipif(
    job == "calibrate" and not OPTUNA, reason="calibrate needs optuna")) for job in SIZES]


@pytest.mark.timeout(900)
@pytest.mark.parametrize("job", JOBS)
def test_a_job_killed_at_random_moments_ends_as_an_uninterrupted_run(job, tmp_path):
    env = os.environ | {"PYTHONPATH": str(ROOT), "MPLBACKEND": "Agg"}
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "random_kills.py"), "--job", job,
         "--kills", str(KILLS), "--games", str(SIZES[job]), "--seed", "28", "--out",
         str(tmp_path / "kills")],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=850)
    print(done.stdout)
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    [report] = [line for line in done.stdout.splitlines() if line.startswith(f"{job}: ")]
    assert report.endswith(": identical to the uninterrupted run"), report
    kills = int(re.match(rf"{job}: (\d+) kills in", report).group(1))
    assert kills >= 1, f"no kill landed before the job ended: {report}"
