"""Compare agents on the same seeded deals, with 95% confidence intervals.

Usage::

    python -m agents.evaluate --env patience_gym/Golf-v0 --agents random greedy planner solver \\
        ppo:runs/golf/model.zip --episodes 1000 --seed 0 [--env-kwargs '{"queens_on_kings": true}'] \\
        [--json results.json]

Episode ``i`` of every agent is played on the deal of ``reset(seed=seed + i)``.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import gymnasium as gym
import numpy as np

import patience_gym  # noqa: F401 - registers the envs
from agents.base import Agent
from agents.registry import make_agent

Z95 = 1.959963984540054


class Move(NamedTuple):
    """One move of an episode: what the agent saw, what it chose, and what followed."""

    obs: np.ndarray
    mask: np.ndarray
    action: int
    reward: float
    info: dict[str, Any]  # the env's info after the move


@dataclass
class Summary:
    """One agent's results over the evaluation deals."""

    agent: str
    episodes: int
    mean_score: float
    score_ci95: float
    win_rate: float
    win_ci95: tuple[float, float]
    mean_moves: float
    seconds: float
    scores: list[float] = field(repr=False)

    def row(self) -> dict[str, Any]:
        data = asdict(self)
        data.pop("scores")
        return data


def mean_ci95(values: Sequence[float]) -> tuple[float, float]:
    """Mean and the half-width of its normal-approximation 95% interval."""
    arr = np.asarray(values, dtype=float)
    if len(arr) < 2:
        return float(arr.mean()) if len(arr) else math.nan, math.nan
    return float(arr.mean()), float(Z95 * arr.std(ddof=1) / math.sqrt(len(arr)))


def wilson_ci95(successes: int, n: int) -> tuple[float, float]:
    """Wilson score 95% interval of a proportion (sound near 0 and 1)."""
    if n == 0:
        return math.nan, math.nan
    p = successes / n
    denom = 1 + Z95**2 / n
    centre = (p + Z95**2 / (2 * n)) / denom
    half = Z95 * math.sqrt(p * (1 - p) / n + Z95**2 / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def format_share(share: float, ci: Sequence[float]) -> str:
    """A proportion and its 95% interval as a table cell: ``12.3% [10.1, 14.8]``."""
    lo, hi = ci
    return f"{100 * share:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]"


def run_episode(env: gym.Env[Any, Any], agent: Agent, seed: int) -> Iterator[Move]:
    """Play ``agent`` on the deal of ``env.reset(seed=seed)``, yielding each move as it is made.

    An illegal choice is a RuntimeError naming the agent and the seed.
    """
    unwrapped = env.unwrapped
    obs, info = env.reset(seed=int(seed))
    agent.reset(int(seed))
    done = False
    while not done:
        mask = info["action_mask"].astype(bool)
        action = agent.act(unwrapped, obs, mask)  # type: ignore[arg-type]
        before = obs
        obs, reward, terminated, truncated, info = env.step(action)
        if info["illegal_action"]:
            raise RuntimeError(f"agent {agent.name} chose illegal action {action} on seed {seed}")
        done = terminated or truncated
        yield Move(before, mask, int(action), float(reward), info)


def play_episodes(env_id: str, agent: Agent, seeds: Sequence[int], env_kwargs: dict[str, Any] | None = None) -> Summary:
    """Play one episode per seed and summarise score, wins and moves.

    An agent that does not read the observation (``agent.reads_observation``) plays on the env's default
    one: the same moves, without the cost of the encoding ``env_kwargs`` may name.
    """
    kwargs = dict(env_kwargs or {})
    if not agent.reads_observation:
        kwargs.pop("obs_encoding", None)
    env = gym.make(env_id, **kwargs)
    unwrapped = env.unwrapped
    scores: list[float] = []
    wins = 0
    moves = 0
    start = time.perf_counter()
    for seed in seeds:
        for _ in run_episode(env, agent, seed):
            moves += 1
        scores.append(float(unwrapped.game.score(unwrapped.state)))  # type: ignore[attr-defined]
        wins += bool(unwrapped.game.is_won(unwrapped.state))  # type: ignore[attr-defined]
    env.close()
    return summarise(agent.name, scores, wins, moves, time.perf_counter() - start)


def summarise(agent: str, scores: list[float], wins: int, moves: int, seconds: float) -> Summary:
    """The summary of ``agent``'s games: per-deal ``scores``, games won, moves made in all, seconds taken."""
    mean, ci = mean_ci95(scores)
    n = len(scores)
    return Summary(
        agent=agent,
        episodes=n,
        mean_score=mean,
        score_ci95=ci,
        win_rate=wins / n if n else math.nan,
        win_ci95=wilson_ci95(wins, n),
        mean_moves=moves / n if n else math.nan,
        seconds=seconds,
        scores=scores,
    )


def evaluate(
    env_id: str,
    agent_specs: Sequence[str],
    episodes: int,
    seed: int = 0,
    env_kwargs: dict[str, Any] | None = None,
    jobs: int = 1,
) -> list[Summary]:
    """Every agent on the same ``episodes`` deals (seeds ``seed .. seed+episodes-1``).

    ``jobs`` > 1 splits each agent's deals into that many consecutive blocks played in parallel
    processes (each with a fresh agent; the agents here reset per deal), then joins them in seed order.
    """
    game_name = gym.make(env_id, **(env_kwargs or {})).unwrapped.game.name  # type: ignore[attr-defined]
    seeds = list(range(seed, seed + episodes))
    several_models = sum(spec.startswith("ppo:") for spec in agent_specs) > 1
    results = []
    for spec in agent_specs:
        name = None
        if spec.startswith("ppo:"):
            # One model is "ppo"; several are told apart by their file names.
            name = f"ppo:{Path(spec[4:]).stem}" if several_models else "ppo"
        elif ":" in spec:
            name = spec  # a table agent with options, e.g. planner:margin=1
        if jobs > 1 and len(seeds) > 1:
            results.append(_play_in_parallel(env_id, spec, name, game_name, seeds, env_kwargs, jobs))
            continue
        agent = make_agent(spec, game_name, seed=seed)
        if name:
            agent.name = name
        results.append(play_episodes(env_id, agent, seeds, env_kwargs))
    return results


def _play_block(
    env_id: str, spec: str, name: str | None, game_name: str, seeds: list[int], env_kwargs: dict[str, Any] | None
) -> Summary:
    import torch as th

    th.set_num_threads(1)  # one process per core already
    agent = make_agent(spec, game_name, seed=seeds[0])
    if name:
        agent.name = name
    return play_episodes(env_id, agent, seeds, env_kwargs)


def _play_in_parallel(
    env_id: str,
    spec: str,
    name: str | None,
    game_name: str,
    seeds: list[int],
    env_kwargs: dict[str, Any] | None,
    jobs: int,
) -> Summary:
    """:func:`play_episodes` over ``jobs`` blocks of ``seeds`` in parallel processes, joined in seed order."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    size = math.ceil(len(seeds) / jobs)
    blocks = [seeds[i : i + size] for i in range(0, len(seeds), size)]
    with ProcessPoolExecutor(len(blocks), mp_context=multiprocessing.get_context("spawn")) as pool:
        parts = list(pool.map(_play_block, *zip(*[(env_id, spec, name, game_name, b, env_kwargs) for b in blocks])))
    return summarise(
        parts[0].agent,
        [x for part in parts for x in part.scores],
        sum(round(part.win_rate * part.episodes) for part in parts),
        round(sum(part.mean_moves * part.episodes for part in parts)),
        sum(part.seconds for part in parts),
    )


def format_table(env_id: str, results: Sequence[Summary], lower_is_better: bool) -> str:
    """A Markdown table of the summaries."""
    better = "lower" if lower_is_better else "higher"
    lines = [
        f"| agent | episodes | mean score ({better} is better) ± 95% CI | win rate [95% CI] | mean moves |",
        "|---|---:|---:|---:|---:|",
    ]
    for r in results:
        lines.append(
            f"| {r.agent} | {r.episodes} | {r.mean_score:.2f} ± {r.score_ci95:.2f} | "
            f"{format_share(r.win_rate, r.win_ci95)} | {r.mean_moves:.1f} |"
        )
    note = score_note(env_id)
    if note:
        lines += ["", note]
    return "\n".join(lines)


def score_note(env_id: str) -> str:
    """The env's game's sentence on how its score and wins are counted ("" where none is needed)."""
    note: str = gym.make(env_id).unwrapped.game.score_note  # type: ignore[attr-defined]
    return note


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--env", required=True, help="registered env id, e.g. patience_gym/Golf-v0")
    parser.add_argument(
        "--agents",
        nargs="+",
        default=["random", "greedy"],
        help="random, greedy, planner, solver (perfect knowledge: an upper bound), ppo:PATH; "
        "the table agents take options: planner:samples=12,margin=1",
    )
    parser.add_argument("--episodes", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0, help="first deal seed")
    parser.add_argument("--env-kwargs", default="{}", help="JSON dict of env kwargs")
    parser.add_argument("--json", dest="json_path", help="also write the results as JSON here")
    args = parser.parse_args(argv)
    try:
        env_kwargs = json.loads(args.env_kwargs)
    except json.JSONDecodeError as exc:
        parser.error(f"--env-kwargs is not valid JSON: {exc}")
    if not isinstance(env_kwargs, dict):
        parser.error("--env-kwargs must be a JSON object")
    if args.episodes < 1:
        parser.error("--episodes must be at least 1")
    lower = gym.make(args.env, **env_kwargs).unwrapped.game.lower_score_is_better  # type: ignore[attr-defined]
    results = evaluate(args.env, args.agents, args.episodes, args.seed, env_kwargs)
    print(format_table(args.env, results, lower))
    if args.json_path:
        payload = {
            "env": args.env,
            "env_kwargs": env_kwargs,
            "seed": args.seed,
            "episodes": args.episodes,
            "lower_score_is_better": lower,
            "results": [r.row() for r in results],
            "scores": {r.agent: r.scores for r in results},  # per deal, for paired comparisons
        }
        with open(args.json_path, "w") as fh:
            json.dump(payload, fh, indent=2)


if __name__ == "__main__":
    main()
