"""Random and greedy baselines on the same 1,000 seeded deals of every env.

Writes ``benchmarks/results/baselines.json`` and ``baselines.md`` (``python -m
benchmarks.readme`` copies the table into the README).

Usage: ``python -m benchmarks.baselines [--episodes 1000] [--seed 0] [--env ID ...]``
"""

from __future__ import annotations

import argparse

import gymnasium as gym

import patience_gym
from agents.evaluation.evaluate import evaluate, format_share
from agents.training.report import machine_description
from benchmarks import write_results


def measure(env_ids: list[str], episodes: int, seed: int) -> dict:
    rows = []
    for env_id in env_ids:
        game = gym.make(env_id).unwrapped.game  # type: ignore[attr-defined]
        for summary in evaluate(env_id, ["random", "greedy"], episodes, seed):
            row = summary.row()
            row.update(env=env_id, lower_score_is_better=game.lower_score_is_better)
            rows.append(row)
            print(
                f"{env_id:38s} {row['agent']:7s} {row['mean_score']:8.2f} ± {row['score_ci95']:.2f}  "
                f"win {100 * row['win_rate']:5.1f}%  ({row['seconds']:.0f} s)",
                flush=True,
            )
    machine = machine_description()
    return {"episodes": episodes, "seed": seed, "machine": machine, "rows": rows}


def to_markdown(data: dict) -> str:
    lines = [
        f"Same {data['episodes']} seeded deals per env (seeds {data['seed']}..{data['seed'] + data['episodes'] - 1}); "
        "± is the 95% CI half-width, win-rate intervals are Wilson 95%.",
        "",
        "| env | agent | mean score | win rate [95% CI] | mean moves |",
        "|---|---|---:|---:|---:|",
    ]
    for r in data["rows"]:
        note = " (lower is better)" if r["lower_score_is_better"] and r["agent"] == "random" else ""
        lines.append(
            f"| {r['env'].split('/')[-1]} | {r['agent']} | {r['mean_score']:.2f} ± {r['score_ci95']:.2f}{note} | "
            f"{format_share(r['win_rate'], r['win_ci95'])} | {r['mean_moves']:.1f} |"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--episodes", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--env", nargs="*", default=sorted(patience_gym.ENVS))
    args = parser.parse_args()
    data = measure(args.env, args.episodes, args.seed)
    write_results("baselines", data, to_markdown(data))


if __name__ == "__main__":
    main()
