"""Greedy Golf baseline: play the longest run the visible cards allow
(the rule: :mod:`patience_gym.heuristics.golf_greedy`)."""

from __future__ import annotations

import numpy as np

from agents.base import Agent
from patience_gym.env import PatienceEnv
from patience_gym.games.golf import hole_in_play
from patience_gym.heuristics.golf_greedy import choose_move


class GolfGreedy(Agent):
    """Longest visible run first; ties keep the links open (see :mod:`patience_gym.heuristics.golf_greedy`)."""

    reads_observation = False

    name = "greedy"

    def act(self, env: PatienceEnv, obs: np.ndarray, mask: np.ndarray) -> int:
        game, hole = hole_in_play(env.game, env.state)
        return choose_move(game, hole, mask)
