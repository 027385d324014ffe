"""Batched Miss Milligan, Giant and pocket version: the kept-up-to-date observation, input checks.

The games against the single env, bit for bit (the progress rule's idle limit and repeated positions
included): tests/vector/test_vector_agreement.py. Speed is ``benchmarks/env_speed.py``'s.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import patience_gym  # noqa: F401 - registers the envs
from patience_gym.vector.milligan import (
    BatchedGiant,
    BatchedMilligan,
    BatchedMissMilligan,
    BatchedMissMilliganPocket,
)
from patience_gym.vector.milligan_kernels import observe_ids

ENGINES = [BatchedMissMilligan, BatchedGiant, BatchedMissMilliganPocket]


@pytest.mark.parametrize("cls", ENGINES, ids=lambda cls: cls.__name__)
def test_the_kept_up_to_date_ids_observation_equals_one_built_from_the_cards(
    cls: type[BatchedMilligan], masked_random_action
) -> None:
    """The "ids" observation, updated move by move, equals ``observe_ids`` of the cards, through games and
    redeals (illegal actions and the deal held back included)."""
    n = 12
    game = cls(n)
    game.seed(list(range(n)))
    game.reset(np.ones(n, dtype=bool))
    rng = np.random.default_rng(3)
    games = 0
    for step in range(600):
        masks = game.masks()
        held = masks.copy()
        held[:, -1] &= rng.random(n) < 0.1  # deal mostly only when nothing else is legal
        actions = np.array([masked_random_action(rng, h if h.any() else m) for h, m in zip(held, masks)])
        actions[rng.random(n) < 0.03] = game.num_actions  # out of range
        _, terminated, _ = game.step(actions)
        games += int(terminated.sum())
        game.reset(terminated)
        if step % 50 == 0 or terminated.any():
            rebuilt = np.empty_like(game.observe())
            observe_ids(game._cols, game._clen, game._found, game._res, game._sc, rebuilt)
            assert np.array_equal(rebuilt, game.observe()), step
    assert games > 0


def test_options_and_encodings_are_checked_like_the_single_env() -> None:
    with pytest.raises(TypeError, match="unknown option 'waive_sequences' for giant"):
        BatchedGiant(2, waive_sequences=True)
    with pytest.raises(TypeError, match="must be True or False"):
        BatchedMissMilligan(2, waive_sequences="yes")
    with pytest.raises(ValueError, match="unknown obs_encoding 'nope'"):
        BatchedMissMilligan(2, obs_encoding="nope")
    with pytest.raises(ValueError, match="no batched engine"):
        BatchedMissMilligan(2, obs_encoding="moves")
    with pytest.raises(ValueError, match="num_envs"):
        BatchedMissMilliganPocket(0)
    game = BatchedMissMilligan(3)
    assert game.single_observation_space == gym.make(game.env_id).observation_space
    assert (
        BatchedGiant(1, obs_encoding="planes").single_observation_space
        == gym.make("patience_gym/Giant-v0", obs_encoding="planes").observation_space
    )
    game.seed([1, 2, 3])
    game.reset(np.ones(3, dtype=bool))
    with pytest.raises(ValueError, match=r"actions must have shape \(3,\)"):
        game.step(np.zeros(2, dtype=np.int64))
    with pytest.raises(TypeError, match="actions must be integers"):
        game.step(np.zeros(3))
    with pytest.raises(TypeError, match="which must be bool"):
        game.reset(np.ones(3, dtype=np.int64))
