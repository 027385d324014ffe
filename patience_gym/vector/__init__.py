"""Batched engines: N games in numpy arrays stepped by numba kernels (issue 26).

``patience_gym.vector.base``: the ``BatchedGame`` contract and the gymnasium
``BatchedVectorEnv`` (the SB3 ``VecEnv`` adapter, which imports SB3, is
:mod:`agents.training.sb3_vec_env`); ``.rng``: numpy-exact shuffles; one kernel module per
game family. This package module imports neither numba nor torch.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from patience_gym.specs import SPECS

if TYPE_CHECKING:
    from gymnasium.vector import VectorEnv

    from patience_gym.vector.base import BatchedGame

#: env id -> "module:BatchedGame subclass" (imported on use), from the game table (:mod:`patience_gym.specs`).
BATCHED_GAMES: dict[str, str] = {spec.env_id: spec.batched for spec in SPECS if spec.batched}


def batched_game_class(env_id: str) -> type[BatchedGame]:
    """The ``BatchedGame`` class of ``env_id``; ValueError naming the envs that have one,
    ModuleNotFoundError naming the ``[vector]`` extra where numba is not installed."""
    target = BATCHED_GAMES.get(env_id)
    if target is None:
        raise ValueError(f"{env_id!r} has no batched engine; batched envs: {', '.join(sorted(BATCHED_GAMES))}")
    if importlib.util.find_spec("numba") is None:
        raise ModuleNotFoundError(
            "patience_gym's batched engine needs numba: pip install 'patience_gym[vector]' "
            "(or use gym.make_vec(..., vectorization_mode='sync'))",
            name="numba",
        )
    module, name = target.split(":")
    cls: type[BatchedGame] = getattr(importlib.import_module(module), name)
    return cls


def batched_supported(env_id: str, obs_encoding: str | None = None) -> bool:
    """True when ``env_id`` with ``obs_encoding`` (None: the default) has a batched engine."""
    if env_id not in BATCHED_GAMES:
        return False
    cls = batched_game_class(env_id)
    return obs_encoding is None or obs_encoding in cls.encodings


def make_batched_env(env_id: str, num_envs: int = 1, **kwargs: Any) -> VectorEnv:  # type: ignore[type-arg]
    """``num_envs`` games of ``env_id`` as a gymnasium ``VectorEnv`` (see ``base.make_vector_env``)."""
    game_cls = batched_game_class(env_id)  # checks numba before any kernel module is imported
    from patience_gym.vector.base import make_vector_env

    return make_vector_env(game_cls, num_envs, **kwargs)


def _entry_point(env_id: str) -> Callable[..., Any]:
    def entry_point(num_envs: int = 1, **kwargs: Any) -> Any:
        return make_batched_env(env_id, num_envs, **kwargs)

    entry_point.__doc__ = f"The registered ``vector_entry_point`` of ``{env_id}``: ``make_batched_env``."
    return entry_point


def __getattr__(name: str) -> Callable[..., Any]:
    """The registered vector entry points (``gym.make_vec``), one per env class name (``GolfEnv``, ...),
    importable without numba: each is :func:`make_batched_env` of its env id."""
    for spec in SPECS:
        if spec.vector_entry_point and spec.vector_entry_point.split(":")[1] == name:
            return _entry_point(spec.env_id)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
