"""Batched Puss in the Corner (patience_gym.vector.puss): seeding, spaces, the SB3 adapter, input checks.

The games against the single env, bit for bit (seeded and given deals, games stepped after their end):
tests/vector/test_vector_agreement.py. Speed is ``benchmarks/env_speed.py``'s.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import patience_gym  # noqa: F401 - registers the envs
from patience_gym.games.puss import NUM_ACTIONS, PLANES_SIZE
from patience_gym.vector.puss import BatchedPuss

ENV_ID = "patience_gym/PussInTheCorner-v0"


def first_cards(seeds: list[int | None], count: int = 10) -> np.ndarray:
    """The first ``count`` cards of each env's deal, put one by one on packet A (card + 1)."""
    engine = BatchedPuss(len(seeds), forced_foundation=False)
    engine.seed(seeds)
    engine.reset(np.ones(len(seeds), dtype=bool))
    for _ in range(count):
        for action in (0, 1):  # deal, then the dealt card onto packet A
            assert engine.masks()[:, action].all()
            engine.step(np.full(len(seeds), action, dtype=np.int64))
    return engine.observe()[:, 52 : 52 + count]


def test_same_seed_same_deal_and_none_is_fresh() -> None:
    cards = first_cards([4, 4, 5, None, None])
    assert np.array_equal(cards[0], cards[1])
    assert not np.array_equal(cards[0], cards[2])
    assert not np.array_equal(cards[3], cards[4])
    assert not np.array_equal(first_cards([None])[0], first_cards([None])[0])


def test_spaces_and_options_match_the_single_env() -> None:
    for encoding in ("ids", "planes"):
        env = gym.make(ENV_ID, obs_encoding=encoding)
        engine = BatchedPuss(2, obs_encoding=encoding)
        assert engine.single_observation_space == env.observation_space
        assert isinstance(env.action_space, gym.spaces.Discrete)
        assert engine.num_actions == env.action_space.n == NUM_ACTIONS
        engine.seed([0, 1])
        engine.reset(np.array([True, True]))
        assert engine.observe().shape == (2, *engine.single_observation_space.shape)
        assert engine.observe().dtype == env.observation_space.dtype
        assert engine.infos() == {}
    assert BatchedPuss(1).obs_encoding == "ids"


def test_sb3_adapter_serves_maskable_ppo(masked_random_action) -> None:
    """``BatchedSB3VecEnv`` over these kernels gives what MaskablePPO reads: observations, ``action_masks()``,
    and each finished game's ``terminal_observation`` and score (the learning itself:
    tests/vector/test_vector_golf.py)."""
    from gymnasium.vector import AutoresetMode

    from agents.training.sb3_vec_env import BatchedSB3VecEnv
    from patience_gym.vector.base import BatchedVectorEnv

    game = BatchedPuss(8, obs_encoding="planes")
    venv = BatchedSB3VecEnv(BatchedVectorEnv(game, autoreset_mode=AutoresetMode.SAME_STEP))
    venv.seed(3)
    obs = venv.reset()
    assert isinstance(obs, np.ndarray) and obs.shape == (8, PLANES_SIZE)
    rng = np.random.default_rng(1)
    finished = 0
    for _ in range(600):
        masks = venv.action_masks()
        assert masks.shape == (8, NUM_ACTIONS) and masks.any(axis=1).all()
        obs, rewards, dones, infos = venv.step(np.array([masked_random_action(rng, m) for m in masks]))
        assert isinstance(obs, np.ndarray) and rewards.dtype == np.float32
        for i in np.flatnonzero(dones):
            assert infos[i]["terminal_observation"].shape == (PLANES_SIZE,) and 4 <= infos[i]["score"] <= 52
            finished += 1
    assert finished >= 8


def test_bad_input_is_named() -> None:
    with pytest.raises(TypeError, match="unknown option 'sevens'"):
        BatchedPuss(2, sevens=True)
    with pytest.raises(TypeError, match="must be True or False"):
        BatchedPuss(2, forced_foundation="yes")
    with pytest.raises(ValueError, match="unknown obs_encoding 'pixels'"):
        BatchedPuss(2, obs_encoding="pixels")
    with pytest.raises(ValueError, match="'moves' .* no batched engine"):
        BatchedPuss(2, obs_encoding="moves")
    with pytest.raises(ValueError, match="num_envs"):
        BatchedPuss(0)
    engine = BatchedPuss(2)
    with pytest.raises(ValueError, match="needs 2 seeds"):
        engine.seed([1])
    with pytest.raises(RuntimeError, match="reset"):
        engine.step(np.zeros(2, dtype=np.int64))
    with pytest.raises(ValueError, match="which must have shape"):
        engine.reset(np.ones(3, dtype=bool))
    with pytest.raises(TypeError, match="which must be bool"):
        engine.reset(np.ones(2, dtype=np.int64))
    engine.reset(np.ones(2, dtype=bool))
    with pytest.raises(ValueError, match=r"actions must have shape \(2,\)"):
        engine.step(np.zeros((2, 1), dtype=np.int64))
    with pytest.raises(TypeError, match="actions must be integers, got dtype float64"):
        engine.step(np.zeros(2))
    pack = np.array([c for c in range(52) if c % 13], dtype=np.int64)
    with pytest.raises(ValueError, match=r"packs must be an integer array of shape \(1, 48\)"):
        engine.deal(np.array([True, False]), pack[None, :47])
    with pytest.raises(ValueError, match=r"packs\[0\] must hold the 48 cards other than the Aces"):
        engine.deal(np.array([True, False]), np.where(pack == 1, 0, pack)[None])  # the Ace of clubs for the 2
