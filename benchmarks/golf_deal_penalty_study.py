"""Study (issue 35): does the Golf planner deal too readily? A penalty on dealing while a card can be played.

Hindsight optimisation solves each sampled world as if its stock were known, so it may overvalue
keeping cards back for later (dealing instead of playing). This planner subtracts ``beta`` cards
from the deal's value in every world whenever a play is also legal, and logs, for every decision
between a deal and at least one play, the stock left, whether it dealt, and each move's summed value.

Usage: ``python -m benchmarks.golf_deal_penalty_study BETA FIRST_SEED LAST_SEED OUT.json``, then
``python -m benchmarks.golf_deal_penalty_study --compare BASE.json OTHER.json``.
Run (research notes, section 25): beta 0 and 0.5 on seeds 300,000-300,199, one process each.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

import patience_gym  # noqa: F401 - registers the envs
from agents.evaluation.evaluate import paired_ci95
from agents.planners.golf import GolfPlanner
from patience_gym.games.golf import DEAL


class DealPenaltyPlanner(GolfPlanner):
    """The registered Golf planner, with ``beta`` cards taken off a deal that competes with a play."""

    def __init__(self, beta: float) -> None:
        super().__init__()
        self.beta = beta
        self.log: list[tuple[int, bool, dict[int, float]]] = []
        self._candidates: list[int] = []
        self._totals: dict[int, float] = {}

    def search(self, game: Any, state: Any, candidates: Any) -> int:
        self._candidates, self._totals = list(candidates), {}
        action = super().search(game, state, candidates)
        if DEAL in candidates and len(candidates) > 1:
            self.log.append((state.stock_left, action == DEAL, dict(self._totals)))
        return action

    def value(self, game: Any, world: Any, action: int) -> float:
        v = super().value(game, world, action)
        if action == DEAL and len(self._candidates) > 1:
            v -= self.beta
        self._totals[action] = self._totals.get(action, 0.0) + v
        return v


def play(beta: float, seeds: range) -> dict[str, Any]:
    """The planner's score on one hole per seed, and its decision log."""
    env: Any = gym.make("patience_gym/Golf-v0")
    scores, logs, start = [], [], time.perf_counter()
    for seed in seeds:
        agent = DealPenaltyPlanner(beta)
        agent.reset(seed)
        obs, info = env.reset(seed=seed)
        done = False
        while not done:
            action = agent.act(env.unwrapped, obs, info["action_mask"])
            obs, _, term, trunc, info = env.step(action)
            done = term or trunc
        scores.append(env.unwrapped.game.score(env.unwrapped.state))
        logs.append(agent.log)
    return {
        "beta": beta,
        "seeds": [seeds.start, seeds.stop],
        "scores": scores,
        "logs": logs,
        "seconds": time.perf_counter() - start,
    }


def compare(base: dict[str, Any], other: dict[str, Any]) -> None:
    """Paired difference of the two runs, and how often the base run dealt while a play was legal."""
    a, b = np.array(base["scores"], float), np.array(other["scores"], float)
    mean, half = paired_ci95(list(b), list(a))
    print(f"beta {base['beta']}: {a.mean():.2f}; beta {other['beta']}: {b.mean():.2f}")
    print(f"difference {mean:+.2f} ± {half:.2f}")
    rows = [(stock, dealt) for game in base["logs"] for stock, dealt, _ in game]
    dealt = np.array([d for _, d in rows], float)
    print(
        f"{len(rows)} decisions between a deal and a play ({len(rows) / len(a):.1f} a hole); "
        f"dealt in {dealt.mean():.1%}"
    )


if __name__ == "__main__":
    if sys.argv[1] == "--compare":
        compare(*(json.loads(Path(name).read_text()) for name in sys.argv[2:4]))
    else:
        result = play(float(sys.argv[1]), range(int(sys.argv[2]), int(sys.argv[3]) + 1))
        Path(sys.argv[4]).write_text(json.dumps(result))
