"""Cross-file private reads inside ``nothanks/actr`` (issue 45): how many ``self._x`` reads
name a private attribute or method that another file of the package defines.

    python benchmarks/private_reads.py             # this working tree's nothanks/actr
    python benchmarks/private_reads.py --root DIR  # the nothanks/actr under DIR
    python benchmarks/private_reads.py --list      # and each read, file by file

A mixin reading ``self._x`` that another mixin sets is coupling that neither ruff's
SLF001 (which skips ``self``) nor import-linter sees. A file *defines* ``_x`` when it
assigns ``self._x`` (or ``self._x, ... = ...``) or defines a method or class attribute
``_x``; a read is an ``ast.Attribute`` load ``self._x``. A read counts when ``_x`` is
defined in some other file of the package but not in the reading file. Dunder names
are not counted. Reads of other objects' private members (``obj._x``) are counted
separately: SLF001 forbids them in the package.
"""
from __future__ import annotations

import argparse
import ast
from collections import Counter
from pathlib import Path


def _defined(tree: ast.AST) -> set[str]:
    """Private names the module defines: ``self._x`` assignments, methods, class members."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) and (
                isinstance(node.value, ast.Name) and node.value.id == "self"):
            names.add(node.attr)
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                    names.add(item.name)
                elif isinstance(item, ast.Assign | ast.AnnAssign):
                    targets = item.targets if isinstance(item, ast.Assign) else [item.target]
                    names.update(t.id for t in targets if isinstance(t, ast.Name))
    return {n for n in names if n.startswith("_") and not n.startswith("__")}


def _reads(tree: ast.AST) -> tuple[list[str], list[str]]:
    """Private ``self._x`` loads, and private loads ``obj._x`` of other objects."""
    own, other = [], []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load)
                and node.attr.startswith("_") and not node.attr.startswith("__")):
            if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
                own.append(node.attr)
            else:
                other.append(f"{ast.unparse(node.value)}.{node.attr}")
    return own, other


def count(package: Path) -> dict[str, object]:
    """The counts for the modules under ``package`` (a folder of .py files)."""
    trees = {path.name: ast.parse(path.read_text()) for path in sorted(package.glob("*.py"))}
    defined = {name: _defined(tree) for name, tree in trees.items()}
    reads: list[tuple[str, str, str]] = []  # (reading file, name, defining file)
    others: list[tuple[str, str]] = []
    for name, tree in trees.items():
        own, other = _reads(tree)
        for attr in own:
            if attr in defined[name]:
                continue
            owners = [f for f, names in defined.items() if f != name and attr in names]
            if owners:
                reads.append((name, attr, "/".join(owners)))
        others.extend((name, expression) for expression in other)
    return {
        "read_sites": len(reads),
        "distinct_names": len({attr for _, attr, _ in reads}),
        "distinct_file_name_pairs": len({(f, attr) for f, attr, _ in reads}),
        "other_objects_private_reads": len(others),
        "by_file": Counter(f for f, _, _ in reads),
        "reads": reads,
        "others": others,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent,
                        help="the folder holding nothanks/ (default: this tree)")
    parser.add_argument("--list", action="store_true", help="list every counted read")
    args = parser.parse_args()
    result = count(args.root / "nothanks" / "actr")
    for key in ("read_sites", "distinct_names", "distinct_file_name_pairs",
                "other_objects_private_reads"):
        print(f"{key}: {result[key]}")
    print("by reading file:", dict(sorted(result["by_file"].items())))
    if args.list:
        for reader, attr, owner in sorted(set(result["reads"])):
            print(f"  {reader}: self.{attr}  (defined in {owner})")
        for reader, expression in result["others"]:
            print(f"  {reader}: {expression}")


if __name__ == "__main__":
    main()
