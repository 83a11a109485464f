"""Sphinx configuration: the guide pages (Markdown, via MyST) and the API reference
(autodoc over each subpackage's ``__all__``, Google-style docstrings via napoleon).

Build with ``make docs`` or ``python -m sphinx -W --keep-going -b html docs docs/_build/html``.
"""
from __future__ import annotations

import contextlib
import importlib.util
import inspect
import io
import os
import pkgutil
import re
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
    source = inspect.getsource(obj)
    for member in getattr(obj, "__all__", ()):
        value = getattr(obj, member, _MISSING)
        if value is _MISSING or inspect.isclass(value) or inspect.isroutine(value) \
                or inspect.ismodule(value):
            continue
        if re.search(rf"^{member}\s*[:=]", source, re.M):  # assigned here: autodoc has it
            continue
        text = object_description(value)
        lines += ["", f".. py:data:: {member}"]
        if len(text) <= 80:
            lines.append(f"   :value: {text}")
        lines += [""] + [f"   {line}" for line in _attribute_docs(obj, member, value)]


# -- Generated reference sections -----------------------------------------------------
# A reference page holds a marker line ``<!-- generated: NAME -->``; the build replaces
# it with text made from the code, so the CLI, the log schema and the agent specs can
# never drift from what the package does.


def _help_text(args: list[str]) -> str:
    """What ``nothanks ARGS --help`` prints, at a fixed width of 88 columns."""
    from nothanks.cli import build_parser

    parser = build_parser()[0]
    out = io.StringIO()
    width = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "88"
    try:
        with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
            parser.parse_args([*args, "--help"])
    finally:
        if width is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = width
    return out.getvalue().rstrip()


def _cli_markdown() -> str:
    """``nothanks --help`` and every subcommand's ``--help``, one section each."""
    from nothanks.cli import commands

    lines = ["```text", _help_text([]), "```", ""]
    for name, (help_line, _) in commands().items():
        lines += [f"## `nothanks {name}`", "", help_line[0].upper() + help_line[1:] + ".", "",
                  "```text", _help_text([name]), "```", ""]
    return "\n".join(lines)


def _agents_markdown() -> str:
    """Every registered agent spec with each key's default, as ``nothanks agents`` lists."""
    from nothanks.agents import agent_parameters, registered

    lines = ["| spec | keys and their defaults |", "| --- | --- |"]
    for name in registered():
        params = agent_parameters(name)
        shown = ", ".join(f"`{key}={value!r}`" for key, value in params.items())
        lines.append(f"| `{name}` | {shown or '(no keys)'} |")
    return "\n".join(lines)


def _schema_markdown() -> str:
    """The column reference of every log table (``nothanks.experiments.schema_markdown``)."""
    from nothanks.experiments import schema_markdown

    return schema_markdown().replace("### `", "## `")


GENERATED = {"cli": _cli_markdown, "agents": _agents_markdown, "schema": _schema_markdown}


def _fill_generated(app, docname: str, source: list[str]) -> None:
    """Replace each ``<!-- generated: NAME -->`` marker with the text :data:`GENERATED` makes."""
    for name, make in GENERATED.items():
        marker = f"<!-- generated: {name} -->"
        if marker in source[0]:
            source[0] = source[0].replace(marker, make())


def setup(app) -> None:
    app.connect("autodoc-process-docstring", _document_public_data)
    app.connect("source-read", _fill_generated)
