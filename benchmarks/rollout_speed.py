"""Greedy rollouts of many worlds: the batched engine's kernel against the single env, on the same positions.

For each env, the opening positions of ``--worlds`` seeded deals are played to their ends twice: by
:class:`patience_gym.vector.rollouts.WorldRollouts` with ``policy="greedy"`` (one call, the greedy in
the batched engine's kernels), and one by one in the single env (``gym.make`` reset with each state,
the greedy agent's rule from :mod:`patience_gym.heuristics` each step, its memory kept through the
game). Both play the very same moves (checked here: the move counts and mean scores must be equal,
and ``tests/vector/test_rollouts.py`` checks every move); the table gives moves a second for each and
their ratio, measured in one run. numba's cache load or compile is done before the timing.

Usage: ``python -m benchmarks.rollout_speed [--worlds 256] [--env ID ...] [--out DIR]``

Writes ``benchmarks/results/rollout_speed.json`` and ``.md``.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

import patience_gym
from agents.training.report import machine_description
from benchmarks import RESULTS, write_results
from patience_gym.games.milligan import MilliganGame
from patience_gym.heuristics import greedy_move
from patience_gym.heuristics.milligan_greedy import GreedyRules
from patience_gym.vector.rollouts import WorldRollouts

ENV_IDS = sorted(patience_gym.ENVS)


def single_env_greedy(env_id: str, states: list[Any]) -> tuple[float, int, float]:
    """Each state played to its end in ``gym.make(env_id)`` by the greedy agent's rule (a fresh player per
    game): mean score, moves, seconds."""
    env: Any = gym.make(env_id, max_episode_steps=None)
    game = env.unwrapped.game
    scores, moves = [], 0
    start = time.perf_counter()
    for state in states:
        _, info = env.reset(options={"state": game.to_dict(state)})
        choose = GreedyRules().choose if isinstance(game, MilliganGame) else greedy_move
        while True:
            action = choose(game, env.unwrapped.state, info["action_mask"])
            _, _, terminated, truncated, info = env.step(action)
            moves += 1
            if terminated or truncated:
                break
        scores.append(info["score"])
    return float(np.mean(scores)), moves, time.perf_counter() - start


def measure(env_id: str, worlds: int) -> dict[str, Any]:
    """One env's row: both ways over the opening positions of deals 0..worlds-1."""
    rollouts = WorldRollouts(env_id, worlds)
    game = rollouts.game
    states = [game.init(np.random.default_rng(seed)) for seed in range(worlds)]
    rollouts.run(states[:2], "greedy")  # numba's cache load (or compile), kept out of the timing
    start = time.perf_counter()
    result = rollouts.run(states, "greedy")
    batched_s = time.perf_counter() - start
    single_mean, single_moves, single_s = single_env_greedy(env_id, states)
    batched_moves = int(result.steps.sum())
    if batched_moves != single_moves or float(result.scores.mean()) != single_mean:
        raise RuntimeError(f"{env_id}: the kernel's greedy and the single env's played different games")
    return {
        "env": env_id,
        "worlds": worlds,
        "moves": batched_moves,
        "mean_score": single_mean,
        "batched_moves_per_s": batched_moves / batched_s,
        "single_moves_per_s": single_moves / single_s,
        "ratio": (batched_moves / batched_s) / (single_moves / single_s),
    }


def to_markdown(data: dict[str, Any]) -> str:
    lines = [
        f"Greedy rollouts of {data['worlds']} deals' opening positions to their ends, one process, on "
        f'{data["machine"]}: `WorldRollouts(policy="greedy")` against the single env stepped with the '
        "rules' greedy, the same moves both ways (ratio measured in one run).",
        "",
        "| env | moves | greedy's mean score | batched kernel, moves/s | single env, moves/s | ratio |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for r in data["rows"]:
        lines.append(
            f"| {r['env'].split('/')[-1]} | {r['moves']:,} | {r['mean_score']:.2f} | "
            f"{r['batched_moves_per_s']:,.0f} | {r['single_moves_per_s']:,.0f} | {r['ratio']:,.0f}x |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--worlds", type=int, default=256, help="deals (and batched slots) per env")
    parser.add_argument("--env", nargs="+", default=ENV_IDS, choices=ENV_IDS, metavar="ID", help=f"of {ENV_IDS}")
    parser.add_argument("--out", type=Path, default=RESULTS, help="folder for rollout_speed.json and .md")
    args = parser.parse_args(argv)
    if args.worlds < 1:
        parser.error(f"--worlds must be at least 1, got {args.worlds}")
    data = {"worlds": args.worlds, "machine": machine_description(), "rows": []}
    for env_id in args.env:
        data["rows"].append(measure(env_id, args.worlds))
    write_results("rollout_speed", data, to_markdown(data), args.out)


if __name__ == "__main__":
    main()
