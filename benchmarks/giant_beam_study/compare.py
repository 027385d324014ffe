"""Study (issue 35, research notes section 23): two solver tables' kept shards compared deal by deal.

    python benchmarks/giant_beam_study/compare.py OLD NEW [giant]

(each a folder of kept shards or a table's JSON, e.g. ``benchmarks/results/milligan_solver.json``)

prints, over the deals both hold, each table's wins, the deals won by one only, and their seconds.
"""

import glob
import json
import statistics
import sys
from pathlib import Path


def load(where: str, game: str) -> dict[int, dict]:
    """Per-deal rows by seed: from a folder of kept shards, or a table's JSON (its rows)."""
    if where.endswith(".json"):
        table = json.loads(Path(where).read_text())
        return {row["seed"]: row for g in table["games"] if g["game"] == game for row in g["rows"]}
    deals = {}
    for path in glob.glob(f"{where}/{game}-*.json"):
        for deal in json.loads(Path(path).read_text())["deals"]:
            deals[deal["seed"]] = deal
    return deals


def main() -> None:
    game = sys.argv[3] if len(sys.argv) > 3 else "giant"
    old, new = load(sys.argv[1], game), load(sys.argv[2], game)
    seeds = sorted(set(old) & set(new))
    won_old = {s for s in seeds if old[s]["verdict"] == "won"}
    won_new = {s for s in seeds if new[s]["verdict"] == "won"}
    print(f"{game}, {len(seeds)} deals: old won {len(won_old)}, new won {len(won_new)}")
    print(f"won by the new only: {len(won_new - won_old)}; by the old only: {sorted(won_old - won_new)}")
    diffs = [(s in won_new) - (s in won_old) for s in seeds]
    mean = sum(diffs) / len(diffs)
    half = 1.96 * statistics.stdev(diffs) / len(diffs) ** 0.5 if len(diffs) > 1 else float("nan")
    print(f"new minus old, paired: {100 * mean:+.1f} ± {100 * half:.1f} points of the deals won")
    print(f"seconds: old {sum(old[s]['seconds'] for s in seeds):.0f}, new {sum(new[s]['seconds'] for s in seeds):.0f}")


if __name__ == "__main__":
    main()
