"""Sphinx configuration: the guide pages (Markdown, via MyST) and the API reference
(autodoc over each subpackage's ``__all__``, Google-style docstrings via napoleon).

Build with ``make docs`` or ``python -m sphinx -W --keep-going -b html docs docs/_build/html``.
"""
from __future__ import annotations

import importlib.util
import inspect
import pkgutil
import sys
from pathlib import Path

from sphinx.errors import PycodeError
from sphinx.pycode import ModuleAnalyzer
from sphinx.util.inspect import object_description

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # document the working tree, installed or not

project = "nothanks"
author = "nothanks contributors"
copyright = "nothanks contributors"

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.viewcode",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "screenshots", "Thumbs.db", ".DS_Store"]

# -- MyST: the Markdown guide pages -------------------------------------------------
myst_enable_extensions = ["colon_fence"]
myst_heading_anchors = 3
# Guide pages may link to files outside docs/ (the README, other Markdown files of the
# repository): those are not pages of this site and stay plain text. Links between
# the pages here are still checked, so a broken one fails the build.
nitpick_ignore_regex = [("myst", r"(/|\.\./).*")]

# -- autodoc / napoleon: the API reference ------------------------------------------
autodoc_default_options = {
    "members": True,
    "undoc-members": True,
    "show-inheritance": True,
    "member-order": "bysource",
}
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_typehints_format = "short"
autodoc_preserve_defaults = True
autoclass_content = "both"
napoleon_google_docstring = True
napoleon_numpy_docstring = False
napoleon_use_rtype = False

# The interactive apps need the notebook stack (the ``notebooks`` extra). A docs-only
# install still builds the whole reference: those imports are mocked when missing.
autodoc_mock_imports = [
    name for name in ("ipywidgets", "IPython") if importlib.util.find_spec(name) is None
]

# -- HTML ---------------------------------------------------------------------------
html_theme = "alabaster"
html_title = "nothanks"
html_static_path: list[str] = []

# -- Re-exported data in the API reference -----------------------------------------
_MISSING = object()


def _attribute_docs(package, name: str, value) -> list[str]:
    """The ``#:`` comment or docstring of ``name`` in the submodule that assigns it."""
    for info in pkgutil.iter_modules(package.__path__, package.__name__ + "."):
        module = sys.modules.get(info.name)
        if module is None or getattr(module, name, _MISSING) is not value:
            continue
        try:
            docs = ModuleAnalyzer.for_module(info.name).find_attr_docs()
        except PycodeError:
            continue
        if ("", name) in docs:
            return list(docs["", name])
    return []


def _document_public_data(app, what, name, obj, options, lines) -> None:
    """Document the constants and type aliases a package re-exports in ``__all__``.

    autodoc documents re-exported classes and functions, but data only where it is
    assigned; this adds each such name to the package's page, with its comment.
    """
    if what != "module" or not hasattr(obj, "__path__") or not options.get("members"):
        return
    for member in getattr(obj, "__all__", ()):
        value = getattr(obj, member, _MISSING)
        if value is _MISSING or inspect.isclass(value) or inspect.isroutine(value) \
                or inspect.ismodule(value):
            continue
        text = object_description(value)
        lines += ["", f".. py:data:: {member}"]
        if len(text) <= 80:
            lines.append(f"   :value: {text}")
        lines += [""] + [f"   {line}" for line in _attribute_docs(obj, member, value)]


def setup(app) -> None:
    app.connect("autodoc-process-docstring", _document_public_data)
