"""Study (issue 35; deleted after its commit): the Golf planner's solver budget, per move or per turn.

Plays ``patience_gym/Golf-v0`` holes ``reset(seed=s)`` for ``s`` in ``[lo, hi)`` and prints one JSON line a
hole (seed, score, moves, seconds):

    python -m benchmarks.golf_planner_study greedy 300000 300100
    python -m benchmarks.golf_planner_study hop 300000 300100 16 20000 0.25  # the planner before this study
    python -m benchmarks.golf_planner_study hop 300000 300100 16 2000000     # each world solved exactly
    python -m benchmarks.golf_planner_study turn 300000 300100 16 2000000    # whole turns, solved from the deal on

``hop`` is the registered planner (a clock limit per move in seconds as a sixth argument, none by
default); ``turn`` chooses among the positions a turn of plays can reach, each scored by its mean over
the sampled worlds solved from the next deal on.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

import gymnasium as gym
import numpy as np

import patience_gym  # noqa: F401
from agents.planners.golf import GolfPlanner
from agents.solvers.golf import solve
from patience_gym.games.golf import DEAL, Golf, GolfState
from patience_gym.heuristics.golf_greedy import choose_move


def turn_ends(game: Golf, state: GolfState) -> dict[Any, tuple[GolfState, set[int]]]:
    """Each position a turn of plays reaches (heights, waste) -> (the position, the first moves reaching it)."""
    ends: dict[Any, tuple[GolfState, set[int]]] = {}
    stack: list[tuple[GolfState, int | None]] = [(state, None)]
    seen = set()
    while stack:
        s, first = stack.pop()
        key = (tuple(len(c) for c in s.columns), s.waste[-1])
        if (key, first) in seen:
            continue
        seen.add((key, first))
        ends.setdefault(key, (s, set()))[1].add(DEAL if first is None else first)
        if game.is_over(s):
            continue
        for a in game.legal_actions(s):
            if a != DEAL:
                t = s.copy()
                game.apply(t, a)
                stack.append((t, a if first is None else first))
    return ends


def turn_move(game: Golf, state: GolfState, worlds: int, nodes: int, rng: np.random.Generator) -> int:
    legal = game.legal_actions(state)
    if len(legal) == 1:
        return legal[0]
    if state.stock_left == 0:
        return solve(game, state, nodes).moves[0]
    sampled = [game.determinize(state, rng) for _ in range(worlds)]
    best: dict[int, float] = {}
    for end, firsts in turn_ends(game, state).values():
        if game.is_over(end):
            value = float(game.score(end))
        else:
            total = 0.0
            for w in sampled:
                after = GolfState([c[:] for c in end.columns], end.waste[:], w.stock, w.pos)
                game.apply(after, DEAL)
                total += game.score(after) if game.is_over(after) else solve(game, after, nodes).score
            value = total / worlds
        for first in firsts:
            best[first] = min(best.get(first, value), value)
    greedy = choose_move(game, state, game.legal_mask(state))
    return min(best, key=lambda a: (best[a], a != greedy, a))


def main() -> None:
    mode, lo, hi = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    worlds, nodes = (int(sys.argv[4]), int(sys.argv[5])) if mode != "greedy" else (0, 0)
    seconds = float(sys.argv[6]) if len(sys.argv) > 6 else None
    for seed in range(lo, hi):
        env = gym.make("patience_gym/Golf-v0")
        obs, info = env.reset(seed=seed)
        game, start = env.unwrapped.game, time.perf_counter()  # type: ignore[attr-defined]
        planner = GolfPlanner(samples=max(worlds, 1), max_seconds=seconds, max_nodes=nodes or None)
        planner.reset(seed)
        rng = np.random.default_rng(seed)
        moves, done = 0, False
        while not done:
            state = env.unwrapped.state  # type: ignore[attr-defined]
            if mode == "greedy":
                action = choose_move(game, state, info["action_mask"])
            elif mode == "hop":
                action = planner.act(env.unwrapped, obs, info["action_mask"])  # type: ignore[arg-type]
            else:
                action = turn_move(game, state, worlds, nodes, rng)
            obs, _, terminated, truncated, info = env.step(action)
            moves, done = moves + 1, terminated or truncated
        score = game.score(env.unwrapped.state)  # type: ignore[attr-defined]
        print(json.dumps({"seed": seed, "score": score, "moves": moves, "s": time.perf_counter() - start}), flush=True)


if __name__ == "__main__":
    main()
