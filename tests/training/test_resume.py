"""Resume keeps every run record: evaluation history and best model, monitor rows, segment times and seeds;
run directories are never mixed; checkpoints are atomic and a corrupt one is skipped (issue 28); a run directory
has one writer (issue 72)."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import yaml

from agents.evaluation.writer_lock import LOCK_NAME, DirectoryInUseError, hold_directory
from agents.training import envs as training_envs
from agents.training import experiment, run_directory
from agents.training.config import TRAIN_SEED_BASE

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
ROOT = Path(__file__).resolve().parents[2]


def write_config(folder: Path, data: dict = TINY) -> Path:
    path = folder / "tiny.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory) -> Path:
    """One tiny run of 1,024 steps (checkpoints and evaluations at 512 and 1,024), trained once per module."""
    folder = tmp_path_factory.mktemp("base")
    run_dir = folder / "run"
    assert experiment.main(["--config", str(write_config(folder)), "--run-dir", str(run_dir), "--no-progress-bar"]) == 0
    return run_dir


@pytest.fixture
def run(finished_run, tmp_path) -> Path:
    """A copy of the finished run to change."""
    copy = tmp_path / "run"
    shutil.copytree(finished_run, copy)
    return copy


def resume(run_dir: Path, *extra: str) -> int:
    return experiment.main(["--resume", str(run_dir), "--no-progress-bar", *extra])


def monitor_rows(run_dir: Path) -> dict[str, list[str]]:
    return {p.name: p.read_text().splitlines() for p in sorted((run_dir / "monitor").glob("*.monitor.csv"))}


def evaluations(run_dir: Path) -> tuple[list[int], np.ndarray]:
    with np.load(run_dir / "eval" / "evaluations.npz") as data:
        return data["timesteps"].tolist(), data["results"].copy()


def stop_after_first_checkpoint(run_dir: Path) -> None:
    """The run as a kill after its first checkpoint leaves it: no later checkpoint, no final model."""
    for path in run_directory.checkpoints(run_dir)[:-1]:
        path.unlink()
    (run_dir / "model.zip").unlink()


def test_resume_continues_the_evaluation_history_and_keeps_a_better_best_model(run):
    steps, results = evaluations(run)
    assert steps == [512, 1024]
    # The run's best so far is unbeatable: the resumed evaluations must not replace its model.
    results[:] = 1e9
    np.savez(run / "eval" / "evaluations.npz", timesteps=steps, results=results, ep_lengths=np.ones_like(results))
    best = (run / "eval" / "best_model.zip").read_bytes()
    assert resume(run, "--total-timesteps", "2048") == 0
    after, after_results = evaluations(run)
    assert after == [512, 1024, 1536, 2048]
    assert np.array_equal(after_results[:2], results)
    assert (run / "eval" / "best_model.zip").read_bytes() == best
    assert not list((run / "eval" / ".incoming").iterdir())


def kill_after_first_checkpoint(run_dir: Path) -> tuple[int, int]:
    """The run as a kill -9 after its first checkpoint leaves it: the later checkpoints gone, but the evaluations
    and monitor rows of the stretch after it still on disk (as the killed process wrote them), and more of
    them, as a longer run would leave. Returns the checkpoint's step and the steps the killed run reached."""
    stop_after_first_checkpoint(run_dir)
    kept = int(run_directory.checkpoints(run_dir)[0].stem.split("_")[1])
    steps, results = evaluations(run_dir)
    late = [1536, 2048]  # evaluations the killed run made after 1,024
    np.savez(
        run_dir / "eval" / "evaluations.npz",
        timesteps=steps + late,
        results=np.concatenate([results, np.full((2, results.shape[1]), 1e9)]),  # its best, abandoned too
        ep_lengths=np.ones((len(steps) + 2, results.shape[1])),
    )
    for path in (run_dir / "monitor").glob("*.monitor.csv"):
        rows = path.read_text().splitlines()
        last_t = float(rows[-1].split(",")[2])
        later = [f"-7.0,300,{last_t + 100 + i},-7.0" for i in range(4)]  # 1,200 more steps per env, later in time
        path.write_text("\n".join(rows + later) + "\n")
    return kept, 2048 + 1200


def test_resume_after_a_kill_sets_aside_the_abandoned_stretch(run, capsys):
    """Resumed from its 512-step checkpoint, the run's history past 512 is set aside, not mixed with the new one:
    the eval history is strictly increasing and the monitor rows sum to no more than the steps trained."""
    from agents.training.report import _read_monitor

    kept, _ = kill_after_first_checkpoint(run)
    assert kept == 512
    before = {p.name: p.read_text().splitlines() for p in (run / "monitor").glob("*.monitor.csv")}
    best = (run / "eval" / "best_model.zip").read_bytes()
    assert resume(run, "--total-timesteps", "1536") == 0
    out = capsys.readouterr().out
    assert "set aside 3 evaluations and" in out and "past step 512" in out
    steps, _ = evaluations(run)
    assert steps == [512, 1024, 1536]  # strictly increasing: the abandoned 1,024 .. 2,048 are gone
    with np.load(run / "eval" / "evaluations.abandoned.npz") as aside:
        assert aside["timesteps"].tolist() == [1024, 1536, 2048] and set(aside["resumed_from"]) == {512}
    # The best model came from the abandoned stretch: set aside with it, and a new one saved since.
    assert (run / "eval" / "best_model.abandoned.zip").read_bytes() == best
    assert (run / "eval" / "best_model.zip").is_file()
    trained = json.loads((run / "training.json").read_text())["timesteps"]
    curve, _ = _read_monitor(run)
    assert trained == 1536 and curve[-1] <= trained
    for name, rows in before.items():
        now = (run / "monitor" / name).read_text().splitlines()
        aside = (run / "monitor" / name.replace(".monitor.csv", ".monitor.abandoned.csv")).read_text().splitlines()
        cut = rows.index(aside[2]) if len(aside) > 2 else len(rows)
        assert now[:cut] == rows[:cut]  # the rows before the checkpoint, as they were
        assert aside[2:] == rows[cut:] and "-7.0,300," in aside[-1]  # the abandoned rows, kept aside
        assert aside[0].startswith("#") and "resumed_from" in aside[0]


def test_a_damaged_monitor_or_evaluation_file_is_named_in_one_line(run, capsys):
    stop_after_first_checkpoint(run)
    history = run / "eval" / "evaluations.npz"
    good = history.read_bytes()
    history.write_bytes(b"PK\x03\x04 garbage")
    assert resume(run) == 2
    err = capsys.readouterr().err
    assert f"{history} is not an evaluation history" in err and len(err.strip().splitlines()) == 1, err
    history.write_bytes(good)
    monitor = run / "monitor" / "0.monitor.csv"
    monitor.write_text('#{"t_start": 17000')
    assert resume(run) == 2
    err = capsys.readouterr().err
    assert f"monitor file {monitor} is cut inside its header" in err and len(err.strip().splitlines()) == 1, err


def test_resume_uses_the_runs_seed_and_vec_and_refuses_others(tmp_path, capsys):
    """The run's seed and vector env are on record: a resume with other ones is refused naming both values."""
    data = {GOLF: {**TINY[GOLF], "total_timesteps": 512, "eval": {"freq": 0}}}
    run_dir = tmp_path / "run"
    config = str(write_config(tmp_path, data))
    assert experiment.main(["--config", config, "--run-dir", str(run_dir), "--no-progress-bar", "--seed", "7"]) == 0
    record = json.loads((run_dir / "training.json").read_text())
    assert (record["seed"], record["vec"]) == (7, "dummy")
    assert resume(run_dir, "--seed", "8") == 2
    err = capsys.readouterr().err
    assert "--seed 8 differs from the run's seed 7" in err and len(err.strip().splitlines()) == 1
    assert resume(run_dir, "--vec", "subproc") == 2
    assert "--vec subproc differs from the run's vec dummy" in capsys.readouterr().err
    # Without --seed the run's own seed goes on: the second segment deals from seed 7's stream.
    assert resume(run_dir, "--total-timesteps", "1024") == 0
    assert json.loads((run_dir / "training.json").read_text())["seed"] == 7


def test_resume_refuses_an_edited_config_naming_what_changed(run, capsys):
    """Checkpoints keep the settings they were trained with: an edit of the run's config.yaml is named, not
    blamed on the checkpoints."""
    saved = run / "config.yaml"
    # A flag is a config key too: one the checkpoints hold is refused the same way.
    assert resume(run, "--ppo.learning-rate", "0.001") == 2
    err = capsys.readouterr().err
    assert "config.yaml with the flags differs from the config the run trained with" in err
    assert "ppo.learning_rate (trained with 0.0003, now 0.001)" in err and len(err.strip().splitlines()) == 1
    original = saved.read_text()
    data = yaml.safe_load(original)
    data[GOLF]["env_kwargs"] = {"obs_encoding": "ids"}
    data[GOLF]["ppo"]["learning_rate"] = 0.001
    saved.write_text(yaml.safe_dump(data))
    assert resume(run) == 2
    err = capsys.readouterr().err
    assert "config.yaml differs from the config the run trained with" in err and "corrupt" not in err
    assert "env_kwargs.obs_encoding (trained with 'planes', now 'ids')" in err
    assert "ppo.learning_rate (trained with 0.0003, now 0.001)" in err and len(err.strip().splitlines()) == 1
    # Settings a checkpoint does not hold may change: a longer run, another report.
    data = yaml.safe_load(original)
    data[GOLF]["total_timesteps"] = 1536
    data[GOLF]["report"]["episodes"] = 3
    saved.write_text(yaml.safe_dump(data))
    assert resume(run) == 0
    assert json.loads((run / "results.json").read_text())["results"][0]["episodes"] == 3


def test_a_run_without_a_record_of_its_config_names_a_checkpoint_that_does_not_fit(run, capsys):
    """Runs trained before the config was recorded: a checkpoint whose observations do not fit is a changed
    config, not a corrupt checkpoint."""
    record = json.loads((run / "training.json").read_text())
    record.pop("config", None)
    (run / "training.json").write_text(json.dumps(record))
    data = yaml.safe_load((run / "config.yaml").read_text())
    data[GOLF]["env_kwargs"] = {"obs_encoding": "ids"}
    (run / "config.yaml").write_text(yaml.safe_dump(data))
    assert resume(run) == 2
    err = capsys.readouterr().err
    assert "does not fit the env of" in err and "was config.yaml edited?" in err and "corrupt" not in err


def test_the_documented_resume_command_works(run, tmp_path, capsys):
    """``train.py --config CONFIG --resume RUN`` (the training guide's command): the config must be the run's."""
    stop_after_first_checkpoint(run)
    config = write_config(tmp_path, {GOLF: {**TINY[GOLF], "total_timesteps": 1536}})
    assert experiment.main(["--config", str(config), "--resume", str(run), "--no-progress-bar"]) == 0
    assert json.loads((run / "training.json").read_text())["timesteps"] == 1536
    other = write_config(tmp_path, {GOLF: {**TINY[GOLF], "n_envs": 2, "policy_kwargs": {"net_arch": [32]}}})
    assert experiment.main(["--config", str(other), "--resume", str(run), "--no-progress-bar"]) == 2
    err = capsys.readouterr().err
    assert f"{other} differs from the config the run trained with: policy_kwargs.net_arch" in err


def test_the_report_names_the_best_model_saved_since_a_resume_that_set_the_old_one_aside(run):
    """The kept history's best evaluation (step 512) has no saved model once the abandoned best is set aside:
    the report's best model is the one saved since the resume, with its own step and mean return."""
    from agents.training.report import best_checkpoint

    kill_after_first_checkpoint(run)
    with np.load(run / "eval" / "evaluations.npz") as data:
        arrays = {key: data[key].copy() for key in data.files}
    arrays["results"][0] = 1e8  # step 512: better than anything the resumed run will score, below the late 1e9
    np.savez(run / "eval" / "evaluations.npz", **arrays)
    assert resume(run, "--total-timesteps", "1536") == 0
    _, step, mean = best_checkpoint(run)
    record = json.loads((run / "eval" / "best_model.json").read_text())
    assert (step, mean) == (record["step"], record["mean_return"])
    steps, results = evaluations(run)
    assert step in (1024, 1536) and mean == pytest.approx(results[steps.index(step)].mean())
    assert (run / "eval" / "best_model.abandoned.json").is_file()


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
        # The rows past the 512-step checkpoint (the stopped run's last stretch) are set aside, the rest kept.
        aside = (run / "monitor" / name.replace(".monitor.csv", ".monitor.abandoned.csv")).read_text().splitlines()
        kept = rows[: len(rows) - len(aside[2:])]
        assert aside[2:] == rows[len(kept) :] and len(kept) > 2
        assert after[name][: len(kept)] == kept, f"{name}: rows before the resume were lost"
        assert len(after[name]) > len(kept)
        times = [float(line.split(",")[2]) for line in after[name][2:]]
        assert times == sorted(times), f"{name}: the clock restarted at the resume"
    timing = json.loads((run / "training.json").read_text())
    assert timing["segments"][0] == first  # the interrupted segment's time is kept
    assert len(timing["segments"]) == 2 and timing["train_seconds"] > first["seconds"]
    from agents.training.report import _read_monitor

    steps, scores = _read_monitor(run)
    assert len(scores) == sum(len(rows) - 2 for rows in after.values()) and 1024 < steps[-1] <= 2048


def test_every_segment_deals_from_its_own_seeds(tmp_path):
    """A segment killed before it finished still counts, so a second resume never replays its deals."""
    path = tmp_path / "training.json"
    seen: set[int] = set()
    for expected in range(3):
        clock = run_directory.SegmentClock(path)
        assert clock.segment == expected
        clock.start(timesteps=100 * expected)  # then killed: the segment is on record, unfinished
        first = training_envs.segment_seed(0, clock.segment)
        deals = set(range(first, first + training_envs.SEED_STRIDE))
        assert first >= TRAIN_SEED_BASE and not deals & seen
        seen |= deals
    assert [s["finished"] for s in json.loads(path.read_text())["segments"]] == [False] * 3
    other_seed = training_envs.segment_seed(1, 0)
    assert not set(range(other_seed, other_seed + training_envs.SEED_STRIDE)) & seen


def test_a_run_dir_holding_a_run_is_refused_unless_resume_or_overwrite(run, tmp_path, capsys):
    config = write_config(tmp_path)
    model = (run / "model.zip").read_bytes()
    args = ["--config", str(config), "--run-dir", str(run), "--no-progress-bar"]
    assert experiment.main(args) == 2
    err = capsys.readouterr().err.strip()
    assert "not empty" in err and "--resume" in err and "--overwrite" in err and len(err.splitlines()) == 1
    assert (run / "model.zip").read_bytes() == model
    (run / "notes.txt").write_text("mine")
    assert experiment.main([*args, "--total-timesteps", "512", "--overwrite"]) == 0
    assert (run / "notes.txt").read_text() == "mine"  # --overwrite removes the run's files only
    assert json.loads((run / "training.json").read_text())["timesteps"] == 512
    assert [p.name for p in run_directory.checkpoints(run)] == ["model_512_steps.zip"]
    assert experiment.main(["--resume", str(run), "--run-dir", str(tmp_path / "x")]) == 2
    assert "--run-dir cannot be combined with --resume" in capsys.readouterr().err


def test_a_corrupt_checkpoint_is_named_and_resume_falls_back_to_an_intact_one(run, capsys):
    newest = run_directory.checkpoints(run)[0]
    assert newest.name == "model_1024_steps.zip"
    with zipfile.ZipFile(newest, "w") as archive:  # a valid zip, garbage inside
        for name in ("data", "policy.pth", "policy.optimizer.pth", "pytorch_variables.pth"):
            archive.writestr(name, b"\x00 not what SB3 wrote")
    assert resume(run, "--total-timesteps", "1536") == 0
    out = capsys.readouterr()
    assert f"checkpoint {newest} is corrupt" in out.err
    assert "from model_512_steps.zip at 512 steps" in out.out
    for path in run_directory.checkpoints(run):
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
        run_directory.save_atomically(Dies(), path)
    assert path.read_bytes() == b"the whole previous checkpoint"
    assert sorted(p.name for p in tmp_path.glob("*.zip")) == ["model_512_steps.zip"]


def test_every_saved_model_carries_its_spec(run):
    """Checkpoints, the best model and the final model are stamped with the env they play when saved."""
    from agents.load import read_model_spec

    saved = [*run_directory.checkpoints(run), run / "eval" / "best_model.zip", run / "model.zip"]
    assert len(saved) == 4
    for path in saved:
        spec = read_model_spec(path)
        assert spec is not None, f"{path} has no spec"
        assert (spec.env_id, spec.obs_encoding) == (GOLF, "planes")
    final = read_model_spec(run / "model.zip")
    assert final is not None and final.card == (run / "report.md").read_text()


def test_a_crash_after_training_leaves_a_stamped_model(tmp_path, monkeypatch):
    """The report failing after training loses nothing: model.zip is already saved with its spec."""
    from agents.load import read_model_spec
    from agents.training import report

    def broken(*args, **kwargs):
        raise RuntimeError("the report broke")

    monkeypatch.setattr(report, "write_report", broken)
    data = {GOLF: {**TINY[GOLF], "total_timesteps": 512, "eval": {"freq": 0}}}
    run_dir = tmp_path / "run"
    with pytest.raises(RuntimeError, match="the report broke"):
        experiment.main(["--config", str(write_config(tmp_path, data)), "--run-dir", str(run_dir), "--no-progress-bar"])
    spec = read_model_spec(run_dir / "model.zip")
    assert spec is not None and spec.env_id == GOLF


def test_checkpoint_freq_below_one_is_refused(tmp_path, capsys):
    for freq in (0, -5):
        data = {GOLF: {**TINY[GOLF], "checkpoint_freq": freq}}
        run_dir = tmp_path / f"run{freq}"
        assert experiment.main(["--config", str(write_config(tmp_path, data)), "--run-dir", str(run_dir)]) == 2
        err = capsys.readouterr().err
        assert f"{GOLF}.checkpoint_freq: Input should be greater than or equal to 1 (got {freq})" in err
        assert not run_dir.exists()


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_a_training_killed_with_sigkill_resumes_with_its_whole_history(tmp_path, capsys):
    """kill -9 a real training process after its second checkpoint, resume it, and lose at most one interval;
    while it trains a second writer is refused, naming it; the lock it leaves is taken over by the resume."""
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
    assert resume(run_dir) == 2  # a second writer while it trains
    err = capsys.readouterr().err.strip()
    assert f"run directory {run_dir} is in use by pid {proc.pid} on " in err and len(err.splitlines()) == 1, err
    assert not list(run_dir.rglob("*.abandoned.*"))  # refused before it set anything aside
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert json.loads((run_dir / LOCK_NAME).read_text())["pid"] == proc.pid  # the killed holder's lock is left
    killed_at = json.loads((run_dir / "training.json").read_text())["timesteps"]
    before_rows = monitor_rows(run_dir)
    before_steps, _ = evaluations(run_dir)
    newest = int(run_directory.checkpoints(run_dir)[0].stem.split("_")[1])
    assert killed_at - newest <= 2 * TINY[GOLF]["checkpoint_freq"]  # at most one interval (and a rollout) lost
    total = newest + 512
    assert resume(run_dir, "--total-timesteps", str(total)) == 0
    assert f"taking over run directory {run_dir} from pid {proc.pid} on " in capsys.readouterr().err
    assert (run_dir / LOCK_NAME).read_text() == ""  # released at the end
    from sb3_contrib import MaskablePPO

    assert MaskablePPO.load(run_dir / "model.zip").num_timesteps == total
    after_rows = monitor_rows(run_dir)
    for name, rows in before_rows.items():
        complete = rows if not rows or rows[-1].count(",") == 3 else rows[:-1]  # a row cut by the kill is dropped
        # The rows past the checkpoint (the stretch trained again) are kept aside; the others stay in place.
        aside_path = run_dir / "monitor" / name.replace(".monitor.csv", ".monitor.abandoned.csv")
        aside = aside_path.read_text().splitlines()[2:] if aside_path.is_file() else []
        kept = complete[: len(complete) - len(aside)]
        assert after_rows[name][: len(kept)] == kept and aside == complete[len(kept) :]
    steps, _ = evaluations(run_dir)
    assert steps == sorted(set(steps)) and steps[-1] == total  # strictly increasing
    assert steps[: len([s for s in before_steps if s <= newest])] == [s for s in before_steps if s <= newest]
    timing = json.loads((run_dir / "training.json").read_text())
    assert [s["finished"] for s in timing["segments"]] == [False, True]
    assert timing["segments"][1]["timesteps_at_start"] == newest


#: Holds a directory's writer lock until killed; the lock module alone (stdlib only): no agents/ import to wait for.
HOLDER = """
import importlib.util, sys, time
spec = importlib.util.spec_from_file_location("writer_lock", sys.argv[1])
lock = importlib.util.module_from_spec(spec)
spec.loader.exec_module(lock)
with lock.hold_directory(sys.argv[2], "run directory"):
    print("held", flush=True)
    time.sleep(600)
"""


@contextlib.contextmanager
def held_by_another_process(folder: Path) -> Iterator[subprocess.Popen[str]]:
    """Another live process holds ``folder``'s writer lock while the block runs; then it is killed (kill -9)."""
    module = ROOT / "agents" / "evaluation" / "writer_lock.py"
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(module), str(folder)], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
        yield proc
    finally:
        proc.kill()
        proc.wait()


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_a_second_writer_is_refused_naming_the_holder_and_touches_nothing(run, tmp_path, capsys):
    """--resume, --overwrite and a new run in a directory another live process writes are refused in one line
    naming its pid, before anything there is read or written; once it is killed, its lock is taken over."""
    config = str(write_config(tmp_path))
    stop_after_first_checkpoint(run)  # a resume would set the stretch past 512 aside, were it let in
    empty = tmp_path / "empty"
    with held_by_another_process(run) as holder, held_by_another_process(empty) as other:
        before = snapshot(run)
        for argv, folder, pid in [
            (["--resume", str(run)], run, holder.pid),
            (["--config", config, "--run-dir", str(run), "--overwrite"], run, holder.pid),
            (["--config", config, "--run-dir", str(empty)], empty, other.pid),  # a lock alone is no run: in use
        ]:
            assert experiment.main([*argv, "--no-progress-bar"]) == 2
            err = capsys.readouterr().err.strip()
            assert err.startswith(f"error: run directory {folder} is in use by pid {pid} on "), err
            assert len(err.splitlines()) == 1, err
        assert snapshot(run) == before  # the holder's record in the lock file too
        assert sorted(p.name for p in empty.iterdir()) == [LOCK_NAME]
    assert resume(run, "--total-timesteps", "1024") == 0  # the holder was killed: its lock is taken over
    err = capsys.readouterr().err
    assert f"taking over run directory {run} from pid {holder.pid} on " in err and "which has ended" in err
    assert json.loads((run / "training.json").read_text())["timesteps"] == 1024


def test_the_lock_is_held_while_a_run_trains_and_overwrite_keeps_it(run, tmp_path, monkeypatch):
    """The run holds its directory from before --overwrite clears it to the end; clearing leaves the lock file
    (another writer would otherwise make a new one and get in), and a lock file alone is no run to refuse."""
    made = experiment.new_model
    held: list[Path] = []

    def checked(config, envs, run_dir, seed):
        with pytest.raises(DirectoryInUseError), hold_directory(run_dir):
            pass
        held.append(run_dir)
        return made(config, envs, run_dir, seed)

    monkeypatch.setattr(experiment, "new_model", checked)
    lock = (run / LOCK_NAME).stat().st_ino
    config = str(write_config(tmp_path, {GOLF: {**TINY[GOLF], "total_timesteps": 512, "eval": {"freq": 0}}}))
    assert experiment.main(["--config", config, "--run-dir", str(run), "--overwrite", "--no-progress-bar"]) == 0
    assert (run / LOCK_NAME).stat().st_ino == lock and (run / LOCK_NAME).read_text() == ""  # released
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    (fresh / LOCK_NAME).write_text("")  # what a run refused or stopped before writing anything leaves
    assert experiment.main(["--config", config, "--run-dir", str(fresh), "--no-progress-bar"]) == 0
    assert held == [run, fresh] and (fresh / "model.zip").is_file()


def test_a_refusal_after_the_lock_is_taken_leaves_the_file_system_as_it_was(tmp_path, monkeypatch, capsys):
    """A ConfigError once the run directory is held (the model refusing its envs) removes what the start made:
    a new run directory and the parents it made are gone, a directory that was there and empty stays empty."""

    def refuses(*args, **kwargs):
        raise experiment.ConfigError("the model refuses the envs")

    monkeypatch.setattr(experiment, "new_model", refuses)
    config = str(write_config(tmp_path))
    existing = tmp_path / "existing"
    existing.mkdir()
    for run_dir in (tmp_path / "a" / "b" / "run", existing):
        assert experiment.main(["--config", config, "--run-dir", str(run_dir), "--no-progress-bar"]) == 2
        assert capsys.readouterr().err.strip() == "error: the model refuses the envs"
    assert not (tmp_path / "a").exists() and list(existing.iterdir()) == []
