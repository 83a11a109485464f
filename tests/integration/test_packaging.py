"""The project's own files install everything: pyproject is the single dependency source."""
from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
import tomllib
from importlib import import_module
from pathlib import Path

import pytest

from nothanks.cli import main

ROOT = Path(__file__).resolve().parents[2]


def test_environment_yml_installs_the_package_with_existing_extras():
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    extras = set(pyproject["project"]["optional-dependencies"])
    env = (ROOT / "environment.yml").read_text()
    assert "conda-forge" in env
    python = re.search(r"python=(\d+\.\d+)", env).group(1)
    assert pyproject["project"]["requires-python"] == f">={python}"
    pip_line = re.search(r"-e \.\[([^\]]*)\]", env)
    assert pip_line, "environment.yml must pip-install the package itself"
    wanted = set(pip_line.group(1).split(","))
    assert wanted <= extras, f"environment.yml names extras {wanted - extras} not in pyproject"
    # no dependency is pinned in environment.yml behind pyproject's back
    deps_section = env.split("\ndependencies:", 1)[1]
    conda_section, _, pip_section = deps_section.partition("- pip:")
    conda_deps = re.findall(r"^\s+- ([a-zA-Z][\w-]*)", conda_section, flags=re.M)
    assert set(conda_deps) <= {"python", "pip"}, conda_deps
    # a pip line besides the package is a pin pyproject's extras hold too (e.g. pyibl)
    declared = {d.replace(" ", "") for deps in pyproject["project"]["optional-dependencies"]
                .values() for d in deps}
    pinned = set(re.findall(r"^\s+- ([a-zA-Z][\w.-]*==[\w.]+)", pip_section, flags=re.M))
    assert pinned <= declared, f"environment.yml pins {pinned - declared} not in pyproject"


def test_dev_extra_covers_notebooks_and_dask():
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    dev = " ".join(pyproject["project"]["optional-dependencies"]["dev"])
    assert "notebooks" in dev and "dist" in dev and "pytest" in dev


def test_makefile_targets_exist():
    makefile = (ROOT / "Makefile").read_text()
    for target in ("setup", "lab", "test", "test-fast", "bench", "figures", "play"):
        assert re.search(rf"^{target}:", makefile, flags=re.M), target


# ------------------------------------------------------------------ console script
def test_console_command_points_at_the_cli_main():
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    module, _, function = scripts["nothanks"].partition(":")
    assert getattr(import_module(module), function) is main


# ------------------------------------------------------------------ make test
def fake_venv(work: Path, python_exit: int, ruff_exit: int = 0, contracts_exit: int = 0
              ) -> Path:
    """A copy of the Makefile next to a pyproject, with stand-in .venv/bin/python,
    .venv/bin/ruff and .venv/bin/lint-imports that exit with ``python_exit``, ``ruff_exit``
    and ``contracts_exit``; the install stamps are newer than pyproject.toml."""
    work.mkdir(parents=True, exist_ok=True)
    shutil.copy(ROOT / "Makefile", work / "Makefile")
    (work / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    bin_dir = work / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    for name, code in (("python", python_exit), ("ruff", ruff_exit),
                       ("lint-imports", contracts_exit)):
        (bin_dir / name).write_text(f"#!/bin/sh\nexit {code}\n")
        (bin_dir / name).chmod(0o755)
    old = (work / "pyproject.toml").stat().st_mtime - 100
    os.utime(work / "pyproject.toml", (old, old))
    for stamp in (".installed-dev", ".installed-notebooks"):
        (work / ".venv" / stamp).touch()
    return work


needs_make = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


@needs_make
def test_make_reinstalls_only_when_pyproject_changes(tmp_path):
    work = fake_venv(tmp_path, 0)
    dry = subprocess.run(["make", "-n", "test"], cwd=work, capture_output=True, text=True)
    assert dry.returncode == 0, dry.stderr
    assert "pip install" not in dry.stdout and "-m pytest" in dry.stdout
    (work / "pyproject.toml").touch()  # now newer than the stamps
    dry = subprocess.run(["make", "-n", "test"], cwd=work, capture_output=True, text=True)
    assert "pip install --quiet -e '.[dev]'" in dry.stdout


@needs_make
def test_make_test_fails_when_pytest_collects_nothing(tmp_path):
    work = fake_venv(tmp_path, 5)  # pytest's exit code for "no tests collected"
    run = subprocess.run(["make", "test"], cwd=work, capture_output=True, text=True)
    assert run.returncode != 0
    assert "set -euo pipefail" in (ROOT / ".ci" / "run").read_text()
    assert "make test" in (ROOT / ".ci" / "run").read_text()


@needs_make
def test_make_test_lints_with_ruff_first_and_stops_on_findings(tmp_path):
    dry = subprocess.run(["make", "-n", "test"], cwd=fake_venv(tmp_path / "dry", 0),
                         capture_output=True, text=True)
    lines = dry.stdout.splitlines()
    ruff = next(i for i, line in enumerate(lines) if "ruff check" in line)
    pytest_line = next(i for i, line in enumerate(lines) if "-m pytest" in line)
    assert ruff < pytest_line
    assert all(path in lines[ruff] for path in ("nothanks", "tests", "benchmarks", "notebooks"))
    clean = subprocess.run(["make", "test"], cwd=fake_venv(tmp_path / "clean", 0),
                           capture_output=True, text=True)
    assert clean.returncode == 0, clean.stderr
    findings = subprocess.run(["make", "test"], cwd=fake_venv(tmp_path / "findings", 0, 1),
                              capture_output=True, text=True)
    assert findings.returncode != 0


@needs_make
def test_make_test_checks_the_layer_contracts_before_the_tests(tmp_path):
    dry = subprocess.run(["make", "-n", "test"], cwd=fake_venv(tmp_path / "dry", 0),
                         capture_output=True, text=True)
    lines = dry.stdout.splitlines()
    contracts = next(i for i, line in enumerate(lines) if "lint-imports" in line)
    assert contracts < next(i for i, line in enumerate(lines) if "-m pytest" in line)
    broken = subprocess.run(["make", "test"], cwd=fake_venv(tmp_path / "broken", 0, 0, 1),
                            capture_output=True, text=True)
    assert broken.returncode != 0
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    assert config["root_package"] == "nothanks"
    assert {c["type"] for c in config["contracts"]} >= {"layers", "forbidden"}


def test_the_package_keeps_its_layer_contracts():
    """The real check (as make test runs it): no module imports from a layer above it."""
    lint = Path(sys.executable).parent / "lint-imports"
    run = subprocess.run([str(lint)], cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "0 broken" in run.stdout


def test_ruff_selects_the_agreed_rule_sets():
    lint = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["ruff"]["lint"]
    assert {"E", "F", "W", "I", "B", "UP", "SIM"} <= set(lint["select"])


def test_the_command_line_parser_loads_no_heavy_library():
    """`nothanks --help` must answer at once: building the parser imports neither
    pandas nor numpy nor the models (what it does import is timed in docs/benchmarks.md)."""
    code = ("import sys; from nothanks.cli import build_parser; build_parser(); "
            "print(sorted(m for m in ('pandas', 'numpy', 'numba', 'optuna', 'nothanks.agents')"
            " if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=ROOT).stdout.strip()
    assert out == "[]"


def test_no_module_imports_another_modules_private_names():
    """The other half of SLF001 (which sees ``obj._x`` reads, not imports): no
    ``from .module import _name`` across modules of the package."""
    found = []
    for path in (ROOT / "nothanks").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module != "__future__":
                found += [f"{path.relative_to(ROOT)}:{node.lineno} {a.name}"
                          for a in node.names
                          if a.name.startswith("_") and not a.name.startswith("__")]
    assert not found, found
