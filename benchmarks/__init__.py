"""Measurement scripts; each writes ``benchmarks/results/<name>.json`` and ``.md``."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results"


def write_results(name: str, data: Any, table: str, folder: Path = RESULTS) -> None:
    """Save ``data`` as ``<name>.json`` and ``table`` as ``<name>.md`` in ``folder``, and print the table."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.json").write_text(json.dumps(data, indent=2) + "\n")
    (folder / f"{name}.md").write_text(table)
    print(table)


def named_counts(
    parser: argparse.ArgumentParser,
    items: list[str],
    known: Collection[str],
    default: Callable[[str], int],
    option: str,
    kind: str,
) -> dict[str, int]:
    """``NAME`` or ``NAME=N`` command-line items as ``{name: N}`` (``default(name)`` without ``=N``).

    A parser error, before any work starts, names an unknown ``kind`` of name, a count that is not an
    integer, or one below 1.
    """
    counts = {}
    for item in items:
        name, sep, count = item.partition("=")
        if name not in known:
            parser.error(f"unknown {kind} {name!r} in {option}; choose from {list(known)}")
        try:
            n = int(count) if sep else default(name)
        except ValueError:
            parser.error(f"{option} {item!r}: the count after '=' must be an integer")
        if n < 1:
            parser.error(f"{option} {item!r}: the count of {name} must be at least 1, got {n}")
        counts[name] = n
    return counts


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
