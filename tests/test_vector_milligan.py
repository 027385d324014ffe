"""Batched Miss Milligan, Giant and pocket version against the single env (gym.make), bit for bit.

Many masked-random games per option set through both engines with the same seeds: consecutive
games per env (the single env reset without a seed after each), a share of illegal and
out-of-range actions, and a policy that often holds back the deal so that the progress rule's
idle limit and repeated-position masking are reached. Speed is ``benchmarks/env_speed.py``'s.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import patience_gym  # noqa: F401 - registers the envs
from patience_gym.vector.base import BatchedVectorEnv
from patience_gym.vector.milligan import (
    BatchedGiant,
    BatchedMilligan,
    BatchedMissMilligan,
    BatchedMissMilliganPocket,
)
from patience_gym.vector.milligan_kernels import observe_ids

NUM_ACTIONS = 1010
CASES = [
    (BatchedMissMilligan, {}, "ids"),
    (BatchedMissMilligan, {"waive_sequences": True}, "planes"),
    (BatchedMissMilligan, {"waive_sequences": True}, "ids"),
    (BatchedGiant, {}, "planes"),
    (BatchedGiant, {"worry_back_anytime": True}, "ids"),
    (BatchedMissMilliganPocket, {}, "ids"),
    (BatchedMissMilliganPocket, {}, "planes"),
]


def _choose(rng: np.random.Generator, masks: np.ndarray, hold_deal: np.ndarray) -> np.ndarray:
    """Masked-random actions; games with ``hold_deal`` deal only when nothing else is legal (or rarely);
    4% of the actions are illegal or out of range."""
    actions = np.empty(len(masks), dtype=np.int64)
    for i, mask in enumerate(masks):
        legal = np.flatnonzero(mask)
        if rng.random() < 0.04 or not len(legal):
            actions[i] = rng.integers(-3, NUM_ACTIONS + 3)
            continue
        if hold_deal[i] and len(legal) > 1 and legal[-1] == NUM_ACTIONS - 1 and rng.random() > 0.02:
            legal = legal[:-1]
        actions[i] = legal[rng.integers(len(legal))]
    return actions


def play_both(
    cls: type[BatchedMilligan], options: dict[str, Any], encoding: str, n_envs: int, games: int, seed: int
) -> dict[str, int]:
    """Play ``games`` games in all (consecutive games per env) through both engines, asserting every output
    equal; returns counts."""
    batched = cls(n_envs, obs_encoding=encoding, **options)
    singles = [gym.make(cls.env_id, obs_encoding=encoding, **options) for _ in range(n_envs)]
    seeds = [seed * 1000 + i for i in range(n_envs)]
    batched.seed(seeds)
    batched.reset(np.ones(n_envs, dtype=bool))
    first = [env.reset(seed=s) for env, s in zip(singles, seeds)]
    obs = [o for o, _ in first]
    single_masks = [info["action_mask"] for _, info in first]
    rng = np.random.default_rng(seed)
    hold_deal = rng.random(n_envs) < 0.7
    finished = np.zeros(n_envs, dtype=np.int64)
    counts = {"steps": 0, "games": 0, "won": 0, "illegal": 0, "idle_limit": 0, "masked_repeat": 0}
    while finished.sum() < games:
        got = batched.observe()
        assert got.dtype == batched.single_observation_space.dtype
        assert got.shape == (n_envs, *batched.single_observation_space.shape)
        assert np.array_equal(got, np.stack(obs))
        masks = batched.masks().copy()
        assert np.array_equal(masks, np.stack(single_masks).astype(bool))
        counts["masked_repeat"] += _repeats_masked(singles[:3])
        actions = _choose(rng, masks, hold_deal)
        reward, terminated, illegal = batched.step(actions)
        scores, won, infos = batched.scores(), batched.won(), batched.infos()
        done = np.zeros(n_envs, dtype=bool)
        for i, env in enumerate(singles):
            obs[i], r, term, trunc, info = env.step(actions[i])
            assert (r, term, info["illegal_action"]) == (reward[i], terminated[i], illegal[i]), (i, actions[i])
            assert (info["score"], info["won"]) == (scores[i], won[i])
            assert info["stock_left"] == infos["stock_left"][i]
            assert info["idle_moves_left"] == infos["idle_moves_left"][i]
            counts["idle_limit"] += info["idle_moves_left"] == 0
            single_masks[i] = info["action_mask"]
            if term:
                done[i] = True
                finished[i] += 1
                counts["games"] += 1
                counts["won"] += int(info["won"])
                obs[i], info = env.reset()
                single_masks[i] = info["action_mask"]
        counts["steps"] += n_envs
        counts["illegal"] += int(illegal.sum())
        if done.any():
            assert not batched.masks()[done].any()  # all-False exactly when over
            batched.reset(done)
    if encoding == "ids":  # the kept-up-to-date observation equals one built from the cards
        rebuilt = np.empty_like(batched.observe())
        observe_ids(batched._cols, batched._clen, batched._found, batched._res, batched._sc, rebuilt)
        assert np.array_equal(rebuilt, batched.observe())
    return counts


def _repeats_masked(singles: list[Any]) -> int:
    """Envs where the single env's rules mask a move only because it repeats a position (not the idle limit)."""
    count = 0
    for env in singles:
        state = env.unwrapped.state
        if len(state.seen) > 1 and state.idle < 50 and state.mask is not None:
            game = env.unwrapped.game
            fresh = state.copy()
            fresh.seen = {state.hash}
            fresh.mask = fresh.acts = None
            count += int(game.legal_mask(fresh).sum() > state.mask.sum())
    return count


@pytest.mark.parametrize(("cls", "options", "encoding"), CASES, ids=lambda v: getattr(v, "__name__", str(v)))
def test_batched_plays_the_single_env_bit_for_bit(
    cls: type[BatchedMilligan], options: dict[str, Any], encoding: str
) -> None:
    counts = play_both(cls, options, encoding, n_envs=24, games=200, seed=len(options) + 7 * len(encoding))
    assert counts["games"] >= 200
    assert counts["illegal"] > 0
    assert counts["idle_limit"] > 0  # the idle limit was reached and masked moves
    assert counts["masked_repeat"] > 0  # repeated positions were masked out


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


def test_make_vec_uses_the_kernels_with_autoreset_and_truncation() -> None:
    """gym.make_vec's vector entry point against SyncVectorEnv over gym.make: same steps, short time limit."""
    env_id, n = "patience_gym/MissMilliganPocket-v0", 6
    batched = gym.make_vec(env_id, num_envs=n, vectorization_mode="vector_entry_point", max_episode_steps=40)
    assert isinstance(batched, BatchedVectorEnv)
    sync = gym.vector.SyncVectorEnv([lambda: gym.make(env_id, max_episode_steps=40)] * n)
    obs_b, info_b = batched.reset(seed=5)
    obs_s, info_s = sync.reset(seed=5)
    rng = np.random.default_rng(5)
    truncated_seen = 0
    awaiting = np.zeros(n, dtype=bool)
    for _ in range(150):
        assert np.array_equal(obs_b, obs_s)
        info_s["action_mask"][awaiting] = 1  # a game awaiting its reset: any action, it is ignored
        for key in ("action_mask", "score", "won", "stock_left", "idle_moves_left"):
            assert np.array_equal(info_b[key], info_s[key]), key
        actions = np.array([np.flatnonzero(m)[rng.integers(m.sum())] if m.any() else 0 for m in info_b["action_mask"]])
        obs_b, r_b, te_b, tr_b, info_b = batched.step(actions)
        obs_s, r_s, te_s, tr_s, info_s = sync.step(actions)
        assert np.array_equal(r_b, r_s) and np.array_equal(te_b, te_s) and np.array_equal(tr_b, tr_s)
        awaiting = te_b | tr_b
        truncated_seen += int(tr_b.sum())
    assert truncated_seen > 0
