"""Training callbacks that survive a kill: atomic checkpoints, a wall clock, resumable held-out evaluations.

Checkpoints and evaluations fall on multiples of their step interval (counted in env steps over the
whole run), so a resumed run keeps the schedule of the run it continues.
"""

from __future__ import annotations

import json
import os
import shutil
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from sb3_contrib.common.maskable.callbacks import MaskableEvalCallback
from stable_baselines3.common.callbacks import BaseCallback

from agents.evaluation.sharding import write_atomically
from agents.training.run_directory import write_json_atomically


class AtomicCheckpoint(BaseCallback):
    """Saves ``folder/model_<steps>_steps.zip`` each time the step count passes a multiple of ``every``."""

    def __init__(self, every: int, folder: Path, save: Callable[[Any, Path], None]) -> None:
        super().__init__()
        if every < 1:
            raise ValueError(f"checkpoint interval must be at least 1 step, got {every}")
        self.every, self.folder, self.save = every, folder, save
        self._done = 0

    def _on_training_start(self) -> None:
        self._done = self.num_timesteps // self.every
        self.folder.mkdir(parents=True, exist_ok=True)

    def _on_step(self) -> bool:
        if self.num_timesteps // self.every > self._done:
            self._done = self.num_timesteps // self.every
            self.save(self.model, self.folder / f"model_{self.num_timesteps}_steps.zip")
        return True


class ClockCallback(BaseCallback):
    """Brings the run's ``training.json`` up to date after every rollout."""

    def __init__(self, clock: Any) -> None:
        super().__init__()
        self.clock = clock

    def _on_step(self) -> bool:
        return True

    def _on_rollout_end(self) -> None:
        self.clock.update(self.num_timesteps)


class ProgressReport(BaseCallback):
    """Hands ``report`` the run's progress at the end of every rollout: its steps, and the held-out evaluation's
    last mean return where the run has one (``eval_return``, read from ``eval/evaluations.npz`` when it
    changes). A sweep's trial reports to Ray Tune with it."""

    def __init__(self, run_dir: Path, report: Callable[[dict[str, Any]], None]) -> None:
        super().__init__()
        self.history, self.report = run_dir / "eval" / "evaluations.npz", report
        self._seen = 0.0
        self._last: float | None = None

    def _on_rollout_end(self) -> None:
        stamp = self.history.stat().st_mtime if self.history.is_file() else 0.0
        if stamp != self._seen:
            self._seen = stamp
            results = read_evaluations(self.history)["results"]
            self._last = float(np.mean(results[-1])) if len(results) else None
        found: dict[str, Any] = {"timesteps": int(self.num_timesteps), "done": False}
        if self._last is not None:
            found["eval_return"] = self._last
        self.report(found)

    def _on_step(self) -> bool:
        return True


class ResumableEvalCallback(MaskableEvalCallback):
    """MaskableEvalCallback that continues ``folder/evaluations.npz`` and keeps ``folder/best_model.zip``.

    Earlier evaluations of the run are loaded first: the history goes on, and the best model is
    replaced only by a better mean return than any so far. Both files are written to a temporary
    name and renamed, so a kill leaves either the old file or the new one. Evaluations fall every
    ``eval_freq * n_envs`` env steps of the whole run.
    """

    def __init__(
        self,
        eval_env: Any,
        folder: Path,
        n_eval_episodes: int,
        eval_freq: int,
        stamp: Callable[[Path], Any] | None = None,
        clock: Any = None,
    ) -> None:
        """``stamp`` writes the model's spec into a new best model before it takes the place of the old one;
        ``clock`` (the run's :class:`~agents.training.run_directory.SegmentClock`) gives each evaluation's
        training time, kept in ``folder/eval_times.json``."""
        self.folder, self.stamp, self.clock = folder, stamp, clock
        self.scratch = folder / ".incoming"
        super().__init__(
            eval_env,
            n_eval_episodes=n_eval_episodes,
            eval_freq=eval_freq,
            log_path=str(self.scratch),  # EvalCallback writes <log_path>/evaluations.npz
            best_model_save_path=str(self.scratch),
            deterministic=True,
            verbose=0,
        )
        self.every_calls = eval_freq
        self._done = 0

    def _init_callback(self) -> None:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="Training and eval env are not of the same type")
            super()._init_callback()
        shutil.rmtree(self.scratch, ignore_errors=True)  # what a killed run left half-written
        self.scratch.mkdir(parents=True)
        self.every = self.every_calls * self.training_env.num_envs
        self._done = self.model.num_timesteps // self.every
        history = self.folder / "evaluations.npz"
        if not history.is_file():
            return
        data = read_evaluations(history)
        self.evaluations_timesteps = [int(t) for t in data["timesteps"]]
        self.evaluations_results = [list(r) for r in data["results"]]
        self.evaluations_length = [list(r) for r in data["ep_lengths"]]
        if (self.folder / "best_model.zip").is_file() and self.evaluations_results:
            self.best_mean_reward = float(max(np.mean(r) for r in self.evaluations_results))

    def _on_step(self) -> bool:
        due = self.num_timesteps // self.every > self._done
        if due:
            self._done = self.num_timesteps // self.every
        self.eval_freq = 1 if due else 0  # the parent evaluates when n_calls % eval_freq == 0
        keep_going = super()._on_step()
        if due and (self.scratch / "best_model.zip").is_file():  # a new best: say which step and score it is
            record = {"step": int(self.num_timesteps), "mean_return": float(self.best_mean_reward)}
            (self.scratch / BEST_RECORD).write_text(json.dumps(record))
            if self.stamp is not None:
                self.stamp(self.scratch / "best_model.zip")
        if due and self.clock is not None:
            self._record_time()
        for name in ("evaluations.npz", BEST_RECORD, "best_model.zip") if due else ():
            incoming = self.scratch / name
            if incoming.is_file():
                os.replace(incoming, self.folder / name)
        return keep_going

    def _record_time(self) -> None:
        """Add this evaluation's step and the run's training seconds so far to ``eval_times.json``."""
        self.clock.update(self.num_timesteps)
        path = self.folder / EVAL_TIMES
        times = [t for t in read_eval_times(path) if t["step"] < self.num_timesteps]
        times.append({"step": int(self.num_timesteps), "train_seconds": float(self.clock.record["train_seconds"])})
        write_json_atomically(path, times)


#: Beside ``evaluations.npz``: the training time (warm start included) at each evaluation's step.
EVAL_TIMES = "eval_times.json"


def read_eval_times(path: Path) -> list[dict[str, Any]]:
    """The evaluations' ``{"step", "train_seconds"}`` records (none when the file is missing or unreadable)."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return []
    return (
        [t for t in data if isinstance(t, dict) and {"step", "train_seconds"} <= t.keys()]
        if isinstance(data, list)
        else []
    )


#: Beside ``best_model.zip``: the step it was saved at and its mean return (a resume can make the
#: best model younger than the best evaluation kept in the history, so the history cannot say).
BEST_RECORD = "best_model.json"

#: What every evaluations.npz holds (EvalCallback's arrays, one row per evaluation).
EVALUATION_KEYS = ("timesteps", "results", "ep_lengths")


def read_evaluations(path: Path) -> dict[str, np.ndarray]:
    """The arrays of an ``evaluations.npz``; a ValueError naming the file when it is not one."""
    try:
        with np.load(path) as data:
            arrays = {key: data[key] for key in data.files}
    except Exception as exc:  # a damaged file raises anything from zip, pickle or numpy's format
        raise ValueError(f"{path} is not an evaluation history ({type(exc).__name__}: {exc})") from None
    missing = [key for key in EVALUATION_KEYS if key not in arrays]
    if missing:
        raise ValueError(f"{path} is not an evaluation history (it has no {', '.join(missing)})")
    if len({len(a) for a in arrays.values()}) != 1:
        raise ValueError(f"{path} is not an evaluation history (its arrays have different lengths)")
    return arrays


def set_aside_evaluations(folder: Path, steps: int) -> int:
    """Move the evaluations past ``steps`` (made in a stretch a resume went back on) to ``evaluations.abandoned.npz``.

    Their ``resumed_from`` array says from which step the run went on. When the best model was saved in
    that stretch it goes aside too (``best_model.abandoned.zip``): the resumed run saves its own.
    Returns how many evaluations were set aside.
    """
    path = folder / "evaluations.npz"
    if not path.is_file():
        return 0
    arrays = read_evaluations(path)
    late = arrays["timesteps"] > steps
    if not late.any():
        return 0
    aside = {key: a[late] for key, a in arrays.items()} | {"resumed_from": np.full(int(late.sum()), steps)}
    store = folder / "evaluations.abandoned.npz"
    if store.is_file():
        earlier = read_evaluations(store)
        aside = {key: np.concatenate([earlier[key], a]) for key, a in aside.items() if key in earlier}
    best = int(np.argmax(arrays["results"].mean(axis=1)))  # EvalCallback keeps the first best
    _savez_atomically(store, aside)
    _savez_atomically(path, {key: a[~late] for key, a in arrays.items()})
    if late[best] and (folder / "best_model.zip").is_file():
        os.replace(folder / "best_model.zip", folder / "best_model.abandoned.zip")
        if (folder / BEST_RECORD).is_file():
            os.replace(folder / BEST_RECORD, folder / "best_model.abandoned.json")
    return int(late.sum())


def _savez_atomically(path: Path, arrays: dict[str, np.ndarray]) -> None:
    write_atomically(path, lambda file: np.savez(file, **arrays))  # type: ignore[arg-type]
