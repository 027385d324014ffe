"""Batched engines: N games in numpy arrays stepped by numba kernels (issue 26).

``patience_gym.vector.base``: the ``BatchedGame`` contract and the gymnasium
``BatchedVectorEnv``; ``.sb3``: the SB3 ``VecEnv`` adapter and
``make_sb3_vec_env``; ``.rng``: numpy-exact shuffles; one kernel module per
game family. This package module imports neither numba nor torch.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from patience_gym.vector.base import BatchedGame

#: env id -> "module:BatchedGame subclass" (imported on use).
BATCHED_GAMES: dict[str, str] = {
    "patience_gym/Golf-v0": "patience_gym.vector.golf:BatchedGolf",
    "patience_gym/GolfRound-v0": "patience_gym.vector.golf:BatchedGolfRound",
    "patience_gym/PussInTheCorner-v0": "patience_gym.vector.puss:BatchedPuss",
    "patience_gym/MissMilligan-v0": "patience_gym.vector.milligan:BatchedMissMilligan",
    "patience_gym/Giant-v0": "patience_gym.vector.milligan:BatchedGiant",
    "patience_gym/MissMilliganPocket-v0": "patience_gym.vector.milligan:BatchedMissMilliganPocket",
}


def batched_game_class(env_id: str) -> type[BatchedGame]:
    """The ``BatchedGame`` class of ``env_id``; ValueError naming the envs that have one."""
    target = BATCHED_GAMES.get(env_id)
    if target is None:
        raise ValueError(f"{env_id!r} has no batched engine; batched envs: {', '.join(sorted(BATCHED_GAMES))}")
    module, name = target.split(":")
    cls: type[BatchedGame] = getattr(importlib.import_module(module), name)
    return cls


def batched_supported(env_id: str, obs_encoding: str | None = None) -> bool:
    """True when ``env_id`` with ``obs_encoding`` (None: the default) has a batched engine."""
    if env_id not in BATCHED_GAMES:
        return False
    cls = batched_game_class(env_id)
    return obs_encoding is None or obs_encoding in cls.encodings
