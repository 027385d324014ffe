"""Stable-Baselines3 front of the batched engines: a ``VecEnv`` with ``action_masks()``.

SB3's autoreset: when env ``i`` finishes, ``step_wait`` returns the new game's
observation, and ``infos[i]`` (the finished game's info) carries
``terminal_observation`` and ``TimeLimit.truncated``, as ``DummyVecEnv`` does; its
``action_mask`` is the new game's, the mask of the observation returned.
sb3-contrib's MaskablePPO reads the masks through ``env_method("action_masks")``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode
from stable_baselines3.common.vec_env import VecEnv, VecMonitor
from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices, VecEnvObs, VecEnvStepReturn

from patience_gym.vector import batched_game_class
from patience_gym.vector.base import BatchedVectorEnv


class BatchedSB3VecEnv(VecEnv):
    """An SB3 ``VecEnv`` over a ``BatchedVectorEnv`` (made in same-step autoreset mode)."""

    def __init__(self, env: BatchedVectorEnv) -> None:
        if env.autoreset_mode is not AutoresetMode.SAME_STEP:
            raise ValueError("BatchedSB3VecEnv needs a BatchedVectorEnv made with autoreset_mode='same-step'")
        self.env = env
        self._actions: np.ndarray | None = None
        super().__init__(env.num_envs, env.single_observation_space, env.single_action_space)

    def reset(self) -> VecEnvObs:
        seeds = list(self._seeds) if any(s is not None for s in self._seeds) else None
        obs, infos = self.env.reset(seed=seeds)
        self._reset_seeds()
        self._reset_options()
        self.reset_infos = self._per_env(infos, np.zeros(self.num_envs, dtype=bool))
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = actions

    def step_wait(self) -> VecEnvStepReturn:
        if self._actions is None:
            raise RuntimeError("call step_async() before step_wait()")
        actions, self._actions = self._actions, None
        obs, reward, terminated, truncated, infos = self.env.step(actions)
        dones = terminated | truncated
        per_env = self._per_env(infos, dones, truncated & ~terminated)
        if dones.any():
            final_obs = infos["final_obs"]
            for i in np.flatnonzero(dones):
                per_env[i]["terminal_observation"] = final_obs[i]
        return obs, reward.astype(np.float32), dones, per_env

    def action_masks(self) -> np.ndarray:
        """Legal actions, bool [N, A]."""
        return self.env.action_masks()

    def close(self) -> None:
        self.env.close()

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        if attr_name == "render_mode":
            value: Any = None
        elif hasattr(self, attr_name) and not attr_name.startswith("_"):
            value = getattr(self, attr_name)
        else:
            raise AttributeError(f"batched envs have no attribute {attr_name!r}")
        return [value] * len(self._indices(indices))

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        raise AttributeError(f"cannot set {attr_name!r}: batched envs keep their state in kernel arrays")

    def env_method(
        self, method_name: str, *method_args: Any, indices: VecEnvIndices = None, **kwargs: Any
    ) -> list[Any]:
        if method_name != "action_masks":
            raise AttributeError(f"batched envs have no per-env method {method_name!r} (only 'action_masks')")
        return list(self.env.action_masks()[self._indices(indices)])

    def env_is_wrapped(self, wrapper_class: type, indices: VecEnvIndices = None) -> list[bool]:
        return [False] * len(self._indices(indices))

    # --- internals ---------------------------------------------------------
    def _indices(self, indices: VecEnvIndices) -> Sequence[int]:
        if indices is None:
            return range(self.num_envs)
        if isinstance(indices, (int, np.integer)):
            return [int(indices)]
        return list(indices)

    def _per_env(self, infos: dict[str, Any], dones: np.ndarray, cut: np.ndarray | None = None) -> list[dict[str, Any]]:
        """One info dict per env; a finished env's holds its finished game's values, except
        ``action_mask``: always the mask of the observation returned (the new game's), never all-False.

        ``cut`` (when given) fills ``TimeLimit.truncated``, as SB3's ``DummyVecEnv`` does every step.
        """
        final = infos.get("final_info", {})
        columns: dict[str, list[Any]] = {}
        for key, value in infos.items():
            if key.startswith("_") or key in ("final_obs", "final_info"):
                continue
            if key in final and key != "action_mask" and dones.any():
                value = np.where(dones.reshape(-1, *([1] * (value.ndim - 1))), final[key], value)
            columns[key] = list(value) if value.ndim > 1 else value.tolist()
        masks, scores, won, illegal = (columns.pop(k) for k in ("action_mask", "score", "won", "illegal_action"))
        cuts = [False] * self.num_envs if cut is None else cut.tolist()
        per_env = [  # dict displays: much faster than dict(zip(...)) for a thousand envs a step
            {"action_mask": m, "score": s, "won": w, "illegal_action": il, "TimeLimit.truncated": c}
            for m, s, w, il, c in zip(masks, scores, won, illegal, cuts)
        ]
        if cut is None:
            for info in per_env:
                del info["TimeLimit.truncated"]
        for key, values in columns.items():  # the game's further keys (GolfRound's hole, hole_scores)
            for info, value in zip(per_env, values):
                info[key] = value
        return per_env


def make_sb3_vec_env(
    env_id: str,
    n_envs: int,
    seed: int | None = None,
    env_kwargs: dict[str, Any] | None = None,
    *,
    monitor_dir: str | Path | None = None,
    info_keywords: tuple[str, ...] = ("score",),
) -> VecEnv:
    """``n_envs`` batched games of ``env_id`` as an SB3 ``VecEnv`` (env ``i`` seeded ``seed + i``).

    ``env_kwargs`` are the single env's: ``obs_encoding``, ``illegal_action``, rule options,
    and ``max_episode_steps`` (the registered limit by default); ``render_mode`` must be None.
    With ``monitor_dir``, a ``VecMonitor`` writes ``monitor_dir/batched.monitor.csv``
    (with ``info_keywords``, read from the finished game's info).
    """
    kwargs = dict(env_kwargs or {})
    if kwargs.pop("render_mode", None) is not None:
        raise ValueError("batched envs do not render; pass render_mode=None")
    obs_encoding = kwargs.pop("obs_encoding", None)
    max_episode_steps = kwargs.pop("max_episode_steps", None)
    illegal_action = kwargs.pop("illegal_action", "penalize")
    game = batched_game_class(env_id)(n_envs, obs_encoding=obs_encoding, **kwargs)
    env = BatchedVectorEnv(
        game, max_episode_steps=max_episode_steps, illegal_action=illegal_action, autoreset_mode="SameStep"
    )
    vec: VecEnv = BatchedSB3VecEnv(env)
    if seed is not None:
        vec.seed(seed)
    if monitor_dir is not None:
        Path(monitor_dir).mkdir(parents=True, exist_ok=True)
        vec = VecMonitor(vec, filename=str(Path(monitor_dir) / "batched"), info_keywords=info_keywords)
    return vec
