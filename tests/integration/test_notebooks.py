"""Every notebook is committed without outputs and runs top to bottom with small parameters."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import nbclient
import nbformat
import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("[0-9][0-9]_*.ipynb"))
#: What CI sets: small runs and no thinking pauses.
SMALL_ENV = {"NOTHANKS_SMALL": "1", "NOTHANKS_THINKING": "0"}


def test_the_suite_is_complete():
    numbers = [nb.name[:2] for nb in NOTEBOOKS]
    assert numbers == [f"{i:02d}" for i in range(1, 14)], numbers


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_is_stripped_and_introduced(notebook):
    nb = json.loads(notebook.read_text())
    cells = nb["cells"]
    assert cells[0]["cell_type"] == "markdown" and "".join(cells[0]["source"]).startswith("# ")
    code = [c for c in cells if c["cell_type"] == "code"]
    assert all(c["outputs"] == [] and c["execution_count"] is None for c in code), (
        f"{notebook.name} has outputs: clear them before committing")
    tagged = [c for c in code if "parameters" in c.get("metadata", {}).get("tags", [])]
    assert len(tagged) == 1, f"{notebook.name} needs exactly one cell tagged 'parameters'"
    assert "NOTHANKS_" in "".join(tagged[0]["source"])
    assert nb["metadata"]["kernelspec"]["name"] == "python3"


@pytest.fixture(scope="module")
def shared_out(tmp_path_factory, quick_figures):
    """One output folder for the whole suite, its simulation cache seeded with a copy of
    the suite's shared quick build (the simulations are made once per test run): the
    notebooks reuse it, as they would a researcher's cache."""
    out = tmp_path_factory.mktemp("notebook-out")
    shutil.copytree(quick_figures / "cache", out / "cache")
    return out


#: What each notebook must show once run: widget apps or figures.
SHOWS = {"01": "widget", "02": "widget", "03": "widget", "04": "image", "05": "image",
         "06": "image", "07": "image",
         "08": "widget", "09": "image", "10": "image", "11": "image", "12": "image",
         "13": "image"}
MIME = {"widget": "application/vnd.jupyter.widget-view+json", "image": "image/png"}


@pytest.mark.slow
@pytest.mark.timeout(600)
@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs_top_to_bottom(notebook, shared_out, monkeypatch):
    for key, value in {**SMALL_ENV, "NOTHANKS_OUT": str(shared_out)}.items():
        monkeypatch.setenv(key, value)  # the kernel inherits this environment
    nb = nbformat.read(notebook, as_version=4)
    client = nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                                     resources={"metadata": {"path": str(notebook.parent)}})
    try:
        client.execute()
    except nbclient.exceptions.CellExecutionError as exc:
        pytest.fail(f"{notebook.name} failed:\n{exc}")
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    wanted = MIME[SHOWS[notebook.name[:2]]]
    assert any(wanted in o.get("data", {}) for o in outputs), (
        f"{notebook.name} shows no {wanted} output")
