"""The texts a build renders from committed tables, rendered again without simulating.

``figures/results.md``, the results section of ``figures/README.md``, the calibration
text of ``figures/studies/extras/results.md`` and ``figures/studies/instance-sets/results.md``
are functions of committed tables only (``figures/tables/*.csv``, ``data/placebo/``,
``data/calibration/``, the study's ``tables/instance_sets.csv``): :func:`rendered`
makes them from those tables as ``make figures`` and ``make studies`` would. So a text
edit that changes a number, or a table rebuilt without its text, differs from the render;
``tests/unit/test_claims.py`` checks that the committed files equal it. To write them::

    python -m nothanks.report.rendered          # rewrite the four texts
    python -m nothanks.report.rendered --check  # exit 1 if a committed text differs
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

#: The thesis build's folder, and the marker its README's results section starts with.
FIGURES = Path("figures")
RESULTS_SECTION = "\n## Results beside the thesis\n"


def thesis_tables(folder: Path = FIGURES) -> dict[str, pd.DataFrame]:
    """Every statistics table of a thesis build (``folder/tables/*.csv``), by name."""
    return {p.stem: pd.read_csv(p) for p in sorted((folder / "tables").glob("*.csv"))}


def rendered(root: Path = Path(".")) -> dict[Path, str]:
    """Path (under ``root``) -> the text the builds would write there, from the
    committed tables."""
    from .. import analysis as an
    from ..analysis.frames import markdown_table
    from ..analysis.instance_sets import instance_sets_markdown
    from ..studies.calibration import report_markdown
    from ..studies.writing import results_markdown, valid_tests_markdown
    from . import CALIBRATION, PLACEBO

    figures, placebo = root / FIGURES, root / PLACEBO
    stats = thesis_tables(figures)
    results = an.results_table(stats)
    out = {figures / "results.md": results_markdown(results, placebo)
           + valid_tests_markdown(stats, placebo)}
    readme = (figures / "README.md").read_text()
    head = readme.split(RESULTS_SECTION, 1)[0]
    banner = an.results_banner(results)
    out[figures / "README.md"] = (head + RESULTS_SECTION + "\n" + (banner + "\n" if banner
                                                                  else "")
                                  + markdown_table(results) + "\n")
    extras = figures / "studies" / "extras" / "results.md"
    if extras.is_file():
        title = extras.read_text().split("\n## ", 1)[0]
        out[extras] = title + report_markdown(root / CALIBRATION)
    sets = figures / "studies" / "instance-sets"
    if (sets / "results.md").is_file():
        title = (sets / "results.md").read_text().split("\n## ", 1)[0]
        table = pd.read_csv(sets / "tables" / "instance_sets.csv")
        out[sets / "results.md"] = title + instance_sets_markdown(table)
    return out


def stale(root: Path = Path(".")) -> list[Path]:
    """The committed texts that differ from :func:`rendered`."""
    return [path for path, text in rendered(root).items()
            if not path.is_file() or path.read_text() != text]


def main(argv: list[str] | None = None) -> int:
    from ..files import atomic_write_bytes
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 naming every text that differs")
    args = parser.parse_args(argv)
    if args.check:
        differ = stale()
        for path in differ:
            print(f"{path}: differs from its tables (python -m nothanks.report.rendered)",
                  file=sys.stderr)
        return 1 if differ else 0
    for path, text in rendered().items():
        atomic_write_bytes(text.encode(), path)
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
