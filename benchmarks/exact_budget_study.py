"""Study (research notes, section 53): where the learned search loses, was its open position lost, or only
not proven within the solver's budget?

    python -m benchmarks.exact_budget_study --game puss --model models/puss_search.zip --sims 1 --episodes 100
    python -m benchmarks.exact_budget_study --game puss --model models/puss_search.zip --sims 16 \
        --exact-nodes 1000000 --seeds 6 140 276 283 352 --budgets 5000000 20000000
    python -m benchmarks.exact_budget_study --game milligan --model models/miss_milligan_search.zip --sims 1 \
        --episodes 17

Plays ``search:MODEL`` on each deal; for each game it does not win, takes its first position where nothing is
hidden and asks the solver for the exact line within each of ``--budgets`` positions in turn, printing whether
it is proven and how long it took.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import gymnasium as gym
import numpy as np

import patience_gym  # noqa: F401  (registers the envs)
from agents.search.agent import SearchAgent
from agents.search.exact import exact_line
from agents.search.network import score_of
from agents.solvers.milligan import solve as solve_milligan
from patience_gym.features import make_observer

ENVS = {"puss": "patience_gym/PussInTheCorner-v0", "milligan": "patience_gym/MissMilligan-v0"}
BEST = {"puss": 52.0, "milligan": 104.0}


def network_dives(agent: SearchAgent, game: Any, state: Any, count: int) -> tuple[float, int]:
    """The best final score and the wins of ``count`` games played from ``state`` by the search's network: the
    first by its most likely move, the others sampled from its prior (seeded)."""
    observe = make_observer(game, "rules_moves").observe
    rng, best, wins = np.random.default_rng(0), 0.0, 0
    for dive in range(count):
        world = state.copy()
        while not game.is_over(world):
            mask = np.asarray(game.legal_mask(world), dtype=bool)
            log_prior = agent.net.evaluate(observe(world)[None], mask[None])[0][0]
            prior = np.exp(log_prior - log_prior[mask].max())
            action = int(np.argmax(log_prior)) if dive == 0 else int(rng.choice(len(prior), p=prior / prior.sum()))
            game.apply(world, action)
        final = float(game.score(world))
        best, wins = max(best, final), wins + (final >= BEST[game_key(game)])
    return best, wins


def game_key(game: Any) -> str:
    return "puss" if game.name == "puss_in_the_corner" else "milligan"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=sorted(ENVS), required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--sims", type=int, default=16)
    parser.add_argument("--exact-nodes", type=int, default=50_000, help="the search's own budget in play")
    parser.add_argument("--episodes", type=int, default=100, help="deals 0..N-1 (unless --seeds)")
    parser.add_argument("--seeds", type=int, nargs="*", help="these deals only")
    parser.add_argument("--budgets", type=int, nargs="+", default=[50_000, 1_000_000])
    parser.add_argument("--dives", type=int, default=0, help="Miss Milligan: the solver's greedy dives and beam too")
    parser.add_argument("--network-dives", type=int, default=0, help="first, N games of the network from there")
    args = parser.parse_args()
    env_id, kwargs = ENVS[args.game], dict[str, Any](obs_encoding="rules_moves")
    agent = SearchAgent(args.model, env_id, kwargs, sims=args.sims, exact_nodes=args.exact_nodes)
    env = gym.make(env_id, **kwargs)
    seeds = args.seeds if args.seeds else range(args.episodes)
    lost = 0
    for seed in seeds:
        obs, info = env.reset(seed=seed)
        agent.reset(seed)
        game, opened, done = env.unwrapped.game, None, False  # type: ignore[attr-defined]
        while not done:
            state = env.unwrapped.state  # type: ignore[attr-defined]
            if opened is None and not game.hidden_count(state) and not game.is_over(state):
                opened = state.copy()
            action = agent.act(env.unwrapped, obs, info["action_mask"])  # type: ignore[arg-type]
            obs, _, terminated, truncated, info = env.step(action)
            done = terminated or truncated
        score = float(game.score(env.unwrapped.state))  # type: ignore[attr-defined]
        if score >= BEST[args.game]:
            continue
        lost += 1
        if opened is None:
            print(f"deal {seed}: {score:g}, no open position reached", flush=True)
            continue
        if args.network_dives:
            best, wins = network_dives(agent, game, opened, args.network_dives)
            print(f"deal {seed}: {score:g}; {args.network_dives} network dives: best {best:g}, {wins} won", flush=True)
        for budget in args.budgets:
            start = time.perf_counter()
            if args.dives:  # the family solver as the planner runs it: greedy dives, then a beam, then search
                solution = solve_milligan(game, opened, max_nodes=budget, dives=args.dives, beam=30)
                proven = solution.verdict == "won"
                verdict = "proven won" if proven else f"not proven ({solution.verdict})"
            else:
                found = exact_line(game, opened, budget)
                proven = found is not None
                verdict = f"proven {score_of(game.name, found[0]):g}" if found is not None else "not proven"
            took = time.perf_counter() - start
            print(f"deal {seed}: {score:g}; within {budget:,} positions: {verdict}, {took:.1f} s", flush=True)
            if proven:
                break
    print(f"{lost} of {len(seeds)} deals not won")


if __name__ == "__main__":
    main()
