"""The shipped Golf-v0 models against greedy on deals none of them was chosen on.

Six configs of the move-scoring network were trained (``golf_moves``,
``golf_moves_decay``, ``golf_moves_decay2``, ``golf_moves_sep``,
``golf_moves_sep16``, ``golf_moves_sep16_wide``) and compared on the report deals (seeds 0..999);
picking the best of them on those deals flatters it. This
plays greedy and each shipped model (``models/``) on a second, independent
set of deals (seeds from 100,000 by default) and applies the same verdict as
``benchmarks/results.py``.

Writes ``benchmarks/results/golf_fresh_deals.json`` and ``.md``.

Usage: ``python -m benchmarks.golf_fresh_deals [--episodes 1000] [--seed 100000] [--models ...]``
"""

from __future__ import annotations

import argparse
from pathlib import Path

from agents.evaluate import evaluate, format_share
from agents.report import machine_description
from benchmarks import RESULTS, write_results
from benchmarks.results import verdicts

ENV_ID = "patience_gym/Golf-v0"
ROOT = Path(__file__).resolve().parent.parent
MODELS = [
    "models/golf_moves.zip",
    "models/golf_moves_decay.zip",
    "models/golf_moves_decay2.zip",
    "models/golf_moves_sep.zip",
    "models/golf_moves_sep16.zip",
    "models/golf_moves_sep16_wide.zip",
]


def measure(models: list[str], episodes: int, seed: int) -> dict:
    specs = ["greedy", *(f"ppo:{ROOT / m}" for m in models)]
    summaries = evaluate(ENV_ID, specs, episodes, seed, {"obs_encoding": "runs"})
    greedy, *ppo = summaries
    runs = []
    for model, summary in zip(models, ppo, strict=True):
        row = {**summary.row(), "agent": "ppo"}
        runs.append(
            {
                "name": model,
                "lower_score_is_better": True,
                "results": [greedy.row(), row],
                "scores": {"greedy": greedy.scores, "ppo": summary.scores},
            }
        )
    return {"env": ENV_ID, "episodes": episodes, "seed": seed, "machine": machine_description(), "runs": runs}


def to_markdown(data: dict) -> str:
    first, last = data["seed"], data["seed"] + data["episodes"] - 1
    lines = [
        f"Golf-v0 (`runs` encoding), {data['episodes']} deals from seed {first} to {last}, the same for every agent; "
        "± is the 95% CI half-width (lower score is better).",
        "",
        "| agent | mean score ± 95% CI | win rate [95% CI] |",
        "|---|---:|---:|",
    ]
    greedy = data["runs"][0]["results"][0]
    lines.append(
        f"| greedy | {greedy['mean_score']:.2f} ± {greedy['score_ci95']:.2f} | "
        f"{format_share(greedy['win_rate'], greedy['win_ci95'])} |"
    )
    for run in data["runs"]:
        ppo = run["results"][1]
        lines.append(
            f"| `{run['name']}` | {ppo['mean_score']:.2f} ± {ppo['score_ci95']:.2f} | "
            f"{format_share(ppo['win_rate'], ppo['win_ci95'])} |"
        )
    return "\n".join([*lines, "", *verdicts(data["runs"])]) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--episodes", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=100_000)
    parser.add_argument("--models", nargs="+", default=MODELS, help="Golf-v0 models on the runs encoding")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    data = measure(args.models, args.episodes, args.seed)
    write_results("golf_fresh_deals", data, to_markdown(data), args.out)


if __name__ == "__main__":
    main()
