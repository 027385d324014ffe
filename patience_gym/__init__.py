"""patience_gym: classic patience games as Gymnasium environments.

Importing the package registers the envs (``patience_gym/<Name>-v0``); the
rules modules are imported only when an env is made. :func:`check_agents` says
whether ``import agents`` gives the agents installed with patience_gym (another
distribution's top-level ``agents`` package may shadow them).
"""

from __future__ import annotations

from gymnasium.envs.registration import register, registry

from patience_gym.agents_check import check_agents as check_agents  # re-exported: patience_gym.check_agents()
from patience_gym.specs import SPECS

__version__ = "0.1.0"

#: env id -> (entry point, safety-net step limit), read from the game table (:mod:`patience_gym.specs`).
ENVS: dict[str, tuple[str, int]] = {spec.env_id: (spec.env, spec.max_episode_steps) for spec in SPECS}

for _spec in SPECS:
    if _spec.env_id not in registry:
        register(
            id=_spec.env_id,
            entry_point=_spec.env,
            max_episode_steps=_spec.max_episode_steps,
            vector_entry_point=_spec.vector_entry_point,  # batched kernels (numba), on use
        )
