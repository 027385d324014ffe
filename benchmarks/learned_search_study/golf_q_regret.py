"""On the student's own positions: each legal move's mean exact value over 16 sampled worlds, and how far the
student's and the greedy's moves fall short of the best by that measure.

Usage: ``python -m benchmarks.learned_search_study.golf_q_regret MODEL.zip GAMES``
"""

from __future__ import annotations

import sys

import gymnasium as gym
import numpy as np

import patience_gym  # noqa: F401
from agents.baselines.greedy_golf import GolfGreedy
from agents.ppo import PPOAgent
from agents.solvers.golf import solve

WORLDS = 16


def main() -> None:
    student, greedy = PPOAgent(sys.argv[1]), GolfGreedy()
    env = gym.make("patience_gym/Golf-v0", obs_encoding="rules_moves").unwrapped
    rng = np.random.default_rng(5)
    shortfall = {"student": 0.0, "greedy": 0.0}
    best_found = {"student": 0, "greedy": 0}
    same, positions = 0, 0
    for seed in range(3_000_000, 3_000_000 + int(sys.argv[2])):
        obs, info = env.reset(seed=seed)
        done = False
        while not done:
            game, state = env.game, env.state
            mask = info["action_mask"].astype(bool)
            legal = [int(a) for a in np.flatnonzero(mask)]
            chosen = {"student": student.act(env, obs, mask), "greedy": greedy.act(env, obs, mask)}
            if len(legal) > 1 and rng.random() < 0.5:
                value = dict.fromkeys(legal, 0.0)
                for _ in range(WORLDS):
                    world = game.determinize(state, rng)
                    for action in legal:
                        after = world.copy()
                        game.apply(after, action)
                        value[action] += solve(game, after, max_nodes=2_000_000).score / WORLDS
                best = min(value.values())
                for who, action in chosen.items():
                    shortfall[who] += value[action] - best
                    best_found[who] += value[action] == best
                same += chosen["student"] == chosen["greedy"]
                positions += 1
            obs, _, terminated, truncated, info = env.step(chosen["student"])
            done = terminated or truncated
    for who in shortfall:
        print(f"{who}: mean shortfall {shortfall[who] / positions:.3f}, best move {best_found[who] / positions:.3f}")
    print(f"{positions} positions; student and greedy agree on {same / positions:.3f}")


if __name__ == "__main__":
    main()
