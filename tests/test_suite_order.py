"""The order ``make test`` runs the test files in (tests/conftest.py, the lists in
tests/helpers.py): the lists name files that exist (a renamed file would silently lose its
place), and every test file that imports JAX itself runs last."""
from __future__ import annotations

import re
from pathlib import Path

from helpers import JAX_LAST, LONGEST_FIRST

TESTS = Path(__file__).resolve().parent


def test_the_ordered_files_exist_once():
    named = [*LONGEST_FIRST, *JAX_LAST]
    assert len(named) == len(set(named)), "a file is named twice"
    missing = [name for name in named if not (TESTS / name).is_file()]
    assert not missing, f"tests/helpers.py orders test files that do not exist: {missing}"


def test_files_that_import_jax_run_last():
    """A file that imports JAX (``import jax``, ``importorskip("jax")``) runs JAX in the
    test process: after it, the same process must not fork. (Files that reach JAX through
    the package, as test_selfplay_train.py does through the trainer, are listed by hand.)"""
    jax = re.compile(r"""^\s*(import jax|from jax|.*importorskip\(["']jax["']\))""", re.M)
    users = {path.name for path in TESTS.rglob("test_*.py")
             if path.name != Path(__file__).name and jax.search(path.read_text())}
    assert users, "no test file imports JAX: the pattern no longer finds them"
    assert users <= set(JAX_LAST), f"add to helpers.JAX_LAST: {sorted(users - set(JAX_LAST))}"
