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


def test_an_expert_iteration_run_gives_the_search_and_its_network_alone_rows_paired_with_greedy():
    from benchmarks.results import _search_lines, load_runs

    def row(agent: str, mean: float) -> dict[str, object]:
        return {"agent": agent, "mean_score": mean, "score_ci95": 0.1, "win_rate": 0.5, "win_ci95": [0.4, 0.6]}

    run = {
        "env_kwargs": {"obs_encoding": "rules_moves"},
        "episodes": 200,
        "seed": 0,
        "search_sims": 16,
        "results": [row("network alone", 50.0), row("search (16 sims)", 51.9), row("greedy", 51.2)],
        "paired": [
            {"agent": "network alone", "mean": -1.2, "ci95": 0.3, "better": False},
            {"agent": "search (16 sims)", "mean": 0.7, "ci95": 0.2, "better": True},
        ],
    }
    alone, search = _search_lines("PussInTheCorner-v0", "puss_search", run)
    assert "its network alone (`puss_search`, one forward pass a move): one training seed, -1.20 ± 0.30" in alone
    assert "| 50.00 ± 0.10 | 50.0% [40.0, 60.0] | 200 (seeds 0..199) |" in alone
    assert "learned search, expert iteration, `puss_search` (`rules_moves`, rules only, 16 sims a move)" in search
    assert "+0.70 ± 0.20 against greedy" in search
    assert search.endswith("`python train.py --config configs/puss_search.yaml` |")
    assert all(any(r["agent"] == "ppo" for r in run["results"]) for run in load_runs())  # PPO runs only
    across = {
        "seeds": 3,
        "iqm": 49.5,
        "iqm_ci95": [49.0, 50.1],
        "p_improvement": 0.67,
        "p_improvement_ci95": [0.33, 1.0],
    }
    sweep = {
        "env_kwargs": {"obs_encoding": "rules_moves"},
        "report_seed": 0,
        "episodes": 1000,
        "configs": [{"across_seeds": across, "past_greedy": 2, "seeds": [{"seed": s} for s in range(3)]}],
    }
    alone, again = _search_lines("PussInTheCorner-v0", "puss_search", run, sweep)
    assert again == search  # the search stays the one run's
    assert "| its network alone (one forward pass a move), recipe, `puss_search` (`rules_moves`, rules only): " in alone
    assert "3 training seeds, 2 past greedy | IQM 49.50 [49.00, 50.10] | P 0.67 [0.33, 1.00] |" in alone
    assert alone.endswith(
        "| 1,000 a seed (seeds 0..999) | `python train.py --config configs/puss_search.yaml --seeds 3` |"
    )
