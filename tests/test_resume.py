"""Resume keeps every run record: evaluation history and best model, monitor rows, segment times and seeds;
run directories are never mixed; checkpoints are atomic and a corrupt one is skipped (issue 28)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import numpy as np
import pytest
import yaml

import train
from agents.config import TRAIN_SEED_BASE

GOLF = "patience_gym/Golf-v0"
TINY = {
    GOLF: {
        "env_kwargs": {"obs_encoding": "planes"},
        "n_envs": 2,
        "total_timesteps": 1024,
        "policy_kwargs": {"net_arch": [16]},
        "ppo": {"n_steps": 256, "batch_size": 256, "n_epochs": 1},
        "checkpoint_freq": 512,
        "eval": {"freq": 512, "episodes": 2, "seed": 99},
        "report": {"episodes": 2, "seed": 0, "agents": ["greedy"]},
        "vec": "dummy",
    }
}
ROOT = Path(__file__).resolve().parent.parent


def write_config(folder: Path, data: dict = TINY) -> Path:
    path = folder / "tiny.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory) -> Path:
    """One tiny run of 1,024 steps (checkpoints and evaluations at 512 and 1,024), trained once per module."""
    folder = tmp_path_factory.mktemp("base")
    run_dir = folder / "run"
    assert train.main(["--config", str(write_config(folder)), "--run-dir", str(run_dir), "--no-progress-bar"]) == 0
    return run_dir


@pytest.fixture
def run(finished_run, tmp_path) -> Path:
    """A copy of the finished run to change."""
    copy = tmp_path / "run"
    shutil.copytree(finished_run, copy)
    return copy


def resume(run_dir: Path, *extra: str) -> int:
    return train.main(["--resume", str(run_dir), "--no-progress-bar", *extra])


def monitor_rows(run_dir: Path) -> dict[str, list[str]]:
    return {p.name: p.read_text().splitlines() for p in sorted((run_dir / "monitor").glob("*.monitor.csv"))}


def evaluations(run_dir: Path) -> tuple[list[int], np.ndarray]:
    with np.load(run_dir / "eval" / "evaluations.npz") as data:
        return data["timesteps"].tolist(), data["results"].copy()


def stop_after_first_checkpoint(run_dir: Path) -> None:
    """The run as a kill after its first checkpoint leaves it: no later checkpoint, no final model."""
    for path in train.checkpoints(run_dir)[:-1]:
        path.unlink()
    (run_dir / "model.zip").unlink()


def test_resume_continues_the_evaluation_history_and_keeps_a_better_best_model(run):
    stop_after_first_checkpoint(run)
    steps, results = evaluations(run)
    assert steps == [512, 1024]
    # The run's best so far is unbeatable: the resumed evaluations must not replace its model.
    results[:] = 1e9
    np.savez(run / "eval" / "evaluations.npz", timesteps=steps, results=results, ep_lengths=np.ones_like(results))
    best = (run / "eval" / "best_model.zip").read_bytes()
    assert resume(run, "--total-timesteps", "2048") == 0
    after, after_results = evaluations(run)
    assert after[:2] == [512, 1024] and after[2:] == [1024, 1536, 2048]  # resumed from 512: 1,024 again
    assert np.array_equal(after_results[:2], results)
    assert (run / "eval" / "best_model.zip").read_bytes() == best
    assert not list((run / "eval" / ".incoming").iterdir())


def test_a_better_evaluation_after_resume_replaces_the_best_model(run):
    steps, results = evaluations(run)
    results[:] = -1e9  # anything beats it
    np.savez(run / "eval" / "evaluations.npz", timesteps=steps, results=results, ep_lengths=np.ones_like(results))
    best = (run / "eval" / "best_model.zip").read_bytes()
    assert resume(run, "--total-timesteps", "1536") == 0
    assert evaluations(run)[0] == [512, 1024, 1536]
    assert (run / "eval" / "best_model.zip").read_bytes() != best


def test_resume_appends_the_monitor_rows_and_keeps_one_timeline(run):
    stop_after_first_checkpoint(run)
    before = monitor_rows(run)
    first = json.loads((run / "training.json").read_text())["segments"][0]
    assert resume(run, "--total-timesteps", "2048") == 0
    after = monitor_rows(run)
    assert after.keys() == before.keys()
    for name, rows in before.items():
        assert after[name][: len(rows)] == rows, f"{name}: rows before the resume were lost"
        assert len(after[name]) > len(rows)
        times = [float(line.split(",")[2]) for line in after[name][2:]]
        assert times == sorted(times), f"{name}: the clock restarted at the resume"
    timing = json.loads((run / "training.json").read_text())
    assert timing["segments"][0] == first  # the interrupted segment's time is kept
    assert len(timing["segments"]) == 2 and timing["train_seconds"] > first["seconds"]
    from agents.report import _read_monitor

    steps, scores = _read_monitor(run)
    assert len(scores) == sum(len(rows) - 2 for rows in after.values()) and steps[-1] > 1024


def test_every_segment_deals_from_its_own_seeds(tmp_path):
    """A segment killed before it finished still counts, so a second resume never replays its deals."""
    path = tmp_path / "training.json"
    seen: set[int] = set()
    for expected in range(3):
        clock = train.SegmentClock(path)
        assert clock.segment == expected
        clock.start(timesteps=100 * expected)  # then killed: the segment is on record, unfinished
        first = train.segment_seed(0, clock.segment)
        deals = set(range(first, first + train.SEED_STRIDE))
        assert first >= TRAIN_SEED_BASE and not deals & seen
        seen |= deals
    assert [s["finished"] for s in json.loads(path.read_text())["segments"]] == [False] * 3
    other_seed = train.segment_seed(1, 0)
    assert not set(range(other_seed, other_seed + train.SEED_STRIDE)) & seen


def test_a_run_dir_holding_a_run_is_refused_unless_resume_or_overwrite(run, tmp_path, capsys):
    config = write_config(tmp_path)
    model = (run / "model.zip").read_bytes()
    args = ["--config", str(config), "--run-dir", str(run), "--no-progress-bar"]
    assert train.main(args) == 2
    err = capsys.readouterr().err.strip()
    assert "not empty" in err and "--resume" in err and "--overwrite" in err and len(err.splitlines()) == 1
    assert (run / "model.zip").read_bytes() == model
    (run / "notes.txt").write_text("mine")
    assert train.main([*args, "--total-timesteps", "512", "--overwrite"]) == 0
    assert (run / "notes.txt").read_text() == "mine"  # --overwrite removes the run's files only
    assert json.loads((run / "training.json").read_text())["timesteps"] == 512
    assert [p.name for p in train.checkpoints(run)] == ["model_512_steps.zip"]
    assert train.main(["--resume", str(run), "--run-dir", str(tmp_path / "x")]) == 2
    assert "--run-dir cannot be combined with --resume" in capsys.readouterr().err


def test_a_corrupt_checkpoint_is_named_and_resume_falls_back_to_an_intact_one(run, capsys):
    newest = train.checkpoints(run)[0]
    assert newest.name == "model_1024_steps.zip"
    with zipfile.ZipFile(newest, "w") as archive:  # a valid zip, garbage inside
        for name in ("data", "policy.pth", "policy.optimizer.pth", "pytorch_variables.pth"):
            archive.writestr(name, b"\x00 not what SB3 wrote")
    assert resume(run, "--total-timesteps", "1536") == 0
    out = capsys.readouterr()
    assert f"checkpoint {newest} is corrupt" in out.err
    assert "from model_512_steps.zip at 512 steps" in out.out
    for path in train.checkpoints(run):
        path.write_bytes(b"PK\x05\x06" + b"\x00" * 18)  # an empty zip archive
    assert resume(run) == 2
    assert "every checkpoint" in capsys.readouterr().err


def test_checkpoints_are_written_atomically(tmp_path):
    """A save that dies half-way leaves the previous file whole and no half-written file under its name."""

    class Dies:
        def save(self, fh):
            fh.write(b"half a checkpoint")
            raise KeyboardInterrupt

    path = tmp_path / "model_512_steps.zip"
    path.write_bytes(b"the whole previous checkpoint")
    with pytest.raises(KeyboardInterrupt):
        train.save_atomically(Dies(), path)
    assert path.read_bytes() == b"the whole previous checkpoint"
    assert sorted(p.name for p in tmp_path.glob("*.zip")) == ["model_512_steps.zip"]


def test_every_saved_model_carries_its_spec(run):
    """Checkpoints, the best model and the final model are stamped with the env they play when saved."""
    from agents.load import read_model_spec

    saved = [*train.checkpoints(run), run / "eval" / "best_model.zip", run / "model.zip"]
    assert len(saved) == 4
    for path in saved:
        spec = read_model_spec(path)
        assert spec is not None, f"{path} has no spec"
        assert (spec.env_id, spec.obs_encoding) == (GOLF, "planes")
    final = read_model_spec(run / "model.zip")
    assert final is not None and final.card == (run / "report.md").read_text()


def test_a_crash_after_training_leaves_a_stamped_model(tmp_path, monkeypatch):
    """The report failing after training loses nothing: model.zip is already saved with its spec."""
    from agents import report
    from agents.load import read_model_spec

    def broken(*args, **kwargs):
        raise RuntimeError("the report broke")

    monkeypatch.setattr(report, "write_report", broken)
    data = {GOLF: {**TINY[GOLF], "total_timesteps": 512, "eval": {"freq": 0}}}
    run_dir = tmp_path / "run"
    with pytest.raises(RuntimeError, match="the report broke"):
        train.main(["--config", str(write_config(tmp_path, data)), "--run-dir", str(run_dir), "--no-progress-bar"])
    spec = read_model_spec(run_dir / "model.zip")
    assert spec is not None and spec.env_id == GOLF


def test_checkpoint_freq_below_one_is_refused(tmp_path, capsys):
    for freq in (0, -5):
        data = {GOLF: {**TINY[GOLF], "checkpoint_freq": freq}}
        run_dir = tmp_path / f"run{freq}"
        assert train.main(["--config", str(write_config(tmp_path, data)), "--run-dir", str(run_dir)]) == 2
        assert f"{GOLF}.checkpoint_freq must be at least 1, got {freq}" in capsys.readouterr().err
        assert not run_dir.exists()


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_a_training_killed_with_sigkill_resumes_with_its_whole_history(tmp_path):
    """kill -9 a real training process after its second checkpoint, resume it, and lose at most one interval."""
    data = {GOLF: {**TINY[GOLF], "total_timesteps": 100_000}}
    run_dir = tmp_path / "run"
    cmd = [sys.executable, str(ROOT / "train.py"), "--config", str(write_config(tmp_path, data))]
    proc = subprocess.Popen(
        [*cmd, "--run-dir", str(run_dir), "--no-progress-bar"],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 240
    while not (run_dir / "checkpoints" / "model_1024_steps.zip").is_file():
        assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
        assert time.monotonic() < deadline, "no second checkpoint in time"
        time.sleep(0.2)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    killed_at = json.loads((run_dir / "training.json").read_text())["timesteps"]
    before_rows = monitor_rows(run_dir)
    before_steps, _ = evaluations(run_dir)
    newest = int(train.checkpoints(run_dir)[0].stem.split("_")[1])
    assert killed_at - newest <= 2 * TINY[GOLF]["checkpoint_freq"]  # at most one interval (and a rollout) lost
    total = newest + 512
    assert resume(run_dir, "--total-timesteps", str(total)) == 0
    from sb3_contrib import MaskablePPO

    assert MaskablePPO.load(run_dir / "model.zip").num_timesteps == total
    after_rows = monitor_rows(run_dir)
    for name, rows in before_rows.items():
        complete = rows if not rows or rows[-1].count(",") == 3 else rows[:-1]  # a row cut by the kill is dropped
        assert after_rows[name][: len(complete)] == complete
    steps, _ = evaluations(run_dir)
    assert steps[: len(before_steps)] == before_steps and steps[-1] == total
    timing = json.loads((run_dir / "training.json").read_text())
    assert [s["finished"] for s in timing["segments"]] == [False, True]
    assert timing["segments"][1]["timesteps_at_start"] == newest
