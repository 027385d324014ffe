"""benchmarks/puss_solver.py, run as users run it (``python -m benchmarks.puss_solver``) on a few deals.

The solver itself: tests/agents/test_puss_solver.py."""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers import RunBenchmark
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
