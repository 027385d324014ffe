"""The learned search's one network: a move prior and a value, read in batches from a MaskablePPO policy.

The network is a MaskablePPO model on a rules-only encoding (``rules_moves``): its policy's masked logits
are the move prior, its critic the value of a position, trained as the probability-like *value* of the final
score (:func:`value_of`: 0 the worst score, 1 the best, higher always better). Saved as a MaskablePPO zip
that carries its spec (:mod:`agents.load`), the network alone plays as ``ppo:PATH``.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

#: Game name -> (worst, best) final score: the value's 0 and 1.
SCORE_RANGE = {
    "golf": (35.0, -16.0),
    "golf_round": (315.0, -144.0),
    "miss_milligan": (0.0, 104.0),
    "giant": (0.0, 104.0),
    "miss_milligan_pocket": (0.0, 104.0),
    "puss_in_the_corner": (4.0, 52.0),
}


def value_of(game_name: str, score: float) -> float:
    """A final score as a value in [0, 1], 1 the best score the game allows (lower scores are better in Golf)."""
    worst, best = SCORE_RANGE[game_name]
    return (float(score) - worst) / (best - worst)


def score_of(game_name: str, value: float) -> float:
    """The final score a value stands for (the inverse of :func:`value_of`)."""
    worst, best = SCORE_RANGE[game_name]
    return worst + float(value) * (best - worst)


class PolicyValue:
    """A MaskablePPO model's policy read as a move prior (log-probabilities over the legal moves, ``-inf``
    elsewhere) and a value, for a batch of observations in one pass."""

    def __init__(self, model: Any) -> None:
        self.model = model
        self.policy = model.policy
        self.num_actions = int(model.action_space.n)

    @classmethod
    def load(cls, path: str | Path, env_id: str, env_kwargs: Mapping[str, Any] | None = None) -> PolicyValue:
        """The network saved at ``path``, refused by name unless it was trained on ``env_id`` with these rule
        options and encoding (:func:`agents.load.load_for_env`)."""
        from agents.load import load_for_env

        return cls(load_for_env(path, env_id, env_kwargs).model)

    def evaluate(self, observations: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Log-priors ``[k, num_actions]`` (``-inf`` on illegal moves) and values ``[k]`` of ``k`` positions."""
        import torch as th

        self.policy.set_training_mode(False)
        with th.no_grad():
            tensor = self.policy.obs_to_tensor(np.asarray(observations))[0]
            distribution = self.policy.get_distribution(tensor, action_masks=np.asarray(masks))
            logits = distribution.distribution.logits  # type: ignore[union-attr]
            values = self.policy.predict_values(tensor).reshape(-1)
        log_priors = logits.numpy().astype(np.float64)
        log_priors[~np.asarray(masks, dtype=bool)] = -np.inf
        return log_priors, values.numpy().astype(np.float64)
