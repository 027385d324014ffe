"""Builds hole.c and solves the given seeds' Golf-v0 holes exactly for a player who does not see the stock.

Research notes, section 27. Usage: ``python -m benchmarks.golf_expectimax_hole_study.run --seeds 0 1
[--group-ranks]`` (needs a C compiler); prints a line a hole.
"""

from __future__ import annotations

import argparse
import subprocess
import tempfile
from pathlib import Path

import numpy as np

from patience_gym.cards import RANK
from patience_gym.games.golf import Golf

HERE = Path(__file__).resolve().parent


def deal_line(seed: int) -> str:
    """The hole the env deals for ``seed`` as hole.c reads it (ranks only; the stock's order is not used)."""
    state = Golf().init(np.random.default_rng(seed))
    links = " ".join(str(RANK[c]) for column in state.columns for c in column)
    stock = " ".join(str(RANK[c]) for c in state.stock[state.pos :])
    return f"{links} | {RANK[state.waste[-1]]} | {stock}\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    parser.add_argument("--group-ranks", action="store_true")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        binary = Path(tmp) / "hole"
        subprocess.run(["gcc", "-O2", "-o", str(binary), str(HERE / "hole.c")], check=True)
        print("seed value chance_positions turn_positions cpu_seconds")
        for seed in args.seeds:
            flags = ["--group-ranks"] if args.group_ranks else []
            line = deal_line(seed)
            out = subprocess.run([str(binary), *flags], input=line, text=True, capture_output=True, check=True)
            print(seed, out.stdout.strip(), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
