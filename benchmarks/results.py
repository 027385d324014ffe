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
    lines += ["", "Each env's best run by that bar (margin: PPO's interval edge past greedy's, the better way):"]
    lines += [""]
    lines += best_by_env(runs)
    return "\n".join(lines) + "\n"


def _env_label(run: dict) -> str:
    env = str(run["env"]).split("/")[-1]
    encoding = run.get("env_kwargs", {}).get("obs_encoding")
    return f"{env} ({encoding})" if encoding else env


def _training(run: dict) -> str:
    text = f"{run['timesteps']:,} steps, {run['train_seconds'] / 60:.0f} min"
    if run.get("pretrain"):
        pretrain = run["pretrain"]
        rounds = pretrain.get("dagger", [])
        dagger = f" and {len(rounds)} DAgger rounds of {rounds[0]['episodes']:,} games" if rounds else ""
        text += f" (incl. cloning {pretrain['episodes']:,} {pretrain['teacher']} games{dagger})"
    chosen = run.get("ppo_model", {})
    if chosen.get("model") == "best":
        text += f"; plays the best held-out checkpoint (step {chosen['best_step']:,})"
    return text


def margin(run: dict) -> float | None:
    """How far PPO's 95% interval clears greedy's in the better direction (> 0: PPO beats greedy).

    None when the run has no PPO or no greedy result.
    """
    by_agent = {r["agent"]: r for r in run["results"]}
    if "ppo" not in by_agent or "greedy" not in by_agent:
        return None
    ppo, greedy = by_agent["ppo"], by_agent["greedy"]
    if run["lower_score_is_better"]:
        return float((greedy["mean_score"] - greedy["score_ci95"]) - (ppo["mean_score"] + ppo["score_ci95"]))
    return float((ppo["mean_score"] - ppo["score_ci95"]) - (greedy["mean_score"] + greedy["score_ci95"]))


def best_by_env(runs: list[dict]) -> list[str]:
    """For each env, its run whose PPO interval is furthest from greedy's on the better side."""
    lines = [
        "| env | best run | PPO | greedy | margin | PPO beats greedy outside both 95% CIs? |",
        "|---|---|---:|---:|---:|---|",
    ]
    best: dict[str, tuple[float, dict]] = {}
    for run in runs:
        m = margin(run)
        if m is not None and (run["env"] not in best or m > best[run["env"]][0]):
            best[run["env"]] = (m, run)
    for env, (m, run) in sorted(best.items()):
        by_agent = {r["agent"]: r for r in run["results"]}
        ppo, greedy = by_agent["ppo"], by_agent["greedy"]
        lines.append(
            f"| {str(env).split('/')[-1]} | {run['name']} | {ppo['mean_score']:.2f} ± {ppo['score_ci95']:.2f} | "
            f"{greedy['mean_score']:.2f} ± {greedy['score_ci95']:.2f} | {m:+.2f} | {'yes' if m > 0 else 'no'} |"
        )
    return lines


def verdicts(runs: list[dict]) -> list[str]:
    """PPO against greedy on each run's deals: paired difference and whether the 95% intervals separate."""
    lines = [
        "| run | PPO - greedy, paired by deal (95% CI) | better score is | PPO beats greedy outside both 95% CIs? |",
        "|---|---:|---|---|",
    ]
    for run in runs:
        m = margin(run)
        if m is None:
            continue
        beats = m > 0
        diff = np.asarray(run["scores"]["ppo"], float) - np.asarray(run["scores"]["greedy"], float)
        mean, ci = mean_ci95(diff.tolist())
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
