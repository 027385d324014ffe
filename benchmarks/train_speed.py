"""Training throughput: env steps per second during MaskablePPO, and the env's share of the time.

Each env of ``configs/*.yaml`` is trained for ``--steps`` steps with its own
config (network, n_envs, PPO hyperparameters, vector env) in one process; the
env's time is measured around every ``step``/``reset``/``action_masks`` call (with
``vec: dummy``, per env; with the batched engine, :mod:`patience_gym.vector`,
around the whole vector step), the rest being the network (rollout inference and
the PPO update) and SB3's bookkeeping.

``--vec`` overrides the configs' vector env, and ``--n-envs``, ``--n-steps`` and
``--batch-size`` their shapes. ``--baseline REV`` also measures, in the same run,
each config as it was at git revision ``REV`` on the single-env stack
(``DummyVecEnv``, what training ran on before the batched engine), and gives
the ratio: the machine is shared and noisy, so only ratios taken in one run are
reported.

Usage: ``python -m benchmarks.train_speed [--steps 20000] [--config configs/golf.yaml ...]
[--vec dummy|batched] [--n-envs N] [--n-steps N] [--batch-size N] [--baseline REV]``

Writes ``benchmarks/results/train_speed.json`` and ``.md``; the rows of configs
not measured this time are kept from the previous results. A second table gives
the speed figure that matters for learning, read from the committed runs
(``benchmarks/runs/*/results.json``): the training time until the run's held-out
evaluation first beat greedy (see :func:`agents.training.report.time_to_beat`).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import platform
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

import patience_gym  # noqa: F401 - registers the envs
from agents.training.config import load_config
from agents.training.experiment import new_model
from agents.training.expert_iteration import is_expert_iteration
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


def _timed_vec_env(envs: Any) -> Any:
    """``envs`` with every step, reset and mask call timed into ``TimedEnv.seconds``."""
    from stable_baselines3.common.vec_env import VecEnvWrapper

    class TimedVecEnv(VecEnvWrapper):
        def _timed(self, call: Any, *args: Any) -> Any:
            start = time.perf_counter()
            out = call(*args)
            TimedEnv.seconds += time.perf_counter() - start
            return out

        def reset(self) -> Any:
            return self._timed(self.venv.reset)

        def step_wait(self) -> Any:
            return self._timed(self.venv.step_wait)

        def action_masks(self) -> np.ndarray:
            return self._timed(self.venv.action_masks)  # type: ignore[attr-defined,no-any-return]

    return TimedVecEnv(envs)


def measure(
    config_path: Path,
    steps: int,
    vec: str | None = None,
    overrides: dict[str, int] | None = None,
    label: str | None = None,
) -> dict[str, Any]:
    """Train ``steps`` steps with the config at ``config_path`` (``vec``: None for the config's own)."""
    from stable_baselines3.common.env_util import make_vec_env

    config = load_config(config_path)
    vec = vec or config.vec
    if vec == "subproc":
        vec = "dummy"  # one process: the env's time is measured in it
    given = {k: v for k, v in (overrides or {}).items() if v}
    n_envs = given.pop("n_envs", config.n_envs)
    config = dataclasses.replace(config, ppo=dataclasses.replace(config.ppo, **given))  # type: ignore[arg-type]
    if vec == "batched":
        from agents.training.sb3_vec_env import make_sb3_vec_env

        envs = _timed_vec_env(
            make_sb3_vec_env(config.learner_env_id, n_envs, seed=0, env_kwargs=dict(config.env_kwargs))
        )
    else:
        envs = make_vec_env(
            config.learner_env_id,
            n_envs=n_envs,
            seed=0,
            env_kwargs={"render_mode": None, **config.env_kwargs},
            wrapper_class=TimedEnv,
        )
    model = new_model(config, envs, run_dir=None, seed=0)
    if vec == "batched":  # compile (or load) the reset and step kernels before the clock starts
        envs.reset()
        envs.step(np.stack(envs.env_method("action_masks")).argmax(axis=1))
    TimedEnv.seconds = 0.0
    start = time.perf_counter()
    model.learn(total_timesteps=steps)
    total = time.perf_counter() - start
    return {
        "env": config.env_id,
        "config": label or _relative(config_path),
        "steps": model.num_timesteps,
        "seconds": total,
        "steps_per_s": model.num_timesteps / total,
        "env_share": TimedEnv.seconds / total,
        "vec": vec,
        "n_envs": n_envs,
        "n_steps": config.ppo.n_steps,
        "batch_size": config.ppo.batch_size,
        "network": config.policy_kwargs.get("features_extractor_class", config.policy_kwargs.get("net_arch")),
    }


def _relative(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def config_at(revision: str, path: Path, folder: Path) -> Path | None:
    """The config at ``path`` as it was at git ``revision``, written into ``folder``; None if it did not exist."""
    relative = path.resolve().relative_to(ROOT)
    shown = subprocess.run(
        ["git", "show", f"{revision}:{relative.as_posix()}"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    if shown.returncode != 0:
        return None
    out = folder / relative.name
    out.write_text(shown.stdout)
    return out


def to_markdown(rows: list[dict[str, Any]], machine: str) -> str:
    """Steps per second during MaskablePPO and the share of the time inside the env."""
    lines = [
        f"MaskablePPO training throughput, each env with its committed config, one process, on {machine}.",
        "",
        "| env | config | network | vec env | games x steps, batch | steps/s | in the env | network + SB3 "
        "| x baseline (same run) |",
        "|---|---|---|---|---|---:|---:|---:|---:|",
    ]
    for r in rows:
        shape = f"{r['n_envs']} x {r['n_steps']}, {r['batch_size']}" if "n_envs" in r else "config's"
        network = str(r.get("network") or "").split(".")[-1] or "—"
        ratio = f"{r['speedup']:.1f}x `{r['baseline']}`" if "speedup" in r else ""
        lines.append(
            f"| {r['env'].split('/')[-1]} | `{r['config']}` | {network} | {r.get('vec', 'dummy')} | {shape} | "
            f"{r['steps_per_s']:,.0f} | {100 * r['env_share']:.0f}% | {100 * (1 - r['env_share']):.0f}% | {ratio} |"
        )
    return "\n".join(lines) + "\n"


RUNS = ROOT / "benchmarks" / "runs"


def time_to_beat_rows(runs: Path = RUNS) -> list[dict[str, Any]]:
    """Each committed run's time to beat greedy (``results.json``'s ``time_to_beat_greedy``) and its final verdict."""
    rows = []
    for path in sorted(runs.glob("*/results.json")):
        result = json.loads(path.read_text())
        found = result.get("time_to_beat_greedy")
        if found is None:
            continue
        paired = {p["baseline"]: p for p in result.get("paired", [])}.get("greedy", {})
        encoding = result.get("env_kwargs", {}).get("obs_encoding", "")
        rows.append({"run": path.parent.name, "env": result["env"], "obs_encoding": encoding,
                     "train_seconds": result["train_seconds"], "found": found, "paired": paired})  # fmt: skip
    return rows


def time_to_beat_markdown(rows: list[dict[str, Any]]) -> str:
    """The speed figure that matters: training time (warm start included) until the held-out evaluation beat greedy."""
    lines = [
        "",
        "Time to beat greedy, from the committed runs (`benchmarks/runs/*/results.json`): the training time, warm "
        "start included, at the first held-out evaluation whose mean return was above greedy's on the same deals; "
        "then the whole run's time and its paired difference from greedy on the report's 1,000 deals. The held-out "
        "evaluations play 20 to 100 deals, a noisy signal: only the paired difference, outside its interval, says "
        "that a run beats greedy.",
        "",
        "| run | `obs_encoding` | time to beat greedy (held-out) | at step | run's time | PPO - greedy, paired |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for r in rows:
        found, paired = r["found"], r["paired"]
        seconds = found.get("train_seconds")
        when = "not reached" if found["step"] is None else "—" if seconds is None else f"{seconds / 60:.1f} min"
        step = "" if found["step"] is None else f"{found['step']:,}"
        diff = f"{paired['mean']:+.2f} ± {paired['ci95']:.2f}" if paired else ""
        lines.append(
            f"| {r['run']} | `{r['obs_encoding']}` | {when} | {step} | {r['train_seconds'] / 60:.1f} min | {diff} |"
        )
    return "\n".join(lines) + "\n"


def _key(row: dict[str, Any]) -> tuple[str, str]:
    return row["config"], row.get("vec", "dummy")


def merge(previous: Path, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The previous results' rows, each replaced by this run's row of the same config, then new configs."""
    if not previous.is_file():
        return rows
    fresh = {_key(r): r for r in rows}
    measured = {r["config"] for r in rows}
    rows_before = json.loads(previous.read_text())["rows"]
    old = [r for r in rows_before if not r["config"].startswith("configs/") or (ROOT / r["config"]).is_file()]
    old = [r for r in old if _key(r) in fresh or r["config"] not in measured]  # a config's other vec: stale
    kept = [fresh.pop(_key(r), r) for r in old]
    return kept + list(fresh.values())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=20_000)
    ppo_configs = [p for p in sorted((ROOT / "configs").glob("*.yaml")) if not is_expert_iteration(p)]
    parser.add_argument("--config", nargs="*", type=Path, default=ppo_configs, help="PPO configs (default: all)")
    parser.add_argument("--vec", choices=["dummy", "batched"], help="vector env (default: the config's)")
    parser.add_argument("--n-envs", type=int, help="games stepped together (default: the config's)")
    parser.add_argument("--n-steps", type=int, help="PPO rollout length per game (default: the config's)")
    parser.add_argument("--batch-size", type=int, help="PPO minibatch (default: the config's)")
    parser.add_argument("--baseline", metavar="REV", help="also measure each config as at git REV, single envs")
    args = parser.parse_args()
    overrides = {"n_envs": args.n_envs, "n_steps": args.n_steps, "batch_size": args.batch_size}
    import torch

    machine = f"{platform.machine()}, {os.cpu_count()} CPUs, torch threads {torch.get_num_threads()}"
    print(f"machine: {machine}")
    print(f"{'env':38s} {'steps/s':>8s} {'in env':>7s} {'network+SB3':>12s}")
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for path in args.config:
            measured = [measure(path.resolve(), args.steps, args.vec, overrides)]
            before = config_at(args.baseline, path, Path(folder)) if args.baseline else None
            if before is not None:
                label = f"{measured[0]['config']}@{args.baseline}"
                measured.append(measure(before, args.steps, "dummy", label=label))
                measured[0].update(speedup=measured[0]["steps_per_s"] / measured[1]["steps_per_s"], baseline=label)
            for row in measured:
                print(
                    f"{row['env']:38s} {row['steps_per_s']:8.0f} {100 * row['env_share']:6.1f}% "
                    f"{100 * (1 - row['env_share']):11.1f}%"
                )
            rows += measured
    rows = merge(RESULTS / "train_speed.json", rows)
    beat = time_to_beat_rows()
    table = to_markdown(rows, machine) + time_to_beat_markdown(beat)
    write_results("train_speed", {"machine": machine, "rows": rows, "time_to_beat_greedy": beat}, table)


if __name__ == "__main__":
    main()
