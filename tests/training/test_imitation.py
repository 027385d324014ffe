"""Behaviour cloning (agents.training.imitation) and the pretrain stage of train.py."""

from __future__ import annotations

import itertools
import json
import os

import gymnasium as gym
import numpy as np
import pytest
import yaml

from agents.evaluation.evaluate import evaluate
from agents.evaluation.writer_lock import LOCK_NAME, DirectoryInUseError, hold_directory
from agents.registry import make_agent
from agents.training import experiment
from agents.training.config import ConfigError, load_config
from agents.training.imitation import collect, dagger, fit, round_seeds

GOLF = "patience_gym/Golf-v0"
KWARGS = {"obs_encoding": "planes"}


def test_collect_in_several_processes_gives_the_same_rows_in_seed_order():
    one = collect(GOLF, KWARGS, "greedy", seeds=range(3, 8), gamma=1.0)
    three = collect(GOLF, KWARGS, "greedy", seeds=range(3, 8), gamma=1.0, jobs=3)
    for field in ("obs", "masks", "actions", "returns"):
        assert np.array_equal(getattr(one, field), getattr(three, field)), field
    assert one.episode_scores == three.episode_scores
    with pytest.raises(ValueError, match="jobs"):
        collect(GOLF, KWARGS, "greedy", seeds=[1], jobs=0)


def test_collect_records_every_teacher_decision_with_its_return():
    demos = collect(GOLF, KWARGS, "greedy", seeds=[5, 6], gamma=1.0)
    env = gym.make(GOLF, **KWARGS)
    teacher = make_agent("greedy", "golf")
    row = 0
    for seed in (5, 6):
        obs, info = env.reset(seed=seed)
        first = row
        done = False
        total = 0.0
        while not done:
            assert np.array_equal(demos.obs[row], obs)
            assert np.array_equal(demos.masks[row], info["action_mask"].astype(bool))
            assert demos.masks[row][demos.actions[row]]
            assert demos.actions[row] == teacher.act(env.unwrapped, obs, info["action_mask"].astype(bool))
            obs, reward, terminated, truncated, info = env.step(int(demos.actions[row]))
            total += float(reward)
            done = terminated or truncated
            row += 1
        # Undiscounted return-to-go: the first decision's is the whole episode's reward.
        assert demos.returns[first] == pytest.approx(total)
        assert demos.returns[row - 1] == pytest.approx(float(reward))
    assert row == len(demos)
    assert len(demos.episode_scores) == 2


def test_discounted_returns_follow_gamma():
    demos = collect(GOLF, KWARGS, "random", seeds=[1], gamma=0.5)
    env = gym.make(GOLF, **KWARGS)
    env.reset(seed=1)
    rewards = []
    for action in demos.actions:
        _, reward, *_ = env.step(int(action))
        rewards.append(float(reward))
    expected = [sum(r * 0.5**k for k, r in enumerate(rewards[i:])) for i in range(len(rewards))]
    assert demos.returns == pytest.approx(expected)


def test_fit_learns_to_copy_the_teacher():
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.env_util import make_vec_env

    demos = collect(GOLF, KWARGS, "greedy", seeds=range(40), gamma=1.0)
    model = MaskablePPO("MlpPolicy", make_vec_env(GOLF, n_envs=1, env_kwargs=KWARGS), seed=0, device="cpu")
    before = fit(model, demos, epochs=1, learning_rate=0.0)[0]
    reported: list[dict[str, float]] = []
    history = fit(model, demos, epochs=8, learning_rate=1e-3, on_epoch=reported.append)
    assert reported == history and [r["epoch"] for r in history] == list(range(1, 9))
    assert all(a["seconds"] <= b["seconds"] for a, b in itertools.pairwise(history))
    assert history[-1]["policy_loss"] < before["policy_loss"]
    assert history[-1]["value_loss"] < before["value_loss"]
    assert history[-1]["accuracy"] > max(0.8, before["accuracy"] + 0.15)


def _golf_model():
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.env_util import make_vec_env

    return MaskablePPO(
        "MlpPolicy",
        make_vec_env(GOLF, n_envs=1, env_kwargs={"render_mode": None, **KWARGS}),
        policy_kwargs={"net_arch": [32]},
        seed=0,
        device="cpu",
    )


def test_student_games_are_the_students_moves_labelled_by_the_teacher(tmp_path):
    from agents.ppo import PPOAgent

    model = _golf_model()
    path = str(tmp_path / "student.zip")
    model.save(path)
    played = collect(GOLF, KWARGS, "greedy", seeds=[5, 6], gamma=1.0, student=path)
    student = PPOAgent(path)
    teacher = make_agent("greedy", "golf")
    env = gym.make(GOLF, **KWARGS)
    row = 0
    for seed in (5, 6):
        obs, info = env.reset(seed=seed)
        first, total, done = row, 0.0, False
        while not done:
            mask = info["action_mask"].astype(bool)
            assert np.array_equal(played.obs[row], obs) and np.array_equal(played.masks[row], mask)
            assert played.actions[row] == teacher.act(env.unwrapped, obs, mask)  # the label: the teacher's move
            assert played.played[row] == student.act(env.unwrapped, obs, mask)  # the move made: the student's
            obs, reward, terminated, truncated, info = env.step(int(played.played[row]))
            total += float(reward)
            done = terminated or truncated
            row += 1
        assert played.returns[first] == pytest.approx(total)  # the return of the student's play
    assert row == len(played)
    # An untrained student strays from the teacher; the teacher's own games agree with themselves.
    assert 0.0 < played.agreement() < 1.0
    assert collect(GOLF, KWARGS, "greedy", seeds=[5]).agreement() == 1.0
    # Two processes give the same rows.
    both = collect(GOLF, KWARGS, "greedy", seeds=[5, 6], gamma=1.0, student=path, jobs=2)
    for field in ("obs", "masks", "actions", "played", "returns"):
        assert np.array_equal(getattr(played, field), getattr(both, field)), field


def test_dagger_adds_the_students_positions_and_refits():
    model = _golf_model()
    demos = collect(GOLF, KWARGS, "greedy", seeds=range(10), gamma=1.0)
    fit(model, demos, epochs=3)
    first = len(demos)
    rounds = round_seeds(100, 2, 4)
    assert rounds == [range(100, 104), range(104, 108)]
    grown, records = dagger(model, demos, GOLF, KWARGS, "greedy", rounds, gamma=1.0, epochs=2)
    assert [r["round"] for r in records] == [1, 2] and all(r["episodes"] == 4 for r in records)
    assert len(grown) == first + sum(r["decisions"] for r in records)
    assert [r["rows"] for r in records] == [first + records[0]["decisions"], len(grown)]
    assert all(0.0 <= r["agreement"] <= 1.0 and len(r["epochs"]) == 2 for r in records)
    # The first rows are the teacher's own games; the rest are labels at the student's positions.
    assert np.array_equal(grown.played[:first], grown.actions[:first])
    assert grown.agreement() < 1.0 or all(r["agreement"] == 1.0 for r in records)
    assert len(demos) == first and demos.obs.shape[0] == 0  # the rows moved into the grown set


def test_train_pretrains_then_fine_tunes(tmp_path):
    config = {
        GOLF: {
            "env_kwargs": KWARGS,
            "n_envs": 2,
            "total_timesteps": 512,
            "policy_kwargs": {"net_arch": [32]},
            "ppo": {"n_steps": 256, "batch_size": 128, "n_epochs": 1, "gamma": 1.0},
            "checkpoint_freq": 512,
            "eval": {"freq": 0},
            "report": {"episodes": 3, "seed": 0, "agents": ["greedy"]},
            "pretrain": {"teacher": "greedy", "episodes": 4, "epochs": 2, "teacher_dir": str(tmp_path / "kept")},
        }
    }
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(config))
    run_dir = tmp_path / "run"
    assert experiment.main(["--config", str(path), "--run-dir", str(run_dir), "--no-progress-bar"]) == 0
    record = json.loads((run_dir / "pretrain.json").read_text())
    assert record["teacher"] == "greedy" and record["episodes"] == 4
    assert record["decisions"] > 4 * 20 and len(record["epochs"]) == 2
    assert "behaviour cloning of 4 greedy games" in (run_dir / "report.md").read_text()
    assert "dagger" not in record
    # The clone before PPO is kept and played on the report's deals beside PPO, paired with it.
    results = json.loads((run_dir / "results.json").read_text())
    assert [r["agent"] for r in results["results"]] == ["greedy", "warm start", "ppo"]
    assert [r["baseline"] for r in results["paired"]] == ["greedy", "warm start"]
    for label, name in (("warm start", "warm_start.zip"), ("ppo", "model.zip")):
        (alone,) = evaluate(GOLF, [f"ppo:{run_dir / name}"], 3, 0, KWARGS)
        assert results["scores"][label] == alone.scores
    assert "plays as `warm start` below" in (run_dir / "report.md").read_text()
    kept = [p.name for p in (tmp_path / "kept").iterdir() if p.name != LOCK_NAME]
    assert kept == ["teacher_002000000_4.npz"]  # the teacher's games kept
    # With DAgger: one round of 3 student games after the clone, logged and reported.
    config[GOLF]["pretrain"].update({"dagger_rounds": 1, "dagger_episodes": 3, "dagger_epochs": 1})
    path.write_text(yaml.safe_dump(config))
    dagger_dir = tmp_path / "dagger"
    assert experiment.main(["--config", str(path), "--run-dir", str(dagger_dir), "--no-progress-bar"]) == 0
    dagger_record = json.loads((dagger_dir / "pretrain.json").read_text())
    assert dagger_record["teacher_mean_score"] == record["teacher_mean_score"]  # the kept games, read back
    rounds = dagger_record["dagger"]
    assert len(rounds) == 1 and rounds[0]["episodes"] == 3 and len(rounds[0]["epochs"]) == 1
    assert "DAgger round 1: on 3 games of its own" in (dagger_dir / "report.md").read_text()
    # --pretrain-episodes 0 skips it.
    other = tmp_path / "other"
    args = ["--config", str(path), "--run-dir", str(other), "--no-progress-bar", "--pretrain-episodes", "0"]
    assert experiment.main(args) == 0
    assert not (other / "pretrain.json").exists() and not (other / "warm_start.zip").exists()
    assert [r["agent"] for r in json.loads((other / "results.json").read_text())["results"]] == ["greedy", "ppo"]


def test_unknown_teacher_is_a_config_error(tmp_path):
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump({GOLF: {"pretrain": {"teacher": "oracle", "episodes": 3}}}))
    with pytest.raises(ConfigError, match=r"pretrain.teacher: must be one of greedy, solver, planner \(got 'oracle'\)"):
        load_config(path)
    path.write_text(yaml.safe_dump({GOLF: {"pretrain": {"teacher": "greedy", "episodes": 3, "epochs": 0}}}))
    with pytest.raises(ConfigError, match=r"pretrain.epochs: Input should be greater than or equal to 1"):
        load_config(path)
    path.write_text(yaml.safe_dump({GOLF: {"pretrain": {"teacher": "greedy", "episode": 3}}}))
    with pytest.raises(ConfigError, match=r"patience_gym/Golf-v0.pretrain.episode: Unexpected keyword argument"):
        load_config(path)
    for bad, message in (
        ({"episodes": 3, "teacher": "oracle:margin=1"}, r"pretrain.teacher: must be one of greedy"),
        ({"episodes": 3, "teacher": "planner:margin=big"}, r"pretrain.teacher: agent 'planner:margin=big'"),
        ({"episodes": 3, "dagger_rounds": -1}, r"pretrain.dagger_rounds: Input should be greater than or equal to 0"),
        (
            {"episodes": 3, "dagger_rounds": 1, "dagger_episodes": 0},
            r"pretrain.dagger_episodes: Input should be greater than",
        ),
        (
            {"episodes": 3, "dagger_rounds": 1, "dagger_epochs": 0},
            r"pretrain.dagger_epochs: Input should be greater than",
        ),
        ({"episodes": 0, "dagger_rounds": 1}, r"pretrain: dagger_rounds needs pretrain.episodes"),
    ):
        path.write_text(yaml.safe_dump({GOLF: {"pretrain": {"teacher": "greedy", **bad}}}))
        with pytest.raises(ConfigError, match=message):
            load_config(path)


def test_stack_concatenates_and_lets_go_of_the_chunks():
    from agents.training.imitation import _stack

    chunks = [np.arange(6, dtype=np.float32).reshape(3, 2), np.ones((1, 2), np.float32), np.zeros((2, 2), np.float32)]
    expected = np.concatenate(chunks)
    got = _stack(chunks)
    assert chunks == [] and got.dtype == np.float32
    np.testing.assert_array_equal(got, expected)
    single = [expected]
    assert _stack(single) is expected and single == []


def test_a_kept_recording_resumes_where_it_stopped_with_the_same_rows(tmp_path, monkeypatch):
    from agents.training import imitation

    whole = collect(GOLF, KWARGS, "greedy", seeds=range(3, 10), gamma=0.99)
    kept = collect(GOLF, KWARGS, "greedy", seeds=range(3, 10), gamma=0.99, state_dir=tmp_path, shard_size=3, jobs=2)
    files = sorted(p.name for p in tmp_path.iterdir() if p.name != LOCK_NAME)
    assert files == ["teacher_000000003_3.npz", "teacher_000000006_3.npz", "teacher_000000009_1.npz"]
    (tmp_path / files[1]).unlink()  # a shard the interrupted recording had not finished
    played: list[tuple[int, ...]] = []
    record = imitation._record

    def counted(env_id, kw, teacher, seeds, gamma):
        played.append(tuple(seeds))
        return record(env_id, kw, teacher, seeds, gamma)

    monkeypatch.setattr(imitation, "_record", counted)
    resumed = collect(GOLF, KWARGS, "greedy", seeds=range(3, 10), gamma=0.99, state_dir=tmp_path, shard_size=3)
    assert played == [(6, 7, 8)]  # only the missing shard was played again
    for demos in (kept, resumed):
        for field in ("obs", "masks", "actions", "returns", "played"):
            assert np.array_equal(getattr(whole, field), getattr(demos, field)), field
        assert demos.episode_scores == whole.episode_scores
    played.clear()
    with hold_directory(tmp_path, "another run's teacher dir"):  # all kept: read while another run holds it
        shared = collect(GOLF, KWARGS, "greedy", seeds=range(3, 10), gamma=0.99, state_dir=tmp_path, shard_size=3)
    assert played == [] and np.array_equal(shared.actions, whole.actions)  # nothing played


def test_a_kept_recording_of_other_games_or_a_broken_file_is_refused_before_anything_is_played(tmp_path, monkeypatch):
    from agents.training import imitation

    collect(GOLF, KWARGS, "greedy", seeds=range(4), gamma=1.0, state_dir=tmp_path, shard_size=2)

    def no_play(*args, **kwargs):
        raise AssertionError("a game was played before the kept shards were checked")

    monkeypatch.setattr(imitation, "_record", no_play)
    with pytest.raises(ValueError, match="teacher_000000000_2.npz holds other games"):
        collect(GOLF, KWARGS, "random", seeds=range(4), gamma=1.0, state_dir=tmp_path, shard_size=2)
    with pytest.raises(ValueError, match="holds other games"):
        collect(GOLF, KWARGS, "greedy", seeds=range(4), gamma=0.5, state_dir=tmp_path, shard_size=2)
    (tmp_path / "teacher_000000002_2.npz").write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="teacher_000000002_2.npz does not read"):
        collect(GOLF, KWARGS, "greedy", seeds=range(4), gamma=1.0, state_dir=tmp_path, shard_size=2)
    with pytest.raises(ValueError, match="student"):
        collect(GOLF, KWARGS, "greedy", seeds=[1], state_dir=tmp_path, student="model.zip")
    with pytest.raises(ValueError, match="shard_size"):
        collect(GOLF, KWARGS, "greedy", seeds=[1], state_dir=tmp_path, shard_size=0)
    with pytest.raises(ValueError, match="no seeds"):
        collect(GOLF, KWARGS, "greedy", seeds=[])
    busy = tmp_path / "busy"  # one writer: a second is refused by name (games to record, another run recording)
    with hold_directory(busy, "another run's teacher dir"), pytest.raises(DirectoryInUseError, match=str(os.getpid())):
        collect(GOLF, KWARGS, "greedy", seeds=range(4), gamma=1.0, state_dir=busy, shard_size=2)
    # A teacher dir that cannot hold the shards (a file in the way) is refused before any game.
    afile = tmp_path / "afile"
    afile.write_text("")
    with pytest.raises(ValueError, match="teacher dir .*afile cannot keep the finished shards"):
        collect(GOLF, KWARGS, "greedy", seeds=range(2), gamma=1.0, state_dir=afile)


def test_a_teacher_dir_that_cannot_keep_the_games_is_a_config_error_before_training(tmp_path, monkeypatch):
    from agents.training import imitation

    def no_play(*args, **kwargs):
        raise AssertionError("a game was played before the teacher dir was checked")

    monkeypatch.setattr(imitation, "_record", no_play)
    afile = tmp_path / "afile"
    afile.write_text("")
    config = {GOLF: {"env_kwargs": KWARGS, "pretrain": {"teacher": "greedy", "episodes": 4, "teacher_dir": str(afile)}}}
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(config))
    with pytest.raises(ConfigError, match="pretrain.teacher_dir .*afile cannot keep the finished shards"):
        experiment.setup(experiment.parse_args(["--config", str(path), "--run-dir", str(tmp_path / "run")]))
    assert not (tmp_path / "run").exists()
