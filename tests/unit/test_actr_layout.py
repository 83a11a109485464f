"""DeclarativeMemory's parts: a composition of objects (no part inherits from another, none
reads another file's private fields), each part documented, and every member
docs/actr.md's "Where the code lives" names defined in the module it names."""
from __future__ import annotations

import importlib
import re
import subprocess
import sys
from pathlib import Path

from nothanks.actr import DeclarativeMemory
from nothanks.actr.base_level import BaseLevels
from nothanks.actr.matching import RequestMatching
from nothanks.actr.noise import NoiseSource
from nothanks.actr.retrieval import Retriever
from nothanks.actr.store import ChunkStore

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "actr.md"
PARTS = (DeclarativeMemory, ChunkStore, BaseLevels, NoiseSource, RequestMatching, Retriever)


def _where_the_code_lives() -> dict[str, list[str]]:
    """Module name -> the names in backticks its row of the table gives as its job."""
    section = DOCS.read_text().split("## Where the code lives\n", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        modules = re.findall(r"`(\w+)\.py`", cells[0])
        if len(cells) != 2 or not modules:
            continue
        names = [name for name in re.findall(r"`([^`]+)`", cells[1])
                 if not name.endswith(".py")]
        for module in modules:
            rows[module] = names
    return rows


def test_the_memory_holds_its_parts_instead_of_inheriting_them():
    for part in PARTS:
        assert part.__bases__ == (object,), part
    memory = DeclarativeMemory(seed=0)
    held = {type(value) for value in vars(memory).values()}
    assert set(PARTS[1:]) <= held


def test_no_file_of_the_memory_reads_another_files_private_fields():
    """The count of benchmarks/private_reads.py, run as a script (it found 182 such
    reads when the memory was seven mixins)."""
    result = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "private_reads.py"),
                             "--list"], capture_output=True, text=True, check=True)
    assert "read_sites: 0\n" in result.stdout, result.stdout


def test_every_part_lives_in_a_documented_module():
    documented = _where_the_code_lives()
    modules = {part.__module__.rsplit(".", 1)[1] for part in PARTS}
    assert modules - set(documented) == set()
    assert {"memory", "store", "base_level", "noise", "matching", "retrieval"} <= modules


def test_the_docs_name_each_member_where_it_is_defined():
    wrong = []
    for module, names in _where_the_code_lives().items():
        imported = importlib.import_module(f"nothanks.actr.{module}")
        for name in names:
            owner = next((part for part in PARTS if name in part.__dict__), None)
            if owner is not None:
                defined_in = owner.__module__
            else:
                value = getattr(imported, name, None)
                defined_in = getattr(value, "__module__", None)
            if defined_in != imported.__name__:
                wrong.append(f"{name}: docs say {module}.py, defined in {defined_in}")
    assert not wrong
