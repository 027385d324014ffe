"""Training configs: YAML keyed by env id (rl-zoo style), checked into dataclasses.

::

    patience_gym/Golf-v0:
      env_kwargs: {obs_encoding: planes}
      n_envs: 4
      total_timesteps: 100000
      policy_kwargs: {net_arch: [128, 128]}
      ppo: {n_steps: 256, batch_size: 256, learning_rate: 3.0e-4}
      checkpoint_freq: 20000
      eval: {freq: 20000, episodes: 50, seed: 1000000}
      report: {episodes: 500, seed: 0, agents: [random, greedy]}

``learning_rate`` and ``clip_range`` may be written ``lin_<start>`` (rl-zoo's
notation): a linear decay from ``<start>`` to 0 over the run.

Any unknown key, or a value of the wrong type, is a :class:`ConfigError`
naming the key and the file.
"""

from __future__ import annotations

import dataclasses
import inspect
import re
import types
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

#: The PPO policies a report may play (``report.model``).
REPORT_MODELS = ("final", "best")


class ConfigError(ValueError):
    """A training config that cannot be used, with the key and file named."""


@dataclasses.dataclass
class EvalConfig:
    """Periodic evaluation on held-out deals during training (MaskableEvalCallback)."""

    freq: int = 20_000  # env steps between evaluations (0: none)
    episodes: int = 50
    seed: int = 1_000_000  # every evaluation plays the deals of seeds seed .. seed + episodes - 1


@dataclasses.dataclass
class ReportConfig:
    """Final comparison on the same seeded deals."""

    episodes: int = 500
    seed: int = 0
    agents: list[str] = dataclasses.field(default_factory=lambda: ["random", "greedy"])
    #: Which PPO policy the report plays: ``final`` (the run's ``model.zip``) or ``best`` (the one
    #: the held-out evaluation during training scored best, ``eval/best_model.zip``; needs ``eval.freq``).
    model: str = "final"
    #: Processes that play the report's deals (each agent's deals split into blocks; same results).
    jobs: int = 1


@dataclasses.dataclass
class PretrainConfig:
    """Behaviour cloning of a teacher before PPO (:mod:`agents.imitation`); ``episodes: 0`` skips it."""

    teacher: str = "greedy"  # greedy, planner or solver (privileged: see agents.imitation); options: planner:margin=1
    episodes: int = 0  # teacher games to record
    seed: int = 2_000_000  # their deal seeds start here (apart from the eval and report deals)
    epochs: int = 10
    batch_size: int = 256
    learning_rate: float = 1.0e-3
    value_coef: float = 0.5
    jobs: int = 1  # processes recording the teacher's games (the rows come back in seed order either way)
    dagger_rounds: int = 0  # DAgger after cloning: rounds of the student's own games labelled by the teacher
    dagger_episodes: int = 500  # student games per round (deals after the teacher's)
    dagger_epochs: int = 4  # epochs of each round's fit on all rows so far


@dataclasses.dataclass
class TrainConfig:
    """Everything a run needs besides the CLI arguments."""

    env_id: str
    env_kwargs: dict[str, Any] = dataclasses.field(default_factory=dict)
    n_envs: int = 4
    total_timesteps: int = 100_000
    policy: str = "MlpPolicy"
    policy_kwargs: dict[str, Any] = dataclasses.field(default_factory=dict)
    ppo: dict[str, Any] = dataclasses.field(default_factory=dict)
    checkpoint_freq: int = 20_000
    eval: EvalConfig = dataclasses.field(default_factory=EvalConfig)
    report: ReportConfig = dataclasses.field(default_factory=ReportConfig)
    pretrain: PretrainConfig = dataclasses.field(default_factory=PretrainConfig)


def _check_type(value: Any, annotation: Any, where: str) -> None:
    origin = typing.get_origin(annotation)
    if annotation is Any:
        return
    if annotation is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif annotation is float:
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    elif annotation in (str, bool):
        ok = isinstance(value, annotation)
    elif origin in (dict, Mapping):
        ok = isinstance(value, dict)
    elif origin is list:
        (item,) = typing.get_args(annotation)
        ok = isinstance(value, list)
        if ok:
            for i, v in enumerate(value):
                _check_type(v, item, f"{where}[{i}]")
    elif origin in (typing.Union, types.UnionType):
        ok = any(_matches(value, arg) for arg in typing.get_args(annotation))
    else:
        ok = True
    if not ok:
        raise ConfigError(f"{where} must be {getattr(annotation, '__name__', annotation)}, got {value!r}")


def _matches(value: Any, annotation: Any) -> bool:
    try:
        _check_type(value, annotation, "")
        return True
    except ConfigError:
        return False


def _build(cls: type, data: Any, where: str) -> Any:
    if not isinstance(data, dict):
        raise ConfigError(f"{where} must be a mapping, got {data!r}")
    hints = typing.get_type_hints(cls)
    names = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(data) - names)
    if unknown:
        raise ConfigError(f"unknown key {where}.{unknown[0]} (known: {', '.join(sorted(names))})")
    values = {}
    for key, value in data.items():
        hint = hints[key]
        if dataclasses.is_dataclass(hint):
            values[key] = _build(hint, value, f"{where}.{key}")  # type: ignore[arg-type]
        else:
            _check_type(value, hint, f"{where}.{key}")
            values[key] = value
    return cls(**values)


def _check_ppo_kwargs(ppo: dict[str, Any], where: str) -> None:
    from sb3_contrib import MaskablePPO

    allowed = set(inspect.signature(MaskablePPO.__init__).parameters) - {
        "self",
        "policy",
        "env",
        "policy_kwargs",
        "tensorboard_log",
        "seed",
        "device",
        "verbose",
        "_init_setup_model",
    }
    for key in ppo:
        if key not in allowed:
            raise ConfigError(f"unknown MaskablePPO hyperparameter {where}.ppo.{key}")


#: Hyperparameters that may be a schedule: ``lin_<start>`` decays linearly to 0 (rl-zoo's notation).
SCHEDULED = ("learning_rate", "clip_range")


class LinearSchedule:
    """``start * progress_remaining``: SB3 calls it with 1.0 at the first step and 0.0 at the last."""

    def __init__(self, start: float) -> None:
        self.start = start

    def __call__(self, progress_remaining: float) -> float:
        return self.start * progress_remaining

    def __repr__(self) -> str:
        return f"lin_{self.start:g}"


def resolve_ppo_kwargs(ppo: dict[str, Any], env_id: str = "") -> dict[str, Any]:
    """The config's ``ppo`` mapping with ``lin_<start>`` strings turned into :class:`LinearSchedule`."""
    resolved = dict(ppo)
    for key in SCHEDULED:
        value = resolved.get(key)
        if isinstance(value, str):
            match = re.fullmatch(r"lin_([0-9.eE+-]+)", value)
            try:
                start = float(match.group(1)) if match else None
            except ValueError:
                start = None
            if start is None or start <= 0:
                where = f"{env_id}.ppo.{key}" if env_id else f"ppo.{key}"
                raise ConfigError(f"{where} must be a number or lin_<start> (for example lin_3e-4), got {value!r}")
            resolved[key] = LinearSchedule(start)
    return resolved


def load_config(path: str | Path, env_id: str | None = None) -> TrainConfig:
    """The config of ``env_id`` (or of the file's only env) from a YAML file."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"config file {path} does not exist")
    try:
        data = yaml.safe_load(path.read_text())
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML: {exc}") from exc
    if not isinstance(data, dict) or not data:
        raise ConfigError(f"{path}: expected a mapping of env id -> settings")
    if env_id is None:
        if len(data) != 1:
            raise ConfigError(f"{path} configures {len(data)} envs ({', '.join(data)}): choose one with --env-id")
        env_id = next(iter(data))
    if env_id not in data:
        raise ConfigError(f"{path} has no entry for {env_id}; it configures {', '.join(data)}")
    try:
        config: TrainConfig = _build(TrainConfig, {"env_id": env_id, **(data[env_id] or {})}, env_id)
        _check_ppo_kwargs(config.ppo, env_id)
        resolve_ppo_kwargs(config.ppo, env_id)
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc}") from None
    for name in ("n_envs", "total_timesteps"):
        if getattr(config, name) < 1:
            raise ConfigError(f"{path}: {env_id}.{name} must be at least 1")
    from agents.registry import TEACHERS, agent_options

    if config.pretrain.episodes > 0:
        teacher = config.pretrain.teacher
        if teacher.partition(":")[0] not in TEACHERS:
            choices = ", ".join(TEACHERS)
            raise ConfigError(f"{path}: {env_id}.pretrain.teacher must be one of {choices}, got {teacher!r}")
        try:
            agent_options(teacher)
        except ValueError as exc:
            raise ConfigError(f"{path}: {env_id}.pretrain.teacher: {exc}") from None
    if config.pretrain.episodes > 0 and config.pretrain.epochs < 1:
        raise ConfigError(f"{path}: {env_id}.pretrain.epochs must be at least 1")
    if config.report.jobs < 1:
        raise ConfigError(f"{path}: {env_id}.report.jobs must be at least 1")
    if config.pretrain.jobs < 1:
        raise ConfigError(f"{path}: {env_id}.pretrain.jobs must be at least 1")
    if config.pretrain.dagger_rounds < 0:
        raise ConfigError(f"{path}: {env_id}.pretrain.dagger_rounds must be 0 or more")
    if config.pretrain.dagger_rounds > 0:
        for key in ("dagger_episodes", "dagger_epochs"):
            if getattr(config.pretrain, key) < 1:
                raise ConfigError(f"{path}: {env_id}.pretrain.{key} must be at least 1 when dagger_rounds is set")
        if config.pretrain.episodes < 1:
            raise ConfigError(f"{path}: {env_id}.pretrain.dagger_rounds needs pretrain.episodes (the first clone)")
    if config.report.model not in REPORT_MODELS:
        raise ConfigError(
            f"{path}: {env_id}.report.model must be one of {', '.join(REPORT_MODELS)}, got {config.report.model!r}"
        )
    if config.report.model == "best" and config.eval.freq < 1:
        raise ConfigError(f"{path}: {env_id}.report.model 'best' needs held-out evaluations (eval.freq > 0)")
    return config


def config_to_dict(config: TrainConfig) -> dict[str, Any]:
    """The YAML mapping that :func:`load_config` reads back as ``config``."""
    data = dataclasses.asdict(config)
    env_id = data.pop("env_id")
    return {env_id: data}


def resolve_policy(name: str) -> Any:
    """A config's ``policy``: an SB3 name (``MlpPolicy``) as it is, or a dotted path to a policy class."""
    if "." not in name:
        return name
    return _import_dotted(name, "policy")


def _import_dotted(name: str, where: str) -> Any:
    """The object a dotted ``module.attr`` path names; a ConfigError naming ``where`` when it does not import."""
    import importlib

    module, _, attr = name.rpartition(".")
    try:
        return getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError, ValueError) as exc:
        raise ConfigError(f"{where}: cannot import {name!r}") from exc


def resolve_policy_kwargs(policy_kwargs: dict[str, Any]) -> dict[str, Any]:
    """Turn names in a config's ``policy_kwargs`` into objects (extractor class, activation)."""
    resolved = dict(policy_kwargs)
    name = resolved.get("features_extractor_class")
    if isinstance(name, str):
        resolved["features_extractor_class"] = _import_dotted(name, "policy_kwargs.features_extractor_class")
    activation = resolved.get("activation_fn")
    if isinstance(activation, str):
        from torch import nn

        if not hasattr(nn, activation):
            raise ConfigError(f"policy_kwargs.activation_fn: torch.nn has no {activation!r}")
        resolved["activation_fn"] = getattr(nn, activation)
    return resolved
