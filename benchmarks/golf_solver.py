"""Perfect-knowledge Golf: share of deals cleared and the best scores, per rule set.

Deal ``i`` is ``reset(seed=seed + i)`` of ``Golf-v0`` made with the rule
options, the deals the evaluation tool plays. For the book rules,
``queens_on_kings`` and ``wrap_ranks`` it reports the share cleared (Wilson
95%), the mean minimum score, seconds per 1,000 deals, and the mean nine-hole
score of perfect play: deals grouped nine at a time into rounds (and, with
``--rounds``, real ``GolfRound-v0`` rounds). Solves that hit ``--max-nodes``
are counted with the score found and reported as not proven.

Writes ``benchmarks/results/golf_solver.json`` and ``golf_solver.md`` (with
``--pure-python``, ``golf_solver.pure_python.json`` and ``.md``).

Usage: ``python -m benchmarks.golf_solver [--deals 10000] [--seed 0] [--rounds 100] [--max-nodes N]
[--pure-python] [--out DIR]``
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import gymnasium as gym

import patience_gym  # noqa: F401 - registers the envs
from agents.evaluate import format_share, mean_ci95, wilson_ci95
from agents.golf_solver import HAVE_FAST, solve
from agents.report import machine_description
from benchmarks import RESULTS, write_results
from patience_gym.cards import codes
from patience_gym.games.golf import NUM_HOLES, Golf, GolfRound

RULE_SETS: dict[str, dict[str, bool]] = {
    "book": {},
    "queens_on_kings": {"queens_on_kings": True},
    "wrap_ranks": {"wrap_ranks": True},
}


def solve_deals(
    options: dict[str, bool], deals: int, seed: int, max_nodes: int | None, fast: bool = True
) -> dict[str, Any]:
    """Minimum scores of ``deals`` seeded Golf-v0 deals, with timing and proof counts."""
    env = gym.make("patience_gym/Golf-v0", **options)
    game: Golf = env.unwrapped.game  # type: ignore[attr-defined]
    scores: list[int] = []
    unproven = 0
    nodes = 0
    start = time.perf_counter()
    for i in range(deals):
        env.reset(seed=seed + i)
        solution = solve(game, env.unwrapped.state, max_nodes, fast)  # type: ignore[attr-defined]
        scores.append(solution.score)
        unproven += not solution.exact
        nodes += solution.nodes
    seconds = time.perf_counter() - start
    cleared = sum(s <= 0 for s in scores)
    lo, hi = wilson_ci95(cleared, deals)
    mean, half = mean_ci95(scores)
    rounds = [sum(scores[r * NUM_HOLES : (r + 1) * NUM_HOLES]) for r in range(deals // NUM_HOLES)]
    round_mean, round_half = mean_ci95(rounds)
    return {
        "deals": deals,
        "cleared": cleared,
        "cleared_share": cleared / deals,
        "cleared_ci95": [lo, hi],
        "mean_score": mean,
        "score_ci95": half,
        "nine_holes_mean": round_mean,
        "nine_holes_ci95": round_half,
        "nine_holes_rounds": len(rounds),
        "not_proven": unproven,
        "mean_nodes": nodes / deals,
        "seconds": seconds,
        "seconds_per_1000": 1000 * seconds / deals,
    }


def solve_rounds(
    options: dict[str, bool], rounds: int, seed: int, max_nodes: int | None, fast: bool = True
) -> dict[str, Any]:
    """Best nine-hole totals of ``rounds`` seeded GolfRound-v0 deals (each hole solved on its own)."""
    env = gym.make("patience_gym/GolfRound-v0", **options)
    game: GolfRound = env.unwrapped.game  # type: ignore[attr-defined]
    totals: list[int] = []
    unproven = 0
    for r in range(rounds):
        env.reset(seed=seed + r)
        deals = env.unwrapped.state.deals  # type: ignore[attr-defined]
        total = 0
        for deal in deals:
            solution = solve(game.hole_game, game.hole_game.from_deal(codes(deal)), max_nodes, fast)
            total += solution.score
            unproven += not solution.exact
        totals.append(total)
    mean, half = mean_ci95(totals)
    return {"rounds": rounds, "mean": mean, "ci95": half, "not_proven": unproven}


def measure(deals: int, seed: int, rounds: int, max_nodes: int | None, fast: bool = True) -> dict[str, Any]:
    rows = []
    for name, options in RULE_SETS.items():
        row: dict[str, Any] = {"rules": name, "options": options}
        row.update(solve_deals(options, deals, seed, max_nodes, fast))
        if rounds:
            row["golf_round"] = solve_rounds(options, rounds, seed, max_nodes, fast)
        rows.append(row)
        lo, hi = row["cleared_ci95"]
        print(
            f"{name:16s} cleared {100 * row['cleared_share']:5.2f}% [{100 * lo:.2f}, {100 * hi:.2f}]  "
            f"mean {row['mean_score']:.3f} ± {row['score_ci95']:.3f}  "
            f"nine holes {row['nine_holes_mean']:.2f} ± {row['nine_holes_ci95']:.2f}  "
            f"not proven {row['not_proven']}  {row['seconds_per_1000']:.1f} s/1000 deals",
            flush=True,
        )
    machine = machine_description()
    return {
        "deals": deals,
        "seed": seed,
        "rounds": rounds,
        "max_nodes": max_nodes,
        "c_core": HAVE_FAST and fast,
        "machine": machine,
        "rows": rows,
    }


def to_markdown(data: dict[str, Any]) -> str:
    core = "C core" if data["c_core"] else "pure Python"
    lines = [
        f"Exact Golf solver (perfect knowledge of the stock), {data['deals']} seeded deals per rule set "
        f"(Golf-v0 seeds {data['seed']}..{data['seed'] + data['deals'] - 1}), one process, {core}, "
        f"{data['machine']}. Cleared: Wilson 95% interval; ± is the 95% CI half-width. "
        "Nine holes: the deals taken nine at a time as rounds.",
        "",
        "| rules | cleared [95% CI] | mean best score | nine holes | not proven | s / 1,000 deals |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for r in data["rows"]:
        lines.append(
            f"| {r['rules']} | {format_share(r['cleared_share'], r['cleared_ci95'])} | "
            f"{r['mean_score']:.2f} ± {r['score_ci95']:.2f} | "
            f"{r['nine_holes_mean']:.1f} ± {r['nine_holes_ci95']:.1f} | {r['not_proven']} | "
            f"{r['seconds_per_1000']:.0f} |"
        )
    if data["rounds"]:
        lines += [
            "",
            f"GolfRound-v0, {data['rounds']} seeded rounds "
            f"(seeds {data['seed']}..{data['seed'] + data['rounds'] - 1}), every hole solved:",
            "",
            "| rules | nine-hole total | not proven |",
            "|---|---:|---:|",
        ]
        for r in data["rows"]:
            g = r["golf_round"]
            lines.append(f"| {r['rules']} | {g['mean']:.1f} ± {g['ci95']:.1f} | {g['not_proven']} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deals", type=int, default=10_000, help="Golf-v0 deals per rule set")
    parser.add_argument("--seed", type=int, default=0, help="first deal seed")
    parser.add_argument("--rounds", type=int, default=100, help="GolfRound-v0 rounds per rule set (0: none)")
    parser.add_argument("--max-nodes", type=int, help="node budget per hole (default: none, every solve exact)")
    parser.add_argument("--pure-python", action="store_true", help="time the pure-Python search, not the C core")
    parser.add_argument("--out", type=Path, default=RESULTS, help="folder for the .json and .md results")
    args = parser.parse_args(argv)
    data = measure(args.deals, args.seed, args.rounds, args.max_nodes, not args.pure_python)
    stem = "golf_solver.pure_python" if args.pure_python else "golf_solver"
    write_results(stem, data, to_markdown(data), args.out)


if __name__ == "__main__":
    main()
