"""Import-graph measures of the package (issue 45): top-level packages and modules, the
layers of the layers contract, import pairs between top-level units, imports running up
the layers, and cycles between top-level units.

    python benchmarks/import_graph.py             # this working tree's nothanks
    python benchmarks/import_graph.py --root DIR  # the nothanks under DIR

Another revision: ``git archive REV nothanks pyproject.toml | tar -x -C DIR``.

The layers are read from DIR/pyproject.toml (the first layers contract); a unit is a
top-level package or module of ``nothanks`` (``nothanks.play``, ``nothanks.files``).
"""
from __future__ import annotations

import argparse
import sys
import tomllib
from pathlib import Path

import grimp


def measures(root: Path) -> dict[str, object]:
    """The measures of the package under ``root`` (its parent folder of ``nothanks``)."""
    sys.path.insert(0, str(root))
    try:
        graph = grimp.build_graph("nothanks", cache_dir=None)
    finally:
        sys.path.remove(str(root))
    config = tomllib.loads((root / "pyproject.toml").read_text())
    contract = next(c for c in config["tool"]["importlinter"]["contracts"]
                    if c["type"] == "layers" and not c.get("containers"))
    level = {}
    for depth, layer in enumerate(reversed(contract["layers"])):
        for name in layer.split("|"):
            level[name.strip()] = depth

    def unit(module: str) -> str:
        return ".".join(module.split(".")[:2])

    units = {unit(m) for m in graph.modules if m != "nothanks"}
    pairs = set()
    for module in graph.modules:
        for imported in graph.find_modules_directly_imported_by(module):
            a, b = unit(module), unit(imported)
            if a != b and a != "nothanks" and b != "nothanks":
                pairs.add((a, b))
    upward = sorted((a, b) for a, b in pairs if a in level and b in level
                    and level[b] > level[a])
    unlayered = sorted(units - set(level))
    cycles = sorted({tuple(sorted((a, b))) for a, b in pairs if (b, a) in pairs})
    return {"units": len(units), "layers": len(contract["layers"]), "pairs": len(pairs),
            "upward": upward, "cycles": cycles, "unlayered": unlayered}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1],
                        help="folder holding nothanks/ and pyproject.toml (default: this tree)")
    args = parser.parse_args(argv)
    found = measures(args.root)
    print(f"top-level packages and modules: {found['units']}; layers: {found['layers']}; "
          f"import pairs between them: {found['pairs']}; running upward: "
          f"{len(found['upward'])}; two-way pairs (cycles): {len(found['cycles'])}; "
          f"outside the layers: {found['unlayered'] or 'none'}")
    for a, b in found["upward"] + found["cycles"]:
        print(f"  {a} -> {b}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
