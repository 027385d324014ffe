"""Study (issue 35, research notes section 31): two budgets of the Golf planner, not kept in the tree.

``--pair A.json B.json AGENT_A AGENT_B``: the paired difference (B minus A, 95% interval) of two agents' holes
in the evaluation tool's ``--json`` files (one or more files each side, concatenated in the order given).
``--exact-from K --seeds FIRST LAST``: the planner with its exact ending from K stock cards on holes
FIRST..LAST-1: seconds a move, the slowest move, the mean score, and the planner's counters (exact moves,
exact searches given up past their budget).
"""

from __future__ import annotations

import argparse
import json
import time

import gymnasium as gym

import patience_gym  # noqa: F401 - registers the envs
from agents.evaluation.evaluate import paired_ci95
from agents.planners.golf import GolfPlanner


def pair(files: list[str], a: str, b: str) -> None:
    first: list[float] = []
    second: list[float] = []
    for name in files:
        with open(name) as file:
            scores = json.load(file)["scores"]
        first += scores[a]
        second += scores[b]
    diff, ci = paired_ci95(second, first)
    better = sum(y < x for x, y in zip(first, second, strict=True))
    worse = sum(y > x for x, y in zip(first, second, strict=True))
    print(
        f"{len(first)} holes: {a} {sum(first) / len(first):.2f}, {b} {sum(second) / len(second):.2f}, "
        f"{b} minus {a} {diff:+.2f} ± {ci:.2f} ({better} better, {worse} worse)"
    )


def timing(exact_from: int, first: int, last: int) -> None:
    planner = GolfPlanner(exact_from=exact_from)
    env = gym.make("patience_gym/Golf-v0")
    moves, total, slowest, start = 0, 0.0, 0.0, time.perf_counter()
    for seed in range(first, last):
        obs, info = env.reset(seed=seed)
        planner.reset(seed)
        done = False
        while not done:
            t0 = time.perf_counter()
            action = planner.act(env.unwrapped, obs, info["action_mask"])  # type: ignore[arg-type]
            slowest = max(slowest, time.perf_counter() - t0)
            obs, _, terminated, truncated, info = env.step(action)
            moves += 1
            done = terminated or truncated
        total += env.unwrapped.game.score(env.unwrapped.state)  # type: ignore[attr-defined]
    seconds = (time.perf_counter() - start) / moves
    print(
        f"exact_from={exact_from}, holes {first}-{last - 1}: {seconds:.3f} s a move, slowest {slowest:.2f} s, "
        f"{total / (last - first):.2f} a hole, {dict(planner.stats)}"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pair", nargs="+", metavar="ARG")
    parser.add_argument("--exact-from", type=int)
    parser.add_argument("--seeds", nargs=2, type=int, default=[0, 20])
    args = parser.parse_args()
    if args.pair:
        pair(args.pair[:-2], args.pair[-2], args.pair[-1])
    else:
        timing(args.exact_from, *args.seeds)
