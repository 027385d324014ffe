"""Greedy Puss in the Corner baseline: keep every packet in the order its cards will be wanted.

The rules it plays by are in :mod:`patience_gym.heuristics.puss_greedy` (shared with
the ``moves_replay`` encoding); this module wraps them as an agent.
"""

from __future__ import annotations

import numpy as np

from agents.base import Agent
from patience_gym.env import PatienceEnv
from patience_gym.games.puss import PussInTheCorner
from patience_gym.heuristics.puss_greedy import choose_move, waits

__all__ = ["PussGreedy", "choose_move", "waits"]


class PussGreedy(Agent):
    """Wanted-order packing, harmless merges, best redeal order by mental replay (see module docstring)."""

    reads_observation = False

    name = "greedy"

    def __init__(self, plan_redeal: bool = True) -> None:
        self.plan_redeal = plan_redeal

    def act(self, env: PatienceEnv, obs: np.ndarray, mask: np.ndarray) -> int:
        game = env.game
        assert isinstance(game, PussInTheCorner)
        return choose_move(game, env.state, self.plan_redeal)
