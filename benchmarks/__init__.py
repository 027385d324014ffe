"""Measurement scripts; each writes ``benchmarks/results/<name>.json`` and ``.md``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results"


def write_results(name: str, data: Any, table: str, folder: Path = RESULTS) -> None:
    """Save ``data`` as ``<name>.json`` and ``table`` as ``<name>.md`` in ``folder``, and print the table."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.json").write_text(json.dumps(data, indent=2) + "\n")
    (folder / f"{name}.md").write_text(table)
    print(table)
