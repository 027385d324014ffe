"""Fit ``GolfMoves`` (``configs/golf_rules.yaml``'s network) to minus the exact move values, then play the report deals.

Each position's logits are fitted, up to a constant, to ``-value / tau`` of its legal moves (mean squared
error), so that over many deals the policy ranks the moves by their mean exact value given what the
player sees: hindsight optimisation with infinitely many worlds, amortised into the network.

Usage: ``FX='{"hidden": 128}' python -m benchmarks.learned_search_study.golf_q_fit A.npz,B.npz EPOCHS TAU OUT.zip``
(``FX``: changes to the network's options).
"""

from __future__ import annotations

import json
import os
import sys
import time

import numpy as np
import torch as th

from agents.baselines.greedy_golf import GolfGreedy
from agents.evaluation.evaluate import mean_ci95, paired_ci95, play_episodes
from agents.ppo import PPOAgent
from agents.training.config import load_config
from agents.training.envs import make_envs
from agents.training.experiment import new_model

BATCH = 512


def main() -> None:
    files, epochs, tau, out = sys.argv[1].split(","), int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
    th.manual_seed(0)
    data = [np.load(f) for f in files]
    obs = th.as_tensor(np.concatenate([d["obs"] for d in data]))
    masks = th.as_tensor(np.concatenate([d["masks"] for d in data]))
    q = th.as_tensor(np.nan_to_num(np.concatenate([d["q"] for d in data]), nan=0.0))
    config = load_config("configs/golf_rules.yaml")
    config.policy_kwargs["features_extractor_kwargs"].update(json.loads(os.environ.get("FX", "{}")))
    model = new_model(config, make_envs(config, 4, 0, "batched"), None, 0)
    policy = model.policy
    weight = masks.float()

    def loss_of(idx: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
        logits = policy.get_distribution(obs[idx], action_masks=masks[idx]).distribution.logits
        legal, w = masks[idx], weight[idx]
        diff = (th.where(legal, logits, th.zeros_like(logits)) + q[idx] / tau) * w
        count = w.sum(1, keepdim=True)
        diff = (diff - diff.sum(1, keepdim=True) / count) * w
        best = th.where(legal, logits, th.full_like(logits, -1e9)).argmax(1)
        values = th.where(legal, q[idx], th.full_like(logits, 1e9))
        regret = values.gather(1, best[:, None]).squeeze(1) - values.min(1).values
        return ((diff**2).sum(1) / count.squeeze(1)).mean(), regret.mean()

    held = th.randperm(len(obs))
    held_out, train = held[: len(obs) // 20], held[len(obs) // 20 :]
    optimizer = th.optim.Adam(policy.parameters(), lr=1e-3)
    total = epochs * (len(train) // BATCH)
    schedule = th.optim.lr_scheduler.LambdaLR(optimizer, lambda step: max(0.0, 1 - step / total))
    clock = time.perf_counter()
    for epoch in range(epochs):
        policy.set_training_mode(True)
        order = train[th.randperm(len(train))]
        for start in range(0, len(order) - BATCH + 1, BATCH):
            loss, _ = loss_of(order[start : start + BATCH])
            optimizer.zero_grad()
            loss.backward()
            th.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
            optimizer.step()
            schedule.step()
        policy.set_training_mode(False)
        with th.no_grad():
            loss, regret = loss_of(held_out)
        print(f"epoch {epoch + 1}: held-out loss {loss:.3f}, regret {regret:.3f} ({time.perf_counter() - clock:.0f} s)")
    model.save(out)
    seeds = list(range(1000))
    student = play_episodes("patience_gym/Golf-v0", PPOAgent(model), seeds, {"obs_encoding": "rules_moves"})
    greedy = play_episodes("patience_gym/Golf-v0", GolfGreedy(), seeds)
    print(f"student {mean_ci95(student.scores)}, greedy {mean_ci95(greedy.scores)}, ")
    print(f"student minus greedy, paired: {paired_ci95(student.scores, greedy.scores)}")


if __name__ == "__main__":
    main()
