"""The training envs: vectorised (batched numba engine, or SB3's dummy/subproc), their deal seeds, their
monitor files (continued across resumes), and the held-out evaluation's cycled deals."""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Any

import gymnasium as gym

from agents.training.config import MAX_ENVS, TRAIN_SEED_BASE, ConfigError, TrainConfig

#: Seeds of one training segment: TRAIN_SEED_BASE + SEED_STRIDE * (seed * MAX_SEGMENTS + segment) + env index.
SEED_STRIDE = MAX_ENVS
MAX_SEGMENTS = 100


def segment_seed(seed: int, segment: int) -> int:
    """The first training seed of a run segment: apart from every config seed and every other segment."""
    if segment >= MAX_SEGMENTS:
        raise ConfigError(f"a run takes at most {MAX_SEGMENTS} segments (resumes); this one has {segment}")
    return TRAIN_SEED_BASE + SEED_STRIDE * (seed * MAX_SEGMENTS + segment)


def select_vec(requested: str, config: TrainConfig) -> tuple[str, str | None]:
    """The vector env to use and, when it is not the requested one, why.

    ``batched`` needs :mod:`patience_gym.vector` (numba) with an engine for the env and its encoding;
    otherwise the run falls back to ``dummy``.
    """
    if requested != "batched":
        return requested, None
    try:
        from patience_gym.vector import batched_supported
    except ImportError as exc:
        return "dummy", f"the batched engine is not installed ({exc})"
    encoding = config.env_kwargs.get("obs_encoding")
    try:
        batched_maker()
        ok = batched_supported(config.learner_env_id, encoding)
    except ImportError as exc:
        return "dummy", f"the batched engine cannot load ({exc})"
    if not ok:
        return "dummy", f"no batched engine for {config.learner_env_id} with obs_encoding={encoding!r}"
    return "batched", None


def batched_maker() -> Any:
    """``make_sb3_vec_env`` of :mod:`agents.training.sb3_vec_env` (the SB3 adapter); ImportError without numba."""
    return importlib.import_module("agents.training.sb3_vec_env").make_sb3_vec_env


def make_envs(
    config: TrainConfig,
    n_envs: int,
    seed: int,
    vec: str,
    monitor_dir: Path | None = None,
    cycle: int | None = None,
) -> Any:
    """The vectorised training envs (episodes logged to ``monitor_dir``, masks reachable through the wrappers).

    Env ``i`` deals from seed ``seed + i``. A monitor file already there is continued, not replaced.
    With ``cycle`` the deals are seeds ``seed .. seed + cycle - 1`` over and over (:class:`CycledDeals`):
    what the held-out evaluations need. One env deals them in turn; ``cycle`` envs deal one each, always
    the same, so that an evaluation plays them side by side (one batched pass of the policy a move).
    """
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecMonitor

    import patience_gym  # noqa: F401 - registers the envs

    if cycle is not None and n_envs not in (1, cycle):
        raise ValueError(f"cycled deals need a single env or one env a deal ({cycle}), got {n_envs} envs")
    if vec == "batched":
        venv = batched_maker()(config.learner_env_id, n_envs, seed, {"render_mode": None, **config.env_kwargs})
        if monitor_dir is None:
            return venv
        monitored = VecMonitor(venv, info_keywords=("score",))  # no file yet: appending_writer opens it
        monitored.results_writer = appending_writer(monitor_dir / "batched", monitored, config.learner_env_id)
        return monitored

    def factory(rank: int) -> Any:
        def make() -> gym.Env:  # type: ignore[type-arg]
            from stable_baselines3.common.monitor import Monitor

            env = gym.make(config.learner_env_id, **{"render_mode": None, **config.env_kwargs})
            env.action_space.seed(seed + rank)
            monitor = Monitor(env, info_keywords=("score",))  # no file yet: appending_writer opens it
            if monitor_dir is not None:
                monitor.results_writer = appending_writer(monitor_dir / str(rank), monitor, config.learner_env_id)
            if cycle is None:
                return monitor
            if n_envs == 1:
                return CycledDeals(monitor, first=seed, count=cycle)
            return CycledDeals(monitor, first=seed + rank, count=1)

        return make

    vec_cls = SubprocVecEnv if vec == "subproc" else DummyVecEnv
    venv = vec_cls([factory(i) for i in range(n_envs)])
    venv.seed(seed)
    return venv


def appending_writer(stem: Path, monitor: Any, env_id: str) -> Any:
    """A monitor's ResultsWriter that continues ``<stem>.monitor.csv`` when it exists.

    The monitor's clock is set to the file's own start, so times stay one timeline across resumes;
    a row cut short by a kill is dropped.
    """
    from stable_baselines3.common.monitor import ResultsWriter

    path = stem.with_name(stem.name + ".monitor.csv")
    keys = tuple(getattr(monitor, "reset_keywords", ())) + tuple(monitor.info_keywords)
    if path.is_file() and path.stat().st_size > 0:
        text = path.read_text()
        header = json.loads(text.splitlines()[0][1:])
        if not text.endswith("\n"):
            path.write_text(text[: text.rfind("\n") + 1])
        monitor.t_start = float(header["t_start"])
        return ResultsWriter(str(path), extra_keys=keys, override_existing=False)
    path.parent.mkdir(parents=True, exist_ok=True)
    header = {"t_start": monitor.t_start, "env_id": env_id}
    return ResultsWriter(str(path), header=header, extra_keys=keys, override_existing=True)


class CycledDeals(gym.Wrapper):  # type: ignore[type-arg]
    """Deals seeds ``first .. first + count - 1`` in turn, then again from ``first``.

    A vectorised env is seeded once, at its first reset; after that each deal comes from
    the env's random stream. So without this, every held-out evaluation would play new
    deals, and evaluations (and ``report: {model: best}``, which picks among them) would
    compare policies on different deals.
    """

    def __init__(self, env: gym.Env, first: int, count: int) -> None:  # type: ignore[type-arg]
        super().__init__(env)
        self.first, self.count, self._next = first, count, 0

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        deal = self.first + self._next % self.count
        self._next += 1
        return self.env.reset(seed=deal, options=options)
