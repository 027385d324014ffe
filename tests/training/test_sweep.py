"""Seed sweeps on Ray Tune (``train.py --seeds``): what is refused before any training, and sweeps of a tiny
config on a local 2-CPU Ray: every seed trained once, a killed trial restarted from its checkpoint, a sweep
run again restored without training a finished seed again, and the report across seeds."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from agents.training import cli, sweep
from agents.training.sweep_space import Grid, read_space
from tests.helpers import wait_until_gone

ROOT = Path(__file__).resolve().parents[2]
TINY = {
    "patience_gym/Golf-v0": {
        "env_kwargs": {"obs_encoding": "planes"},
        "vec": "dummy",
        "n_envs": 2,
        "total_timesteps": 4096,
        "policy_kwargs": {"net_arch": [32]},
        "ppo": {"n_steps": 256, "batch_size": 128, "n_epochs": 1},
        "checkpoint_freq": 512,
        "eval": {"freq": 1024, "episodes": 2, "seed": 99},
        "report": {"episodes": 20, "seed": 0, "agents": ["greedy"]},
    }
}


def write(path: Path, data: Any) -> Path:
    path.write_text(yaml.safe_dump(data))
    return path


def refused(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """The one line ``train.py argv`` prints on stderr, refusing with exit status 2."""
    assert cli.main(list(argv)) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1, lines
    return lines[0]


def test_bad_sweeps_are_refused_in_one_line_before_any_training(tmp_path: Path, capsys: Any) -> None:
    config = str(write(tmp_path / "c.yaml", TINY))
    where = str(tmp_path / "sweep")
    for argv, message in [
        (["--seed-list"], "--seed-list is empty"),
        (["--seed-list", "3", "4", "3"], "--seed-list gives seed 3 twice"),
        (["--seeds", "0"], "--seeds must be at least 1"),
        (["--seeds", "2", "--seed-list", "1"], "not both"),
        (["--seeds", "2", "--seed", "4"], "--seed is a single run's flag"),
        (["--seeds", "2", "--cpus-per-trial", "0"], "--cpus-per-trial must be at least 1"),
        (["--seeds", "2", "--address", "127.0.0.1:1"], "--address 127.0.0.1:1: the Ray cluster cannot be reached"),
        (["--seeds", "2", "--address", "nowhere"], "is not auto, host:port or ray://host:port"),
        (["--seeds", "2", "--ppo.n-epochs", "0"], "--ppo.n-epochs: Input should be greater than or equal to 1"),
    ]:
        assert message in refused(capsys, "--config", config, "--sweep-dir", where, *argv), argv
        assert not Path(where).exists(), argv  # refused before anything was made
    grid = write(tmp_path / "grid.yaml", {"grid": {"ppo.no_such_key": [1, 2]}})
    line = refused(capsys, "--config", config, "--seeds", "2", "--search", str(grid), "--sweep-dir", where)
    assert "search space {'ppo.no_such_key': 1}" in line and "Unexpected keyword argument" in line
    bad_value = write(tmp_path / "bad.yaml", {"grid": {"ppo.learning_rate": [0.001, -1]}})
    assert "learning" in refused(capsys, "--config", config, "--seeds", "1", "--search", str(bad_value))
    optuna = write(tmp_path / "o.yaml", {"optuna": {"samples": 2, "space": {"ppo.gamma": {"uniform": [0.9, 0.99]}}}})
    no_eval = write(
        tmp_path / "noeval.yaml", {"patience_gym/Golf-v0": {**TINY["patience_gym/Golf-v0"], "eval": {"freq": 0}}}
    )
    assert "needs eval.freq > 0" in refused(capsys, "--config", str(no_eval), "--seeds", "1", "--search", str(optuna))
    assert not Path(where).exists()


def test_a_sweep_directory_of_another_config_is_refused_unless_resumed(tmp_path: Path, capsys: Any) -> None:
    config = write(tmp_path / "c.yaml", TINY)
    args, rest = sweep.parse(["--config", str(config), "--seeds", "2"])
    made, _ = sweep.new_sweep(args, rest)
    where = tmp_path / "sweep"
    assert sweep.prepare(made, where)  # a new sweep: its record and config written
    assert not sweep.prepare(made, where)  # the same one again: a resume
    line = refused(capsys, "--config", str(config), "--seeds", "3", "--sweep-dir", str(where))
    assert f"sweep directory {where} holds a sweep made by another config (seeds [0, 1] there" in line
    line = refused(
        capsys, "--config", str(config), "--seeds", "2", "--total-timesteps", "8192", "--sweep-dir", str(where)
    )
    assert "total_timesteps: 4096 there, 8192 asked" in line and f"--resume-sweep {where}" in line
    assert "give no other settings" in refused(capsys, "--resume-sweep", str(where), "--seeds", "2")
    assert "holds no sweep to resume" in refused(capsys, "--resume-sweep", str(tmp_path))


def test_search_spaces_are_read_and_their_grid_crosses_the_seeds(tmp_path: Path) -> None:
    grid = read_space(write(tmp_path / "g.yaml", {"grid": {"ppo.learning_rate": [0.001, 0.0003], "n_envs": [2]}}))
    assert isinstance(grid, Grid) and grid.points() == [
        {"ppo.learning_rate": 0.001, "n_envs": 2},
        {"ppo.learning_rate": 0.0003, "n_envs": 2},
    ]
    made = sweep.Sweep("patience_gym/Golf-v0", {}, (0, 5), {"grid": grid.values})
    assert [(t.name, t.seed) for t in made.trials()] == [
        ("point0-seed0", 0),
        ("point0-seed5", 5),
        ("point1-seed0", 0),
        ("point1-seed5", 5),
    ]
    for bad, message in [
        ({"grid": {"ppo.gamma": []}}, "at least one value"),
        ({"grid": {"ppo.gamma": [0.9, 0.9]}}, "lists a value twice"),
        ({"random": {}}, "grid: or optuna:"),
        ({"optuna": {"samples": 0, "space": {"ppo.gamma": {"uniform": [0.9, 0.99]}}}}, "samples must be a positive"),
        ({"optuna": {"samples": 2, "space": {"ppo.gamma": {"normal": [0, 1]}}}}, "must be one of"),
        ({"optuna": {"samples": 2, "space": {"ppo.gamma": {"uniform": [0.99, 0.9]}}}}, "low < high"),
        ({"optuna": {"samples": 2, "space": {"ppo.learning_rate": {"loguniform": [0, 1]}}}}, "must be positive"),
    ]:
        with pytest.raises(Exception, match=message):
            read_space(write(tmp_path / "s.yaml", bad))


def _killer(trial_dir: Path, stop: threading.Event, killed: list[int]) -> None:
    """Kill the trial's worker (the pid in its run directory's lock) with SIGKILL once it has a checkpoint."""
    while not stop.is_set():
        if list((trial_dir / "checkpoints").glob("model_*_steps.zip")):
            try:
                pid = json.loads((trial_dir / ".writer.lock").read_text())["pid"]
            except (OSError, ValueError, KeyError):
                time.sleep(0.05)
                continue
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)
            return
        time.sleep(0.05)


def test_a_two_seed_sweep_survives_a_killed_trial_and_is_restored_without_training_again(
    cluster: Any, tmp_path: Path
) -> None:
    """On a local 2-CPU Ray: seed 1's worker is killed (SIGKILL) after its first checkpoint; Tune restarts the
    trial, which goes on from that checkpoint; the report counts each seed once. The same command again
    restores the finished sweep: no seed is trained again."""
    config = write(tmp_path / "c.yaml", TINY)
    where = tmp_path / "sweep"
    argv = ["--config", str(config), "--seeds", "2", "--sweep-dir", str(where), "--max-failures", "2"]
    stop, killed = threading.Event(), []
    killer = threading.Thread(target=_killer, args=(where / "trials" / "seed1", stop, killed), daemon=True)
    killer.start()
    try:
        assert cli.main(argv) == 0
    finally:
        stop.set()
    assert killed, "the trial finished before its worker could be killed"
    segments = json.loads((where / "trials" / "seed1" / "training.json").read_text())["segments"]
    assert len(segments) == 2 and segments[1]["timesteps_at_start"] > 0  # resumed from its checkpoint, not from 0
    report = json.loads((where / "report.json").read_text())
    (config_row,) = report["configs"]
    assert [s["seed"] for s in config_row["seeds"]] == [0, 1] and config_row["across_seeds"]["seeds"] == 2
    assert all(len(s["scores"]) == 20 for s in config_row["seeds"])
    for name in ("report.md", "profile.png"):
        assert (where / name).is_file()
    finished = {p: p.stat().st_mtime_ns for p in where.glob("trials/*/model.zip")}
    assert cli.main(argv) == 0  # the same command: restored, nothing trained again
    assert {p: p.stat().st_mtime_ns for p in where.glob("trials/*/model.zip")} == finished
    assert json.loads((where / "report.json").read_text())["configs"][0]["across_seeds"]["seeds"] == 2


def test_an_interrupted_sweep_goes_on_where_it_stopped(tmp_path: Path) -> None:
    """A sweep stopped (Ctrl-C) while its second trial trains is restored by the same command: the finished
    seed is not trained again, the other goes on from its checkpoint, and Ray leaves no process behind."""
    slow = {"patience_gym/Golf-v0": {**TINY["patience_gym/Golf-v0"], "total_timesteps": 8192}}
    config = write(tmp_path / "c.yaml", slow)
    where = tmp_path / "sweep"
    argv = [
        sys.executable,
        str(ROOT / "train.py"),
        "--config",
        str(config),
        "--seed-list",
        "0",
        "1",
        "--sweep-dir",
        str(where),
        "--trials-at-once",
        "1",
    ]
    ray_temp_dir = tempfile.mkdtemp(prefix="ray", dir="/tmp")  # the drivers' clusters' files (a short path)
    env = {**os.environ, "RAY_TMPDIR": ray_temp_dir}
    driver = subprocess.Popen(argv, cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 300
    while not list(where.glob("trials/seed1/checkpoints/model_*_steps.zip")) and time.time() < deadline:
        time.sleep(0.2)
    assert (where / "trials" / "seed0" / "results.json").is_file()
    first = (where / "trials" / "seed0" / "model.zip").stat().st_mtime_ns
    driver.send_signal(signal.SIGINT)
    assert driver.wait(timeout=120) == 1  # stopped with a trial unfinished
    assert not (where / "trials" / "seed1" / "results.json").is_file()
    assert not wait_until_gone(ray_temp_dir), "the stopped sweep left Ray processes behind"
    assert subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, timeout=600).returncode == 0
    assert (where / "trials" / "seed0" / "model.zip").stat().st_mtime_ns == first  # not trained again
    segments = json.loads((where / "trials" / "seed1" / "training.json").read_text())["segments"]
    assert len(segments) == 2
    assert json.loads((where / "report.json").read_text())["configs"][0]["across_seeds"]["seeds"] == 2
    assert not wait_until_gone(ray_temp_dir)
    shutil.rmtree(ray_temp_dir, ignore_errors=True)


def test_the_report_names_the_model_each_seed_played() -> None:
    from agents.training.sweep_report import played_model

    assert played_model({"settings": {"report": {"model": "best"}}}).startswith("best model (the checkpoint")
    assert played_model({"settings": {"report": {"model": "final"}}}) == "final model"
    assert played_model({}) == "final model"


def test_a_committed_report_is_made_again_from_its_json_with_a_planner_added(tmp_path: Path, capsys: Any) -> None:
    """``--from-report``: a committed sweep report (its run folders not kept) is remade from its report.json, to
    the byte, its planner kept; ``--planner-from`` adds the planner's line; what is not a report is refused."""
    from agents.training.sweep_report import main

    where = shutil.copytree(ROOT / "benchmarks" / "sweeps" / "golf", tmp_path / "golf")
    committed = (where / "report.json").read_text(), (where / "report.md").read_text()
    assert main([str(where), "--from-report"]) == 0
    assert ((where / "report.json").read_text(), (where / "report.md").read_text()) == committed
    planners = tmp_path / "planners.json"
    greedy = json.loads(committed[0])["greedy"]["scores"]
    rows = [{"env": "patience_gym/Golf-v0", "agent": "planner", "scores": [s - 1 for s in greedy[:30]]}]
    planners.write_text(json.dumps({"seed": 0, "rows": rows}))
    assert main([str(where), "--from-report", "--planner-from", str(planners)]) == 0
    (row,) = json.loads((where / "report.json").read_text())["configs"]
    assert row["planner"]["deals"] == 30 and row["planner"]["minus_greedy"] == pytest.approx(-1.0)
    assert "on the first 30 of these deals" in (where / "report.md").read_text()
    capsys.readouterr()
    (where / "report.json").write_text('{"env": "patience_gym/Golf-v0"}')
    assert main([str(where), "--from-report"]) == 2
    assert "is not a sweep's report (KeyError" in capsys.readouterr().err
    assert main([str(tmp_path / "nowhere"), "--from-report"]) == 2
    assert main([str(where), "--planner-from", str(tmp_path / "none.json")]) == 2
    assert "no such file" in capsys.readouterr().err
