"""``nothanks figures --quick`` writes every file its README lists (into a tmp dir)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from nothanks.cli import main


@pytest.fixture(scope="module")
def built(quick_figures) -> Path:
    return quick_figures


def test_every_file_the_readme_lists_exists(built):
    out = built / "out"
    readme = (out / "README.md").read_text()
    linked = re.findall(r"\]\(([^)]+)\)", readme)
    assert len(linked) >= 2 * 9 + 5  # 9 figures x (png, pdf) + the tables
    for name in linked:
        assert (out / name).is_file(), name
        assert (out / name).stat().st_size > 0, name
    for figure in range(8, 15):
        assert f"| Figure {figure} |" in readme
    assert "synthetic stand-ins, not real people" in readme


def test_results_table_puts_thesis_values_beside_ours(built):
    results = (built / "out" / "results.md").read_text()
    row = next(line for line in results.splitlines() if line.startswith("| Welch t ToM0 vs ToM1 |"))
    thesis, where, ours, source = [c.strip() for c in row.strip("|").split("|")][1:]
    assert source == "simulation"
    assert thesis == "t(909.8) = -15.8, p < 0.005" and where == "§5.2.2, Fig. 11"
    # a t at the thesis's 500 games, or one marked as not comparable (quick runs)
    assert re.search(r"t\(≈?\d+(\.\d)?\) = -?\d+\.\d\d", ours)
    assert "500 games" in ours
    assert "thesis's test: no flag" in ours  # the rows-Welch over-rejects: never a flag
    assert "## Valid tests" in results
    assert "not computed" not in results.split("rt sweep ToM2 vs ToM1")[0]


# A second build on a warm cache re-simulates nothing: checked by
# tests/integration/test_outputs_where_told.py::test_figures_writes_only_into_its_out_folder, whose
# figures build runs on a copy of the shared quick build's cache (one build, not two).


def test_missing_participant_folder_is_a_clear_error(tmp_path, capsys):
    """Checked with the other options, before anything is simulated or written."""
    with pytest.raises(SystemExit) as stop:
        main(["figures", "--quick", "--participants", str(tmp_path / "nobody"),
              "--out", str(tmp_path / "out"), "--cache", str(tmp_path / "cache"),
              "--no-progress"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "--participants" in err and "does not exist; give an existing folder" in err
    assert not (tmp_path / "out").exists() and not (tmp_path / "cache").exists()
