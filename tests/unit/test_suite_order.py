"""The order and the split of ``make test`` (tests/conftest.py, the list in
tests/helpers.py, the Makefile): the order names test files that exist (a renamed file
would silently lose its place), every test file lives in tests/unit or
tests/integration, and every test file that runs JAX in the test process carries the
``jax`` marker, imports JAX only inside its tests, and is an integration test.
``make test`` runs the ``jax`` tests in a pytest run of their own, after the others:
collecting the others imports no JAX, so no process that ran JAX forks (JAX's threads
do not survive a fork)."""
from __future__ import annotations

import ast
import re

from helpers import LONGEST_FIRST, ROOT

TESTS = ROOT / "tests"
FILES = sorted(TESTS.rglob("test_*.py"))
#: Imports that start JAX (the learner is the package's only JAX module).
JAX_MODULES = ("jax", "optax", "nothanks.studies.selfplay.learner")
#: Files that run JAX through the package (the trainer) without importing it themselves.
JAX_THROUGH_THE_PACKAGE = {"test_selfplay_train.py"}


def test_the_ordered_files_exist_once():
    assert len(LONGEST_FIRST) == len(set(LONGEST_FIRST)), "a file is named twice"
    names = [path.name for path in FILES]
    missing = [name for name in LONGEST_FIRST if name not in names]
    assert not missing, f"tests/helpers.py orders test files that do not exist: {missing}"
    assert len(names) == len(set(names)), "two test files share a name"


def test_every_test_file_is_a_unit_or_an_integration_test():
    placed = {path.relative_to(TESTS).parts[0] for path in FILES}
    assert placed == {"unit", "integration"}, sorted(placed)


def _imports_jax(node: ast.AST) -> bool:
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    elif isinstance(node, ast.ImportFrom):
        names = [node.module or ""]
    elif isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "importorskip":
        names = [arg.value for arg in node.args if isinstance(arg, ast.Constant)]
    else:
        return False
    return any(name == module or name.startswith(f"{module}.")
               for name in names for module in JAX_MODULES)


def _top_level(tree: ast.Module) -> list[ast.AST]:
    """The nodes that run when the file is imported (not inside a function)."""
    found, todo = [], list(tree.body)
    while todo:
        node = todo.pop()
        found.append(node)
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            todo += ast.iter_child_nodes(node)
    return found


def test_files_that_run_jax_are_marked_and_import_it_inside_their_tests():
    users, early = set(), []
    for path in FILES:
        text = path.read_text()
        if not any(module.split(".")[-1] in text for module in JAX_MODULES):
            continue  # parse only the files that name a JAX module
        tree = ast.parse(text)
        if any(_imports_jax(node) for node in ast.walk(tree)):
            users.add(path.name)
        if any(_imports_jax(node) for node in _top_level(tree)):
            early.append(path.name)
    assert users, "no test file imports JAX: the check no longer finds them"
    assert not early, f"import JAX inside the tests (a fixture), not on collection: {early}"
    marked = re.compile(r"^pytestmark = pytest\.mark\.jax$", re.M)
    unmarked = sorted(path.name for path in FILES if path.name in users
                      | JAX_THROUGH_THE_PACKAGE and not marked.search(path.read_text()))
    assert not unmarked, f"add pytestmark = pytest.mark.jax to {unmarked}"
    units = sorted(path.name for path in FILES if path.name in users | JAX_THROUGH_THE_PACKAGE
                   and path.relative_to(TESTS).parts[0] == "unit")
    assert not units, f"make test-fast runs no JAX run: move {units} to tests/integration"


def test_make_test_runs_the_jax_tests_in_a_run_of_their_own():
    makefile = (ROOT / "Makefile").read_text()
    target = makefile[makefile.index("\ntest:"):].split("\n\n")[0]
    assert target.index('-m "not jax"') < target.index("-m jax"), target
