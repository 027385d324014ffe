"""Copy the committed results table into README.md.

``python -m benchmarks.results`` writes ``benchmarks/results/summary.md`` from the
committed result files and run reports; this puts it between the README's
``<!-- results:start -->`` and ``<!-- results:end -->`` markers, so every figure
in the README is one a committed script produced (``tests/benchmarks/test_results_tables.py`` checks it).

Usage: ``python -m benchmarks.results && python -m benchmarks.readme``
"""

from __future__ import annotations

import re
from pathlib import Path

from benchmarks import RESULTS

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"

#: README section -> the results file (and the script that writes it).
SECTIONS = {
    "results": "summary.md",  # benchmarks/results.py, from benchmarks/results/*.json and benchmarks/runs/*/results.json
}


def update_readme(name: str, table: str, readme: Path = README) -> None:
    """Replace the text between the README's ``name`` markers with ``table``."""
    text = readme.read_text()
    pattern = re.compile(rf"(<!-- {name}:start -->\n).*?(<!-- {name}:end -->)", re.S)
    if not pattern.search(text):
        raise SystemExit(f"{readme.name} has no <!-- {name}:start --> ... <!-- {name}:end --> markers")
    readme.write_text(pattern.sub(lambda m: m.group(1) + table + m.group(2), text))


def main() -> None:
    for name, filename in SECTIONS.items():
        path = RESULTS / filename
        if not path.is_file():
            raise SystemExit(f"{path} is missing: run the script that writes it first")
        update_readme(name, path.read_text())
        print(f"README section {name!r} <- {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
