"""Sums a regret file (``regret.py``'s JSON lines): per agent, the mean summed regret a game with its 95%
interval, paired differences from the planner (``ho``), and the regret by stock cards left.

    python benchmarks/golf_regret_study/analyze.py FILE.jsonl
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict

import numpy as np

STAGES = ((12, 99, "12-16"), (8, 11, "8-11"), (4, 7, "4-7"), (0, 3, "0-3"))


def ci(values: np.ndarray) -> str:
    return f"{values.mean():.3f} ± {1.96 * values.std(ddof=1) / len(values) ** 0.5:.3f}"


def main(path: str) -> None:
    with open(path) as fh:
        games = [row for row in map(json.loads, fh) if "decisions" in row]
    agents = sorted({k for g in games for d in g["decisions"] for k in d if k not in ("U", "n", "links")})
    scores = np.array([g["score"] for g in games])
    print(f"{len(games)} games; the planner's mean score {ci(scores)}")
    for agent in agents:
        summed = np.array([sum(d.get(agent, 0.0) for d in g["decisions"]) for g in games])
        line = f"{agent}: summed regret a game {ci(summed)}"
        if agent != "ho":
            paired = np.array([sum(d.get(agent, 0.0) - d["ho"] for d in g["decisions"]) for g in games])
            line += f"; minus the planner's {ci(paired)}"
        print(line)
    by_stage: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for g in games:
        for d in g["decisions"]:
            stage = next(name for lo, hi, name in STAGES if lo <= d["U"] <= hi)
            for agent in agents:
                by_stage[stage][agent] += d.get(agent, 0.0) / len(games)
    for _, _, stage in STAGES:
        print(f"stock {stage}: " + ", ".join(f"{a} {by_stage[stage][a]:.3f}" for a in agents))


if __name__ == "__main__":
    main(sys.argv[1])
