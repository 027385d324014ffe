"""Study (issue 34, item 6): the Miss Milligan family planner with a learned rules-only policy in it.

Research notes, sections 34 (Miss Milligan) and 35 (Giant). Plays, on the same deals (``reset(seed=...)``),
paired deal by deal:

* ``policy``: the PPO model alone (``rules_moves``; the model is the final ``model.zip`` of a run of the
  family's canonical config, which reads no heuristic);
* ``policy_ending``: the policy while cards are in the stock, then the planner's own ending once the stock
  is out (nothing hidden: the exact solver, ``ENDGAME_NODES`` positions, else the greedy's game);
* ``planner_policy``: the planner with the policy's move in the greedy's place: the candidate that the
  others must beat by the margin on the sampled stocks, and the only deal it tries (rollouts stay greedy);
* ``planner`` (as registered) and ``greedy``.

    python -m benchmarks.policy_planner_study --model RUN/model.zip --env patience_gym/MissMilligan-v0 \\
        --seeds 0 200 --agents policy_ending planner --jobs 2 --json OUT.json
    python -m benchmarks.policy_planner_study --pair OUT.json [OTHER.json ...]

Prints each agent's mean, wins and seconds a move, and every pair's paired differences with 95% intervals.

The runs of section 34 (seeds 0-199; MODEL the 1,200,128-step checkpoint of
``python train.py --config configs/miss_milligan.yaml --total-timesteps 2400000 --seed 0``):
``--agents greedy planner --jobs 1`` and ``--agents policy_ending policy planner_policy --jobs 1``.

The Giant runs of section 35 (seeds 0-199; MODEL the final ``model.zip`` of
``python train.py --config configs/giant.yaml --run-dir RUN``, the canonical recipe):
``--env patience_gym/Giant-v0 --agents planner planner_policy policy policy_ending greedy --jobs 2``.
"""

from __future__ import annotations

import argparse
import json
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from agents.base import Agent
from agents.baselines.greedy_milligan import MilliganGreedy, evaluate
from agents.evaluation.evaluate import paired_ci95, play_episodes
from agents.load import load_for_env
from agents.planners.milligan import ENDGAME_NODES, MilliganPlanner
from agents.solvers.milligan import MilliganSolverAgent
from patience_gym.env import PatienceEnv
from patience_gym.games.milligan import MilliganGame, MilliganState
from patience_gym.games.milligan_tables import DEAL

AGENTS = ("policy", "policy_ending", "planner_policy", "planner", "greedy")


class PolicyThenEnding(Agent):
    """The policy while the stock lasts, then the planner's exact ending."""

    name = "policy_ending"

    def __init__(self, policy: Agent) -> None:
        self.policy = policy
        self.ending = MilliganSolverAgent(max_nodes=ENDGAME_NODES)

    def reset(self, seed: int | None = None) -> None:
        self.policy.reset(seed)
        self.ending.reset(seed)

    def act(self, env: PatienceEnv, obs: np.ndarray, mask: np.ndarray) -> int:
        if env.state.stock_left == 0:
            return self.ending.act(env, obs, mask)
        return self.policy.act(env, obs, mask)


class PolicyPlanner(MilliganPlanner):
    """The planner with the policy's move where the greedy's stood (the margin's move, the only deal)."""

    reads_observation = True
    name = "planner_policy"

    def __init__(self, policy: Agent) -> None:
        super().__init__()
        self.policy = policy
        self._move = -1

    def act(self, env: PatienceEnv, obs: np.ndarray, mask: np.ndarray) -> int:
        self._move = self.policy.act(env, obs, mask) if env.state.stock_left else -1
        return super().act(env, obs, mask)

    def candidates(self, game: MilliganGame, state: MilliganState, legal: list[int]) -> list[int]:
        scored = []
        for action in legal:
            if action != DEAL:  # dealing reads the stock: tried only when it is the policy's move
                after = state.copy()
                game.apply(after, action)
                scored.append((-evaluate(after), action))
        scored.sort()
        return sorted({a for _, a in scored[: self.top]} | {self._move})

    def preferred(self, game: MilliganGame, world: MilliganState) -> int:
        return self._move


def make(kind: str, model: str, env_id: str) -> Agent:
    if kind == "greedy":
        return MilliganGreedy()
    if kind == "planner":
        return MilliganPlanner()
    policy = load_for_env(model, env_id, {"obs_encoding": "rules_moves"})
    if kind == "policy":
        return policy
    if kind == "policy_ending":
        return PolicyThenEnding(policy)
    if kind == "planner_policy":
        return PolicyPlanner(policy)
    raise ValueError(f"unknown agent {kind!r}; choose from {', '.join(AGENTS)}")


def play_block(task: tuple[str, str, str, list[int]]) -> dict[str, Any]:
    kind, model, env_id, seeds = task
    import torch

    torch.set_num_threads(1)
    agent = make(kind, model, env_id)
    start = time.perf_counter()
    summary = play_episodes(env_id, agent, seeds, {"obs_encoding": "rules_moves"}, lockstep=1)
    return {
        "agent": kind,
        "seeds": seeds,
        "scores": summary.scores,
        "won": summary.won,
        "moves": summary.mean_moves * len(seeds),
        "seconds": time.perf_counter() - start,
    }


def report(blocks: list[dict[str, Any]]) -> None:
    by_agent: dict[str, dict[int, tuple[float, bool]]] = {}
    cost: dict[str, list[float]] = {}
    for block in blocks:
        deals = by_agent.setdefault(block["agent"], {})
        for seed, score, won in zip(block["seeds"], block["scores"], block["won"], strict=True):
            deals[seed] = (score, won)
        spent = cost.setdefault(block["agent"], [0.0, 0.0])
        spent[0] += block["seconds"]
        spent[1] += block["moves"]
    for agent, deals in by_agent.items():
        scores = [s for s, _ in deals.values()]
        won = np.mean([w for _, w in deals.values()])
        print(
            f"{agent:15s} {len(deals):5d} deals  mean {np.mean(scores):6.2f}  won {won:6.1%}"
            f"  {cost[agent][0] / max(cost[agent][1], 1):.4f} s a move"
        )
    names = list(by_agent)
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            common = sorted(set(by_agent[a]) & set(by_agent[b]))
            if len(common) < 2:
                continue
            diff, ci = paired_ci95([by_agent[a][s][0] for s in common], [by_agent[b][s][0] for s in common])
            wins, wci = paired_ci95(
                [float(by_agent[a][s][1]) for s in common], [float(by_agent[b][s][1]) for s in common]
            )
            print(
                f"{a} - {b} ({len(common)} deals): cards {diff:+.2f} ± {ci:.2f},"
                f" won {100 * wins:+.1f} ± {100 * wci:.1f} points"
            )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model")
    parser.add_argument("--env", default="patience_gym/MissMilligan-v0")
    parser.add_argument("--seeds", type=int, nargs=2, default=(0, 200), metavar=("FIRST", "COUNT"))
    parser.add_argument("--agents", nargs="+", choices=AGENTS, default=list(AGENTS))
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--block", type=int, default=10)
    parser.add_argument("--json")
    parser.add_argument("--pair", nargs="+", help="report kept results instead of playing")
    args = parser.parse_args(argv)
    if args.pair:
        report([b for path in args.pair for b in json.loads(Path(path).read_text())])
        return 0
    if args.model is None or not Path(args.model).exists():
        parser.error(f"--model: no model at {args.model}")
    first, count = args.seeds
    seeds = list(range(first, first + count))
    tasks = [
        (kind, args.model, args.env, seeds[i : i + args.block])
        for kind in args.agents
        for i in range(0, len(seeds), args.block)
    ]
    blocks: list[dict[str, Any]] = []
    with ProcessPoolExecutor(args.jobs) as pool:
        for block in pool.map(play_block, tasks):
            blocks.append(block)
            if args.json:
                Path(args.json).write_text(json.dumps(blocks))
    report(blocks)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
