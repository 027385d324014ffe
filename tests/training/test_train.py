"""train.py: a smoke run, resume, and clear errors for broken configs and checkpoints."""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
import yaml

from agents.evaluation.writer_lock import hold_directory
from agents.training import envs as training_envs
from agents.training import experiment
from agents.training.config import ConfigError, load_config

SMOKE = {
    "patience_gym/Golf-v0": {
        "env_kwargs": {"obs_encoding": "planes"},
        "vec": "dummy",
        "n_envs": 2,
        "total_timesteps": 1024,
        "policy_kwargs": {"net_arch": [32]},
        "ppo": {"n_steps": 256, "batch_size": 128, "n_epochs": 1},
        "checkpoint_freq": 512,
        "eval": {"freq": 512, "episodes": 2, "seed": 99},
        "report": {"episodes": 5, "seed": 0, "agents": ["random", "greedy"]},
    }
}


def write_config(tmp_path: Path, data: dict) -> Path:
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def run(config: Path, run_dir: Path, *extra: str) -> int:
    return experiment.main(["--config", str(config), "--run-dir", str(run_dir), "--no-progress-bar", *extra])


def test_smoke_run_writes_model_report_and_plots_that_reload(tmp_path):
    from sb3_contrib import MaskablePPO

    run_dir = tmp_path / "run"
    assert run(write_config(tmp_path, SMOKE), run_dir) == 0
    for name in ("model.zip", "report.md", "results.json", "scores.png", "learning_curve.png", "config.yaml"):
        assert (run_dir / name).is_file(), name
    results = json.loads((run_dir / "results.json").read_text())
    assert [r["agent"] for r in results["results"]] == ["random", "greedy", "ppo"]
    assert all(len(scores) == 5 for scores in results["scores"].values())
    report = (run_dir / "report.md").read_text()
    assert "| ppo | 5 |" in report
    # PPO against each baseline, paired by deal, and one sentence on greedy.
    paired = {row["baseline"]: row for row in results["paired"]}
    assert list(paired) == ["random", "greedy"]
    for name, row in paired.items():
        diffs = [p - b for p, b in zip(results["scores"]["ppo"], results["scores"][name], strict=True)]
        assert row["mean"] == pytest.approx(sum(diffs) / len(diffs))
        assert row["ppo_better"] == (row["mean"] + row["ci95"] < 0)  # Golf: lower is better
    verdict = "PPO beats greedy" if paired["greedy"]["ppo_better"] else "PPO does not beat greedy"
    assert verdict in report and "none of them dealt in training" in report
    model = MaskablePPO.load(run_dir / "model.zip")
    assert model.num_timesteps >= 1024
    assert list((run_dir / "tb").iterdir()), "no TensorBoard logs"
    # The saved config reloads as the same config.
    assert load_config(run_dir / "config.yaml") == load_config(write_config(tmp_path, SMOKE))
    # Each held-out evaluation has its training time; the report says when (if) PPO first beat greedy there.
    times = json.loads((run_dir / "eval" / "eval_times.json").read_text())
    assert [t["step"] for t in times] == [512, 1024]
    assert 0 < times[0]["train_seconds"] < times[1]["train_seconds"] <= results["train_seconds"]
    beat = results["time_to_beat_greedy"]
    assert beat["teacher"] == "greedy" and beat["step"] in (None, 512, 1024)


def test_time_to_beat_greedy_is_the_first_evaluation_above_greedys_return_on_the_same_deals(tmp_path):
    import numpy as np

    from agents.evaluation.evaluate import run_episode
    from agents.registry import make_agent
    from agents.training.report import time_to_beat

    config = load_config(write_config(tmp_path, SMOKE))
    env = gym.make(config.env_id, **config.env_kwargs)
    greedy = make_agent("greedy", "golf", env_id=config.env_id)
    returns = [sum(m.reward for m in run_episode(env, greedy, seed)) for seed in (99, 100)]
    target = float(np.mean(returns))
    evals = tmp_path / "eval"
    evals.mkdir()
    results = np.array([[target - 1, target - 1], [target, target], [target + 1, target], [target + 2, target + 2]])
    np.savez(evals / "evaluations.npz", timesteps=np.array([512, 1024, 1536, 2048]), results=results,
             ep_lengths=np.ones((4, 2)))  # fmt: skip
    (evals / "eval_times.json").write_text(
        json.dumps([{"step": s, "train_seconds": s / 100} for s in (512, 1024, 1536)])
    )
    found = time_to_beat(tmp_path, config)
    assert found == {"teacher": "greedy", "teacher_mean_return": pytest.approx(target), "step": 1536,
                     "mean_return": pytest.approx(target + 0.5), "train_seconds": pytest.approx(15.36)}  # fmt: skip
    np.savez(evals / "evaluations.npz", timesteps=np.array([512]), results=results[:1], ep_lengths=np.ones((1, 2)))
    assert time_to_beat(tmp_path, config)["step"] is None


def test_report_can_play_the_best_held_out_checkpoint(tmp_path):
    import numpy as np

    data = {"patience_gym/Golf-v0": {**SMOKE["patience_gym/Golf-v0"], "report": {"episodes": 3, "model": "best"}}}
    run_dir = tmp_path / "run"
    assert run(write_config(tmp_path, data), run_dir) == 0
    chosen = json.loads((run_dir / "results.json").read_text())["ppo_model"]
    with np.load(run_dir / "eval" / "evaluations.npz") as evals:
        means = evals["results"].mean(axis=1)
        assert chosen["best_step"] == int(evals["timesteps"][int(np.argmax(means))])
        assert chosen["best_eval_return"] == pytest.approx(float(means.max()))
    assert chosen["model"] == "best"
    assert f"saved at step {chosen['best_step']:,}" in (run_dir / "report.md").read_text()


def test_every_held_out_evaluation_plays_the_same_deals():
    """The eval env deals seeds eval.seed .. eval.seed + episodes - 1, whatever the resets in between."""
    import numpy as np
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.evaluation import evaluate_policy

    config = load_config(Path("configs/golf.yaml"))
    envs = training_envs.make_envs(config, 1, 1_000_000, "dummy", cycle=3)
    single = gym.make(config.env_id, **config.env_kwargs)
    model = MaskablePPO("MlpPolicy", envs, seed=0, device="cpu")
    first = envs.reset()[0]
    assert np.array_equal(first, single.reset(seed=1_000_000)[0])
    runs = [sorted(evaluate_policy(model, envs, n_eval_episodes=3, return_episode_rewards=True)[0]) for _ in range(3)]
    assert runs[0] == runs[1] == runs[2]
    # Those deals are the three seeds, played by the same deterministic policy.
    expected = []
    for seed in range(1_000_000, 1_000_003):
        obs, info = single.reset(seed=seed)
        total, done = 0.0, False
        while not done:
            action, _ = model.predict(obs, action_masks=info["action_mask"], deterministic=True)
            obs, reward, terminated, truncated, info = single.step(int(action))
            total += float(reward)
            done = terminated or truncated
        expected.append(total)
    assert runs[0] == sorted(expected)
    # One env a deal (what train.py uses): the same deals every time, played side by side.
    side_by_side = training_envs.make_envs(config, 3, 1_000_000, "dummy", cycle=3)
    for _ in range(3):
        returns = evaluate_policy(model, side_by_side, n_eval_episodes=3, return_episode_rewards=True)[0]
        assert sorted(returns) == sorted(expected)
    with pytest.raises(ValueError, match="single env or one env a deal"):
        training_envs.make_envs(config, 2, 0, "dummy", cycle=3)


def test_resume_continues_the_timestep_count_and_the_learning_rate_schedule(tmp_path):
    from sb3_contrib import MaskablePPO

    run_dir = tmp_path / "run"
    settings = SMOKE["patience_gym/Golf-v0"]
    scheduled = {**settings, "ppo": {**settings["ppo"], "learning_rate": "lin_1e-3"}}
    config = write_config(tmp_path, {"patience_gym/Golf-v0": scheduled})
    assert run(config, run_dir) == 0
    first = MaskablePPO.load(run_dir / "model.zip").num_timesteps
    # Pretend the run stopped after its first checkpoint: drop the later ones.
    checkpoints = sorted((run_dir / "checkpoints").glob("model_*_steps.zip"), key=lambda p: int(p.stem.split("_")[1]))
    for late in checkpoints[1:]:
        late.unlink()
    kept = int(checkpoints[0].stem.split("_")[1])
    assert kept < first
    assert experiment.main(["--resume", str(run_dir), "--total-timesteps", "2048", "--no-progress-bar"]) == 0
    resumed = MaskablePPO.load(run_dir / "model.zip").num_timesteps
    assert resumed >= 2048 and resumed - kept < 2048 + 512, "resume restarted from zero"
    timing = json.loads((run_dir / "training.json").read_text())
    assert len(timing["segments"]) == 2 and timing["timesteps"] == resumed
    # lin_1e-3 decays linearly over the whole run, resumed segment included: 0 at the last update.
    model = MaskablePPO.load(run_dir / "model.zip")
    assert model.lr_schedule(1.0) == pytest.approx(1e-3) and model.lr_schedule(0.25) == pytest.approx(2.5e-4)
    assert model.policy.optimizer.param_groups[0]["lr"] == pytest.approx(0.0, abs=1e-4)


def test_resume_without_or_with_corrupt_checkpoint_is_a_clear_error(tmp_path, capsys):
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "config.yaml").write_text(yaml.safe_dump(SMOKE))
    assert experiment.main(["--resume", str(run_dir), "--no-progress-bar"]) == 2
    assert "no checkpoint" in capsys.readouterr().err
    (run_dir / "checkpoints").mkdir()
    (run_dir / "checkpoints" / "model_512_steps.zip").write_bytes(b"not a zip at all")
    assert experiment.main(["--resume", str(run_dir), "--no-progress-bar"]) == 2
    err = capsys.readouterr().err
    assert "model_512_steps.zip is corrupt" in err and "every checkpoint" in err
    assert experiment.main(["--resume", str(tmp_path / "nowhere"), "--no-progress-bar"]) == 2
    assert "config.yaml is missing" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("patch", "message"),
    [
        ({"n_env": 2}, r"patience_gym/Golf-v0.n_env: Unexpected keyword argument \(got 2\)"),
        ({"n_envs": "two"}, r"patience_gym/Golf-v0.n_envs: Input should be a valid integer"),
        ({"eval": {"episodes": 2, "sed": 1}}, r"patience_gym/Golf-v0.eval.sed: Unexpected keyword argument"),
        ({"ppo": {"n_step": 8}}, r"patience_gym/Golf-v0.ppo.n_step: Unexpected keyword argument"),
        ({"report": {"agents": "greedy"}}, r"report.agents: Input should be a valid list"),
        ({"total_timesteps": 0}, r"total_timesteps: Input should be greater than or equal to 1"),
        ({"checkpoint_freq": -1}, r"patience_gym/Golf-v0.checkpoint_freq: Input should be greater than or equal to 1"),
        ({"ppo": {"learning_rate": "lin_fast"}}, r"patience_gym/Golf-v0.ppo.learning_rate: must be a number or lin_"),
        ({"ppo": {"clip_range": "linear"}}, r"patience_gym/Golf-v0.ppo.clip_range: must be a number or lin_"),
        ({"report": {"model": "last"}}, r"patience_gym/Golf-v0.report.model: Input should be 'final' or 'best'"),
        (
            {"report": {"model": "best"}, "eval": {"freq": 0}},
            r"patience_gym/Golf-v0: report.model 'best' needs held-out evaluations",
        ),
        ({"pretrain": {"jobs": 0}}, r"patience_gym/Golf-v0.pretrain.jobs: Input should be greater than or equal to 1"),
        ({"report": {"jobs": 0}}, r"patience_gym/Golf-v0.report.jobs: Input should be greater than or equal to 1"),
    ],
)
def test_config_errors_name_the_key_and_file(tmp_path, patch, message):
    data = {"patience_gym/Golf-v0": {**SMOKE["patience_gym/Golf-v0"], **patch}}
    path = write_config(tmp_path, data)
    with pytest.raises(ConfigError, match=message) as err:
        load_config(path)
    assert str(path) in str(err.value)


def test_a_report_agent_that_cannot_be_built_is_refused_before_training(tmp_path, capsys):
    """ppo:/nonexistent.zip is built (through agents.registry) with the config, not after training."""
    settings = SMOKE["patience_gym/Golf-v0"]
    data = {"patience_gym/Golf-v0": {**settings, "report": {**settings["report"], "agents": ["random", "ppo:/no.zip"]}}}
    run_dir = tmp_path / "run"
    assert run(write_config(tmp_path, data), run_dir) == 2
    err = capsys.readouterr().err
    assert "patience_gym/Golf-v0: report.agents[1]: no PPO model at /no.zip" in err and len(err.splitlines()) == 1
    assert not run_dir.exists()  # refused with the config, before any training
    path = tmp_path / "broken.zip"
    path.write_bytes(b"PK not a model")
    data["patience_gym/Golf-v0"]["report"]["agents"] = [f"ppo:{path}"]
    assert run(write_config(tmp_path, data), run_dir) == 2
    assert f"report.agents[0]: {path} is not a saved model" in capsys.readouterr().err


def test_report_models_are_checked_against_the_configs_env(tmp_path):
    """A committed model of the config's env and encoding is accepted as a report agent; one of another game,
    or another encoding, is refused with the config (both named), before any training."""
    settings = SMOKE["patience_gym/Golf-v0"]
    golf = "ppo:models/golf_rules.zip"  # Golf-v0, obs_encoding rules_moves
    for encoding, agent, refused in [
        ("rules_moves", golf, None),
        ("planes", golf, "was trained on patience_gym/Golf-v0"),
        ("rules_moves", "ppo:models/puss_moves_replay_all.zip", "was trained on patience_gym/PussInTheCorner-v0"),
    ]:
        env_kwargs = {**settings.get("env_kwargs", {}), "obs_encoding": encoding}
        data = {
            "patience_gym/Golf-v0": {
                **settings,
                "env_kwargs": env_kwargs,
                "report": {**settings["report"], "agents": [agent]},
            }
        }
        if refused is None:
            load_config(write_config(tmp_path, data))
        else:
            with pytest.raises(ConfigError, match=refused):
                load_config(write_config(tmp_path, data))


def test_config_file_level_errors(tmp_path, capsys):
    with pytest.raises(ConfigError, match="does not exist"):
        load_config(tmp_path / "missing.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("patience_gym/Golf-v0: [unclosed")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_config(bad)
    two = write_config(tmp_path, {"a": {}, "b": {}})
    with pytest.raises(ConfigError, match="choose one with --env-id"):
        load_config(two)
    assert experiment.main(["--config", str(bad), "--no-progress-bar"]) == 2
    assert "not valid YAML" in capsys.readouterr().err


def test_every_committed_config_loads():
    from agents.training.expert_iteration import is_expert_iteration, load_exit_config

    configs = sorted(Path(__file__).resolve().parents[2].joinpath("configs").glob("*.yaml"))
    assert configs
    for path in configs:
        config = load_exit_config(path) if is_expert_iteration(path) else load_config(path)
        assert config.env_id.startswith("patience_gym/")


@pytest.mark.parametrize(
    "config_name",
    [
        "puss.yaml",
        "miss_milligan.yaml",
        "giant.yaml",
        "puss_moves_replay_all.yaml",
        "miss_milligan_pocket_moves_endgame.yaml",
    ],
)
def test_committed_configs_of_the_other_families_train_and_report(tmp_path, config_name):
    """A smoke run of each env family's committed config through train.py (a few hundred steps)."""
    from sb3_contrib import MaskablePPO

    config_path = Path(__file__).resolve().parents[2] / "configs" / config_name
    config = load_config(config_path)
    env_id = config.env_id
    run_dir = tmp_path / "run"
    extra = ["--total-timesteps", "256", "--ppo.n-steps", "64", "--n-envs", "2", "--report-episodes", "2"]
    extra += ["--pretrain-episodes", "2"]
    if config.report.model == "best":  # the report plays the best held-out checkpoint: evaluate during training
        extra += ["--eval.freq", "128", "--eval.episodes", "2"]
    assert experiment.main(["--config", str(config_path), "--run-dir", str(run_dir), "--no-progress-bar", *extra]) == 0
    for name in ("model.zip", "report.md", "results.json", "scores.png", "config.yaml"):
        assert (run_dir / name).is_file(), name
    results = json.loads((run_dir / "results.json").read_text())
    assert results["env"] == env_id
    # Every one of these configs clones a teacher first: the clone plays beside PPO.
    assert [r["agent"] for r in results["results"]] == ["random", "greedy", "warm start", "ppo"]
    model = MaskablePPO.load(run_dir / "model.zip")
    assert model.num_timesteps >= 256
    env = gym.make(env_id, **load_config(config_path).env_kwargs)
    obs, info = env.reset(seed=3)
    action, _ = model.predict(obs, action_masks=info["action_mask"].astype(bool), deterministic=True)
    assert info["action_mask"][int(action)] == 1


def test_golf_moves_config_trains_and_its_model_plays_rounds(tmp_path):
    """The move-scoring Golf config through train.py, then its hole model over a nine-hole round."""
    from agents.evaluation.evaluate import play_episodes
    from agents.ppo import PPOAgent

    config_path = Path(__file__).resolve().parents[2] / "configs" / "golf.yaml"
    hole_run = tmp_path / "hole"
    extra = ["--total-timesteps", "2048", "--n-envs", "2", "--report-episodes", "2"]
    assert experiment.main(["--config", str(config_path), "--run-dir", str(hole_run), "--no-progress-bar", *extra]) == 0
    summary = play_episodes(
        "patience_gym/GolfRound-v0", PPOAgent(hole_run / "model.zip"), [7], {"obs_encoding": "runs"}
    )
    # Nine holes, each dealing its 16 stock cards: at least 144 moves, and a score no hole-by-hole bound breaks.
    assert summary.episodes == 1 and summary.mean_moves >= 9 * 16
    assert -9 * 16 <= summary.scores[0] <= 9 * 35


def test_a_round_config_learns_single_holes_and_reports_rounds(tmp_path):
    """configs/golf_round.yaml learns on Golf-v0 (learn_on): the training envs, the held-out evaluations and the
    model's stamp are a hole's; the report plays nine-hole rounds, hole by hole."""
    from agents.load import load, read_model_spec

    config_path = Path(__file__).resolve().parents[2] / "configs" / "golf_round.yaml"
    run_dir = tmp_path / "run"
    extra = ["--total-timesteps", "2048", "--n-envs", "2", "--report-episodes", "2"]
    extra += ["--eval.freq", "1024", "--eval.episodes", "2", "--checkpoint-freq", "1024"]
    assert experiment.main(["--config", str(config_path), "--run-dir", str(run_dir), "--no-progress-bar", *extra]) == 0
    results = json.loads((run_dir / "results.json").read_text())
    assert results["env"] == "patience_gym/GolfRound-v0"
    assert all(0 <= score <= 9 * 35 for score in results["scores"]["greedy"])  # round scores, not a hole's
    spec = read_model_spec(run_dir / "model.zip")
    assert spec is not None and spec.env_id == "patience_gym/Golf-v0"
    evaluations = np.load(run_dir / "eval" / "evaluations.npz")
    assert (evaluations["results"] <= 35).all()  # a hole's return: the held-out evaluations played holes
    assert "learned on patience_gym/Golf-v0" in (run_dir / "report.md").read_text()
    load(run_dir / "model.zip", "patience_gym/GolfRound-v0", "rules_moves")  # the stamped model plays rounds


def test_the_report_of_a_finished_run_can_be_written_again(tmp_path, capsys):
    """``python -m agents.training.report RUN_DIR`` re-evaluates a finished run; a directory that is not one is
    named."""
    from agents.training import report

    run_dir = tmp_path / "run"
    assert run(write_config(tmp_path, SMOKE), run_dir) == 0
    first = json.loads((run_dir / "results.json").read_text())
    (run_dir / "results.json").unlink()
    report.main([str(run_dir)])
    again = json.loads((run_dir / "results.json").read_text())
    assert again["scores"] == first["scores"] and "| ppo | 5 |" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        report.main([str(tmp_path / "nothing")])
    assert "not a finished run" in capsys.readouterr().err
    with hold_directory(run_dir, "run directory"), pytest.raises(SystemExit):  # a train.py still writing there
        report.main([str(run_dir)])
    assert f"run directory {run_dir} is in use by pid {os.getpid()}" in capsys.readouterr().err


class FakeVector:
    """Stands in for patience_gym.vector: batched Golf with the ids and planes encodings only."""

    def __init__(self):
        self.made = []

    def batched_supported(self, env_id, obs_encoding=None):
        return env_id == "patience_gym/Golf-v0" and obs_encoding in (None, "ids", "planes")

    def make_sb3_vec_env(self, env_id, n_envs, seed=None, env_kwargs=None):
        from stable_baselines3.common.vec_env import DummyVecEnv

        self.made.append((env_id, n_envs, seed, env_kwargs))
        venv = DummyVecEnv([lambda: gym.make(env_id, **env_kwargs) for _ in range(n_envs)])
        venv.seed(seed)
        return venv


def test_vec_selection_prefers_batched_and_falls_back_to_dummy(monkeypatch, tmp_path):
    import sys

    import patience_gym

    runs = load_config(Path("configs/golf.yaml"))  # obs_encoding: runs
    config = dataclasses.replace(runs, env_kwargs={"obs_encoding": "planes"})
    fake = FakeVector()
    monkeypatch.setitem(sys.modules, "patience_gym.vector", fake)
    monkeypatch.setattr(patience_gym, "vector", fake, raising=False)
    monkeypatch.setitem(sys.modules, "agents.training.sb3_vec_env", fake)  # the SB3 adapter's module
    assert config.vec == "batched"  # the default
    assert training_envs.select_vec("batched", config) == ("batched", None)
    kind, why = training_envs.select_vec("batched", runs)
    assert kind == "dummy" and "no batched engine for patience_gym/Golf-v0 with obs_encoding='runs'" in why
    assert training_envs.select_vec("subproc", config) == ("subproc", None)
    assert training_envs.select_vec("dummy", config) == ("dummy", None)
    # The batched env is made with the run's seed and logged to an appendable monitor file.
    envs = training_envs.make_envs(config, 2, 7, "batched", tmp_path / "monitor")
    assert fake.made == [("patience_gym/Golf-v0", 2, 7, {"render_mode": None, **config.env_kwargs})]
    assert (tmp_path / "monitor" / "batched.monitor.csv").is_file()
    envs.close()
    assert training_envs.batched_maker() == fake.make_sb3_vec_env
    # Without the package (or numba), batched falls back to dummy and says why.
    monkeypatch.setitem(sys.modules, "patience_gym.vector", None)
    monkeypatch.delattr(patience_gym, "vector")
    kind, why = training_envs.select_vec("batched", config)
    assert kind == "dummy" and "not installed" in why


def test_learning_curve_reader_matches_the_monitor_files(tmp_path):
    """SB3's loader gives the rows in the order the episodes ended, as the hand-written reader did."""
    import numpy as np

    from agents.training.report import _read_monitor

    folder = tmp_path / "monitor"
    folder.mkdir()
    rows = {"0": [(-3.0, 10, 1.5, 12.0), (-1.0, 7, 4.0, 9.0)], "1": [(-2.0, 5, 2.5, 0.0), (-4.0, 9, 3.0, 20.0)]}
    for name, episodes in rows.items():
        lines = ['#{"t_start": 1000.0, "env_id": "patience_gym/Golf-v0"}', "r,l,t,score"]
        lines += [f"{r},{length},{t},{score}" for r, length, t, score in episodes]
        (folder / f"{name}.monitor.csv").write_text("\n".join(lines) + "\n")
    ordered = sorted((t, length, score) for episodes in rows.values() for _, length, t, score in episodes)
    steps, scores = _read_monitor(tmp_path)
    assert steps.tolist() == np.cumsum([length for _, length, _ in ordered]).tolist()
    assert scores.tolist() == [score for _, _, score in ordered]
    assert [len(x) for x in _read_monitor(tmp_path / "nothing")] == [0, 0]
