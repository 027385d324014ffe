"""A Golf-v0 PPO model played over nine-hole rounds (GolfRound-v0), as a run report.

The holes of a round are independent deals and a round's score is the sum of
its holes, so the policy that plays each hole best also plays the round best.
This script takes a model trained on single holes by ``train.py`` and writes a
run report for ``GolfRound-v0`` in the same form as ``train.py``'s own
(``results.json``, ``report.md``, score plot), so that ``benchmarks/results.py``
lists it with the others. The model plays each hole exactly as it would in
Golf-v0 (``agents.ppo.PPOAgent`` shows it the hole in play); random and greedy
play the same rounds. Its training steps and time are those of the hole run.

Usage::

    python -m benchmarks.golf_round_from_holes --model models/golf_moves.zip \
        --hole-run benchmarks/runs/Golf-v0-moves --run-dir benchmarks/runs/GolfRound-v0-moves
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from pathlib import Path

import yaml

from agents.config import config_to_dict, load_config
from agents.report import write_report

ROUND_ENV = "patience_gym/GolfRound-v0"


def write_round_report(model: Path, hole_run: Path, run_dir: Path, episodes: int, seed: int) -> str:
    """Evaluate ``model`` (trained on Golf-v0 in ``hole_run``) on ``episodes`` rounds; return the table."""
    hole_config = load_config(hole_run / "config.yaml")
    if hole_config.env_id != "patience_gym/Golf-v0":
        raise ValueError(f"{hole_run} is a run of {hole_config.env_id}, not of patience_gym/Golf-v0")
    config = dataclasses.replace(
        hole_config,
        env_id=ROUND_ENV,
        report=dataclasses.replace(hole_config.report, episodes=episodes, seed=seed),
    )
    run_dir.mkdir(parents=True, exist_ok=True)
    training = json.loads((hole_run / "training.json").read_text())
    training["trained_on"] = f"patience_gym/Golf-v0 (single holes): {hole_run.as_posix()}"
    (run_dir / "training.json").write_text(json.dumps(training, indent=2))
    (run_dir / "config.yaml").write_text(yaml.safe_dump(config_to_dict(config), sort_keys=False))
    table = write_report(run_dir, config, model)
    report = run_dir / "report.md"
    lines = report.read_text().splitlines()
    lines.insert(
        2,
        f"PPO here is the Golf-v0 model of `{hole_run.as_posix()}`, trained on single holes and "
        "played hole by hole; the training steps and time are that run's.",
    )
    report.write_text("\n".join(lines) + "\n")
    return table


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", type=Path, required=True, help="a MaskablePPO model trained on Golf-v0")
    parser.add_argument("--hole-run", type=Path, required=True, help="the train.py run directory it came from")
    parser.add_argument("--run-dir", type=Path, required=True, help="where to write the round report")
    parser.add_argument("--episodes", type=int, default=1000, help="rounds to play")
    parser.add_argument("--seed", type=int, default=0, help="first round seed")
    args = parser.parse_args(argv)
    print(write_round_report(args.model, args.hole_run, args.run_dir, args.episodes, args.seed))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
