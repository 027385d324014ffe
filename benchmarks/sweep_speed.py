"""Trials per hour of a seed sweep on this machine: two trials at a time (one CPU each) against one at a time,
with both CPUs (torch's threads on both) and with one, the same config and seeds.

    python -m benchmarks.sweep_speed [--config configs/golf.yaml] [--total-timesteps 1000000] [--seeds 2]

Each mode runs ``python train.py --config C --seeds N --total-timesteps T`` in a fresh sweep directory (a local
Ray started and stopped by the command) and is timed as a whole, Ray's start and every trial's report
included. Writes ``benchmarks/results/sweep_speed.json`` and ``.md``.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from agents.training.report import machine_description
from benchmarks import write_results

ROOT = Path(__file__).resolve().parents[1]
#: (label, trials at once, CPUs per trial)
MODES = (("one at a time, 2 CPUs each", 1, 2), ("one at a time, 1 CPU each", 1, 1), ("two at a time, 1 CPU each", 2, 1))


def time_mode(config: str, seeds: int, steps: int, at_once: int, cpus: int, folder: Path) -> float:
    """Wall seconds of one sweep, start to finish."""
    argv = [
        sys.executable, str(ROOT / "train.py"), "--config", config, "--seeds", str(seeds),
        "--total-timesteps", str(steps), "--sweep-dir", str(folder),
        "--trials-at-once", str(at_once), "--cpus-per-trial", str(cpus),
    ]  # fmt: skip
    start = time.perf_counter()
    subprocess.run(argv, check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", default="configs/golf.yaml")
    parser.add_argument("--total-timesteps", type=int, default=1_000_000)
    parser.add_argument("--seeds", type=int, default=2)
    args = parser.parse_args(argv)
    if args.total_timesteps < 1 or args.seeds < 2:
        parser.error("--total-timesteps must be positive and --seeds at least 2")
    rows = []
    with tempfile.TemporaryDirectory(prefix="sweep_speed_") as scratch:
        for label, at_once, cpus in MODES:
            folder = Path(scratch) / f"{at_once}x{cpus}"
            seconds = time_mode(args.config, args.seeds, args.total_timesteps, at_once, cpus, folder)
            rows.append({"mode": label, "trials_at_once": at_once, "cpus_per_trial": cpus, "seconds": seconds,
                         "trials_per_hour": 3600 * args.seeds / seconds})  # fmt: skip
    two = rows[-1]["trials_per_hour"]
    ratios = {row["mode"]: two / row["trials_per_hour"] for row in rows[:-1]}
    data = {"config": args.config, "total_timesteps": args.total_timesteps, "seeds": args.seeds,
            "machine": machine_description(), "rows": rows, "two_at_a_time_over": ratios}  # fmt: skip
    lines = [
        f"A sweep of {args.seeds} seeds of `{args.config}` at {args.total_timesteps:,} steps each, timed whole "
        f"(Ray's start and every trial's report included) on {data['machine']}.",
        "",
        "| mode | wall time | trials per hour |",
        "|---|---:|---:|",
        *(f"| {r['mode']} | {r['seconds'] / 60:.1f} min | {r['trials_per_hour']:.1f} |" for r in rows),
        "",
        "Two at a time give "
        + " and ".join(f"{ratio:.2f}x the trials per hour of {mode}" for mode, ratio in ratios.items())
        + ".",
        "",
    ]
    write_results("sweep_speed", data, "\n".join(lines))


if __name__ == "__main__":
    main()
