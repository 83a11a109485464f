"""Run every benchmark in this folder (each module's ``main()``) and print its table.

Run: make bench   (or: python benchmarks/run_all.py)
"""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
#: Quick benchmarks first; the long calibration run is separate (see docs/benchmarks.md).
ORDER = ["bench_engine", "bench_actr", "bench_pyactup", "bench_models", "bench_experiments",
         "bench_figures"]


def main() -> int:
    for name in ORDER:
        path = HERE / f"{name}.py"
        if not path.exists():
            continue
        print(f"\n=== {name} ===", flush=True)
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        module.main([])
    return 0


if __name__ == "__main__":
    sys.exit(main())
