"""Compare agents on the same seeded deals, with 95% confidence intervals.

Usage::

    python -m agents.evaluation.evaluate --env ENV_ID --agents random greedy planner solver ppo:RUN/model.zip \\
        --episodes 1000 --seed 0 [--env-kwargs '{"RULE_OPTION": true}'] [--json results.json] \\
        [--records DIR] [--backend process|ray [--address ADDR] [--workers N]] [--state-dir DIR]

Episode ``i`` of every agent is played on the deal of ``reset(seed=seed + i)``. With ``--state-dir`` every
finished block of deals (one agent's) is kept there as it finishes, and a rerun of the same command reads
the kept blocks back instead of playing them again: a long evaluation can be stopped and resumed.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import re
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, NamedTuple, TypeGuard

import gymnasium as gym
import numpy as np
from scipy import stats

import patience_gym
from agents.base import Agent
from agents.evaluation.sharding import (
    BACKENDS,
    KeptShardError,
    backend_session,
    prepare_state_dir,
    run_resumable,
)
from agents.load import model_file
from agents.registry import make_agent
from patience_gym.env import env_kwargs_from_json
from patience_gym.records import RecordEpisodes, check_record_files

#: The most episodes one command line plays (its seeds are listed in memory).
MAX_EPISODES = 10_000_000

#: Deals a block of :func:`evaluate_sharded` with a ``state_dir`` and no ``shard_size``: fixed, so that the
#: kept blocks' names do not depend on the backend or the number of workers a rerun has.
KEPT_SHARD_SIZE = 10

#: Deals an agent that plays in lockstep plays at once in :func:`play_episodes`.
LOCKSTEP_GAMES = 64

#: The two-sided 95% quantile of the normal distribution (1.959963984540054).
Z95 = float(stats.norm.ppf(0.975))


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


def mean_ci95(values: Sequence[float] | np.ndarray, method: str = "normal") -> tuple[float, float]:
    """Mean and the half-width of its 95% interval: ``normal`` (z times the standard error) or Student's ``t``."""
    arr = np.asarray(values, dtype=float)
    if len(arr) < 2:
        return float(arr.mean()) if len(arr) else math.nan, math.nan
    if method not in ("normal", "t"):
        raise ValueError(f"interval method must be normal or t, got {method!r}")
    quantile = Z95 if method == "normal" else float(stats.t.ppf(0.975, len(arr) - 1))
    return float(arr.mean()), float(quantile * stats.sem(arr))


def paired_ci95(a: Sequence[float], b: Sequence[float], method: str = "normal") -> tuple[float, float]:
    """Mean of ``a - b`` deal by deal and the half-width of its 95% interval (see :func:`mean_ci95`)."""
    if len(a) != len(b):
        raise ValueError(f"paired scores need the same deals: {len(a)} against {len(b)}")
    return mean_ci95(np.subtract(a, b, dtype=float), method)


def wilson_ci95(successes: int, n: int) -> tuple[float, float]:
    """Wilson score 95% interval of a proportion (sound near 0 and 1): statsmodels' when installed, else scipy's."""
    if n == 0:
        return math.nan, math.nan
    try:
        from statsmodels.stats.proportion import proportion_confint
    except ImportError:
        interval = stats.binomtest(int(successes), int(n)).proportion_ci(confidence_level=0.95, method="wilson")
        lo, hi = interval.low, interval.high
    else:
        lo, hi = proportion_confint(int(successes), int(n), alpha=0.05, method="wilson")
    return max(0.0, float(lo)), min(1.0, float(hi))


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


def evaluate(
    env_id: str,
    agent_specs: Sequence[str],
    episodes: int,
    seed: int = 0,
    env_kwargs: dict[str, Any] | None = None,
    jobs: int = 1,
    records: str | Path | None = None,
) -> list[Summary]:
    """Every agent on the same ``episodes`` deals (seeds ``seed .. seed+episodes-1``).

    Every agent is made first, so a PPO model trained for another env, rules or encoding is refused
    before any deal is played. ``jobs`` > 1 splits each agent's deals into that many consecutive blocks
    played in parallel processes (:func:`evaluate_sharded` on the ``process`` backend: each block with a
    fresh agent, as the agents here reset per deal), then joins them in seed order.
    """
    if isinstance(episodes, bool) or not isinstance(episodes, int) or episodes < 1:
        raise ValueError(f"episodes must be a whole number of deals, at least 1, got {episodes!r}")
    seeds = list(range(seed, seed + episodes))
    if jobs > 1 and len(seeds) > 1:
        shard_size = math.ceil(len(seeds) / jobs)
        return evaluate_sharded(
            env_id, env_kwargs, agent_specs, seeds, "process", workers=jobs, shard_size=shard_size, records=records
        )
    game_name = gym.make(env_id, **(env_kwargs or {})).unwrapped.game.name  # type: ignore[attr-defined]
    labels = agent_labels(agent_specs)
    agents = [_make_agent(env_id, spec, name, game_name, seed, env_kwargs) for spec, name in zip(agent_specs, labels)]
    if records is not None:  # every agent's record files, before the first deal
        check_record_files(records, env_id, [agent.name for agent in agents], seeds)
    return [play_episodes(env_id, agent, seeds, env_kwargs, records) for agent in agents]


def _make_agent(
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


def _play_block(
    env_id: str,
    spec: str,
    name: str | None,
    game_name: str,
    seeds: list[int],
    env_kwargs: dict[str, Any] | None,
    records: str | Path | None = None,
) -> Summary:
    """One agent's :func:`play_episodes` on one block of seeds, with a fresh agent (in a worker process)."""
    import torch as th

    th.set_num_threads(1)  # one process per core already
    agent = _make_agent(env_id, spec, name, game_name, seeds[0], env_kwargs)
    return play_episodes(env_id, agent, seeds, env_kwargs, records)


def join_summaries(parts: Sequence[Summary]) -> Summary:
    """One summary from the summaries of consecutive blocks of deals, in order."""
    return summarise(
        parts[0].agent,
        [x for part in parts for x in part.scores],
        [x for part in parts for x in part.won],
        round(sum(part.mean_moves * part.episodes for part in parts)),
        sum(part.seconds for part in parts),
    )


@dataclass(frozen=True)
class EvalShard:
    """One agent's block of deals: a task of :func:`evaluate_sharded`, and the name of its kept result."""

    env_id: str
    env_kwargs: dict[str, Any]
    spec: str
    name: str | None
    game_name: str
    seeds: list[int]
    settings: dict[str, Any]  # what the agent plays by (see agent_settings): a kept block must match it
    records: str | None = None  # write each deal's game record here (never with a state dir)

    @property
    def count(self) -> int:
        return len(self.seeds)

    @property
    def filename(self) -> str:
        """``<Env>-<agent>-<tag>-<first seed>-<deals>.json``; the tag tells apart rules and agent specs."""
        what = json.dumps([self.env_id, self.env_kwargs, self.spec, self.name], sort_keys=True)
        tag = hashlib.sha256(what.encode()).hexdigest()[:8]
        label = re.sub(r"[^A-Za-z0-9]+", "_", self.name or self.spec).strip("_")[:40]
        return f"{self.env_id.split('/')[-1]}-{label}-{tag}-{self.seeds[0]}-{self.count}.json"


def agent_settings(agent: Agent, spec: str) -> dict[str, Any]:
    """What ``agent`` plays by, as JSON values: its plain public attributes (a planner's budget, say) and, for a
    ``ppo:PATH`` spec, the model file's SHA-256, so that a kept result of other settings or of a retrained
    model is never taken for this agent's."""
    settings = {
        k: v
        for k, v in sorted(vars(agent).items())
        if not k.startswith("_") and (v is None or isinstance(v, (bool, str)) or _is_number(v))
    }
    if spec.startswith("ppo:"):
        settings["model_sha256"] = hashlib.sha256(model_file(spec[4:]).read_bytes()).hexdigest()
    return settings


def _is_number(value: Any) -> TypeGuard[int | float]:
    """A finite JSON number (not a bool)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _play_shard(shard: EvalShard) -> dict[str, Any]:
    """:func:`_play_block` of one shard, as the JSON that :func:`~agents.evaluation.sharding.run_resumable` keeps."""
    kwargs = shard.env_kwargs or None
    summary = _play_block(shard.env_id, shard.spec, shard.name, shard.game_name, shard.seeds, kwargs, shard.records)
    return {
        "shard": asdict(shard),
        "agent": summary.agent,
        "scores": [float(x) for x in summary.scores],
        "won": [bool(x) for x in summary.won],
        "moves": round(summary.mean_moves * summary.episodes),
        "seconds": summary.seconds,
    }


def kept_block_problem(data: dict[str, Any]) -> str | None:
    """What is wrong with a kept block of :func:`_play_shard` (its shard and deal count already checked), or None."""
    count = len(data["scores"])
    if not all(_is_number(x) for x in data["scores"]):
        return "holds a score that is not a finite number"
    won = data.get("won")
    if not isinstance(won, list) or len(won) != count or not all(isinstance(w, bool) for w in won):
        return "does not hold one won flag (true or false) per deal"
    if not isinstance(data.get("agent"), str):
        return "does not name its agent"
    moves, seconds = data.get("moves"), data.get("seconds")
    if not isinstance(moves, int) or isinstance(moves, bool) or moves < 0:
        return "does not hold a count of moves"
    if not _is_number(seconds) or seconds < 0:
        return "does not hold the seconds it took"
    return None


def evaluate_sharded(
    env_id: str,
    env_kwargs: dict[str, Any] | None,
    agent_specs: Sequence[str],
    seeds: Sequence[int],
    backend: str = "serial",
    address: str | None = None,
    workers: int | None = None,
    shard_size: int | None = None,
    state_dir: str | Path | None = None,
    records: str | Path | None = None,
) -> list[Summary]:
    """:func:`evaluate` with every agent's deals cut into blocks run on ``backend``
    (see :mod:`agents.evaluation.sharding`).

    Returns one :class:`Summary` per spec, in spec order, whose ``scores`` are per deal in ``seeds`` order:
    the same as a serial evaluation of those seeds. ``shard_size`` deals per task (default: about four
    blocks per worker for each agent; with ``state_dir``, :data:`KEPT_SHARD_SIZE`). Each block makes a
    fresh agent, as ``--jobs`` does: the agents reset per deal, so the split does not change a game. Every
    agent is made here first, so a PPO model trained for another env, rules or encoding is refused before
    any shard is sent.

    With ``state_dir``, each finished block is kept there (one JSON file) as it finishes, and blocks already
    kept are read back instead of played: an interrupted evaluation resumes where it stopped and never
    plays or counts a deal twice. A kept block is reused only for the same env, rules, agent spec, agent
    settings (:func:`agent_settings`) and seeds (so the same ``shard_size``); a file of that name holding
    anything else is refused by name (the agent's code is not part of it: after changing that, use a new
    ``state_dir``). ``seconds`` then sums every block's own time, kept ones included.

    ``records``: a directory for each deal's game record, as :func:`evaluate` writes them; not with
    ``state_dir``, since a block read back would write none.
    """
    seeds = [int(s) for s in seeds]
    if not seeds:
        raise ValueError("evaluate_sharded needs at least one seed")
    if not agent_specs:
        raise ValueError("evaluate_sharded needs at least one agent spec")
    if shard_size is not None and shard_size < 1:
        raise ValueError(f"shard_size must be at least 1, got {shard_size}")
    if records is not None and state_dir is not None:
        raise ValueError(
            "records and state_dir do not go together: a block read back from the state dir writes no records"
        )
    kwargs = dict(env_kwargs or {})
    game_name = gym.make(env_id, **kwargs).unwrapped.game.name  # type: ignore[attr-defined]
    names = agent_labels(agent_specs)
    made = [_make_agent(env_id, spec, name, game_name, seeds[0], kwargs) for spec, name in zip(agent_specs, names)]
    settings = [agent_settings(agent, spec) for agent, spec in zip(made, agent_specs, strict=True)]
    if records is not None:  # every block's record files, before any block is sent
        check_record_files(records, env_id, [agent.name for agent in made], seeds)
    with backend_session(backend, address, workers) as slots:
        size = shard_size or (KEPT_SHARD_SIZE if state_dir is not None else max(1, math.ceil(len(seeds) / (4 * slots))))
        blocks = [seeds[i : i + size] for i in range(0, len(seeds), size)]
        shards = [
            EvalShard(
                env_id, kwargs, spec, name, game_name, block, agent_settings_, None if records is None else str(records)
            )
            for spec, name, agent_settings_ in zip(agent_specs, names, settings, strict=True)
            for block in blocks
        ]
        kept = Path(state_dir) if state_dir is not None else None
        parts, played = run_resumable(
            _play_shard, shards, kept, "scores", backend, address, workers, kept_block_problem
        )
    if kept is not None:
        print(f"{len(shards) - played} of {len(shards)} blocks of deals read back from {kept}", file=sys.stderr)
    summaries = [summarise(p["agent"], p["scores"], p["won"], p["moves"], p["seconds"]) for p in parts]
    return [join_summaries(summaries[k * len(blocks) : (k + 1) * len(blocks)]) for k in range(len(agent_specs))]


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


def main(argv: Sequence[str] | None = None) -> int:
    """The command line; a user error is one line on stderr and exit status 2, before any deal is played."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--env", required=True, help="registered env id (see patience_gym.ENVS)")
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
    parser.add_argument(
        "--records",
        metavar="DIR",
        help="write each episode's game record here (<Env>-<agent>-seed<seed>.json; never over a file already there)",
    )
    parser.add_argument(
        "--backend",
        choices=BACKENDS,
        default="serial",
        help="process: deals sharded over worker processes here; ray: over Ray",
    )
    parser.add_argument("--address", help="Ray cluster address (auto, ray://head:10001); default: a local cluster")
    parser.add_argument("--workers", type=int, help="worker processes, or CPUs of the local Ray cluster (default: all)")
    parser.add_argument(
        "--shard-size", type=int, help="deals per block (default: 10 with --state-dir, else about four blocks a worker)"
    )
    parser.add_argument(
        "--state-dir", help="keep each finished block of deals here; the same command run again resumes from them"
    )
    args = parser.parse_args(argv)
    try:
        env_kwargs, lower = _check_cli(args)
    except (ValueError, FileNotFoundError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.backend != "serial" or args.state_dir is not None or args.shard_size is not None:
        seeds = range(args.seed, args.seed + args.episodes)
        try:
            results = evaluate_sharded(
                args.env,
                env_kwargs,
                args.agents,
                seeds,
                backend=args.backend,
                address=args.address,
                workers=args.workers,
                shard_size=args.shard_size,
                state_dir=args.state_dir,
                records=args.records,
            )
        except KeptShardError as exc:  # a kept block of another run, found before any deal is played
            print(f"error: {exc}", file=sys.stderr)
            return 2
    else:
        results = evaluate(args.env, args.agents, args.episodes, args.seed, env_kwargs, records=args.records)
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
    return 0


def _check_cli(args: argparse.Namespace) -> tuple[dict[str, Any], bool]:
    """Every check of the command line that can fail, before the games: the env kwargs and lower-is-better."""
    from agents.registry import check_agent_spec

    env_kwargs = env_kwargs_from_json(args.env_kwargs)
    if args.episodes < 1:
        raise ValueError(f"--episodes must be at least 1, got {args.episodes}")
    if args.episodes > MAX_EPISODES:
        raise ValueError(f"--episodes must be at most {MAX_EPISODES:,} (split by --seed), got {args.episodes}")
    if args.seed < 0:
        raise ValueError(f"--seed must be 0 or more, got {args.seed}")
    known = ", ".join(patience_gym.ENVS)
    if args.env not in gym.registry:
        raise ValueError(f"unknown env id {args.env!r}; registered: {known}")
    if args.env not in patience_gym.ENVS:
        raise ValueError(f"--env {args.env} is not a patience_gym env; choose one of {known}")
    try:
        env = gym.make(args.env, **env_kwargs)
    except (TypeError, ValueError, KeyError, gym.error.Error) as exc:
        raise ValueError(f"--env-kwargs: {exc}") from None
    game = env.unwrapped.game  # type: ignore[attr-defined]
    env.close()
    for spec in args.agents:  # a ppo: model is loaded and checked against the env it is to play
        check_agent_spec(spec, game.name, args.env, env_kwargs)
    agent_labels(args.agents)
    backend, address = getattr(args, "backend", "serial"), getattr(args, "address", None)
    workers = getattr(args, "workers", None)
    if address is not None and backend != "ray":
        raise ValueError("--address needs --backend ray")
    if workers is not None and workers < 1:
        raise ValueError(f"--workers must be at least 1, got {workers}")
    if workers is not None and backend == "serial":
        raise ValueError("--workers needs --backend process or ray")
    shard_size, state_dir = getattr(args, "shard_size", None), getattr(args, "state_dir", None)
    if shard_size is not None and shard_size < 1:
        raise ValueError(f"--shard-size must be at least 1, got {shard_size}")
    if getattr(args, "records", None) is not None and state_dir is not None:
        raise ValueError("--records and --state-dir do not go together: a block read back would write no records")
    if args.json_path and Path(args.json_path).is_dir():
        raise ValueError(f"--json {args.json_path} is a directory; give the results file's name")
    if args.json_path and not Path(args.json_path).resolve().parent.is_dir():
        raise ValueError(f"--json: directory {Path(args.json_path).parent} does not exist; create it first")
    records = getattr(args, "records", None)
    if records is not None and Path(records).exists() and not Path(records).is_dir():
        raise ValueError(f"--records {records} is a file; give a directory to write one record per game into")
    if records is not None:  # every record file of the run, none of them there yet
        names = [
            label or _make_agent(args.env, spec, None, game.name, args.seed, env_kwargs).name
            for spec, label in zip(args.agents, agent_labels(args.agents), strict=True)
        ]
        try:
            check_record_files(records, args.env, names, range(args.seed, args.seed + args.episodes))
        except (FileExistsError, ValueError) as exc:
            raise ValueError(f"--records: {exc}") from None
    if state_dir is not None:  # last: it makes the directory, once every other check has passed
        prepare_state_dir(Path(state_dir), "--state-dir")
    return env_kwargs, bool(game.lower_score_is_better)


if __name__ == "__main__":
    sys.exit(main())
