"""Golden trajectories: every env and encoding replays bit-identically, in both engines.

``tests/data/golden.json`` was recorded by this module (``python tests/games/test_golden.py
--write``) on commit c900430, before the rules, features and renderers were split
into layers. Each trajectory is a seeded masked-random playout with a few illegal
actions mixed in; per step it keeps a digest of the observation bytes, the mask,
the reward, the end flags and the score. Replaying the same actions must give the
same digests, step for step: through ``gym.make``, and for the encodings with a
batched engine through ``gym.make_vec(..., vectorization_mode="vector_entry_point")`` too.
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
from patience_gym.vector import batched_supported

GOLDEN = Path(__file__).parents[1] / "data" / "golden.json"
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

#: The cases whose encoding has a batched engine (patience_gym.vector).
BATCHED_CASES = [case for case in CASES if batched_supported(case[0], case[1])]


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


@pytest.mark.parametrize(("env_id", "encoding", "kwargs", "max_steps"), BATCHED_CASES)
def test_trajectories_replay_bit_identically_in_the_batched_engine(
    env_id: str, encoding: str, kwargs: dict[str, Any], max_steps: int
) -> None:
    """The recorded actions of every seed, one env each, through the batched engine. Same-step autoreset:
    where a game ends, its last observation and info are ``final_obs`` and ``final_info``."""
    golden = _golden()
    wants = [golden[case_key(env_id, encoding, kwargs, seed)] for seed in SEEDS]
    venv = gym.make_vec(
        env_id, num_envs=len(SEEDS), vectorization_mode="vector_entry_point", obs_encoding=encoding,
        autoreset_mode="SameStep", **kwargs,
    )  # fmt: skip
    obs, infos = venv.reset(seed=list(SEEDS))
    got = [[_digest(obs[i], infos["action_mask"][i], 0.0, False, False, _row(infos, i))] for i in range(len(SEEDS))]
    for step in range(max(len(want["actions"]) for want in wants)):
        playing = [step < len(want["actions"]) for want in wants]
        actions = [want["actions"][step] if on else 0 for want, on in zip(wants, playing)]  # 0: after its end
        obs, reward, terminated, truncated, infos = venv.step(np.array(actions))
        for i in (j for j, on in enumerate(playing) if on):
            ended = terminated[i] or truncated[i]
            last_obs, info = (infos["final_obs"], infos["final_info"]) if ended else (obs, infos)
            got[i].append(_digest(last_obs[i], info["action_mask"][i], reward[i], terminated[i], truncated[i],
                                  _row(info, i)))  # fmt: skip
    for seed, digests, want in zip(SEEDS, got, wants):
        for step, (g, w) in enumerate(zip(digests, want["digests"], strict=True)):
            assert g == w, f"{env_id} {encoding} seed {seed}: batched step {step} differs from the recording"


def _row(infos: dict[str, Any], i: int) -> dict[str, Any]:
    """Env ``i``'s score and won flag from a vector env's infos."""
    return {"score": infos["score"][i], "won": infos["won"][i]}


if __name__ == "__main__":
    if "--write" in sys.argv:
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_text(json.dumps(record(), separators=(",", ":")))
        print(f"wrote {GOLDEN}")
