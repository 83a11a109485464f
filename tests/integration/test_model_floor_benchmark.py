"""benchmarks/model_floor.py's worker: the compiled calls a workload makes are timed, and
the work left after an empty call's cost is taken off each lies between 0 and the time
measured around the calls."""
from __future__ import annotations

import json
import subprocess
import sys

from helpers import ROOT


def test_a_tom0_decision_is_one_core_call_and_draws_no_noise_array():
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "model_floor.py"), "--worker",
         "decision_tom0", "--quick"], capture_output=True, text=True, check=True)
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert 0 < result["lower"] < result["upper"] < result["value"]
    # a ToM0 decision with tokens calls the core once (one without tokens takes and calls
    # nothing) and never draws the instances' noise as an array: the core draws only the
    # instances that can win (nothanks.kernels.retrieval); nothing else compiled is called
    assert set(result["by_call"]) == {"decide_tom0"}
    assert 0.5 < result["by_call"]["decide_tom0"][1] <= 1.0
    assert result["empty_call_ns"] > 0
