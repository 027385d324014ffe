"""Training callbacks that survive a kill: atomic checkpoints, a wall clock, resumable held-out evaluations.

Checkpoints and evaluations fall on multiples of their step interval (counted in env steps over the
whole run), so a resumed run keeps the schedule of the run it continues.
"""

from __future__ import annotations

import os
import shutil
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from sb3_contrib.common.maskable.callbacks import MaskableEvalCallback
from stable_baselines3.common.callbacks import BaseCallback


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
    ) -> None:
        """``stamp`` writes the model's spec into a new best model before it takes the place of the old one."""
        self.folder, self.stamp = folder, stamp
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
        try:
            with np.load(history) as data:
                self.evaluations_timesteps = [int(t) for t in data["timesteps"]]
                self.evaluations_results = [list(r) for r in data["results"]]
                self.evaluations_length = [list(r) for r in data["ep_lengths"]]
        except (OSError, ValueError, KeyError) as exc:
            raise ValueError(f"cannot continue the evaluation history: {history} is unreadable ({exc})") from exc
        if (self.folder / "best_model.zip").is_file() and self.evaluations_results:
            self.best_mean_reward = float(max(np.mean(r) for r in self.evaluations_results))

    def _on_step(self) -> bool:
        due = self.num_timesteps // self.every > self._done
        if due:
            self._done = self.num_timesteps // self.every
        self.eval_freq = 1 if due else 0  # the parent evaluates when n_calls % eval_freq == 0
        keep_going = super()._on_step()
        for name in ("evaluations.npz", "best_model.zip") if due else ():
            incoming = self.scratch / name
            if incoming.is_file():
                if name == "best_model.zip" and self.stamp is not None:
                    self.stamp(incoming)
                os.replace(incoming, self.folder / name)
        return keep_going
