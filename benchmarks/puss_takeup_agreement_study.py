"""Study (issue 34): do the students copy the teacher's take-up? Agreement on fresh teacher games.

Records 200 fresh games of ``planner:first_pass=0`` (seeds 3,000,000-3,000,199; the greedy's first
pass and take-up, then the best replay in the second pass) and, for each saved model, the share of
decisions with a choice where the model's most likely move is the teacher's, over all such decisions
and over the take-ups with two or more packets left.

Usage: ``python -m benchmarks.puss_takeup_agreement_study MODEL.zip [MODEL.zip ...]`` (models on
``rules_moves``). Run (research notes, section 25): the plain ``MoveRows`` clone and the
card-attention run of ``configs/puss_cards.yaml``.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np
import torch
from sb3_contrib import MaskablePPO

from agents.training.imitation import collect
from patience_gym.games.puss import ACTION_TEXTS

TAKE_UPS = [i for i, text in enumerate(ACTION_TEXTS) if text.startswith("take ")]


def main(paths: list[str]) -> None:
    demos = collect(
        "patience_gym/PussInTheCorner-v0",
        {"obs_encoding": "rules_moves"},
        "planner:first_pass=0",
        range(3_000_000, 3_000_200),
        1.0,
        jobs=2,
    )
    obs = torch.as_tensor(np.asarray(demos.obs))
    masks = torch.as_tensor(demos.masks)
    actions = torch.as_tensor(demos.actions)
    choice = masks.sum(1) >= 2
    take = choice & (masks[:, TAKE_UPS].sum(1) >= 2)
    print(f"{len(actions)} decisions, {int(choice.sum())} with a choice, {int(take.sum())} take-ups with a choice")
    for path in paths:
        model: Any = MaskablePPO.load(path, device="cpu")
        best = []
        with torch.no_grad():
            for i in range(0, len(actions), 2048):
                dist = model.policy.get_distribution(obs[i : i + 2048], action_masks=masks[i : i + 2048])
                best.append(dist.distribution.probs.argmax(1))
        agree = torch.cat(best) == actions
        print(
            f"{path}: {float(agree[choice].float().mean()):.1%} of choices, "
            f"{float(agree[take].float().mean()):.1%} of take-ups"
        )


if __name__ == "__main__":
    main(sys.argv[1:])
