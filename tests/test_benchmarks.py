"""The benchmark scripts run (tiny budgets) and produce sane numbers."""

from __future__ import annotations

from benchmarks.baselines import to_markdown
from benchmarks.env_speed import time_env


def test_env_speed_times_an_env():
    row = time_env("patience_gym/Golf-v0", seconds=0.05)
    assert row["steps"] >= 256 and row["steps_per_s"] > 0 and row["episodes"] > 0


def test_baselines_markdown_lists_every_row():
    data = {
        "episodes": 2,
        "seed": 0,
        "machine": "test",
        "rows": [
            {
                "env": "patience_gym/Golf-v0",
                "agent": a,
                "mean_score": 1.0,
                "score_ci95": 0.5,
                "win_rate": 0.5,
                "win_ci95": [0.1, 0.9],
                "mean_moves": 3.0,
                "lower_score_is_better": True,
            }
            for a in ("random", "greedy")
        ],
    }
    text = to_markdown(data)
    assert "| Golf-v0 | random | 1.00 ± 0.50 (lower is better) |" in text and "| Golf-v0 | greedy |" in text
