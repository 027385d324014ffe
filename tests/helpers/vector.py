"""Positions for the batched-engine tests: reached by the single env, compared as the engine keeps them."""

from __future__ import annotations

import gymnasium as gym
import numpy as np

from patience_gym.cards import parse_card
from tests.helpers import masked_random_action


def canonical(state: dict) -> dict:
    """``state`` with a Golf waste's cards beneath the top in card order (the engine keeps the waste as a set)."""
    out = dict(state)
    if "waste" in out:
        *below, top = out["waste"]
        out["waste"] = sorted(below, key=parse_card) + [top]
    if "hole_state" in out:
        out["hole_state"] = canonical(out["hole_state"])
    return out


def reached_positions(env_id: str, count: int, seed: int) -> list[dict]:
    """``count`` positions met by the single env in masked-random games (at random depths), as state dicts."""
    env = gym.make(env_id, max_episode_steps=None)
    rng = np.random.default_rng(seed)
    positions = []
    for k in range(count):
        _, info = env.reset(seed=seed * 100 + k)
        for _ in range(int(rng.integers(0, rng.choice([20, 80, 250])))):
            _, _, terminated, _, info = env.step(masked_random_action(rng, info["action_mask"]))
            if terminated or (getattr(env.unwrapped.state, "redeal", None) and rng.random() < 0.3):
                break  # (Puss in the Corner: often stop while the packets are being taken up)
        positions.append(env.unwrapped.state_dict())
    return positions
