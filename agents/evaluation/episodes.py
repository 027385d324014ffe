"""Playing agents on seeded deals: the agents and their labels, an episode move by move, a run of episodes
(in lockstep for an agent that chooses in batches) and its :class:`Summary`."""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import gymnasium as gym
import numpy as np

from agents.base import Agent
from agents.evaluation.intervals import mean_ci95, wilson_ci95
from agents.registry import make_agent
from patience_gym.records import RecordEpisodes, check_record_files

#: Deals an agent that plays in lockstep plays at once in :func:`play_episodes`.
LOCKSTEP_GAMES = 64


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
    won: list[bool] = field(repr=False)  # per deal, in seed order like ``scores``

    def row(self) -> dict[str, Any]:
        data = asdict(self)
        data.pop("scores")
        data.pop("won")
        return data


def labelled_agent(
    env_id: str, spec: str, name: str | None, game_name: str, seed: int, env_kwargs: dict[str, Any] | None
) -> Agent:
    """The agent of ``spec`` for ``env_id``, labelled ``name`` (None: its own name)."""
    agent = make_agent(spec, game_name, seed=seed, env_id=env_id, env_kwargs=env_kwargs)
    if name:
        agent.name = name
    return agent


def agent_labels(agent_specs: Sequence[str]) -> list[str | None]:
    """The label each agent gets in the results (None: the agent's own name); a ValueError when two agree.

    One PPO model is ``ppo``, several are told apart by their file names; a table agent with options keeps
    its spec (``planner:margin=1``).
    """
    several_models = sum(spec.startswith("ppo:") for spec in agent_specs) > 1
    labels: list[str | None] = []
    for spec in agent_specs:
        if spec.startswith("ppo:"):
            labels.append(f"ppo:{Path(spec[4:]).stem}" if several_models else "ppo")
        else:
            labels.append(spec if ":" in spec else None)
    shown = [label or spec for label, spec in zip(labels, agent_specs, strict=True)]
    for i, label in enumerate(shown):
        if label in shown[:i]:
            raise ValueError(
                f"two agents would both be labelled {label!r} ({agent_specs[shown.index(label)]} and "
                f"{agent_specs[i]}): give each agent once (PPO models need different file names)"
            )
    return labels


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


def play_episodes(
    env_id: str,
    agent: Agent,
    seeds: Sequence[int],
    env_kwargs: dict[str, Any] | None = None,
    records: str | Path | None = None,
    lockstep: int = LOCKSTEP_GAMES,
) -> Summary:
    """Play one episode per seed and summarise score, wins and moves.

    An agent that does not read the observation (``agent.reads_observation``) plays on the env's default
    one: the same moves, without the cost of the encoding ``env_kwargs`` may name. An agent that plays in
    lockstep (``agent.plays_in_lockstep``: a deterministic PPO policy) plays up to ``lockstep`` deals at
    once, one batched choice for every game's next move: the same games as one after another, faster.
    With ``records``, a seed given twice or a record file already there is refused before any deal is played.
    """
    if records is not None:
        check_record_files(records, env_id, [agent.name], seeds)
    kwargs = dict(env_kwargs or {})
    if not agent.reads_observation:
        kwargs.pop("obs_encoding", None)

    def make_env() -> gym.Env[Any, Any]:
        env = gym.make(env_id, **kwargs)
        if records is not None:  # one game record per episode: <Env>-<agent>-seed<seed>.json
            env = RecordEpisodes(env, agent=agent.name, directory=records)
        return env

    start = time.perf_counter()
    games = lockstep if agent.plays_in_lockstep else 1
    scores, won, moves = _play_in_lockstep(make_env, agent, seeds, games)
    return summarise(agent.name, scores, won, moves, time.perf_counter() - start)


def _play_in_lockstep(
    make_env: Callable[[], gym.Env[Any, Any]], agent: Agent, seeds: Sequence[int], games: int
) -> tuple[list[float], list[bool], int]:
    """Every deal of ``seeds`` played by ``agent`` with up to ``games`` envs at once (1: one game after
    another), a finished game's env dealing the next seed: the per-seed scores and results, in seed order,
    and the moves made."""
    envs = [make_env() for _ in range(max(1, min(games, len(seeds))))]  # one at least: a bad env id is named
    scores = [0.0] * len(seeds)
    won = [False] * len(seeds)
    moves = 0
    queue = iter(range(len(seeds)))
    live: dict[int, tuple[int, np.ndarray, np.ndarray]] = {}  # env slot -> (deal index, obs, mask)

    def deal(slot: int) -> None:
        index = next(queue, None)
        if index is None:
            live.pop(slot, None)
            return
        obs, info = envs[slot].reset(seed=int(seeds[index]))
        agent.reset(int(seeds[index]))
        live[slot] = (index, obs, info["action_mask"].astype(bool))

    try:
        for slot in range(len(envs)):
            deal(slot)
        while live:
            slots = list(live)
            unwrapped_envs: list[Any] = [envs[s].unwrapped for s in slots]
            actions = agent.act_many(unwrapped_envs, [live[s][1] for s in slots], [live[s][2] for s in slots])
            for slot, action in zip(slots, actions, strict=True):
                index = live[slot][0]
                obs, _, terminated, truncated, info = envs[slot].step(action)
                if info["illegal_action"]:
                    raise RuntimeError(f"agent {agent.name} chose illegal action {action} on seed {seeds[index]}")
                moves += 1
                if terminated or truncated:
                    unwrapped = envs[slot].unwrapped
                    scores[index] = float(unwrapped.game.score(unwrapped.state))  # type: ignore[attr-defined]
                    won[index] = bool(unwrapped.game.is_won(unwrapped.state))  # type: ignore[attr-defined]
                    deal(slot)
                else:
                    live[slot] = (index, obs, info["action_mask"].astype(bool))
    finally:
        for env in envs:
            env.close()
    return scores, won, moves


def summarise(agent: str, scores: list[float], won: list[bool], moves: int, seconds: float) -> Summary:
    """The summary of ``agent``'s games: per-deal ``scores`` and ``won``, moves made in all, seconds taken."""
    if len(won) != len(scores):
        raise ValueError(f"{len(scores)} scores but {len(won)} results won or lost")
    mean, ci = mean_ci95(scores)
    n = len(scores)
    wins = sum(won)
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
        won=won,
    )


def join_summaries(parts: Sequence[Summary]) -> Summary:
    """One summary from the summaries of consecutive blocks of deals, in order."""
    return summarise(
        parts[0].agent,
        [x for part in parts for x in part.scores],
        [x for part in parts for x in part.won],
        round(sum(part.mean_moves * part.episodes for part in parts)),
        sum(part.seconds for part in parts),
    )
