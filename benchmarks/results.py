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

from agents.evaluate import format_share

ROOT = Path(__file__).resolve().parent.parent
RUNS = ROOT / "benchmarks" / "runs"


def load_runs() -> list[dict]:
    runs = []
    for path in sorted(RUNS.glob("*/results.json")):
        data = json.loads(path.read_text())
        data["name"] = path.parent.name
        runs.append(data)
    return runs


def to_markdown(runs: list[dict]) -> str:
    lines = [
        "| run (`benchmarks/runs/`) | env (encoding) | agent | mean score ± 95% CI | win rate [95% CI] "
        "| PPO training | machine |",
        "|---|---|---|---:|---:|---|---|",
    ]
    for run in runs:
        env = run["env"].split("/")[-1]
        if run.get("env_kwargs", {}).get("obs_encoding"):
            env += f" ({run['env_kwargs']['obs_encoding']})"
        better = "lower" if run["lower_score_is_better"] else "higher"
        for r in run["results"]:
            training = f"{run['timesteps']:,} steps, {run['train_seconds'] / 60:.0f} min" if r["agent"] == "ppo" else ""
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
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.parse_args()
    runs = load_runs()
    if not runs:
        raise SystemExit(f"no run reports under {RUNS}")
    table = to_markdown(runs)
    print(table)
    (ROOT / "benchmarks" / "results" / "ppo.md").write_text(table)


if __name__ == "__main__":
    main()
