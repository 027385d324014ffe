"""benchmarks/puss_solver.py, run as users run it (``python -m benchmarks.puss_solver``) on a few deals.

The solver itself: tests/agents/test_puss_solver.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import puss_solver as bench
from tests.helpers import AssertRefused, RunBenchmark
from tests.helpers.puss import greedy_loses

HARD_SEED = next(s for s in range(50) if greedy_loses(s))


def test_benchmark_solves_and_replays_a_few_deals(tmp_path: Path, run_benchmark: RunBenchmark) -> None:
    args = ["--deals", "2", "--seed", str(HARD_SEED), "--max-nodes", "20000", "--max-seconds", "10"]
    done = run_benchmark("benchmarks.puss_solver", *args, "--out", str(tmp_path))
    assert done.returncode == 0, done.stderr
    data = json.loads((tmp_path / "puss_solver.json").read_text())
    (run,) = data["runs"]
    assert run["won"] + run["lost"] + run["unknown"] == 2 and run["deals_needing_search"] >= 1  # HARD_SEED's
    assert all(r["cards"] >= r["greedy_cards"] and r["nodes"] > 0 for r in run["searched_rows"])
    text = (tmp_path / "puss_solver.md").read_text()
    assert "| defaults | solver (perfect knowledge) |" in text and "| defaults | greedy |" in text


def test_a_budget_that_is_not_positive_is_refused_by_name(assert_refused: AssertRefused) -> None:
    """The script and :func:`measure` refuse a zero or negative budget before solving anything."""
    assert_refused(
        bench.main,
        [
            (["--max-nodes", "0"], "--max-nodes must be a positive integer, got 0"),
            (["--max-nodes", "-5"], "--max-nodes must be a positive integer, got -5"),
            (["--max-seconds", "0"], "--max-seconds must be a positive number of seconds, got 0.0"),
            (["--deals", "0"], "--deals must be at least 1"),
            (["--deals", "1", "--seed", "-1"], "--seed must be at least 0, got -1"),
            (["--deals", "1", "--out", __file__], f"--out {__file__} is a file; give a folder"),
        ],
    )
    with pytest.raises(ValueError, match="max_seconds must be a positive number of seconds"):
        bench.measure(1, 0, 1000, -1.0, {})
