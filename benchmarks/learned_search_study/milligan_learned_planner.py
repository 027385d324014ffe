"""The Miss Milligan family planner with what PPO learned: the policy's top moves as extra candidates, or its
critic scoring the rollouts' last positions; paired with the planner as it is on the same deals.

Usage: ``python -m benchmarks.learned_search_study.milligan_learned_planner ENV MODEL.zip DEALS FIRST_SEED
(--prior K | --critic MIX | --plain)``: ``--prior K`` adds the policy's K most likely moves (the deal aside) to the
candidates; ``--critic MIX`` scores a rollout's last position by ``MIX`` times 100 x (cards on the foundations
plus the critic's value) and ``1 - MIX`` times the greedy's evaluation; ``--plain`` is the planner as it is.
Prints the scores and wins of each deal as JSON.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

import numpy as np
import torch as th

from agents.baselines.greedy_milligan import MilliganGreedy, evaluate
from agents.evaluation.evaluate import play_episodes
from agents.planners.milligan import MilliganPlanner
from agents.ppo import PPOAgent
from patience_gym.features import make_observer
from patience_gym.games.milligan_tables import DEAL


class LearnedPlanner(MilliganPlanner):
    """The family planner with the learned policy's top moves added (``prior``) or its critic at the leaves."""

    def __init__(self, model: str, prior: int = 0, critic: float = 0.0) -> None:
        super().__init__()
        self.net = PPOAgent(model).model.policy
        self.net.set_training_mode(False)
        self.prior, self.critic = prior, critic
        self._observer: Any = None

    def _observe(self, game: Any, state: Any) -> Any:
        if self._observer is None:
            self._observer = make_observer(game, "rules_moves")
        return self.net.obs_to_tensor(self._observer.observe(state)[None])[0]

    def candidates(self, game: Any, state: Any, legal: list[int]) -> list[int]:
        kept = super().candidates(game, state, legal)
        if not self.prior:
            return kept
        mask = game.legal_mask(state)
        with th.no_grad():
            logits = self.net.get_distribution(self._observe(game, state), action_masks=mask[None])
            order = np.argsort(-logits.distribution.logits[0].numpy())  # type: ignore[union-attr]
        extra = [int(a) for a in order if mask[a] and a != DEAL][: self.prior]
        return sorted(set(kept) | set(extra))

    def value(self, game: Any, world: Any, action: int) -> float:
        if not self.critic:
            return super().value(game, world, action)
        state = world.copy()
        game.apply(state, action)
        deals = int(action == DEAL)
        policy = MilliganGreedy()
        for _ in range(self.max_moves):  # the planner's own rollout
            if game.is_over(state):
                break
            move = policy.choose(game, state, game.legal_mask(state))
            if move == DEAL:
                if deals == self.deals:
                    break
                deals += 1
            game.apply(state, move)
        learned = 0.0
        if not game.is_over(state):
            with th.no_grad():
                learned = float(self.net.predict_values(self._observe(game, state))[0, 0])
        return self.critic * 100.0 * (game.score(state) + learned) + (1 - self.critic) * float(evaluate(state))


def main() -> None:
    env_id, model, deals, first = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    how, amount = sys.argv[5], float(sys.argv[6]) if len(sys.argv) > 6 else 0.0
    agent = {
        "--plain": lambda: MilliganPlanner(),
        "--prior": lambda: LearnedPlanner(model, prior=int(amount)),
        "--critic": lambda: LearnedPlanner(model, critic=amount),
    }[how]()
    clock = time.perf_counter()
    summary = play_episodes(env_id, agent, list(range(first, first + deals)))
    seconds = time.perf_counter() - clock
    print(json.dumps({"how": how, "amount": amount, "scores": summary.scores, "won": summary.won, "seconds": seconds}))


if __name__ == "__main__":
    main()
