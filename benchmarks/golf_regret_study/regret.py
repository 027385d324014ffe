"""Per-decision regret of the Golf planner against the exact best play for a player who does not see the stock.

Research notes, section 29. A decision's regret is the exact expected score of the move chosen less that of
the best move (``hole_lib.c``: an expectimax over the stock's ranks with a memo kept across calls). By the
performance difference lemma, an agent's expected score exceeds the optimum by the expected sum of its
regrets along its own games, so summed regrets estimate that excess with far less noise than scores do.

    python -m benchmarks.golf_regret_study.regret full --seed 0 --orders 0 100 [--variants ho64=64] [--ho1]
    python -m benchmarks.golf_regret_study.regret late --umax 11 --seeds 0 200

``full``: one hole's links (Golf-v0 seed ``--seed``) with random stock orders, solved whole first (minutes);
the hindsight planner plays, and at each of its decisions the greedy's, other sample counts' and the
one-level planner's (``ho1.py``) choices are scored too. ``late``: the holes of the given seeds, dealt as the
env deals them; the planner plays and its decisions with at most ``--umax`` stock cards left are scored.
One JSON line per game; ``analyze.py`` sums them.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from agents.planners.golf import GolfPlanner
from benchmarks.golf_regret_study.ho1 import HO1
from patience_gym.cards import RANK
from patience_gym.env import PatienceEnv
from patience_gym.games.golf import DEAL, Golf, GolfState
from patience_gym.heuristics.golf_greedy import choose_move

HERE = Path(__file__).resolve().parent
I7, I14, I35 = ctypes.c_int * 7, ctypes.c_int * 14, ctypes.c_int * 35


def load_lib(tmp: str) -> Any:
    path = Path(tmp) / "libhole.so"
    subprocess.run(["gcc", "-O3", "-shared", "-fPIC", "-o", str(path), str(HERE / "hole_lib.c")], check=True)
    lib = ctypes.CDLL(str(path))
    lib.turn_value.restype = ctypes.c_float
    lib.deal_value.restype = ctypes.c_float
    lib.memo_size.restype = ctypes.c_longlong
    return lib


def counts_of(state: GolfState) -> list[int]:
    counts = [0] * 14
    for card in state.stock[state.pos :]:  # the ranks left (the order is not used)
        counts[RANK[card]] += 1
    return counts


def q_values(lib: Any, state: GolfState, legal: list[int]) -> dict[int, float]:
    heights = [len(col) for col in state.columns]
    counts = I14(*counts_of(state))
    out = {}
    for a in legal:
        if a == DEAL:
            out[a] = lib.deal_value(I7(*heights), counts)
        else:
            after = heights[:]
            after[a] -= 1
            out[a] = lib.turn_value(I7(*after), RANK[state.columns[a][-1]], counts)
    return out


def play(
    lib: Any,
    env: PatienceEnv,
    obs: Any,
    info: dict[str, Any],
    planner: GolfPlanner,
    umax: int,
    variants: dict[str, GolfPlanner],
    ho1: HO1 | None,
) -> list[dict[str, Any]]:
    game = env.game
    decisions = []
    done = False
    while not done:
        mask = info["action_mask"]
        legal = [int(a) for a in np.flatnonzero(mask)]
        action = planner.act(env, obs, mask) if len(legal) > 1 else legal[0]
        if len(legal) > 1 and env.state.stock_left <= umax:
            q = q_values(lib, env.state, legal)
            best = min(q.values())
            d = {
                "U": env.state.stock_left,
                "n": len(legal),
                "ho": q[action] - best,
                "greedy": q[choose_move(game, env.state, mask)] - best,
            }
            for name, other in variants.items():
                d[name] = q[other.act(env, obs, mask)] - best
            if ho1 is not None:
                ho1.plan = []
                d["ho1"] = q[ho1.act(env.state)] - best
            decisions.append(d)
        obs, _, terminated, truncated, info = env.step(action)
        done = terminated or truncated
    return decisions


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["full", "late"])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--orders", type=int, nargs=2, default=[0, 100])
    parser.add_argument("--seeds", type=int, nargs=2, default=[0, 200])
    parser.add_argument("--umax", type=int, default=11)
    parser.add_argument("--variants", nargs="*", default=[], help="NAME=SAMPLES: the planner with other sample counts")
    parser.add_argument("--ho1", action="store_true", help="also score the one-level planner's choices (slow)")
    args = parser.parse_args()
    game = Golf()
    env = PatienceEnv("golf")
    with tempfile.TemporaryDirectory() as tmp:
        lib = load_lib(tmp)
        if args.mode == "full":
            base = game.init(np.random.default_rng(args.seed))
            lib.set_deal(I35(*[RANK[c] for col in base.columns for c in col]))
            t = time.perf_counter()
            root = lib.turn_value(I7(*[5] * 7), RANK[base.waste[-1]], I14(*counts_of(base)))
            print(json.dumps({"root": root, "secs": time.perf_counter() - t, "memo": lib.memo_size()}), flush=True)
            for i in range(*args.orders):
                data = game.to_dict(base)
                rng = np.random.default_rng([args.seed, i])
                data["stock"] = [data["stock"][j] for j in rng.permutation(len(data["stock"]))]
                obs, info = env.reset(options={"state": data})
                planner = GolfPlanner()
                planner.reset(seed=i)
                variants = {}
                for k, spec in enumerate(args.variants):
                    name, samples = spec.split("=")
                    variants[name] = GolfPlanner(samples=int(samples), max_seconds=None)
                    variants[name].reset(seed=1000 * (k + 1) + i)
                ho1 = HO1(game, m=4, seed=i) if args.ho1 else None
                decisions = play(lib, env, obs, info, planner, 99, variants, ho1)
                print(json.dumps({"order": i, "score": game.score(env.state), "decisions": decisions}), flush=True)
        else:
            planner = GolfPlanner()
            for seed in range(*args.seeds):
                obs, info = env.reset(seed=seed)
                planner.reset(seed=seed)
                lib.set_deal(I35(*[RANK[c] for col in env.state.columns for c in col]))
                t = time.perf_counter()
                decisions = play(lib, env, obs, info, planner, args.umax, {}, None)
                print(
                    json.dumps(
                        {
                            "seed": seed,
                            "score": game.score(env.state),
                            "secs": time.perf_counter() - t,
                            "memo": lib.memo_size(),
                            "decisions": decisions,
                        }
                    ),
                    flush=True,
                )


if __name__ == "__main__":
    main()
