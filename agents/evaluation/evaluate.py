"""Compare agents on the same seeded deals, with 95% confidence intervals.

Usage::

    python -m agents.evaluation.evaluate --env ENV_ID --agents random greedy planner solver ppo:RUN/model.zip \\
        --episodes 1000 --seed 0 [--env-kwargs '{"RULE_OPTION": true}'] [--json results.json] \\
        [--records DIR] [--backend process|ray [--address ADDR] [--workers N]] [--state-dir DIR]

Episode ``i`` of every agent is played on the deal of ``reset(seed=seed + i)``. With ``--state-dir`` every
finished block of deals (one agent's) is kept there as it finishes, and a rerun of the same command reads
the kept blocks back, each checked, instead of playing them again: a long evaluation can be stopped and
resumed. One run at a time writes a state dir.

The library is in the modules beside this one, and importable from here: :mod:`agents.evaluation.intervals`
(the 95% intervals), :mod:`agents.evaluation.episodes` (playing the deals, :class:`Summary`) and
:mod:`agents.evaluation.blocks` (:func:`evaluate_sharded`: blocks of deals on a backend, kept and resumed).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import gymnasium as gym

import patience_gym
from agents.evaluation.blocks import KEPT_BLOCK, KEPT_SHARD_SIZE, EvalShard, agent_settings, evaluate_sharded
from agents.evaluation.episodes import (
    LOCKSTEP_GAMES,
    Move,
    Summary,
    agent_labels,
    join_summaries,
    labelled_agent,
    play_episodes,
    run_episode,
    summarise,
)
from agents.evaluation.intervals import Z95, format_share, mean_ci95, paired_ci95, wilson_ci95
from agents.evaluation.outputs import output_file_problem
from agents.evaluation.sharding import BACKENDS, StateDirError, holding, prepare_state_dir
from agents.evaluation.writer_lock import DirectoryInUseError
from patience_gym.env import env_kwargs_from_json
from patience_gym.records import check_record_files

__all__ = [
    "KEPT_BLOCK",
    "KEPT_SHARD_SIZE",
    "LOCKSTEP_GAMES",
    "MAX_EPISODES",
    "Z95",
    "EvalShard",
    "Move",
    "Summary",
    "agent_labels",
    "agent_settings",
    "evaluate",
    "evaluate_sharded",
    "format_share",
    "format_table",
    "join_summaries",
    "labelled_agent",
    "main",
    "mean_ci95",
    "paired_ci95",
    "play_episodes",
    "run_episode",
    "score_note",
    "summarise",
    "wilson_ci95",
]

#: The most episodes one command line plays (its seeds are listed in memory).
MAX_EPISODES = 10_000_000


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
    labels = zip(agent_specs, agent_labels(agent_specs))
    agents = [labelled_agent(env_id, spec, name, game_name, seed, env_kwargs) for spec, name in labels]
    if records is not None:  # every agent's record files, before the first deal
        check_record_files(records, env_id, [agent.name for agent in agents], seeds)
    return [play_episodes(env_id, agent, seeds, env_kwargs, records) for agent in agents]


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


def _parser() -> argparse.ArgumentParser:
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
        "--state-dir",
        help="keep each finished block of deals here; the same command run again resumes from them "
        "(one run at a time writes it)",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """The command line; a user error is one line on stderr and exit status 2, before any deal is played."""
    args = _parser().parse_args(argv)
    try:
        env_kwargs, lower = _check_cli(args)
    except (ValueError, FileNotFoundError) as exc:
        return _refuse(exc)
    try:
        results = _run(args, env_kwargs)
    except (StateDirError, DirectoryInUseError) as exc:  # a bad kept block, another writer: before any deal
        return _refuse(exc)
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


def _refuse(error: Exception) -> int:
    print(f"error: {error}", file=sys.stderr)
    return 2


def _run(args: argparse.Namespace, env_kwargs: dict[str, Any]) -> list[Summary]:
    """The games the checked command line asks for; with ``--state-dir``, held as its one writer."""
    if args.backend == "serial" and args.state_dir is None and args.shard_size is None:
        return evaluate(args.env, args.agents, args.episodes, args.seed, env_kwargs, records=args.records)
    state_dir = None if args.state_dir is None else Path(args.state_dir)
    with holding(state_dir, "--state-dir"):
        return evaluate_sharded(
            args.env,
            env_kwargs,
            args.agents,
            range(args.seed, args.seed + args.episodes),
            backend=args.backend,
            address=args.address,
            workers=args.workers,
            shard_size=args.shard_size,
            state_dir=state_dir,
            records=args.records,
        )


def _check_cli(args: argparse.Namespace) -> tuple[dict[str, Any], bool]:
    """Every check of the command line that can fail, before the games: the env kwargs and lower-is-better."""
    from agents.registry import check_agent_spec

    env_kwargs = env_kwargs_from_json(args.env_kwargs)
    _check_counts(args)
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
    _check_backend(args)
    problem = args.json_path and output_file_problem(args.json_path, "the results")
    if problem:
        raise ValueError(f"--json {args.json_path} {problem}")
    if args.records is not None:
        _check_records(args, game.name, env_kwargs)
    if args.state_dir is not None:  # last: it makes the directory, once every other check has passed
        prepare_state_dir(Path(args.state_dir), "--state-dir")
    return env_kwargs, bool(game.lower_score_is_better)


def _check_counts(args: argparse.Namespace) -> None:
    if args.episodes < 1:
        raise ValueError(f"--episodes must be at least 1, got {args.episodes}")
    if args.episodes > MAX_EPISODES:
        raise ValueError(f"--episodes must be at most {MAX_EPISODES:,} (split by --seed), got {args.episodes}")
    if args.seed < 0:
        raise ValueError(f"--seed must be 0 or more, got {args.seed}")


def _check_backend(args: argparse.Namespace) -> None:
    if args.address is not None and args.backend != "ray":
        raise ValueError("--address needs --backend ray")
    if args.workers is not None and args.workers < 1:
        raise ValueError(f"--workers must be at least 1, got {args.workers}")
    if args.workers is not None and args.backend == "serial":
        raise ValueError("--workers needs --backend process or ray")
    if args.shard_size is not None and args.shard_size < 1:
        raise ValueError(f"--shard-size must be at least 1, got {args.shard_size}")
    if args.records is not None and args.state_dir is not None:
        raise ValueError("--records and --state-dir do not go together: a block read back would write no records")


def _check_records(args: argparse.Namespace, game_name: str, env_kwargs: dict[str, Any]) -> None:
    """``--records``: a directory that holds none of the run's record files yet."""
    records = Path(args.records)
    if records.exists() and not records.is_dir():
        raise ValueError(f"--records {records} is a file; give a directory to write one record per game into")
    names = [
        label or labelled_agent(args.env, spec, None, game_name, args.seed, env_kwargs).name
        for spec, label in zip(args.agents, agent_labels(args.agents), strict=True)
    ]
    try:
        check_record_files(records, args.env, names, range(args.seed, args.seed + args.episodes))
    except (FileExistsError, ValueError) as exc:
        raise ValueError(f"--records: {exc}") from None


if __name__ == "__main__":
    sys.exit(main())
