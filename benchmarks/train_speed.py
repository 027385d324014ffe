"""Training throughput: env steps per second during MaskablePPO, and the env's share of the time.

Each env of ``configs/*.yaml`` is trained for ``--steps`` steps with its own
config (network, n_envs, PPO hyperparameters) in one process
(``DummyVecEnv``); a wrapper times every ``step``/``reset``/``action_masks``
call, so the env's share of the wall time is measured, the rest being the
network (rollout inference and the PPO update) and SB3's bookkeeping.

Usage: ``python -m benchmarks.train_speed [--steps 20000] [--config configs/golf.yaml ...]``

Writes ``benchmarks/results/train_speed.json`` and ``.md``; the rows of configs
not measured this time are kept from the previous results.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

import patience_gym  # noqa: F401 - registers the envs
from agents.config import load_config, resolve_policy, resolve_policy_kwargs, resolve_ppo_kwargs
from benchmarks import RESULTS, write_results

ROOT = Path(__file__).resolve().parent.parent


class TimedEnv(gym.Wrapper):
    """Accumulates the wall time spent inside the env."""

    seconds = 0.0  # shared by every instance in this process

    def step(self, action: Any) -> Any:
        start = time.perf_counter()
        out = self.env.step(action)
        TimedEnv.seconds += time.perf_counter() - start
        return out

    def reset(self, **kwargs: Any) -> Any:
        start = time.perf_counter()
        out = self.env.reset(**kwargs)
        TimedEnv.seconds += time.perf_counter() - start
        return out

    def action_masks(self) -> np.ndarray:
        start = time.perf_counter()
        mask = self.env.get_wrapper_attr("action_masks")()
        TimedEnv.seconds += time.perf_counter() - start
        return mask  # type: ignore[no-any-return]


def measure(config_path: Path, steps: int) -> dict[str, Any]:
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.env_util import make_vec_env

    config = load_config(config_path)
    envs = make_vec_env(
        config.env_id,
        n_envs=config.n_envs,
        seed=0,
        env_kwargs={"render_mode": None, **config.env_kwargs},
        wrapper_class=TimedEnv,
    )
    model = MaskablePPO(
        resolve_policy(config.policy),
        envs,
        policy_kwargs=resolve_policy_kwargs(config.policy_kwargs) or None,
        device="cpu",
        seed=0,
        **resolve_ppo_kwargs(config.ppo),
    )
    TimedEnv.seconds = 0.0
    start = time.perf_counter()
    model.learn(total_timesteps=steps)
    total = time.perf_counter() - start
    return {
        "env": config.env_id,
        "config": str(config_path.relative_to(ROOT)) if config_path.is_relative_to(ROOT) else str(config_path),
        "steps": model.num_timesteps,
        "seconds": total,
        "steps_per_s": model.num_timesteps / total,
        "env_share": TimedEnv.seconds / total,
    }


def to_markdown(rows: list[dict[str, Any]], machine: str) -> str:
    """Steps per second during MaskablePPO and the share of the time inside the env."""
    lines = [
        f"MaskablePPO training throughput, each env with its committed config, one process, on {machine}.",
        "",
        "| env | config | steps/s | in the env | network + SB3 |",
        "|---|---|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['env'].split('/')[-1]} | `{r['config']}` | {r['steps_per_s']:,.0f} | "
            f"{100 * r['env_share']:.0f}% | {100 * (1 - r['env_share']):.0f}% |"
        )
    return "\n".join(lines) + "\n"


def merge(previous: Path, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The previous results' rows, each replaced by this run's row of the same config, then new configs."""
    if not previous.is_file():
        return rows
    fresh = {r["config"]: r for r in rows}
    kept = [fresh.pop(r["config"], r) for r in json.loads(previous.read_text())["rows"]]
    return kept + list(fresh.values())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=20_000)
    parser.add_argument("--config", nargs="*", type=Path, default=sorted((ROOT / "configs").glob("*.yaml")))
    args = parser.parse_args()
    import torch

    machine = f"{platform.machine()}, {os.cpu_count()} CPUs, torch threads {torch.get_num_threads()}"
    print(f"machine: {machine}")
    print(f"{'env':38s} {'steps/s':>8s} {'in env':>7s} {'network+SB3':>12s}")
    rows = []
    for path in args.config:
        row = measure(path.resolve(), args.steps)
        rows.append(row)
        print(
            f"{row['env']:38s} {row['steps_per_s']:8.0f} {100 * row['env_share']:6.1f}% "
            f"{100 * (1 - row['env_share']):11.1f}%"
        )
    rows = merge(RESULTS / "train_speed.json", rows)
    write_results("train_speed", {"machine": machine, "rows": rows}, to_markdown(rows, machine))


if __name__ == "__main__":
    main()
