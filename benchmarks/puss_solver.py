"""The perfect-knowledge Puss in the Corner solver on seeded deals, beside the greedy baseline.

Deal ``i`` is ``gym.make("patience_gym/PussInTheCorner-v0").reset(seed=seed + i)``, as in
:mod:`agents.evaluation.evaluate`. Each deal is solved with the node and time budget given; every
claimed line is replayed in a fresh env to its claimed score. The greedy baseline plays
the same deals. With ``--variants`` the same deals are also played under the other rule
readings: the sevens privilege kept after the 7 is placed (the book's worked example), and
placement free (``forced_foundation=False``). Writes ``benchmarks/results/puss_solver.json``
and ``puss_solver.md``.

Usage: ``python -m benchmarks.puss_solver [--deals 1000] [--seed 0] [--max-nodes 200000] [--max-seconds 20]
[--variants] [--out DIR]`` (both budgets are always set: a zero or negative one is refused)
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import time
from pathlib import Path
from typing import Any

import gymnasium as gym

import patience_gym  # noqa: F401 - registers the envs
from agents.baselines.greedy_puss import choose_move
from agents.evaluation.evaluate import format_share, wilson_ci95
from agents.solvers import check_budget, check_budget_option
from agents.solvers.puss import solve
from agents.training.report import machine_description
from benchmarks import RESULTS, check_folders, check_shared_options, write_results
from patience_gym.games.puss import PussOptions

ENV_ID = "patience_gym/PussInTheCorner-v0"


VARIANTS: list[dict[str, bool]] = [{"sevens_after_placing": True}, {"forced_foundation": False}]


def replay(env: gym.Env, state_dict: dict[str, Any], moves: list[int]) -> tuple[float, bool]:
    """Final score and win of ``moves`` played in ``env`` from ``state_dict``."""
    env.reset(options={"state": state_dict})
    info: dict[str, Any] = {}
    for action in moves:
        _, _, terminated, truncated, info = env.step(action)
        if info["illegal_action"]:
            raise RuntimeError(f"solver line plays an illegal move {action}")
    if not (terminated or truncated):
        raise RuntimeError("solver line stops before the end of the game")
    return float(info["score"]), bool(info["won"])


def greedy_game(env: gym.Env) -> tuple[int, bool]:
    """The greedy baseline's score and win on the env's current deal (played on a copy)."""
    game = env.unwrapped.game  # type: ignore[attr-defined]
    state = env.unwrapped.state.copy()  # type: ignore[attr-defined]
    while not game.is_over(state):
        game.apply(state, choose_move(game, state))
    return state.score, game.is_won(state)


def measure(deals: int, seed: int, max_nodes: int, max_seconds: float, options: dict[str, bool]) -> dict[str, Any]:
    """Solver and greedy on deals ``seed .. seed + deals - 1`` under the rule ``options``."""
    check_budget("max_nodes", max_nodes, integer=True)
    check_budget("max_seconds", max_seconds, integer=False)
    env = gym.make(ENV_ID, **options)
    replay_env = gym.make(ENV_ID, **options)
    rows = []
    start = time.perf_counter()
    for i in range(deals):
        env.reset(seed=seed + i)
        game, state = env.unwrapped.game, env.unwrapped.state  # type: ignore[attr-defined]
        state_dict = game.to_dict(state)
        sol = solve(game, state, max_nodes=max_nodes, max_seconds=max_seconds)
        score, won = replay(replay_env, state_dict, sol.moves)
        if score != sol.cards or won != (sol.verdict == "won"):
            raise RuntimeError(f"deal {seed + i}: the line replays to {score} (won {won}), claimed {sol.cards}")
        g_score, g_won = greedy_game(env)
        rows.append(
            {
                "seed": seed + i,
                "verdict": sol.verdict,
                "cards": sol.cards,
                "proven": sol.proven,
                "nodes": sol.nodes,
                "seconds": sol.seconds,
                "greedy_cards": g_score,
                "greedy_won": g_won,
            }
        )
        if (i + 1) % 100 == 0:
            print(f"{rules_name(options)}: {i + 1} deals, {time.perf_counter() - start:.0f} s", flush=True)
    summary = summarise(rows, time.perf_counter() - start)
    summary["options"] = options
    summary["rules"] = dataclasses.asdict(env.unwrapped.game.options)  # type: ignore[attr-defined]
    return summary


def summarise(rows: list[dict[str, Any]], total: float) -> dict[str, Any]:
    n = len(rows)
    count = {v: sum(r["verdict"] == v for r in rows) for v in ("won", "lost", "unknown")}
    greedy_wins = sum(r["greedy_won"] for r in rows)
    seconds = [r["seconds"] for r in rows]
    nodes = [r["nodes"] for r in rows]
    return {
        "won": count["won"],
        "lost": count["lost"],
        "unknown": count["unknown"],
        "won_share": count["won"] / n,
        "won_ci95": wilson_ci95(count["won"], n),
        "lost_share": count["lost"] / n,
        "unknown_share": count["unknown"] / n,
        "mean_cards": statistics.fmean(r["cards"] for r in rows),
        "seconds_per_deal_mean": statistics.fmean(seconds),
        "seconds_per_deal_median": statistics.median(seconds),
        "seconds_per_deal_max": max(seconds),
        "nodes_mean": statistics.fmean(nodes),
        "nodes_max": max(nodes),
        "deals_needing_search": sum(r["nodes"] > 0 for r in rows),
        "greedy_won_share": greedy_wins / n,
        "greedy_won_ci95": wilson_ci95(greedy_wins, n),
        "greedy_mean_cards": statistics.fmean(r["greedy_cards"] for r in rows),
        "total_seconds": total,
        # Per deal only where a search went beyond the greedy start (every other deal the greedy won).
        "searched_rows": [r for r in rows if r["nodes"] > 0],
    }


def rules_name(options: dict[str, bool]) -> str:
    return ", ".join(f"{k}={v}" for k, v in options.items()) or "defaults"


def to_markdown(d: dict[str, Any]) -> str:
    lines = [
        f"Puss in the Corner, {d['deals']} seeded deals (seeds {d['seed']}..{d['seed'] + d['deals'] - 1}); "
        f"solver budget {d['max_nodes']:,} nodes or {d['max_seconds']:g} s per deal; win intervals are Wilson 95%; "
        f"{d['machine']}. Rule defaults: "
        + ", ".join(f"{k}={v}" for k, v in dataclasses.asdict(PussOptions()).items())
        + ".",
        "",
        "| rules | agent | won [95% CI] | proven lost | unknown | mean cards on foundations | time per deal (s) |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    notes = []
    for r in d["runs"]:
        name = rules_name(r["options"])
        lines.append(
            f"| {name} | solver (perfect knowledge) | {format_share(r['won_share'], r['won_ci95'])} | "
            f"{100 * r['lost_share']:.1f}% | {100 * r['unknown_share']:.1f}% | {r['mean_cards']:.2f} | "
            f"mean {r['seconds_per_deal_mean']:.3f}, median {r['seconds_per_deal_median']:.3f}, "
            f"max {r['seconds_per_deal_max']:.2f} |"
        )
        lines.append(
            f"| {name} | greedy | {format_share(r['greedy_won_share'], r['greedy_won_ci95'])} | | | "
            f"{r['greedy_mean_cards']:.2f} | |"
        )
        notes.append(
            f"{name}: {r['deals_needing_search']} deals needed a search beyond the greedy's own game "
            f"(mean {r['nodes_mean']:.0f} nodes per deal, max {r['nodes_max']:,}); {r['total_seconds']:.0f} s in all."
        )
    lines += ["", "The solver starts from the greedy's own game, so it never scores less on a deal.", ""]
    lines += [f"- {n}" for n in notes]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deals", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0, help="first deal seed (0 or more)")
    parser.add_argument("--max-nodes", type=int, default=200_000)
    parser.add_argument("--max-seconds", type=float, default=20.0)
    parser.add_argument("--variants", action="store_true", help="also the other rule readings (see above)")
    parser.add_argument("--out", type=Path, default=RESULTS, help="folder for puss_solver.json and .md")
    args = parser.parse_args(argv)
    check_shared_options(parser, args)
    check_folders(parser, ("--out", args.out))
    check_budget_option(parser, "--max-nodes", args.max_nodes, integer=True, unlimited=None)
    check_budget_option(parser, "--max-seconds", args.max_seconds, integer=False, unlimited=None)
    rule_sets = [{}, *VARIANTS] if args.variants else [{}]
    data = {
        "env": ENV_ID,
        "deals": args.deals,
        "seed": args.seed,
        "max_nodes": args.max_nodes,
        "max_seconds": args.max_seconds,
        "machine": machine_description(),
        "runs": [measure(args.deals, args.seed, args.max_nodes, args.max_seconds, o) for o in rule_sets],
    }
    write_results("puss_solver", data, to_markdown(data), args.out)


if __name__ == "__main__":
    main()
