"""The random baseline: uniform over the legal actions."""

from __future__ import annotations

import numpy as np

from agents.base import Agent
from patience_gym.env import PatienceEnv


class RandomAgent(Agent):
    """Uniform over the legal actions (masked random)."""

    name = "random"
    reads_observation = False

    def __init__(self, seed: int | None = None) -> None:
        self._rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)

    def act(self, env: PatienceEnv, obs: np.ndarray, mask: np.ndarray) -> int:
        legal = np.flatnonzero(mask)
        return int(legal[self._rng.integers(len(legal))])
