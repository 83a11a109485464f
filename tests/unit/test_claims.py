"""Claims cannot drift from the tables they came from (issue 43).

Two checks run in ``make test``:

- the texts a build renders from committed tables alone (figures/results.md, the results
  section of figures/README.md, the calibration text of the extras study and the
  instance-sets study's results.md) equal :func:`nothanks.report.rendered.rendered`;
- every other ``x [a, b]`` claim in README.md, docs/*.md and the studies' results.md is
  found in a committed table (tests/claims.py), or listed in tests/claims_unbacked.txt.

Each is shown to fail on a planted stale number.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import claims
import pytest

from nothanks.report import rendered


def test_rendered_texts_equal_their_tables():
    stale = rendered.stale(claims.ROOT)
    assert not stale, ("differ from their committed tables; rebuild or run "
                       f"`python -m nothanks.report.rendered`: {stale}")


def test_every_claim_is_backed_or_listed():
    listed = claims.ledger()
    missing = [c for c in claims.unbacked() if (c.path, c.text) not in listed]
    assert not missing, "claims no committed table backs:\n" + "\n".join(map(str, missing))


def test_the_ledger_lists_only_claims_still_unbacked():
    current = {(c.path, c.text) for c in claims.unbacked()}
    gone = claims.ledger() - current
    assert not gone, f"backed or removed, take them out of {claims.LEDGER.name}: {gone}"


@pytest.fixture
def copy_of_the_thesis_build(tmp_path) -> Path:
    """The committed tables and texts rendered() reads, copied under tmp_path."""
    for part in ("figures/tables", "figures/studies/extras", "figures/studies/instance-sets",
                 "data/placebo", "data/calibration"):
        shutil.copytree(claims.ROOT / part, tmp_path / part,
                        ignore=shutil.ignore_patterns("*.png", "*.pdf", "*.db", "trials"))
    for name in ("figures/results.md", "figures/README.md"):
        shutil.copy(claims.ROOT / name, tmp_path / name)
    return tmp_path


def test_a_planted_stale_number_in_a_rendered_text_fails(copy_of_the_thesis_build):
    root = copy_of_the_thesis_build
    assert rendered.stale(root) == []
    results = root / "figures" / "results.md"
    text = results.read_text()
    claim = claims.claims_in(text)[0]
    value = claim.numbers[0]
    planted = text.replace(claim.text, claim.text.replace(value, f"{float(value) + 1:.1f}", 1),
                           1)
    assert planted != text
    results.write_text(planted)
    assert rendered.stale(root) == [root / "figures" / "results.md"]


def test_a_planted_stale_number_in_a_document_fails(tmp_path):
    claim = "the first game averages 0.17 [0.10, 0.25] rank points"
    stale = "the first game averages 0.20 [0.10, 0.25] rank points"
    doc = tmp_path / "claim.md"
    tables = claims.committed_tables()
    for text, backed in ((claim, True), (stale, False)):
        doc.write_text(text + "\n")
        found = [claims.backed_by(c, tables) for c in claims.claims_in(doc.read_text())]
        assert len(found) == 1 and (found[0] is not None) is backed, (text, found)
    assert claims.backed_by(claims.claims_in(claim)[0], tables) == "data/learning/first_game.csv"


@pytest.mark.parametrize(("text", "numbers", "percent"), [
    ("41.4% [37.2%, 45.8%]", ("41.4", "37.2", "45.8"), True),
    ("+0.042 [+0.027, +0.057]", ("+0.042", "+0.027", "+0.057"), False),
    ("33.7% [31.6, 35.8]", ("33.7", "31.6", "35.8"), True),
    ("−0.10 [−0.18, −0.02]", ("−0.10", "−0.18", "−0.02"), False),
    ("+22.5 pp [+7.5, +37.5]", ("+22.5", "+7.5", "+37.5"), False),
])
def test_claims_are_parsed(text, numbers, percent):
    (claim,) = claims.claims_in(f"ours: {text}; more")
    assert claim.numbers == numbers and claim.percent is percent


def test_a_share_in_percent_is_found_as_a_fraction():
    table = {"t.csv": __import__("numpy").array([[0.414, 0.3716, 0.4577]])}
    (claim,) = claims.claims_in("41.4% [37.2%, 45.8%]")
    assert claims.backed_by(claim, table) == "t.csv"
    (other,) = claims.claims_in("41.5% [37.2%, 45.8%]")
    assert claims.backed_by(other, table) is None


def test_a_claim_split_over_lines_is_found():
    (claim,) = claims.claims_in("wins 35.4% [22.9%,\n  47.9%] of its games\nnext")
    assert claim.text == "35.4% [22.9%, 47.9%]" and claim.line == 1
    (split,) = claims.claims_in("a\nslope +0.045\n  [+0.031, +0.060] a game")
    assert split.numbers == ("+0.045", "+0.031", "+0.060") and split.line == 2


def test_a_document_draws_only_on_its_named_tables():
    table = {"figures/studies/learning/tables/curves.csv":
             __import__("numpy").array([[0.42, 0.354, 0.489]])}
    (claim,) = claims.claims_in("42.0% [35.4, 48.9]")
    assert claims.backed_by(claim, table) == "figures/studies/learning/tables/curves.csv"
    assert claims.backed_by(claim, claims.tables_for("docs/ismcts.md", table)) is None
