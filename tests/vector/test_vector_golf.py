"""Batched Golf and GolfRound: observations of any position, the vector env's API, the SB3 adapter.

The games against the single env, bit for bit, in both autoreset modes: tests/vector/test_vector_agreement.py.
"""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import patience_gym
from patience_gym.core import IllegalActionError
from patience_gym.vector.base import BatchedGame, BatchedVectorEnv
from patience_gym.vector.golf import BatchedGolf, BatchedGolfRound

GOLF, ROUND = "patience_gym/Golf-v0", "patience_gym/GolfRound-v0"
OPTION_SETS = [{}, {"queens_on_kings": True}, {"wrap_ranks": True}]


@pytest.mark.parametrize("options", OPTION_SETS, ids=["default", "queens_on_kings", "wrap_ranks"])
def test_runs_and_planes_of_arbitrary_positions(options: dict[str, Any]) -> None:
    """Positions no short game reaches (tall columns late, long waste): the whole `runs` observation."""
    from patience_gym.cards import CODE

    rng = np.random.default_rng(11)
    n = 200
    game = BatchedGolf(n, obs_encoding="runs", **options)
    single = gym.make(GOLF, obs_encoding="runs", **options)
    expected = []
    for i in range(n):
        cards = rng.permutation(52).tolist()
        heights = rng.integers(0, 6, size=7)
        links = int(heights.sum())
        stock_size = int(rng.integers(0, min(16, 52 - links - 1) + 1))
        columns, at = [], 0
        for h in heights:
            columns.append(cards[at : at + h])
            at += h
        stock, waste = cards[at : at + stock_size], cards[at + stock_size :]
        state = {"tableau": [[CODE[c] for c in col] for col in columns], "waste": [CODE[c] for c in waste]}
        state["stock"] = [CODE[c] for c in stock]
        game.set_state(i, state)
        obs, _ = single.reset(options={"state": state})
        expected.append(obs)
    assert np.array_equal(game.observe(), np.stack(expected))
    assert (np.stack(expected)[:, 781::3] > 2 / 35).sum() > 20  # runs of three and more are among them


def test_runs_search_caps_nodes_as_the_single_env() -> None:
    from patience_gym.vector import golf

    try:
        from patience_gym.heuristics.golf_runs import MAX_NODES  # type: ignore[import-not-found]
    except ImportError:  # before the layer split
        from patience_gym.games.golf_runs import MAX_NODES
    assert golf.MAX_NODES == MAX_NODES


# --- the vector env's API ---------------------------------------------------------
def test_spaces_match_the_single_env() -> None:
    for env_id in (GOLF, ROUND):
        for encoding in ("ids", "planes", "runs"):
            venv = gym.make_vec(env_id, num_envs=3, vectorization_mode="vector_entry_point", obs_encoding=encoding)
            single = gym.make(env_id, obs_encoding=encoding)
            assert venv.single_observation_space == single.observation_space
            assert venv.single_action_space == single.action_space
            assert venv.metadata["autoreset_mode"] == gym.vector.AutoresetMode.NEXT_STEP
            obs, _ = venv.reset(seed=0)
            assert venv.observation_space.contains(obs)
            for _ in range(30):
                obs, *_ = venv.step(venv.action_space.sample())
                assert venv.observation_space.contains(obs)


def test_returned_arrays_are_not_reused() -> None:
    venv = gym.make_vec(GOLF, num_envs=4, vectorization_mode="vector_entry_point", obs_encoding="planes")
    obs, infos = venv.reset(seed=3)
    kept = obs.copy(), infos["action_mask"].copy()
    venv.step(np.full(4, 7))
    assert np.array_equal(obs, kept[0]) and np.array_equal(infos["action_mask"], kept[1])


def test_seeding_follows_gymnasium() -> None:
    """An int seeds env i with seed + i; reset() without a seed continues the streams."""
    a: Any = gym.make_vec(GOLF, num_envs=3, vectorization_mode="vector_entry_point")
    b: Any = gym.make_vec(GOLF, num_envs=3, vectorization_mode="vector_entry_point")
    obs_a, _ = a.reset(seed=10)
    obs_b, _ = b.reset(seed=[10, 11, 12])
    assert np.array_equal(obs_a, obs_b)
    single = gym.make(GOLF)
    single.reset(seed=11)
    assert np.array_equal(a.reset()[0][1], single.reset()[0])
    unseeded = [gym.make_vec(GOLF, num_envs=2, vectorization_mode="vector_entry_point").reset()[0] for _ in range(2)]
    assert not np.array_equal(unseeded[0], unseeded[1])


def test_reset_mask_resets_only_those_envs() -> None:
    venv: Any = gym.make_vec(GOLF, num_envs=3, vectorization_mode="vector_entry_point")
    first, _ = venv.reset(seed=0)
    again, infos = venv.reset(seed=[5, 6, 7], options={"reset_mask": np.array([False, True, False])})
    assert np.array_equal(again[[0, 2]], first[[0, 2]])
    assert np.array_equal(again[1], gym.make(GOLF).reset(seed=6)[0])
    assert infos["_score"].tolist() == [False, True, False]
    with pytest.raises(ValueError, match="reset_mask"):
        venv.reset(options={"reset_mask": [1, 0, 1]})
    with pytest.raises(ValueError, match="unknown reset option"):
        venv.reset(options={"deal": []})


def test_bad_actions_are_clear_errors() -> None:
    venv = gym.make_vec(GOLF, num_envs=2, vectorization_mode="vector_entry_point")
    with pytest.raises(RuntimeError, match="reset"):
        venv.step(np.zeros(2, dtype=np.int64))
    venv.reset(seed=0)
    with pytest.raises(TypeError, match="dtype float64"):
        venv.step(np.array([7.0, 7.0]))
    with pytest.raises(TypeError, match="dtype bool"):
        venv.step(np.array([True, False]))
    with pytest.raises(ValueError, match=r"shape \(2,\)"):
        venv.step(np.array([7, 7, 7]))
    obs, reward, *_, infos = venv.step([7, 99])  # a list of ints is fine; 99 is out of range
    assert reward.tolist() == [0.0, -1.0] and infos["illegal_action"].tolist() == [False, True]


def test_illegal_action_raise_names_env_and_action() -> None:
    venv = gym.make_vec(GOLF, num_envs=3, vectorization_mode="vector_entry_point", illegal_action="raise")
    obs, infos = venv.reset(seed=0)
    actions = np.full(3, 7)
    illegal = np.flatnonzero(~infos["action_mask"][1].astype(bool))
    actions[1] = illegal[0]
    with pytest.raises(IllegalActionError, match=rf"illegal action {illegal[0]} .* in env 1 of patience_gym/Golf-v0"):
        venv.step(actions)
    after, *_ = venv.step(np.full(3, 7))  # nothing moved before the error
    single = gym.make(GOLF)
    single.reset(seed=1)
    assert np.array_equal(after[1], single.step(7)[0])
    with pytest.raises(IllegalActionError, match="out of range"):
        venv.step(np.array([7, 8, 7]))
    with pytest.raises(ValueError, match="illegal_action"):
        gym.make_vec(GOLF, num_envs=2, vectorization_mode="vector_entry_point", illegal_action="ignore")


def test_options_and_encodings_are_checked_like_the_single_env() -> None:
    with pytest.raises(TypeError, match="unknown option 'queens_on_jacks'"):
        BatchedGolf(2, queens_on_jacks=True)
    with pytest.raises(TypeError, match="True or False"):
        BatchedGolfRound(2, wrap_ranks="yes")
    with pytest.raises(ValueError, match="unknown obs_encoding 'pixels'"):
        BatchedGolf(2, obs_encoding="pixels")
    with pytest.raises(ValueError, match="ranks.*no batched engine"):
        BatchedGolf(2, obs_encoding="ranks")
    with pytest.raises(ValueError, match="num_envs"):
        BatchedGolf(0)
    with pytest.warns(UserWarning, match="SyncVectorEnv"):
        venv = gym.make_vec(GOLF, num_envs=2, vectorization_mode="vector_entry_point", obs_encoding="ranks")
    assert isinstance(venv, gym.vector.SyncVectorEnv)


def test_default_step_reset_gives_the_same_games() -> None:
    """A kernel module that implements only step and reset gets the same autoreset behaviour."""

    class Plain(BatchedGolfRound):
        step_reset = BatchedGame.step_reset

    fused = BatchedVectorEnv(BatchedGolfRound(16), max_episode_steps=150)
    plain = BatchedVectorEnv(Plain(16), max_episode_steps=150)
    resets = 0
    rng = np.random.default_rng(0)
    outs: list[Any] = [env.reset(seed=9) for env in (fused, plain)]
    for _ in range(800):
        assert np.array_equal(outs[0][0], outs[1][0]) and np.array_equal(outs[0][-1]["score"], outs[1][-1]["score"])
        actions = rng.integers(-1, 9, size=16)
        outs = [env.step(actions) for env in (fused, plain)]
        for a, b in zip(outs[0][1:4], outs[1][1:4]):
            assert np.array_equal(a, b)
        resets += int((outs[0][2] | outs[0][3]).sum())
    assert resets >= 60


def test_same_step_mode_puts_the_final_observation_in_infos() -> None:
    venv = BatchedVectorEnv(BatchedGolf(4), autoreset_mode="SameStep", max_episode_steps=5)
    obs, _ = venv.reset(seed=0)
    for _ in range(5):
        last = obs
        obs, _, terminated, truncated, infos = venv.step(np.full(4, 7))
    assert truncated.all() and not terminated.any()
    assert infos["_final_obs"].all() and not np.array_equal(infos["final_obs"], obs)
    assert np.array_equal(infos["final_obs"][:, :35], last[:, :35])  # dealing leaves the links alone
    assert infos["final_info"]["score"].tolist() == [35.0] * 4
    for i in range(4):  # the new games are each stream's second deal
        single = gym.make(GOLF)
        single.reset(seed=i)
        assert np.array_equal(obs[i], single.reset()[0])


def test_importing_patience_gym_stays_light() -> None:
    code = "import sys, patience_gym; print(sorted(m for m in ('numba', 'torch') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
    assert gym.spec(GOLF).vector_entry_point == "patience_gym.vector:GolfEnv"
    assert set(patience_gym.ENVS) >= {GOLF, ROUND}


# --- SB3 ------------------------------------------------------------------------
def test_sb3_adapter_matches_dummy_vec_env() -> None:
    from stable_baselines3.common.env_util import make_vec_env

    from agents.training.sb3_vec_env import make_sb3_vec_env

    kwargs = {"obs_encoding": "planes", "max_episode_steps": 40}
    batched = make_sb3_vec_env(GOLF, 6, seed=3, env_kwargs={"render_mode": None, **kwargs})
    dummy = make_vec_env(GOLF, n_envs=6, seed=3, env_kwargs={"render_mode": None, **kwargs})
    obs_b: Any = batched.reset()
    obs_d: Any = dummy.reset()
    rng = np.random.default_rng(0)
    finished = 0
    for _ in range(300):
        assert np.array_equal(obs_b, obs_d)
        masks = np.stack(batched.env_method("action_masks"))
        assert np.array_equal(masks, np.stack(dummy.env_method("action_masks")))
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 7 for m in masks])
        obs_b, rew_b, done_b, infos_b = batched.step(actions)
        obs_d, rew_d, done_d, infos_d = dummy.step(actions)
        assert rew_b.dtype == np.float32 and np.array_equal(rew_b, rew_d) and np.array_equal(done_b, done_d)
        new_masks = np.stack(dummy.env_method("action_masks"))
        for i, (ib, idd) in enumerate(zip(infos_b, infos_d)):
            for key in ("score", "won", "illegal_action", "TimeLimit.truncated"):
                assert ib[key] == idd[key], key
            # the mask of the observation returned: the new game's where one ended (DummyVecEnv: the final one)
            assert np.array_equal(ib["action_mask"], new_masks[i] if done_d[i] else idd["action_mask"])
            assert ("terminal_observation" in ib) == ("terminal_observation" in idd)
            if "terminal_observation" in ib:
                assert np.array_equal(ib["terminal_observation"], idd["terminal_observation"])
                finished += 1
    assert finished > 20
    rounds = make_sb3_vec_env(ROUND, 2, seed=0)
    rounds.reset()
    _, _, _, infos = rounds.step(np.array([7, 7]))
    assert infos[0]["hole"] == 1 and list(infos[0]["hole_scores"]) == [0] * 9 and not infos[0]["TimeLimit.truncated"]


def test_maskable_ppo_learns_on_the_batched_vec_env(tmp_path: Any) -> None:
    from sb3_contrib import MaskablePPO

    from agents.training.sb3_vec_env import make_sb3_vec_env

    env = make_sb3_vec_env(GOLF, 8, seed=0, env_kwargs={"obs_encoding": "planes"}, monitor_dir=tmp_path)
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=64, n_epochs=1, seed=0, device="cpu")
    model.learn(total_timesteps=256)
    assert model.num_timesteps >= 256
    lines = (tmp_path / "batched.monitor.csv").read_text().splitlines()
    assert lines[1].split(",")[-1] == "score" and len(lines) > 2  # finished holes were logged with their score
