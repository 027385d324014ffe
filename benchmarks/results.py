"""The README's results table, from the committed run reports in ``benchmarks/runs/``.

Each ``benchmarks/runs/<name>/`` holds what ``train.py`` wrote for a full run
(``results.json``, ``training.json``, ``report.md``, ``config.yaml``, plots), made by
``python train.py --config configs/<name>.yaml --run-dir benchmarks/runs/<run>`` (each run's
``config.yaml`` says which). This script only reads them.

Writes ``benchmarks/results/ppo.md`` (``python -m benchmarks.readme`` copies it into the README).

Usage: ``python -m benchmarks.results``
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from agents.evaluate import format_share, mean_ci95
from benchmarks import RESULTS

ROOT = Path(__file__).resolve().parent.parent
RUNS = ROOT / "benchmarks" / "runs"


def load_runs() -> list[dict]:
    runs = []
    for path in sorted(RUNS.glob("*/results.json")):
        data = json.loads(path.read_text())
        data["name"] = path.parent.name
        pretrain = path.parent / "pretrain.json"
        data["pretrain"] = json.loads(pretrain.read_text()) if pretrain.is_file() else None
        runs.append(data)
    return runs


def to_markdown(runs: list[dict]) -> str:
    lines = [
        "| run (`benchmarks/runs/`) | env (encoding) | agent | mean score ± 95% CI | win rate [95% CI] "
        "| PPO training | machine |",
        "|---|---|---|---:|---:|---|---|",
    ]
    for run in runs:
        env = _env_label(run)
        better = "lower" if run["lower_score_is_better"] else "higher"
        for r in run["results"]:
            training = _training(run) if r["agent"] == "ppo" else ""
            lines.append(
                f"| {run['name']} | {env} | {r['agent']} | "
                f"{r['mean_score']:.2f} ± {r['score_ci95']:.2f} ({better} better) | "
                f"{format_share(r['win_rate'], r['win_ci95'])} | {training} | "
                f"{run['machine'] if r['agent'] == 'ppo' else ''} |"
            )
    lines.append("")
    lines.append(
        "All agents of a row group played the same seeded deals ("
        + ", ".join(f"{run['name']}: {run['episodes']} deals from seed {run['seed']}" for run in runs)
        + ")."
    )
    lines += ["", *verdicts(runs)]
    return "\n".join(lines) + "\n"


def _env_label(run: dict) -> str:
    env = str(run["env"]).split("/")[-1]
    encoding = run.get("env_kwargs", {}).get("obs_encoding")
    return f"{env} ({encoding})" if encoding else env


def _training(run: dict) -> str:
    text = f"{run['timesteps']:,} steps, {run['train_seconds'] / 60:.0f} min"
    if run.get("pretrain"):
        text += f" (incl. cloning {run['pretrain']['episodes']:,} {run['pretrain']['teacher']} games)"
    chosen = run.get("ppo_model", {})
    if chosen.get("model") == "best":
        text += f"; plays the best held-out checkpoint (step {chosen['best_step']:,})"
    return text


def verdicts(runs: list[dict]) -> list[str]:
    """PPO against greedy on each run's deals: paired difference and whether the 95% intervals separate."""
    lines = [
        "| run | PPO - greedy, paired by deal (95% CI) | better score is | PPO beats greedy outside both 95% CIs? |",
        "|---|---:|---|---|",
    ]
    for run in runs:
        by_agent = {r["agent"]: r for r in run["results"]}
        if "ppo" not in by_agent or "greedy" not in by_agent:
            continue
        diff = np.asarray(run["scores"]["ppo"], float) - np.asarray(run["scores"]["greedy"], float)
        mean, ci = mean_ci95(diff.tolist())
        ppo, greedy = by_agent["ppo"], by_agent["greedy"]
        if run["lower_score_is_better"]:
            beats = ppo["mean_score"] + ppo["score_ci95"] < greedy["mean_score"] - greedy["score_ci95"]
        else:
            beats = ppo["mean_score"] - ppo["score_ci95"] > greedy["mean_score"] + greedy["score_ci95"]
        direction = "lower" if run["lower_score_is_better"] else "higher"
        lines.append(f"| {run['name']} | {mean:+.2f} ± {ci:.2f} | {direction} | {'yes' if beats else 'no'} |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.parse_args()
    runs = load_runs()
    if not runs:
        raise SystemExit(f"no run reports under {RUNS}")
    table = to_markdown(runs)
    print(table)
    (RESULTS / "ppo.md").write_text(table)


if __name__ == "__main__":
    main()
