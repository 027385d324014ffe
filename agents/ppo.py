"""A trained MaskablePPO model as an agent."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from agents.base import Agent
from patience_gym.env import PatienceEnv
from patience_gym.games.golf import GolfRound, hole_in_play


class PPOAgent(Agent):
    """Plays the deterministic (most likely legal) action of a saved MaskablePPO policy.

    A Golf-v0 model may also play GolfRound-v0 (same encoding): it plays each hole as it was trained to.
    """

    name = "ppo"

    def __init__(self, path: str | Path | Any, deterministic: bool = True) -> None:
        """``path``: a saved model (``.zip``), or a MaskablePPO model already in memory."""
        from sb3_contrib import MaskablePPO

        self.deterministic = deterministic
        if isinstance(path, MaskablePPO):
            self.model = path
            return
        path = Path(path)
        if not path.exists() and not path.with_suffix(".zip").exists():
            raise FileNotFoundError(f"no PPO model at {path}")
        try:
            self.model = MaskablePPO.load(str(path), device="cpu")
        except Exception as exc:  # zip/pickle errors vary by corruption
            raise ValueError(f"cannot load PPO model {path}: {exc}") from exc

    def act(self, env: PatienceEnv, obs: np.ndarray, mask: np.ndarray) -> int:
        expected = self.model.observation_space.shape
        if obs.shape != expected and isinstance(env.game, GolfRound):
            # A policy trained on single holes (Golf-v0) plays a round hole by hole: the holes of
            # a round are independent deals, so it sees the hole in play as Golf-v0 would show it.
            game, hole = hole_in_play(env.game, env.state)
            obs = game.observe(hole, env.obs_encoding)
        if obs.shape != expected:
            raise ValueError(
                f"PPO model expects observations of shape {expected}, env gives {obs.shape}: "
                "make the env with the obs_encoding the model was trained on"
            )
        action, _ = self.model.predict(obs, action_masks=mask, deterministic=self.deterministic)
        return int(action)
