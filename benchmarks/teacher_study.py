"""Study (issue 35 item 5; deleted after its commit): the student of the planner against the student of the greedy.

Train both (clone 200 teacher games each, one 4,096-step PPO update), then compare their reports'
scores on the same 1,000 deals, paired:

    python train.py --config configs/miss_milligan_student_of_planner.yaml --run-dir runs/student_planner
    python train.py --config configs/miss_milligan_student_of_greedy.yaml --run-dir runs/student_greedy
    python -m benchmarks.teacher_study runs/student_planner runs/student_greedy
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from agents.evaluation.evaluate import paired_ci95


def main(first: str, second: str) -> None:
    a, b = (json.loads((Path(d) / "results.json").read_text()) for d in (first, second))
    if a["seed"] != b["seed"] or a["episodes"] != b["episodes"]:
        raise SystemExit("the two reports were not made on the same deals")
    mean, half = paired_ci95(a["scores"]["ppo"], b["scores"]["ppo"])
    print(f"{first} minus {second}: {mean:+.2f} ± {half:.2f} cards a deal, paired over {a['episodes']} deals")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
