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


def agents_table(rows: list[dict[str, Any]]) -> list[str]:
    """Markdown lines: one row per agent summary (``agents.evaluation.evaluate.Summary.row()``), with seconds a game."""
    from agents.evaluation.evaluate import format_share

    lines = [
        "| agent | mean cards on foundations | win rate [95% CI] | s / game |",
        "|---|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['agent']} | {r['mean_score']:.2f} ± {r['score_ci95']:.2f} | "
            f"{format_share(r['win_rate'], r['win_ci95'])} | {r['seconds'] / r['episodes']:.3f} |"
        )
    return lines
