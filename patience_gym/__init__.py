"""patience_gym: classic patience games as Gymnasium environments.

Importing the package registers the envs (``patience_gym/<Name>-v0``); the
rules modules are imported only when an env is made.
"""

from __future__ import annotations

from gymnasium.envs.registration import register, registry

__version__ = "0.1.0"

#: env id -> (entry point, safety-net step limit)
ENVS: dict[str, tuple[str, int]] = {
    "patience_gym/Golf-v0": ("patience_gym.envs.golf:GolfEnv", 500),
    "patience_gym/GolfRound-v0": ("patience_gym.envs.golf:GolfRoundEnv", 4_500),
    "patience_gym/PussInTheCorner-v0": ("patience_gym.envs.puss:PussInTheCornerEnv", 1_000),
    "patience_gym/MissMilligan-v0": ("patience_gym.envs.milligan:MissMilliganEnv", 10_000),
    "patience_gym/Giant-v0": ("patience_gym.envs.milligan:GiantEnv", 10_000),
    "patience_gym/MissMilliganPocket-v0": ("patience_gym.envs.milligan:MissMilliganPocketEnv", 10_000),
}

for _env_id, (_entry_point, _limit) in ENVS.items():
    if _env_id not in registry:
        register(
            id=_env_id,
            entry_point=_entry_point,
            max_episode_steps=_limit,
            vector_entry_point="patience_gym.vector:" + _entry_point.split(":")[1],  # batched kernels (numba), on use
        )
