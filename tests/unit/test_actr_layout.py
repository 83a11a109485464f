"""DeclarativeMemory's parts: each member defined in one part only, each part documented, and
every member docs/actr.md's "Where the code lives" names defined in the module it names."""
from __future__ import annotations

import importlib
import re
from pathlib import Path

from nothanks.actr import DeclarativeMemory

DOCS = Path(__file__).resolve().parents[2] / "docs" / "actr.md"
KEPT_DUNDERS = {"__len__", "__contains__", "__repr__", "__init__"}


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


def _parts() -> list[type]:
    return [part for part in DeclarativeMemory.__mro__ if part is not object]


def test_each_member_is_defined_in_one_part_only():
    """A name defined in two parts would silently shadow one of them."""
    where: dict[str, str] = {}
    clashes = []
    for part in _parts():
        for name in part.__dict__:
            if name.startswith("__") and name not in KEPT_DUNDERS:
                continue
            if name in where:
                clashes.append(f"{name}: {where[name]} and {part.__name__}")
            where[name] = part.__name__
    assert not clashes
    assert "retrieve" in where and "_draw_noise" in where


def test_every_part_lives_in_a_documented_module():
    documented = _where_the_code_lives()
    modules = {part.__module__.rsplit(".", 1)[1] for part in _parts()}
    assert modules - set(documented) == set()
    assert {"memory", "store", "noise", "retrieval"} <= modules


def test_the_docs_name_each_member_where_it_is_defined():
    wrong = []
    for module, names in _where_the_code_lives().items():
        imported = importlib.import_module(f"nothanks.actr.{module}")
        for name in names:
            owner = next((part for part in _parts() if name in part.__dict__), None)
            if owner is not None:
                defined_in = owner.__module__
            else:
                value = getattr(imported, name, None)
                defined_in = getattr(value, "__module__", None)
            if defined_in != imported.__name__:
                wrong.append(f"{name}: docs say {module}.py, defined in {defined_in}")
    assert not wrong
