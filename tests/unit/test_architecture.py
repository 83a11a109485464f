"""docs/architecture.md matches the code (issue 45): its layer table names every package
and top-level module of nothanks, and nothing that is not one; its layers are the layers
contract of pyproject.toml, in order."""
from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "nothanks"


def units() -> set[str]:
    """Every package and top-level module of nothanks (``nothanks.X``)."""
    modules = {f"nothanks.{p.stem}" for p in PACKAGE.glob("*.py") if p.stem != "__init__"}
    packages = {f"nothanks.{p.name}" for p in PACKAGE.iterdir()
                if p.is_dir() and (p / "__init__.py").is_file()}
    return modules | packages


def layer_table() -> list[set[str]]:
    """The units named in each row of the layer table (the first column aside)."""
    text = (ROOT / "docs" / "architecture.md").read_text()
    table = text[text.index("| layer | modules |"):]
    rows = table[:table.index("\n\n")].splitlines()[2:]
    return [set(re.findall(r"`(nothanks\.\w+)", row.split("|", 2)[2])) for row in rows]


def test_the_layer_table_names_every_package_and_top_level_module():
    named = set().union(*layer_table())
    assert units() - named == set(), "add to docs/architecture.md's layer table"
    assert named - units() == set(), "docs/architecture.md names what does not exist"


def test_the_layer_table_is_the_layers_contract():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    contract = next(c for c in config["tool"]["importlinter"]["contracts"]
                    if c["type"] == "layers" and not c.get("containers"))
    layers = [{name.strip() for name in layer.split("|")} for layer in contract["layers"]]
    assert [row for row in layer_table() if row] == layers
