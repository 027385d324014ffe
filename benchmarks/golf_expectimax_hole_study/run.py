"""Builds hole.c and solves the given seeds' Golf-v0 holes exactly for a player who does not see the stock.

Research notes, section 27. Usage: ``python -m benchmarks.golf_expectimax_hole_study.run --seeds 0 1
[--group-ranks] [--orders N]`` (needs a C compiler); prints a line a hole. With ``--orders N``, the hole's
links are also played with N random orders of its stock by the greedy, the Golf planner (its registered
budget) and the perfect-knowledge solver: the mean of each estimates its expected score on those links,
which the exact value bounds for any player who does not see the stock.
"""

from __future__ import annotations

import argparse
import subprocess
import tempfile
from pathlib import Path

import numpy as np

from agents.planners.golf import GolfPlanner
from agents.solvers.golf import solve
from patience_gym.cards import RANK
from patience_gym.env import PatienceEnv
from patience_gym.games.golf import Golf
from patience_gym.heuristics.golf_greedy import choose_move

HERE = Path(__file__).resolve().parent


def deal_line(seed: int) -> str:
    """The hole the env deals for ``seed`` as hole.c reads it (ranks only; the stock's order is not used)."""
    state = Golf().init(np.random.default_rng(seed))
    links = " ".join(str(RANK[c]) for column in state.columns for c in column)
    stock = " ".join(str(RANK[c]) for c in state.stock[state.pos :])
    return f"{links} | {RANK[state.waste[-1]]} | {stock}\n"


def play_orders(seed: int, orders: int) -> dict[str, list[float]]:
    """The hole of ``seed`` with ``orders`` random stock orders: each agent's score on each."""
    game = Golf()
    base = game.init(np.random.default_rng(seed))
    env = PatienceEnv("golf")
    planner = GolfPlanner()
    scores: dict[str, list[float]] = {"greedy": [], "planner": [], "solver": []}
    for i in range(orders):
        data = game.to_dict(base)
        rng = np.random.default_rng([seed, i])
        data["stock"] = [data["stock"][j] for j in rng.permutation(len(data["stock"]))]
        scores["solver"].append(float(solve(game, game.from_dict(data)).score))
        for name in ("greedy", "planner"):
            obs, info = env.reset(options={"state": data})
            planner.reset(seed=i)
            done = False
            while not done:
                mask = info["action_mask"]
                act = planner.act(env, obs, mask) if name == "planner" else choose_move(game, env.state, mask)
                action = act
                obs, _, terminated, truncated, info = env.step(action)
                done = terminated or truncated
            scores[name].append(float(game.score(env.state)))
    return scores


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    parser.add_argument("--group-ranks", action="store_true")
    parser.add_argument("--orders", type=int, default=0, help="also play N random stock orders of each hole")
    parser.add_argument("--no-exact", action="store_true", help="skip the exact value (with --orders)")
    args = parser.parse_args(argv)
    for seed in args.seeds:
        if args.orders:
            for name, values in play_orders(seed, args.orders).items():
                half = 1.96 * float(np.std(values, ddof=1)) / len(values) ** 0.5
                print(f"seed {seed} {name}: {np.mean(values):.2f} +- {half:.2f} over {len(values)} stock orders")
    if args.no_exact:
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        binary = Path(tmp) / "hole"
        subprocess.run(["gcc", "-O2", "-o", str(binary), str(HERE / "hole.c")], check=True)
        print("seed value chance_positions turn_positions cpu_seconds")
        for seed in args.seeds:
            flags = ["--group-ranks"] if args.group_ranks else []
            line = deal_line(seed)
            out = subprocess.run([str(binary), *flags], input=line, text=True, capture_output=True, check=True)
            print(seed, out.stdout.strip(), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
