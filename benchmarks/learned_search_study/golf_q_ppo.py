"""MaskablePPO (``configs/golf_rules.yaml``'s settings, a constant learning rate) from a network fitted by
``golf_q_fit``: 200k steps training the critic alone, then everything; then the report deals against the greedy.

Usage: ``python -m benchmarks.learned_search_study.golf_q_ppo FITTED.zip STEPS LEARNING_RATE OUT.zip``
"""

from __future__ import annotations

import sys
import time

from sb3_contrib import MaskablePPO

from agents.baselines.greedy_golf import GolfGreedy
from agents.evaluation.evaluate import mean_ci95, paired_ci95, play_episodes
from agents.ppo import PPOAgent
from agents.training.config import load_config
from agents.training.envs import make_envs

CRITIC_STEPS = 200_000


def main() -> None:
    fitted, steps, rate, out = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
    config = load_config("configs/golf_rules.yaml")
    envs = make_envs(config, config.n_envs, 5_000_000, "batched")
    constant = {"learning_rate": rate, "lr_schedule": lambda _: rate}
    model = MaskablePPO.load(fitted, env=envs, device="cpu", custom_objects=constant)
    clock = time.perf_counter()
    critic = [p for name, p in model.policy.named_parameters() if "value_net" in name or "mlp_extractor" in name]
    for parameter in model.policy.parameters():
        parameter.requires_grad_(False)
    for parameter in critic:
        parameter.requires_grad_(True)
    model.learn(CRITIC_STEPS)
    for parameter in model.policy.parameters():
        parameter.requires_grad_(True)
    model.learn(steps, reset_num_timesteps=False)
    print(f"trained in {time.perf_counter() - clock:.0f} s")
    model.save(out)
    seeds = list(range(1000))
    student = play_episodes("patience_gym/Golf-v0", PPOAgent(model), seeds, {"obs_encoding": "rules_moves"})
    greedy = play_episodes("patience_gym/Golf-v0", GolfGreedy(), seeds)
    print(f"student {mean_ci95(student.scores)}, greedy {mean_ci95(greedy.scores)}, ")
    print(f"student minus greedy, paired: {paired_ci95(student.scores, greedy.scores)}")


if __name__ == "__main__":
    main()
