"""Study (issue 35): the Golf planner with more sampled worlds, inside the 0.25 s a move the issue allows.

Plays one Golf hole per seed with ``GolfPlanner(samples=N)`` (every other setting its registered
default) and writes the scores, the moves and the seconds to a JSON file; ``--compare`` pairs two
such files (or a file of section 25's deal-penalty study at beta 0, the planner as registered).

Usage: ``python -m benchmarks.golf_planner_worlds_study N FIRST_SEED LAST_SEED OUT.json``, then
``python -m benchmarks.golf_planner_worlds_study --compare BASE.json OUT.json [OUT2.json ...]``.
Run (research notes, section 25): N = 32 on seeds 300,000-300,099 and 300,100-300,199, one process each.
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


def play(samples: int, seeds: range) -> dict[str, Any]:
    """The planner's score on one hole per seed, its moves and the seconds it took."""
    env: Any = gym.make("patience_gym/Golf-v0")
    scores, moves, start = [], 0, time.perf_counter()
    for seed in seeds:
        agent = GolfPlanner(samples=samples)
        agent.reset(seed)
        obs, info = env.reset(seed=seed)
        done = False
        while not done:
            obs, _, term, trunc, info = env.step(agent.act(env.unwrapped, obs, info["action_mask"]))
            moves += 1
            done = term or trunc
        scores.append(env.unwrapped.game.score(env.unwrapped.state))
    return {
        "samples": samples,
        "seeds": [seeds.start, seeds.stop],
        "scores": scores,
        "moves": moves,
        "seconds": time.perf_counter() - start,
    }


def compare(base: dict[str, Any], parts: list[dict[str, Any]]) -> None:
    """The runs' scores joined in seed order, paired with the base run on the same seeds."""
    first = base["seeds"][0]
    scores = {p["seeds"][0] + i: s for p in parts for i, s in enumerate(p["scores"])}
    seeds = sorted(scores)
    a = [base["scores"][s - first] for s in seeds]
    b = [scores[s] for s in seeds]
    mean, half = paired_ci95(b, a)
    seconds = sum(p["seconds"] for p in parts) / sum(p["moves"] for p in parts)
    print(
        f"{len(seeds)} holes: base {np.mean(a):.2f}, these {np.mean(b):.2f} ({seconds:.3f} s a move); "
        f"difference {mean:+.2f} ± {half:.2f}"
    )


if __name__ == "__main__":
    if sys.argv[1] == "--compare":
        files = [json.loads(Path(name).read_text()) for name in sys.argv[2:]]
        compare(files[0], files[1:])
    else:
        result = play(int(sys.argv[1]), range(int(sys.argv[2]), int(sys.argv[3]) + 1))
        Path(sys.argv[4]).write_text(json.dumps(result))
