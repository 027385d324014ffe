"""Batched Puss in the Corner (patience_gym.vector.puss) against the single env, bit for bit.

The differential test plays many consecutive masked-random games per env through
``BatchedPuss`` and through ``gym.make`` envs seeded alike (``reset(seed=s)`` once, then
``reset()`` after each game), with illegal and out-of-range actions mixed in and
steps on finished games, and compares observations, masks, rewards, end flags,
illegal flags, scores and won flags at every step. Speed is ``benchmarks/env_speed.py``'s.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import patience_gym  # noqa: F401 - registers the envs
from benchmarks.env_speed import pick_batched
from patience_gym.cards import codes
from patience_gym.games.puss import NUM_ACTIONS, PLANES_SIZE
from patience_gym.vector.puss import BatchedPuss

ENV_ID = "patience_gym/PussInTheCorner-v0"
RULE_OPTIONS: list[dict[str, Any]] = [
    {},
    {"forced_foundation": False},
    {"sevens_after_placing": True},
    {"forced_foundation": False, "sevens_after_placing": True},
]
OUT_OF_RANGE = np.array([-1, NUM_ACTIONS, 99, -(2**40)], dtype=np.int64)


def choose(rng: np.random.Generator, masks: np.ndarray, foundation_first: np.ndarray) -> np.ndarray:
    """Masked-random actions; envs with ``foundation_first`` play a legal foundation move when they have one,
    and about 4% of the actions are masked-out or out of range."""
    n: int = masks.shape[0]
    actions = pick_batched(masks, rng.random(size=n))
    to_foundation = masks[:, 5:25] & foundation_first[:, None]
    eager = to_foundation.any(axis=1)
    actions[eager] = 5 + np.argmax(to_foundation[eager], axis=1)
    for i in np.flatnonzero(rng.random(n) < 0.04):
        illegal = np.flatnonzero(~masks[i])
        actions[i] = rng.choice(OUT_OF_RANGE) if rng.random() < 0.3 or not len(illegal) else rng.choice(illegal)
    return actions


def differential(
    options: dict[str, Any], encoding: str, num_envs: int, games: int, seed: int, deals: np.ndarray | None = None
) -> dict[str, int]:
    """Play until every env has finished ``games`` games in both engines, asserting equality at every step.

    The games are seeded deals (``reset(seed=...)`` once, then ``reset()``), or with ``deals`` (card ids
    [num_envs, D, 48]) env ``i``'s ``g``-th game is ``deals[i, g % D]`` (``reset(options={"deal": ...})``).
    """
    batched = BatchedPuss(num_envs, obs_encoding=encoding, **options)
    singles = [gym.make(ENV_ID, obs_encoding=encoding, **options) for _ in range(num_envs)]
    seeds = [seed + i for i in range(num_envs)]
    batched.seed(seeds)
    finished = np.zeros(num_envs, dtype=np.int64)

    def start(which: np.ndarray) -> list[tuple[np.ndarray, dict[str, Any]]]:
        rows = np.flatnonzero(which)
        if deals is None:
            batched.reset(which)
            return [singles[i].reset() for i in rows]
        picks = deals[rows, finished[rows] % deals.shape[1]]
        batched.deal(which, picks)
        return [singles[i].reset(options={"deal": codes(pick)}) for i, pick in zip(rows, picks)]

    results = [env.reset(seed=s) for env, s in zip(singles, seeds)] if deals is None else []
    if deals is None:
        batched.reset(np.ones(num_envs, dtype=bool))
    else:
        results = start(np.ones(num_envs, dtype=bool))
    obs = np.stack([o for o, _ in results])
    infos = [info for _, info in results]
    rng = np.random.default_rng(seed)
    foundation_first = rng.random(num_envs) < 0.5
    counts = {"steps": 0, "games": 0, "won": 0, "illegal": 0}
    while finished.min() < games:
        masks = batched.masks()
        assert np.array_equal(batched.observe(), obs)
        assert np.array_equal(masks, np.stack([info["action_mask"] for info in infos]).astype(bool))
        assert np.array_equal(batched.scores(), np.array([info["score"] for info in infos], dtype=np.float64))
        assert np.array_equal(batched.won(), np.array([info["won"] for info in infos]))
        actions = choose(rng, masks, foundation_first)
        reward, terminated, illegal = batched.step(actions)
        steps = [env.step(a) for env, a in zip(singles, actions)]
        obs = np.stack([st[0] for st in steps])
        infos = [st[4] for st in steps]
        assert np.array_equal(reward, np.array([st[1] for st in steps], dtype=np.float64))
        assert np.array_equal(terminated, np.array([st[2] for st in steps]))
        assert np.array_equal(illegal, np.array([info["illegal_action"] for info in infos]))
        assert not any(st[3] for st in steps), "a game ran into the step limit"
        counts["steps"] += num_envs
        counts["illegal"] += int(illegal.sum())
        # A finished game is reset in both engines, mostly at once, sometimes after one more (illegal) step.
        done = terminated & (rng.random(num_envs) < 0.9)
        if done.any():
            assert np.array_equal(batched.observe(), obs)
            assert not batched.masks()[done].any()
            counts["games"] += int(done.sum())
            counts["won"] += int(batched.won()[done].sum())
            finished += done
            for i, (o, info) in zip(np.flatnonzero(done), start(done)):
                obs[i], infos[i] = o, info
    return counts


@pytest.mark.parametrize("options", RULE_OPTIONS, ids=lambda o: "-".join(sorted(o)) or "default")
@pytest.mark.parametrize("encoding", ["ids", "planes"])
def test_matches_single_env(options: dict[str, Any], encoding: str) -> None:
    num_envs, games = (96, 14) if encoding == "ids" else (64, 10)  # about 2,000 games per option set
    counts = differential(options, encoding, num_envs=num_envs, games=games, seed=1000 * len(options) + 7)
    assert counts["games"] >= num_envs * games and counts["illegal"] > 0
    assert counts["steps"] > num_envs * games * 100


def rank_ordered_deals(rng: np.random.Generator, shape: tuple[int, int], swaps: int) -> np.ndarray:
    """Packs dealt by rank (2s first, suits shuffled) with ``swaps`` random transpositions: often won."""
    out = np.empty((*shape, 48), dtype=np.int64)
    for index in np.ndindex(*shape):
        pack = np.array([rank - 1 + 13 * suit for rank in range(2, 14) for suit in rng.permutation(4)])
        for _ in range(swaps):
            i, j = rng.integers(48, size=2)
            pack[[i, j]] = pack[[j, i]]
        out[index] = pack
    return out


@pytest.mark.parametrize("options", RULE_OPTIONS[:2], ids=lambda o: "-".join(sorted(o)) or "default")
def test_given_deals_and_won_games_match(options: dict[str, Any]) -> None:
    """Given deals (the single env's ``options={"deal": ...}``), many of them won: the full foundations,
    the won flag and the game's end on a win are compared too."""
    rng = np.random.default_rng(11)
    deals = rank_ordered_deals(rng, (32, 5), swaps=3)
    deals[:, 4] = [rng.permutation(deals[0, 0]) for _ in range(32)]
    counts = differential(options, "planes", num_envs=32, games=4, seed=3, deals=deals)
    assert counts["won"] >= 16 and counts["games"] >= 128


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


def test_make_vec_matches_sync_vector_env() -> None:
    """``gym.make_vec(..., vectorization_mode="vector_entry_point")`` runs on these kernels and plays, autoresets
    included, what gymnasium's ``SyncVectorEnv`` over ``gym.make`` envs plays."""
    kwargs: dict[str, Any] = {"obs_encoding": "planes", "sevens_after_placing": True}
    vec = gym.make_vec(ENV_ID, num_envs=4, vectorization_mode="vector_entry_point", **kwargs)
    sync = gym.make_vec(ENV_ID, num_envs=4, vectorization_mode="sync", **kwargs)
    assert isinstance(vec.unwrapped.game, BatchedPuss)  # type: ignore[attr-defined]
    (obs, infos), (sync_obs, sync_infos) = vec.reset(seed=20), sync.reset(seed=20)
    assert np.array_equal(obs, sync_obs)
    rng = np.random.default_rng(0)
    ended = 0
    awaiting = np.zeros(4, dtype=bool)
    for _ in range(700):
        mask = infos["action_mask"].astype(bool)
        sync_infos["action_mask"][awaiting] = 1  # a game awaiting its reset: any action, it is ignored
        assert np.array_equal(mask, sync_infos["action_mask"].astype(bool))
        actions = choose(rng, mask, np.zeros(4, dtype=bool))
        obs, reward, terminated, truncated, infos = vec.step(actions)
        sync_obs, sync_reward, sync_terminated, sync_truncated, sync_infos = sync.step(actions)
        assert np.array_equal(obs, sync_obs) and np.array_equal(reward, sync_reward)
        assert np.array_equal(terminated, sync_terminated) and np.array_equal(truncated, sync_truncated)
        assert np.array_equal(infos["score"], sync_infos["score"])
        awaiting = terminated | truncated
        ended += int(terminated.sum())
    assert ended >= 4


def test_sb3_adapter_serves_maskable_ppo() -> None:
    """``BatchedSB3VecEnv`` over these kernels gives what MaskablePPO reads: observations, ``action_masks()``,
    and each finished game's ``terminal_observation`` and score (the learning itself: tests/test_vector_golf.py)."""
    from gymnasium.vector import AutoresetMode

    from patience_gym.vector.base import BatchedVectorEnv
    from patience_gym.vector.sb3 import BatchedSB3VecEnv

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
        obs, rewards, dones, infos = venv.step(choose(rng, masks, np.ones(8, dtype=bool)))
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
