"""A training run's directory: its files, checkpoints, training record and monitor files, written so that a
kill leaves each file whole, and what a resume finds there (the newest intact checkpoint; the episodes and
evaluations past it, set aside)."""

from __future__ import annotations

import contextlib
import functools
import json
import os
import re
import shutil
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import gymnasium as gym

from agents.evaluation.sharding import write_atomically
from agents.evaluation.writer_lock import LOCK_NAME, DirectoryInUseError, hold_directory
from agents.training.config import ConfigError, TrainConfig, ppo_settings

CHECKPOINT_RE = re.compile(r"model_(\d+)_steps\.zip$")
#: The policy right after the warm start (behaviour cloning), before any PPO step.
WARM_START = "warm_start.zip"
#: What a run directory holds; ``--overwrite`` removes these (and nothing else: not the writer lock, LOCK_NAME).
RUN_FILES = (
    "config.yaml",
    "tb",
    "monitor",
    "checkpoints",
    "eval",
    "model.zip",
    "training.json",
    "pretrain.json",
    WARM_START,
    "report.md",
    "results.json",
    "learning_curve.png",
    "scores.png",
)


def clear_run(run_dir: Path) -> None:
    """Remove what a run wrote in ``run_dir`` (:data:`RUN_FILES`), and nothing else."""
    for name in RUN_FILES:
        path = run_dir / name
        if path.is_dir():
            shutil.rmtree(path)
        elif path.exists():
            path.unlink()


def run_contents(run_dir: Path) -> list[str]:
    """The names in ``run_dir`` (none where it does not exist), its writer lock left out: a lock alone is no run."""
    if not run_dir.is_dir():
        return []
    return sorted(p.name for p in run_dir.iterdir() if p.name != LOCK_NAME)


@contextlib.contextmanager
def hold_run(run_dir: Path, report: Callable[[str], None] | None = None, what: str = "run directory") -> Iterator[Path]:
    """Be ``run_dir``'s one writer while the block runs (the lock of :mod:`agents.evaluation.writer_lock`).

    Another live writer is a ConfigError naming it; a lock left by a killed one is taken over, and ``report``
    (default: stderr) says whose it was. A ConfigError in the block (a refusal) removes what taking the lock
    made, the lock file and the folders, so that a refused command leaves the file system as it found it.
    """
    made = [p for p in (run_dir, *run_dir.parents) if not p.exists()]  # deepest first
    had_lock = (run_dir / LOCK_NAME).exists()
    with contextlib.ExitStack() as stack:
        try:
            stack.enter_context(hold_directory(run_dir, what, report=report))
        except DirectoryInUseError as exc:
            raise ConfigError(str(exc)) from None
        except OSError as exc:
            remove_folders(made)
            raise ConfigError(f"{what} {run_dir} cannot be written: {exc.strerror or exc}") from None
        try:
            yield run_dir
        except ConfigError:
            if not had_lock:  # removed while still held: a writer come meanwhile was refused
                (run_dir / LOCK_NAME).unlink(missing_ok=True)
            remove_folders(made)
            raise


def remove_folders(folders: list[Path]) -> None:
    """Remove ``folders`` (deepest first) where they are empty; one holding anything stays, with its parents."""
    for folder in folders:
        try:
            folder.rmdir()
        except OSError:
            return


def checkpoints(run_dir: Path) -> list[Path]:
    """The run's checkpoints, newest first."""
    found = [
        (int(m.group(1)), p)
        for p in (run_dir / "checkpoints").glob("model_*_steps.zip")
        if (m := CHECKPOINT_RE.search(p.name))
    ]
    return [p for _, p in sorted(found, reverse=True)]


def resume_point(run_dir: Path, config: TrainConfig) -> tuple[Path, int]:
    """The newest checkpoint that loads, and its step count; a corrupt one is named and the one before tried.

    A checkpoint whose observations or actions do not fit ``config``'s env is a changed config, not a corrupt file.
    """
    import zipfile

    from sb3_contrib import MaskablePPO

    found = checkpoints(run_dir)
    if not found:
        raise ConfigError(
            f"cannot resume: no checkpoint in {run_dir / 'checkpoints'}; start the run again with "
            f"--run-dir {run_dir} --overwrite"
        )
    env = gym.make(config.learner_env_id, **config.env_kwargs)
    fits = (env.observation_space.shape, int(env.action_space.n))  # type: ignore[attr-defined]
    for path in found:
        try:
            with zipfile.ZipFile(path) as archive:
                whole = archive.testzip() is None and {"data", "policy.pth"} <= set(archive.namelist())
            model = MaskablePPO.load(path, device="cpu") if whole else None
        except Exception as exc:  # an unreadable archive raises anything from zip, json, pickle or torch
            warn(f"checkpoint {path} is corrupt ({type(exc).__name__}: {exc}); trying an older one")
            continue
        if model is None:
            warn(f"checkpoint {path} is corrupt; trying an older one")
            continue
        held = (model.observation_space.shape, int(model.action_space.n))  # type: ignore[attr-defined]
        if held != fits:
            raise ConfigError(
                f"cannot resume: checkpoint {path} (observations {held[0]}, {held[1]} actions) does not fit the env "
                f"of {run_dir / 'config.yaml'} ({config.learner_env_id}: {fits[0]}, {fits[1]} actions): "
                "was config.yaml edited?"
            )
        return path, int(model.num_timesteps)
    raise ConfigError(f"cannot resume: every checkpoint in {run_dir / 'checkpoints'} is corrupt")


def load_checkpoint(path: Path, envs: Any) -> Any:
    """The checkpoint :func:`resume_point` chose, with the training envs."""
    from sb3_contrib import MaskablePPO

    try:
        return MaskablePPO.load(path, env=envs, device="cpu")
    except Exception as exc:  # it loaded on its own: what fails here is the envs it is given
        raise ConfigError(f"cannot resume: checkpoint {path} does not take the training envs ({exc})") from None


#: Settings a resumed run may change; the rest are held by its checkpoints (the network, PPO's settings,
#: the env) or by its history (the held-out deals).
RESUME_FREE = ("total_timesteps", "n_envs", "checkpoint_freq", "report", "pretrain", "vec")


def config_changes(trained: dict[str, Any], now: dict[str, Any]) -> list[str]:
    """The settings (dotted keys) of ``now`` that differ from ``trained`` and a resume cannot change, in words."""
    before, after = flat_settings(trained), flat_settings(now)
    missing = object()
    changes = []
    for key in [*before, *(k for k in after if k not in before)]:
        old, new = before.get(key, missing), after.get(key, missing)
        if key.split(".")[0] not in RESUME_FREE and old != new:
            shown = ["unset" if v is missing else repr(v) for v in (old, new)]
            changes.append(f"{key} (trained with {shown[0]}, now {shown[1]})")
    return changes


def flat_settings(config: dict[str, Any]) -> dict[str, Any]:
    """A config (``dataclasses.asdict``) as dotted keys, ppo's defaults filled in."""
    flat: dict[str, Any] = {}

    def walk(prefix: str, value: Any) -> None:
        if isinstance(value, dict) and value:
            for key, item in value.items():
                walk(f"{prefix}.{key}" if prefix else str(key), item)
        else:
            flat[prefix] = value

    walk("", {**config, "ppo": ppo_settings(config.get("ppo", {}))})
    return flat


def read_record(run_dir: Path) -> dict[str, Any]:
    """The run's ``training.json`` (steps, times, seed, vec, config), empty before its first segment."""
    path = run_dir / "training.json"
    if not path.is_file():
        return {}
    try:
        record = json.loads(path.read_text())
        if not isinstance(record, dict) or not isinstance(record.get("segments"), list):
            raise ValueError("no list of segments")
    except (ValueError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot resume: {path} is not a training record ({exc})") from None
    return record


def warn(message: str) -> None:
    print(f"warning: {message}", file=sys.stderr)


def save_atomically(model: Any, path: Path, stamp: Callable[[Path], Any] | None = None) -> None:
    """``model.save(path)`` through a temporary file and a rename: a kill leaves the old file or the new one.

    ``stamp`` writes the model's spec into the temporary file first, so no model is ever there without it.
    """
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "wb") as fh:
        model.save(fh)
    if stamp is not None:
        stamp(tmp)
    with open(tmp, "rb") as fh:
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def spec_stamp(config: TrainConfig) -> Callable[[Path], Any]:
    """Writes the run's env id, rule options and encoding into a saved model (``agents.load(path)`` plays it)."""
    from agents.load import save_model_spec

    return functools.partial(save_model_spec, env_id=config.learner_env_id, env_kwargs=config.env_kwargs)


def write_json_atomically(path: Path, data: Any) -> None:
    write_text_atomically(path, json.dumps(data, indent=2))


def read_monitor_file(path: Path) -> tuple[dict[str, Any], list[str], list[str]]:
    """A monitor file's header (``t_start``, ...), its two header lines and its whole rows (a row cut by a
    kill is left out); a ConfigError naming the file when it is cut inside its header."""
    lines = path.read_text().split("\n")[:-1]  # the last piece: "" or a row cut short
    try:
        header = json.loads(lines[0][1:]) if lines and lines[0].startswith("#") else None
        columns = lines[1].split(",") if len(lines) > 1 else []
        if not isinstance(header, dict) or not {"l", "t"} <= set(columns):
            raise ValueError
        float(header["t_start"])
    except (ValueError, KeyError, TypeError):
        raise ConfigError(
            f"cannot resume: monitor file {path} is cut inside its header (no episodes are in it): "
            f"delete it and resume again"
        ) from None
    return header, lines[:2], lines[2:]


def set_aside_monitor_rows(folder: Path, steps: int, before: float) -> int:
    """Move the training episodes a resume goes back on to ``<name>.monitor.abandoned.csv``; returns how many.

    Episodes are taken in the order they ended (as the learning curve takes them); those from the first whose
    summed lengths pass ``steps`` on, or that ended after ``before`` (the checkpoint's time), are set aside.
    """
    files = [(p, *read_monitor_file(p)) for p in sorted(folder.glob("*.monitor.csv")) if p.stat().st_size > 0]
    ends = []  # (when it ended, its length, file, row)
    for f, (path, header, head, rows) in enumerate(files):
        columns = head[1].split(",")
        at_t, at_l = columns.index("t"), columns.index("l")
        for i, row in enumerate(rows):
            cells = row.split(",")
            try:
                ends.append((float(header["t_start"]) + float(cells[at_t]), float(cells[at_l]), f, i))
            except (ValueError, IndexError):
                raise ConfigError(f"cannot resume: line {i + 3} of monitor file {path} is not a row: {row!r}") from None
    late: set[tuple[int, int]] = set()
    total = 0.0
    for end, length, f, i in sorted(ends):
        total += length
        if late or total > steps or end > before:
            late.add((f, i))
    for f, (path, header, head, rows) in enumerate(files):
        kept = [row for i, row in enumerate(rows) if (f, i) not in late]
        if len(kept) == len(rows):
            continue
        aside = path.with_name(path.name.removesuffix(".monitor.csv") + ".monitor.abandoned.csv")
        if aside.is_file():  # an earlier resume's rows, then this one's under a line saying where it went back to
            lead = aside.read_text() + f"#{json.dumps({'resumed_from': steps})}\n"
        else:
            lead = f"#{json.dumps({**header, 'resumed_from': steps})}\n{head[1]}\n"
        dropped = [row for i, row in enumerate(rows) if (f, i) in late]
        write_text_atomically(aside, lead + "".join(row + "\n" for row in dropped))  # first: no row is ever lost
        write_text_atomically(path, "".join(line + "\n" for line in [*head, *kept]))
    return len(late)


def write_text_atomically(path: Path, text: str) -> None:
    write_atomically(path, lambda file: file.write(text.encode()))


class SegmentClock:
    """Steps and wall time of each run segment in ``training.json``, kept up to date while training.

    A segment killed mid-way keeps the time and steps of its last update; ``segment`` (the number of
    segments before this one) gives each segment its own deal seeds.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.record: dict[str, Any] = json.loads(path.read_text()) if path.is_file() else {"segments": []}
        self.segment = len(self.record["segments"])
        self.began = time.perf_counter()

    def start(self, timesteps: int, **run: Any) -> None:
        """A new segment from ``timesteps``; ``run``: what the run is (seed, vec, config) to keep on record."""
        self.record.update(run)
        self.record["segments"].append({"seconds": 0.0, "timesteps_at_start": timesteps, "finished": False})
        self.update(timesteps)

    def update(self, timesteps: int, finished: bool = False) -> None:
        current = self.record["segments"][-1]
        current.update(seconds=time.perf_counter() - self.began, timesteps_at_end=timesteps, finished=finished)
        self.record["timesteps"] = timesteps
        self.record["train_seconds"] = sum(s["seconds"] for s in self.record["segments"])
        write_json_atomically(self.path, self.record)
