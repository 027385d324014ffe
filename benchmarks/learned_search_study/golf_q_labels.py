"""Label every legal move of the positions met in epsilon-greedy Golf holes with its exact value in the true deal.

Usage: ``python -m benchmarks.learned_search_study.golf_q_labels FIRST_SEED GAMES EPSILON OUT.npz [MODEL.zip]``
(with a model, the positions are those of its own games, epsilon-random as well: a DAgger round).
"""

from __future__ import annotations

import sys
import time

import gymnasium as gym
import numpy as np

import patience_gym  # noqa: F401
from agents.baselines.greedy_golf import GolfGreedy
from agents.ppo import PPOAgent
from agents.solvers.golf import solve


def main() -> None:
    start, games, eps, out = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
    env = gym.make("patience_gym/Golf-v0", obs_encoding="rules_moves").unwrapped
    player = PPOAgent(sys.argv[5]) if len(sys.argv) > 5 else GolfGreedy()
    rng = np.random.default_rng(start)
    rows_obs, rows_mask, rows_q = [], [], []
    clock = time.perf_counter()
    for seed in range(start, start + games):
        obs, info = env.reset(seed=seed)
        done = False
        while not done:
            game, state = env.game, env.state
            mask = info["action_mask"].astype(bool)
            legal = np.flatnonzero(mask)
            if len(legal) > 1:
                q = np.full(len(mask), np.nan, np.float32)
                for action in legal:
                    after = state.copy()
                    game.apply(after, int(action))
                    q[action] = solve(game, after, max_nodes=2_000_000).score
                rows_obs.append(obs.copy())
                rows_mask.append(mask.copy())
                rows_q.append(q)
            action = player.act(env, obs, mask) if rng.random() > eps else int(rng.choice(legal))
            obs, _, terminated, truncated, info = env.step(action)
            done = terminated or truncated
    np.savez(out, obs=np.array(rows_obs), masks=np.array(rows_mask), q=np.array(rows_q))
    print(f"{len(rows_obs)} positions from {games} games in {time.perf_counter() - clock:.0f} s")


if __name__ == "__main__":
    main()
