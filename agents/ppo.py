"""A trained MaskablePPO model as an agent."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from agents.base import Agent
from patience_gym.env import PatienceEnv
from patience_gym.features import Observer, make_observer

#: Log-probability gap between a game's two best moves below which :meth:`PPOAgent.act_many` chooses for
#: that game on its own (a batched pass's rounding is about 1e-6).
NEAR_TIE = 1e-4


class PPOAgent(Agent):
    """Plays the deterministic (most likely legal) action of a saved MaskablePPO policy.

    A model of a game's part may play the whole (a model of one hole plays a round of holes in the same
    encoding): where the env's observation does not fit the model, it is shown the part in play
    (:meth:`patience_gym.core.Game.stage`) as that part's own env would show it.

    :meth:`act_many` chooses for many games with one batched pass of the network (the evaluation plays
    a deterministic policy's deals in lockstep). A game whose two best moves are within
    :data:`NEAR_TIE` of each other is chosen for again on its own, as :meth:`act` does, so that the
    rounding of a batched pass cannot change a move.
    """

    name = "ppo"

    def __init__(self, path: str | Path | Any, deterministic: bool = True) -> None:
        """``path``: a saved model (``.zip``), or a MaskablePPO model already in memory."""
        from sb3_contrib import MaskablePPO

        self.deterministic = deterministic
        self._stage_observers: dict[tuple[type, str, str], Observer] = {}
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

    @property
    def plays_in_lockstep(self) -> bool:  # type: ignore[override]
        """Only a deterministic policy over a ``Discrete`` action space: a sampled one draws from torch's RNG in
        the order the moves are made."""
        return self.deterministic and isinstance(self.model.action_space, gym.spaces.Discrete)

    def act(self, env: PatienceEnv, obs: np.ndarray, mask: np.ndarray) -> int:
        action, _ = self.model.predict(self.model_view(env, obs), action_masks=mask, deterministic=self.deterministic)
        return int(action)

    def act_many(self, envs: list[PatienceEnv], observations: list[np.ndarray], masks: list[np.ndarray]) -> list[int]:
        if not self.plays_in_lockstep:
            return super().act_many(envs, observations, masks)
        import torch as th

        policy = self.model.policy
        policy.set_training_mode(False)
        shown = np.stack([self.model_view(env, obs) for env, obs in zip(envs, observations, strict=True)])
        with th.no_grad():
            distribution = policy.get_distribution(policy.obs_to_tensor(shown)[0], action_masks=np.stack(masks))
            actions = [int(a) for a in distribution.get_actions(deterministic=True)]
            logits = distribution.distribution.logits  # type: ignore[union-attr]  # one Categorical: Discrete
            if logits.shape[1] > 1:
                best_two = logits.topk(2, dim=1).values
                for i in np.flatnonzero((best_two[:, 0] - best_two[:, 1]).numpy() < NEAR_TIE):
                    actions[i] = self.act(envs[i], observations[i], masks[i])
        return actions

    def model_view(self, env: PatienceEnv, obs: np.ndarray) -> np.ndarray:
        """``obs`` as the model reads it: the part in play's own observation where the env's does not fit."""
        expected = self.model.observation_space.shape
        if obs.shape != expected:
            game, part = env.game.stage(env.state)
            if game is not env.game:
                key = (type(game), repr(game.options), env.obs_encoding)
                if key not in self._stage_observers:
                    self._stage_observers[key] = make_observer(game, env.obs_encoding)
                obs = self._stage_observers[key].observe(part)
        if obs.shape != expected:
            raise ValueError(
                f"PPO model expects observations of shape {expected}, env gives {obs.shape}: "
                "make the env with the obs_encoding the model was trained on"
            )
        return obs
