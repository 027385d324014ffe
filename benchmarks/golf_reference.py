"""Two myopic Golf policies as reference points for what PPO has learned.

Both never deal while a card can be played; one plays the playable card of
the lowest column, the other a uniformly random playable card. Deals
``reset(seed=0..N-1)`` of Golf-v0, as in the run reports. Writes
``benchmarks/results/golf_reference.md``.

Usage: ``python -m benchmarks.golf_reference [--episodes 500]``
"""

from __future__ import annotations

import argparse

import gymnasium as gym
import numpy as np

import patience_gym  # noqa: F401 - registers the envs
from agents.evaluate import mean_ci95
from benchmarks import RESULTS
from patience_gym.games.golf import DEAL


def play(policy: str, episodes: int) -> list[float]:
    """Scores of ``policy`` ("lowest" or "random" playable card) on deals 0..episodes-1."""
    env = gym.make("patience_gym/Golf-v0")
    rng = np.random.default_rng(0)
    scores = []
    for seed in range(episodes):
        _, info = env.reset(seed=seed)
        done = False
        while not done:
            playable = np.flatnonzero(info["action_mask"][:DEAL])
            action = DEAL
            if len(playable):
                action = int(playable[0] if policy == "lowest" else rng.choice(playable))
            _, _, done, _, info = env.step(action)
        scores.append(float(info["score"]))
    return scores


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--episodes", type=int, default=500)
    args = parser.parse_args()
    lines = ["| Golf-v0 policy (never deals while a card plays) | deals | mean score ± 95% CI |", "|---|---:|---:|"]
    for policy in ("lowest", "random"):
        mean, ci = mean_ci95(play(policy, args.episodes))
        lines.append(f"| plays the {policy} playable card | {args.episodes} | {mean:.2f} ± {ci:.2f} |")
    table = "\n".join(lines) + "\n"
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "golf_reference.md").write_text(table)
    print(table)


if __name__ == "__main__":
    main()
