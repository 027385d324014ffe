"""Golden trajectories: every env and encoding replays bit-identically.

``tests/data/golden.json`` was recorded by this module (``python tests/test_golden.py
--write``) on commit c900430, before the rules, features and renderers were split
into layers. Each trajectory is a seeded masked-random playout with a few illegal
actions mixed in; per step it keeps a digest of the observation bytes, the mask,
the reward, the end flags and the score. Replaying the same actions must give the
same digests, step for step.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import patience_gym  # noqa: F401 - registers the envs

GOLDEN = Path(__file__).parent / "data" / "golden.json"
SEEDS = (0, 1, 2)

#: (env id, obs_encoding, rule kwargs, max steps per playout)
CASES: list[tuple[str, str, dict[str, Any], int]] = [
    *[("patience_gym/Golf-v0", enc, {}, 200) for enc in ("ids", "planes", "ranks", "runs")],
    ("patience_gym/Golf-v0", "ids", {"queens_on_kings": True}, 200),
    ("patience_gym/Golf-v0", "runs", {"wrap_ranks": True}, 200),
    *[("patience_gym/GolfRound-v0", enc, {}, 500) for enc in ("ids", "planes", "ranks", "runs")],
    *[
        ("patience_gym/PussInTheCorner-v0", enc, {}, 1000)
        for enc in ("ids", "planes", "moves", "moves_replay", "moves_replay_all")
    ],
    ("patience_gym/PussInTheCorner-v0", "ids", {"forced_foundation": False, "sevens_after_placing": True}, 300),
    *[
        (env_id, enc, {}, 3000)
        for env_id in ("patience_gym/MissMilligan-v0", "patience_gym/Giant-v0", "patience_gym/MissMilliganPocket-v0")
        for enc in ("ids", "planes", "moves", "moves_search", "moves_endgame")
    ],
    ("patience_gym/MissMilligan-v0", "moves", {"waive_sequences": True}, 250),
    ("patience_gym/Giant-v0", "moves", {"worry_back_anytime": True}, 250),
]


def case_key(env_id: str, encoding: str, kwargs: dict[str, Any], seed: int) -> str:
    """The case's key in the golden file."""
    return f"{env_id}|{encoding}|{json.dumps(kwargs, sort_keys=True)}|{seed}"


def _digest(obs: Any, mask: np.ndarray, reward: float, terminated: bool, truncated: bool, info: dict) -> str:
    h = hashlib.sha256()
    arr = np.asarray(obs)
    h.update(str(arr.dtype).encode() + str(arr.shape).encode() + arr.tobytes())
    h.update(np.asarray(mask, dtype=bool).tobytes())
    h.update(repr((float(reward), bool(terminated), bool(truncated), float(info["score"]), bool(info["won"]))).encode())
    return h.hexdigest()[:16]


def play(env_id: str, encoding: str, kwargs: dict[str, Any], seed: int, max_steps: int) -> dict[str, Any]:
    """A seeded masked-random playout: its actions and per-step digests."""
    env = gym.make(env_id, obs_encoding=encoding, **kwargs)
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    mask = info["action_mask"].astype(bool)
    digests = [_digest(obs, mask, 0.0, False, False, info)]
    actions: list[int] = []
    for step in range(max_steps):
        if step % 17 == 5:
            illegal = np.flatnonzero(~mask)
            action = int(illegal[0]) if len(illegal) else int(np.flatnonzero(mask)[0])
        else:
            action = int(rng.choice(np.flatnonzero(mask)))
        obs, reward, terminated, truncated, info = env.step(action)
        mask = info["action_mask"].astype(bool)
        actions.append(action)
        digests.append(_digest(obs, mask, reward, terminated, truncated, info))
        if terminated or truncated:
            break
    env.close()
    return {"actions": actions, "digests": digests}


def record() -> dict[str, Any]:
    """Every case's playout."""
    return {
        case_key(env_id, enc, kwargs, seed): play(env_id, enc, kwargs, seed, steps)
        for env_id, enc, kwargs, steps in CASES
        for seed in SEEDS
    }


def _golden() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(GOLDEN.read_text())
    return data


@pytest.mark.parametrize(("env_id", "encoding", "kwargs", "max_steps"), CASES)
def test_trajectories_replay_bit_identically(
    env_id: str, encoding: str, kwargs: dict[str, Any], max_steps: int
) -> None:
    golden = _golden()
    for seed in SEEDS:
        want = golden[case_key(env_id, encoding, kwargs, seed)]
        got = play(env_id, encoding, kwargs, seed, max_steps)
        assert got["actions"] == want["actions"], f"seed {seed}: the masks led to other actions"
        for step, (g, w) in enumerate(zip(got["digests"], want["digests"], strict=True)):
            assert g == w, f"{env_id} {encoding} seed {seed}: step {step} differs from the recording"


if __name__ == "__main__":
    if "--write" in sys.argv:
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_text(json.dumps(record(), separators=(",", ":")))
        print(f"wrote {GOLDEN}")
