"""The Python examples of the docs run as written (issue 45): each is the code block(s)
under a heading of a Markdown page, executed in a fresh namespace in the repository's
root, and what it prints is checked."""
from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def python_blocks(page: Path, heading: str) -> str:
    """The ```python blocks of the section ``heading`` of ``page`` (up to the next
    heading of the same or a higher level), joined."""
    text = page.read_text()
    match = re.search(rf"^(#+) {re.escape(heading)}\s*$", text, flags=re.MULTILINE)
    assert match, f"{page.name} has no section {heading!r}"
    level = len(match.group(1))
    rest = text[match.end():]
    end = re.search(rf"^#{{1,{level}}} ", rest, flags=re.MULTILINE)
    section = rest[:end.start()] if end else rest
    blocks = re.findall(r"^```python\n(.*?)^```", section, flags=re.MULTILINE | re.DOTALL)
    assert blocks, f"{page.name}, {heading!r}: no python block"
    return "\n".join(blocks)


def run(code: str, where: str, monkeypatch) -> str:
    """Execute ``code`` in the repository's root; what it printed."""
    monkeypatch.chdir(ROOT)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, where, "exec"), {"__name__": "__doc_example__"})
    return out.getvalue()


def test_agent_specs_checks_an_outside_agent(monkeypatch):
    from nothanks.testing import CHECKS

    code = python_blocks(ROOT / "docs" / "agent-specs.md", "Checking an agent")
    printed = run(code, "docs/agent-specs.md", monkeypatch)
    assert printed.strip() == str(tuple(c for c in CHECKS if c != "one_line_errors"))



def test_the_readme_quick_start_runs_in_ten_lines(monkeypatch, tmp_path):
    """The README's Python quick start, its /tmp paths pointed into a temporary folder:
    it prints a spec and three games' scores, logs a run and draws a figure."""
    code = python_blocks(ROOT / "README.md", "In Python")
    assert len(code.strip().splitlines()) <= 11  # ten lines and the blank after imports
    printed = run(code.replace("/tmp/", f"{tmp_path}/"), "README.md", monkeypatch)
    spec, scores = printed.strip().splitlines()
    assert spec == "tom1:rt=-1.5" and scores.count("(") == 3  # three games' scores
    assert (tmp_path / "quick" / "games.parquet").is_file()
    assert (tmp_path / "quick.png").stat().st_size > 10_000
