"""rl_zoo3 trains plain PPO on our envs with illegal moves penalised (skips when rl_zoo3 is missing)."""

from __future__ import annotations

import csv
import os
import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
import yaml

import patience_gym

ROOT = Path(__file__).resolve().parents[2]
ZOO_CONF = ROOT / "configs" / "zoo" / "ppo.yml"
GOLF = "patience_gym/Golf-v0"


def test_zoo_config_names_every_env_and_only_plain_policies() -> None:
    conf = yaml.safe_load(ZOO_CONF.read_text())
    assert set(conf) == set(patience_gym.ENVS)
    for env_id, params in conf.items():
        assert params["policy"] == "MlpPolicy", env_id  # no masks in the zoo: a plain policy
        env = gym.make(env_id, **params["env_kwargs"])
        assert isinstance(env.observation_space, gym.spaces.Box), env_id
        assert params["batch_size"] <= params["n_envs"] * params["n_steps"], env_id


def test_without_masks_an_illegal_move_costs_one_and_the_step_limit_ends_the_episode() -> None:
    env = gym.make(GOLF, obs_encoding="planes")
    obs, info = env.reset(seed=3)
    illegal = int(np.flatnonzero(~info["action_mask"].astype(bool))[0])
    limit = env.spec.max_episode_steps  # type: ignore[union-attr]
    assert limit is not None
    for step in range(1, limit + 1):
        after, reward, terminated, truncated, info = env.step(illegal)
        assert reward == -1.0 and info["illegal_action"] and not terminated
        assert np.array_equal(after, obs)  # the position is left as it was
        assert truncated == (step == limit)


def test_rl_zoo3_trains_ppo_on_golf_from_our_config(tmp_path: Path) -> None:
    pytest.importorskip("rl_zoo3")
    from stable_baselines3 import PPO

    logs = tmp_path / "logs"
    command = [
        sys.executable, "-m", "rl_zoo3.train", "--algo", "ppo", "--env", GOLF, "--gym-packages", "patience_gym",
        "--conf-file", str(ZOO_CONF), "-n", "2048", "--seed", "0", "-f", str(logs), "--vec-env", "dummy",
        "--hyperparams", "n_envs:2", "n_steps:512", "batch_size:256",
    ]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    run = logs / "ppo" / "patience_gym-Golf-v0_1"
    saved = yaml.unsafe_load((run / "patience_gym-Golf-v0" / "config.yml").read_text())  # the zoo's OrderedDict
    assert dict(saved)["env_kwargs"] == {"obs_encoding": "planes"} and dict(saved)["n_envs"] == 2

    episodes = []
    for monitor in run.glob("*.monitor.csv"):
        lines = monitor.read_text().splitlines()[1:]  # after the JSON header line
        episodes += [(float(row["r"]), int(row["l"])) for row in csv.DictReader(lines)]
    assert episodes, "no episode ended in 2,048 steps"
    assert all(0 < length <= 500 for _, length in episodes)  # every episode ended, at the latest by the limit

    model = PPO.load(run / "patience_gym-Golf-v0.zip")
    play = gym.make(GOLF, obs_encoding="planes")
    obs, _ = play.reset(seed=0)
    over, steps = False, 0
    while not over:
        action, _ = model.predict(obs, deterministic=True)
        obs, _, terminated, truncated, _ = play.step(int(action))
        over, steps = terminated or truncated, steps + 1
    assert steps <= 500
