"""Study (issue 34; research notes section 45): how much of a trained policy's score is the deal's luck.

Section 44 left Giant's rules-only recipe passing the greedy at two training seeds of five and proposed,
untried, to take the deal's luck out of PPO's advantages (a critic that sees the hidden stock in
training, or games played in groups on the same deal with a leave-one-out baseline). Either can remove
at most the share of a game's return that the deal fixes. This study measures that share: the saved
policy plays every deal twice, sampling its moves as PPO does in training (two torch seeds), and the
correlation of the two plays' scores over the deals is the share of the score's variance that the deal
explains (the rest is the policy's own draws and what the game makes of them). It also plays the
policy's most likely move (as the report does) and the greedy on the same deals.

    python -m benchmarks.deal_luck_study --env patience_gym/Giant-v0 --model models/giant_rules.zip
    python -m benchmarks.deal_luck_study --env patience_gym/Golf-v0 --model models/golf_rules.zip

Deals: seeds 6,000,000 on (no run, report or selection set used them). One process, one torch thread.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import torch

import patience_gym  # noqa: F401  (registers the envs)
from agents.evaluation.evaluate import mean_ci95, paired_ci95, play_episodes
from agents.ppo import PPOAgent
from agents.registry import make_agent

FIRST_SEED = 6_000_000


def sampled_scores(
    env_id: str, env_kwargs: dict[str, Any], model: str, seeds: list[int], torch_seed: int
) -> list[float]:
    """The policy's score on each deal, every move drawn from its masked distribution (as in training)."""
    agent = PPOAgent(model, deterministic=False)
    env = gym.make(env_id, **env_kwargs)
    torch.manual_seed(torch_seed)
    scores = []
    for seed in seeds:
        obs, info = env.reset(seed=seed)
        done = False
        while not done:
            action = agent.act(env.unwrapped, obs, info["action_mask"])  # type: ignore[arg-type]
            obs, _, terminated, truncated, info = env.step(action)
            done = terminated or truncated
        scores.append(float(info["score"]))
    return scores


def correlation_ci95(a: list[float], b: list[float]) -> tuple[float, float, float]:
    """Pearson's r of ``a`` and ``b`` with its 95% interval (Fisher's z)."""
    r = float(np.corrcoef(a, b)[0, 1])
    z, half = math.atanh(r), 1.96 / math.sqrt(len(a) - 3)
    return r, math.tanh(z - half), math.tanh(z + half)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--env", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--episodes", type=int, default=500)
    parser.add_argument("--json", help="write every score here")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    env_kwargs = {"obs_encoding": "rules_moves"}
    seeds = list(range(FIRST_SEED, FIRST_SEED + args.episodes))
    scores: dict[str, list[float]] = {}
    for k in range(2):
        start = time.perf_counter()
        scores[f"sampled {k}"] = sampled_scores(args.env, env_kwargs, args.model, seeds, torch_seed=k)
        print(f"sampled play {k}: {time.perf_counter() - start:.0f} s", flush=True)
    scores["most likely move"] = play_episodes(args.env, PPOAgent(args.model), seeds, env_kwargs).scores
    game = gym.make(args.env).unwrapped.game  # type: ignore[attr-defined]
    scores["greedy"] = play_episodes(args.env, make_agent("greedy", game.name), seeds, env_kwargs).scores
    for name, values in scores.items():
        mean, ci = mean_ci95(values)
        print(f"{name}: {mean:.2f} ± {ci:.2f} (SD {np.std(values):.2f})")
    r, low, high = correlation_ci95(scores["sampled 0"], scores["sampled 1"])
    print(f"the deal's share of a sampled play's variance (r of the two plays): {r:.2f} [{low:.2f}, {high:.2f}]")
    r, low, high = correlation_ci95(scores["most likely move"], scores["greedy"])
    print(f"r of the most likely move's scores and the greedy's: {r:.2f} [{low:.2f}, {high:.2f}]")
    for a, b in (("sampled 0", "most likely move"), ("most likely move", "greedy"), ("sampled 0", "sampled 1")):
        diff, ci = paired_ci95(scores[a], scores[b])
        print(f"{a} minus {b}: {diff:+.2f} ± {ci:.2f}")
    if args.json:
        Path(args.json).write_text(json.dumps({"env": args.env, "model": args.model, "seeds": seeds, "scores": scores}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
