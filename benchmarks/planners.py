"""Random, greedy, the search planner and the perfect-knowledge solver on the same seeded deals of every env.

The planner (:mod:`agents.planners`) sees only the visible position and
samples the unseen cards; its budget per move is the registered default,
recorded in the output. The solver, where a game has one, knows the hidden
order: its row is an upper bound, not a fair agent. Writes
``benchmarks/results/planners.json`` and ``planners.md``.

Usage: ``python -m benchmarks.planners [--seed 0] [--env ID=N ...] [--jobs 2] [--merge] [--state-dir DIR]
[--shard-size K]`` (N deals of env ID; each env's deals are cut into blocks of K played in ``--jobs``
processes; ``--merge`` replaces only those envs' rows in the saved results; ``--state-dir`` keeps every
finished block there, and the same command run again resumes from them: a row of hours can be made in
several sittings; every kept block of every env is checked before any deal is played, and one run at a
time writes the state dir; each env is given once). The planner's row also holds its paired difference
from the greedy on the same deals (win rate in points and score, with 95% intervals); every row
keeps its scores deal by deal (``scores``, in seed order), so that a later version can be paired with it.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import gymnasium as gym

import patience_gym  # noqa: F401 - registers the envs
from agents.evaluation.blocks import KEPT_BLOCK, KEPT_SHARD_SIZE, EvalShard, agent_shards, cut
from agents.evaluation.evaluate import Summary, agent_settings, evaluate_sharded, format_share, paired_ci95
from agents.registry import SOLVER, make_agent
from agents.training.report import machine_description
from benchmarks import RESULTS, check_shared_options, named_counts, resuming, write_results

AGENTS = ["random", "greedy", "planner"]

#: Deals per env (seeds seed .. seed+N-1), sized to the planner's time per game.
DEFAULT_DEALS = {
    "patience_gym/Golf-v0": 500,
    "patience_gym/GolfRound-v0": 200,
    "patience_gym/PussInTheCorner-v0": 200,
    "patience_gym/MissMilligan-v0": 200,
    "patience_gym/Giant-v0": 200,
    "patience_gym/MissMilliganPocket-v0": 200,
}


def planner_budget(game_name: str) -> dict[str, Any]:
    """The planner's per-move budget settings for a game (its registered defaults)."""
    return agent_settings(make_agent("planner", game_name), "planner")


def versus(planner: Summary, greedy: Summary) -> dict[str, float]:
    """The planner's paired difference from the greedy on the same deals: wins (share) and score."""
    wins, wins_ci = paired_ci95([float(w) for w in planner.won], [float(w) for w in greedy.won])
    score, score_ci = paired_ci95(planner.scores, greedy.scores)
    return {"win_rate": wins, "win_ci95": wins_ci, "score": score, "score_ci95": score_ci}


def agents_for(env_id: str) -> list[str]:
    """The agents measured on ``env_id``: :data:`AGENTS`, and the solver where its game has one."""
    game_name = gym.make(env_id).unwrapped.game.name  # type: ignore[attr-defined]
    return AGENTS + (["solver"] if game_name in SOLVER else [])


def kept_blocks(deals: dict[str, int], seed: int, shard_size: int | None) -> list[EvalShard]:
    """Every block of deals a run of ``deals`` keeps in a state dir (blocks of ``shard_size``, by default
    :data:`~agents.evaluation.blocks.KEPT_SHARD_SIZE`), so that every kept one is checked before any is played."""
    size = shard_size or KEPT_SHARD_SIZE
    return [
        block
        for env_id, episodes in deals.items()
        for block in cut(agent_shards(env_id, None, agents_for(env_id), range(seed, seed + episodes)), size)
    ]


def measure_env(
    env_id: str,
    episodes: int,
    seed: int,
    jobs: int = 1,
    state_dir: Path | None = None,
    shard_size: int | None = None,
) -> list[dict[str, Any]]:
    """Every agent on the same ``episodes`` deals of ``env_id`` (blocks of deals in ``jobs`` processes;
    finished blocks kept in ``state_dir``, and read back from it, when given)."""
    game = gym.make(env_id).unwrapped.game  # type: ignore[attr-defined]
    budget = planner_budget(game.name)
    agents = agents_for(env_id)
    backend = "process" if jobs > 1 else "serial"
    seeds = range(seed, seed + episodes)
    summaries = evaluate_sharded(
        env_id,
        None,
        agents,
        seeds,
        backend,
        workers=jobs if jobs > 1 else None,
        shard_size=shard_size,
        state_dir=state_dir,
    )
    by_agent = dict(zip(agents, summaries, strict=True))
    rows = []
    for summary in summaries:
        row = summary.row()
        row.update(
            env=env_id,
            lower_score_is_better=game.lower_score_is_better,
            seconds_per_game=summary.seconds / episodes,
            seconds_per_move=summary.seconds / (summary.mean_moves * episodes),
            budget=budget if summary.agent == "planner" else None,
            vs_greedy=versus(summary, by_agent["greedy"]) if summary.agent == "planner" else None,
            scores=list(summary.scores),  # deal by deal, in seed order: two versions of an agent can be paired
        )
        rows.append(row)
        print(
            f"{env_id:38s} {row['agent']:7s} {row['mean_score']:8.2f} ± {row['score_ci95']:.2f}  "
            f"win {100 * row['win_rate']:5.1f}%  {row['seconds_per_game']:.3f} s/game",
            flush=True,
        )
    return rows


def measure(
    deals: dict[str, int], seed: int, jobs: int = 1, state_dir: Path | None = None, shard_size: int | None = None
) -> dict[str, Any]:
    rows = [
        row
        for env_id, episodes in deals.items()
        for row in measure_env(env_id, episodes, seed, jobs, state_dir, shard_size)
    ]
    machine = machine_description()
    return {"seed": seed, "deals": deals, "machine": machine, "rows": rows}


def to_markdown(data: dict[str, Any]) -> str:
    lines = [
        "Random, greedy, planner and (where a game has one) the perfect-knowledge solver, an upper bound "
        f"that sees the hidden cards, on the same seeded deals per env (seeds {data['seed']}..{data['seed']}+N-1); "
        "± is the 95% CI half-width of the mean, win-rate intervals are Wilson 95%. "
        f"Golf scores: lower is better. Seconds are wall time per game on one core ({data['machine']}).",
        "",
        "| env | agent | deals | mean score | win rate [95% CI] | mean moves | s / game |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for r in data["rows"]:
        lines.append(
            f"| {r['env'].split('/')[-1]} | {r['agent']} | {r['episodes']} | {r['mean_score']:.2f} ± "
            f"{r['score_ci95']:.2f} | {format_share(r['win_rate'], r['win_ci95'])} | "
            f"{r['mean_moves']:.1f} | {r['seconds_per_game']:.3f} |"
        )
    lines += [
        "",
        "The planner against the greedy, paired on the same deals (planner minus greedy, 95% intervals; "
        "wins in percentage points):",
        "",
        "| env | deals | wins (points) | score | planner s / move |",
        "|---|---:|---:|---:|---:|",
    ]
    for r in data["rows"]:
        if r.get("vs_greedy"):
            v = r["vs_greedy"]
            lines.append(
                f"| {r['env'].split('/')[-1]} | {r['episodes']} | {100 * v['win_rate']:+.1f} ± "
                f"{100 * v['win_ci95']:.1f} | {v['score']:+.2f} ± {v['score_ci95']:.2f} | "
                f"{r['seconds_per_move']:.3f} |"
            )
    lines += ["", "Planner budget per move (registered defaults):", ""]
    for r in data["rows"]:
        if r["budget"] is not None:
            settings = ", ".join(f"{k}={v}" for k, v in r["budget"].items())
            lines.append(f"- {r['env'].split('/')[-1]}: {settings}")
    return "\n".join(lines) + "\n"


def merge(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """``old`` with the rows and deal counts of ``new``'s envs replaced (env order kept, new envs last)."""
    if old["seed"] != new["seed"]:
        raise SystemExit(f"cannot merge results of seed {new['seed']} into results of seed {old['seed']}")
    deals = {**old["deals"], **new["deals"]}
    rows = [r for env in deals for r in (new if env in new["deals"] else old)["rows"] if r["env"] == env]
    return {**old, "deals": deals, "rows": rows}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=0, help="first deal seed (0 or more)")
    parser.add_argument("--env", nargs="*", help="ID=N: play N deals of env ID (default: every env, sized)")
    parser.add_argument("--out", default="planners", help="output file stem under benchmarks/results/")
    parser.add_argument("--jobs", type=int, default=1, help="processes to spread the envs over")
    parser.add_argument("--merge", action="store_true", help="replace only these envs' rows in the saved results")
    parser.add_argument(
        "--state-dir",
        type=Path,
        help="keep each finished block of deals here; the same command run again resumes (one run at a time)",
    )
    parser.add_argument(
        "--shard-size",
        type=int,
        help=f"deals per block (default: {KEPT_SHARD_SIZE} with --state-dir, else about four blocks a job)",
    )
    args = parser.parse_args(argv)
    check_shared_options(parser, args)
    deals = (
        named_counts(parser, args.env, DEFAULT_DEALS, DEFAULT_DEALS.__getitem__, "--env", "env")
        if args.env
        else dict(DEFAULT_DEALS)
    )
    blocks = kept_blocks(deals, args.seed, args.shard_size) if args.state_dir else []
    with resuming(parser, args.state_dir, blocks, KEPT_BLOCK):
        data = measure(deals, args.seed, args.jobs, args.state_dir, args.shard_size)
    saved = RESULTS / f"{args.out}.json"
    if args.merge and saved.is_file():
        data = merge(json.loads(saved.read_text()), data)
    write_results(args.out, data, to_markdown(data))


if __name__ == "__main__":
    main()
