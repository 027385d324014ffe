"""The README's generated tables and benchmarks/results/summary.md are what the committed scripts
(benchmarks/readme.py, benchmarks/results.py) make from the committed results files.

The rest of the README: tests/project/test_readme.py."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"


def test_readme_tables_are_the_committed_results_files():
    """Every generated README table is exactly the results file a committed script wrote."""
    from benchmarks.readme import RESULTS, SECTIONS

    text = README.read_text()
    for name, filename in SECTIONS.items():
        block = re.search(rf"<!-- {name}:start -->\n(.*?)<!-- {name}:end -->", text, re.S)
        assert block, f"README has no {name} section"
        assert block.group(1) == (RESULTS / filename).read_text(), f"README {name} table differs from {filename}"


def test_results_table_is_what_the_generator_makes_from_the_committed_files():
    from benchmarks.results import summary

    assert (ROOT / "benchmarks" / "results" / "summary.md").read_text() == summary()
