"""Random kills of the long jobs at small sizes (issue 28): ``run``, ``tournament``,
``calibrate`` and ``infer`` are each killed (SIGKILL) at three seeded random moments in a
row, then completed, and must end identical to an uninterrupted run, with no worker
outliving a killed attempt. The driver and the benchmark-sized version (an hour of kills):
benchmarks/random_kills.py. (``train`` does not exist yet.)
"""
from __future__ import annotations

import pytest

from helpers import load_benchmark

pytest.importorskip("optuna")

#: Size of each job (games per condition, per simulated player; about the tournament's).
SIZES = {"run": 2, "tournament": 2, "calibrate": 2, "infer": 2}
KILLS = 3


@pytest.fixture(scope="module")
def driver():
    module = load_benchmark("random_kills")
    module.warm(list(SIZES))  # attempts are forked: they start at once, kills land in work
    return module


@pytest.mark.timeout(300)
@pytest.mark.parametrize("job", list(SIZES))
def test_a_job_killed_at_random_moments_ends_as_an_uninterrupted_run(driver, job, tmp_path):
    report = driver.session(job, tmp_path, games=SIZES[job], kills=KILLS, seed=28)
    print(report.render())
    assert report.ok, report.render()
    assert report.kills >= 1, f"no kill landed before the job ended: {report.render()}"
