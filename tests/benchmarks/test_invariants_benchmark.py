"""A small run of benchmarks/invariants.py (``python -m benchmarks.invariants``): every check passes and every step
is counted."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks.invariants import expected_return
from tests.helpers import RunBenchmark


def test_small_invariants_run_finds_no_violation(tmp_path: Path, run_benchmark: RunBenchmark) -> None:
    done = run_benchmark(
        "benchmarks.invariants",
        *["--random", "300", "--greedy", "2", "--stalling", "2", "--out", str(tmp_path)],
        *["--env", "patience_gym/Golf-v0", "patience_gym/GolfRound-v0", "patience_gym/MissMilliganPocket-v0"],
    )
    assert done.returncode == 0, done.stderr
    rows = json.loads((tmp_path / "invariants.json").read_text())["rows"]
    assert {r["policy"] for r in rows} == {"random", "greedy", "stalling"}
    assert all(r["violations"] == 0 and r["steps"] > r["episodes"] > 0 for r in rows)
    assert all(r["episodes"] >= 300 for r in rows if r["policy"] == "random")
    envs = {"patience_gym/Golf-v0", "patience_gym/GolfRound-v0", "patience_gym/MissMilliganPocket-v0"}
    assert {r["env"] for r in rows} == envs  # every env asked for was played, and no other
    assert all(f"{r['env']} {r['options']} {r['policy']}: {r['episodes']} episodes" in done.stdout for r in rows)
    assert "No violation found." in (tmp_path / "invariants.md").read_text()


def test_expected_return_follows_the_score():
    assert expected_return("golf", True, 35, -3, 1) == 38  # links cleared with 3 stock cards left
    assert expected_return("puss", False, 4, 52, 1) == 48
    assert expected_return("round", True, 35, 40, 9) == 275
