"""The project's own files install everything: pyproject is the single dependency source."""
from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


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
    conda_deps = re.findall(r"^\s+- ([a-zA-Z][\w-]*)", deps_section, flags=re.M)
    assert set(conda_deps) <= {"python", "pip"}, conda_deps


def test_dev_extra_covers_notebooks_and_dask():
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    dev = " ".join(pyproject["project"]["optional-dependencies"]["dev"])
    assert "notebooks" in dev and "dist" in dev and "pytest" in dev


def test_makefile_targets_exist():
    makefile = (ROOT / "Makefile").read_text()
    for target in ("setup", "lab", "test", "bench", "figures", "play"):
        assert re.search(rf"^{target}:", makefile, flags=re.M), target
