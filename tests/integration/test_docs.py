"""The documentation builds without a single warning, and the API reference covers every
public name: a broken reference or a silently empty page fails the suite."""
from __future__ import annotations

import importlib
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"

#: API page -> the packages whose ``__all__`` it documents.
API_PAGES = {
    "rules": ["nothanks.rules"],
    "actr": ["nothanks.actr"],
    "agents": ["nothanks.agents", "nothanks.agents.cognitive", "nothanks.testing"],
    "experiments": ["nothanks.experiments"],
    "analysis": ["nothanks.analysis"],
    "figures": ["nothanks.figures", "nothanks.report"],
    "calibration": ["nothanks.studies.calibration"],
    "ui": ["nothanks.ui"],
}
#: Names re-exported from another subpackage, documented where they are defined.
DOCUMENTED_ELSEWHERE = {"nothanks.experiments": {"HumanStandIn"}}


@pytest.fixture(scope="module")
def html(tmp_path_factory) -> Path:
    """Build the HTML docs once, warnings as errors, as ``make docs`` does."""
    out = tmp_path_factory.mktemp("docs")
    result = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
         "-d", str(out / "doctrees"), str(DOCS), str(out / "html")],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 0, f"sphinx-build failed:\n{result.stderr}{result.stdout}"
    assert "WARNING" not in result.stderr, result.stderr
    return out / "html"


#: The user guide's pages by part, as docs/index.md's toctrees list them.
GUIDE = {
    "Tutorials": ["tour", "notebooks"],
    "How-to guides": ["run-experiments", "dask", "calibrate", "lab-session",
                      "participant-logs", "openspiel",
                      "pettingzoo"],
    "Reference": ["cli", "log-schema", "agent-specs", "rules", "benchmarks"],
    "Explanation": ["architecture", "actr", "models", "readings", "thesis-results",
                    "which-order", "fitting", "higher-orders", "ismcts", "tournament",
                    "calibration"],
}


def test_guide_and_api_pages_are_built(html):
    guide = [page for pages in GUIDE.values() for page in pages]
    for page in ("index", *guide, "api/index", "api/figures",
                 *(f"api/{name}" for name in API_PAGES)):
        assert (html / f"{page}.html").is_file(), page
    index = (html / "index.html").read_text()
    for caption in (*GUIDE, "API reference"):
        assert caption in index, caption
    for page in (*guide, "api/index"):
        assert f'href="{page}.html"' in index, f"index.html does not link {page}.html"


def test_reference_pages_are_generated_from_the_code(html):
    """The CLI, log-schema and agent-spec pages hold what the code says, not a copy."""
    from nothanks.agents import agent_parameters, registered
    from nothanks.cli import commands
    from nothanks.experiments.schema import TABLES

    cli = (html / "cli.html").read_text()
    for name in commands():
        assert f"usage: nothanks {name}" in cli, f"cli.html lacks nothanks {name} --help"
    schema = (html / "log-schema.html").read_text()
    for table, columns in TABLES.items():
        assert f'id="{table}"' in schema, table
        for column in columns:
            assert f'<span class="pre">{column.name}</span>' in schema, (table, column.name)
    specs = (html / "agent-specs.html").read_text()
    for name in registered():
        assert f'<span class="pre">{name}</span>' in specs, name
        for key in agent_parameters(name):
            assert f'<span class="pre">{key}=' in specs, (name, key)


def test_readme_is_a_front_door():
    """At most 250 lines, the two commands, and every relative link points at a file."""
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 250
    assert "make lab" in readme and "make test" in readme
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", readme)
    local = [link for link in links if "://" not in link]
    assert any(link.startswith("docs/") for link in local)
    missing = [link for link in local if not (ROOT / link).exists()]
    assert not missing, f"README links to missing files: {missing}"


#: Numbers as the README spells them.
NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
                "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen",
                "seventeen", "eighteen", "nineteen", "twenty")


def test_the_readme_counts_the_notebooks():
    readme = (ROOT / "README.md").read_text()
    [word] = re.findall(r"\| `notebooks/` \| (\w+) notebooks", readme)
    notebooks = sorted((ROOT / "notebooks").glob("*.ipynb"))
    assert NUMBER_WORDS.index(word) == len(notebooks), (word, [p.name for p in notebooks])


def test_api_pages_document_docstrings(html):
    actr = (html / "api" / "actr.html").read_text()
    assert 'id="nothanks.actr.DeclarativeMemory"' in actr
    assert "A declarative memory with its own model clock" in actr
    assert 'id="nothanks.actr.DeclarativeMemory.retrieve"' in actr
    figures = (html / "api" / "figures.html").read_text()
    assert 'id="nothanks.figures.proportional_ranking"' in figures
    assert 'id="nothanks.report.make_figures"' in figures


@pytest.mark.parametrize("page", sorted(API_PAGES))
def test_every_public_name_is_documented(html, page):
    text = (html / "api" / f"{page}.html").read_text()
    for package in API_PAGES[page]:
        public = set(importlib.import_module(package).__all__)
        missing = public - DOCUMENTED_ELSEWHERE.get(package, set()) - {
            name for name in public if f'id="{package}.{name}"' in text}
        assert not missing, f"{page}.html lacks {sorted(missing)} of {package}.__all__"


def test_docs_target_and_extra():
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(r"^docs:", makefile, flags=re.M)
    assert re.search(r"sphinx.* -W ", makefile)
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]
    assert any(dep.startswith("sphinx") for dep in extras["docs"])
    assert "docs" in " ".join(extras["dev"])
