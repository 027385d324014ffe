"""Training configs: YAML keyed by env id (rl-zoo style), validated by pydantic.

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

``learning_rate`` and ``clip_range`` may be written ``lin_<start>`` (rl-zoo's notation): a linear
decay from ``<start>`` to 0 over the run (SB3's ``LinearSchedule``; a :class:`Schedule`).

The model checks everything once (types, ranges, the env, the agents, the seeds): a problem is a
:class:`ConfigError` of one line, ``<file>: <env id>.<key>: <pydantic's message> (got <value>)``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import (
    ConfigDict,
    Field,
    PlainSerializer,
    PlainValidator,
    Strict,
    TypeAdapter,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic.dataclasses import dataclass

from agents.pydantic_errors import one_line

#: Training deals use seeds from here on (train.py), so no config seed below it is ever a training deal.
TRAIN_SEED_BASE = 100_000_000
#: Most training envs of a run (each segment deals from MAX_ENVS seeds of its own: see
#: agents.training.envs.segment_seed).
MAX_ENVS = 10_000

#: Unknown keys refused; infinities and NaNs too (a learning rate or coefficient of .inf trains on NaN logits).
_STRICT = ConfigDict(extra="forbid", validate_assignment=True, allow_inf_nan=False)


Real = Annotated[float, Strict()]  # an int or a float as YAML gives it (not a bool, not a string)
Seed = Annotated[int, Strict(), Field(ge=0, lt=TRAIN_SEED_BASE)]
Count = Annotated[int, Strict(), Field(ge=1)]


class ConfigError(ValueError):
    """A training config that cannot be used, with the key and file named."""


@dataclass(config=_STRICT)
class EvalConfig:
    """Periodic evaluation on held-out deals during training (MaskableEvalCallback)."""

    freq: Annotated[int, Strict(), Field(ge=0)] = 20_000  # env steps between evaluations (0: none)
    episodes: Count = 50
    seed: Seed = 1_000_000  # every evaluation plays the deals of seeds seed .. seed + episodes - 1


@dataclass(config=_STRICT)
class ReportConfig:
    """Final comparison on the same seeded deals."""

    episodes: Count = 500
    seed: Seed = 0
    agents: list[Annotated[str, Strict()]] = dataclasses.field(default_factory=lambda: ["random", "greedy"])
    #: Which PPO policy the report plays: ``final`` (the run's ``model.zip``) or ``best`` (the one
    #: the held-out evaluation during training scored best, ``eval/best_model.zip``; needs ``eval.freq``).
    model: Literal["final", "best"] = "final"
    #: Processes that play the report's deals (each agent's deals split into blocks; same results).
    jobs: Count = 1


@dataclass(config=_STRICT)
class PretrainConfig:
    """Behaviour cloning of a teacher before PPO (:mod:`agents.training.imitation`); ``episodes: 0`` skips it."""

    teacher: Annotated[str, Strict()] = (
        "greedy"  # greedy, planner or solver (privileged: see agents.training.imitation); options: planner:margin=1
    )
    episodes: Annotated[int, Strict(), Field(ge=0)] = 0  # teacher games to record
    seed: Seed = 2_000_000  # their deal seeds start here (apart from the eval and report deals)
    epochs: Count = 10
    batch_size: Count = 256
    learning_rate: Annotated[Real, Field(gt=0)] = 1.0e-3
    value_coef: Annotated[Real, Field(ge=0)] = 0.5
    jobs: Count = 1  # processes recording the teacher's games (the rows come back in seed order either way)
    # Keep the teacher's games in this folder (shards of 50 deals): a recording cut short goes on where it
    # stopped, and runs with the same teacher, deals and gamma share one recording (a slow planner's)
    teacher_dir: Annotated[str, Strict()] | None = None
    dagger_rounds: Annotated[int, Strict(), Field(ge=0)] = 0  # DAgger after cloning: rounds of the student's own games
    dagger_episodes: Count = 500  # student games per round (deals after the teacher's)
    dagger_epochs: Count = 4  # epochs of each round's fit on all rows so far

    @field_validator("teacher")
    @classmethod
    def _known_teacher(cls, teacher: str) -> str:
        from agents.registry import TEACHERS, agent_options

        if teacher.partition(":")[0] not in TEACHERS:
            raise ValueError(f"must be one of {', '.join(TEACHERS)}")
        agent_options(teacher)  # name=value (the options themselves are checked with the game: TrainConfig)
        return teacher

    @model_validator(mode="after")
    def _dagger_needs_a_clone(self) -> PretrainConfig:
        if self.dagger_rounds > 0 and self.episodes < 1:
            raise ValueError("dagger_rounds needs pretrain.episodes (the first clone)")
        return self

    def seed_ranges(self) -> list[tuple[str, range]]:
        """The deal seeds the warm start plays (teacher games, then DAgger rounds); none when it is off."""
        if self.episodes < 1:
            return []
        end = self.seed + self.episodes + self.dagger_rounds * self.dagger_episodes
        return [("pretrain", range(self.seed, end))]


@dataclasses.dataclass(frozen=True)
class Schedule:
    """A hyperparameter SB3 may schedule, parsed once: a number, or ``lin_<start>`` (a linear decay from ``start``
    to 0 over the run); ``text`` is the value as written (what the config is written back with)."""

    text: float | str
    start: float

    @classmethod
    def parse(cls, value: Any) -> Schedule:
        """A positive finite number, or ``lin_<start>`` with a positive finite start."""
        if isinstance(value, Schedule):
            return value
        start = value
        if isinstance(value, str) and value.startswith("lin_"):
            with contextlib.suppress(ValueError):
                start = float(value[4:])
        if isinstance(start, bool) or not isinstance(start, (int, float)) or not 0 < start < math.inf:
            raise ValueError("must be a number or lin_<start> (for example lin_3e-4), positive and finite")
        return cls(value, float(start))

    def sb3(self) -> Any:
        """What MaskablePPO takes: the number as written, or SB3's LinearSchedule from ``start`` to 0."""
        if isinstance(self.text, str):
            from stable_baselines3.common.utils import LinearSchedule

            # progress_remaining goes 1 -> 0 over the run; end_fraction 1.0: the decay spans all of it.
            return LinearSchedule(self.start, 0.0, 1.0)
        return self.text


Rate = Annotated[Schedule, PlainValidator(Schedule.parse), PlainSerializer(lambda s: s.text)]


@dataclass(config=_STRICT)
class PPOConfig:
    """The MaskablePPO hyperparameters a config may set (SB3's defaults where it does not)."""

    learning_rate: Rate = Schedule(3e-4, 3e-4)
    n_steps: Count = 2048
    batch_size: Count = 64
    n_epochs: Count = 10
    gamma: Annotated[Real, Field(gt=0, le=1)] = 0.99
    gae_lambda: Annotated[Real, Field(ge=0, le=1)] = 0.95
    clip_range: Rate = Schedule(0.2, 0.2)
    clip_range_vf: Annotated[Real, Field(gt=0)] | None = None
    normalize_advantage: Annotated[bool, Strict()] = True
    ent_coef: Annotated[Real, Field(ge=0)] = 0.0
    vf_coef: Annotated[Real, Field(ge=0)] = 0.5
    max_grad_norm: Annotated[Real, Field(gt=0)] = 0.5
    target_kl: Annotated[Real, Field(gt=0)] | None = None
    stats_window_size: Count = 100

    def sb3_kwargs(self) -> dict[str, Any]:
        """MaskablePPO's keyword arguments: every hyperparameter, a schedule as SB3 takes it."""
        values = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        return {k: v.sb3() if isinstance(v, Schedule) else v for k, v in values.items()}


@dataclass(config=_STRICT)
class TrainConfig:
    """Everything a run needs besides the CLI arguments."""

    env_id: Annotated[str, Strict()]
    env_kwargs: dict[str, Any] = dataclasses.field(default_factory=dict)
    n_envs: Annotated[int, Strict(), Field(ge=1, le=MAX_ENVS)] = 4
    total_timesteps: Count = 100_000
    policy: Annotated[str, Strict()] = "MlpPolicy"
    policy_kwargs: dict[str, Any] = dataclasses.field(default_factory=dict)
    ppo: PPOConfig = dataclasses.field(default_factory=PPOConfig)
    checkpoint_freq: Count = 20_000
    eval: EvalConfig = dataclasses.field(default_factory=EvalConfig)
    report: ReportConfig = dataclasses.field(default_factory=ReportConfig)
    pretrain: PretrainConfig = dataclasses.field(default_factory=PretrainConfig)
    #: Vector env of the training envs: batched (the numba engine, where it has the env's encoding), dummy or subproc.
    vec: Literal["batched", "dummy", "subproc"] = "batched"
    #: Learn on this env, a part of ``env_id``'s game, whose model then plays ``env_id`` part by part (a
    #: Golf-v0 model plays GolfRound-v0 hole by hole): the warm start, the training envs and the held-out
    #: evaluations are this env's, the report is ``env_id``'s. None: learn on ``env_id``.
    learn_on: Annotated[str, Strict()] | None = None

    @property
    def learner_env_id(self) -> str:
        """The env the model learns on: ``learn_on``, else ``env_id``."""
        return self.learn_on or self.env_id

    @field_validator("policy")
    @classmethod
    def _known_policy(cls, policy: str) -> str:
        policy_class(policy)
        return policy

    @field_validator("policy_kwargs")
    @classmethod
    def _known_policy_kwargs(cls, policy_kwargs: dict[str, Any]) -> dict[str, Any]:
        check_policy_kwargs(policy_kwargs)
        return policy_kwargs

    @model_validator(mode="after")
    def _consistent(self) -> TrainConfig:
        if self.report.model == "best" and self.eval.freq < 1:
            raise ValueError("report.model 'best' needs held-out evaluations (eval.freq > 0)")
        if self.report.model == "best" and self.eval.freq > self.total_timesteps:
            raise ValueError(
                f"report.model 'best' needs a held-out evaluation, and eval.freq {self.eval.freq} is past "
                f"total_timesteps {self.total_timesteps}: none would run"
            )
        ranges = [("report", range(self.report.seed, self.report.seed + self.report.episodes))]
        if self.eval.freq > 0:
            ranges.append(("eval", range(self.eval.seed, self.eval.seed + self.eval.episodes)))
        ranges += self.pretrain.seed_ranges()
        for (a, ra), (b, rb) in [(x, y) for i, x in enumerate(ranges) for y in ranges[i + 1 :]]:
            if ra.start < rb.stop and rb.start < ra.stop:
                raise ValueError(
                    f"{a}.seed: the {a} deals (seeds {ra.start}..{ra.stop - 1}) overlap the {b} deals "
                    f"(seeds {rb.start}..{rb.stop - 1}): give {a}.seed or {b}.seed a value apart from the other"
                )
        self._check_minibatches()
        mode = self.env_kwargs.get("render_mode")
        if mode is not None and self.vec == "batched":
            raise ValueError(
                f"env_kwargs.render_mode {mode!r}: the batched engine does not render; "
                f"drop render_mode or use vec: dummy (--vec dummy)"
            )
        if self.learn_on is not None:
            from agents.load import COMPATIBLE

            parts = COMPATIBLE.get(self.env_id, ())
            if self.learn_on not in parts:
                can = f"one of {', '.join(parts)}" if parts else f"none: {self.env_id} is not played part by part"
                raise ValueError(f"learn_on {self.learn_on!r}: a model of {self.env_id} may learn on {can}")
        game = self._game(self.env_id)
        self._check_agents(game, game if self.learn_on is None else self._game(self.learn_on))
        return self

    def _check_minibatches(self) -> None:
        """No minibatch of one step while advantages are normalised (MaskablePPO divides by their spread: NaN)."""
        ppo = self.ppo
        if not ppo.normalize_advantage:
            return
        where = f"ppo.batch_size {ppo.batch_size}"
        why = "MaskablePPO normalises advantages by their spread, NaN on one step (or set normalize_advantage: false)"
        if ppo.batch_size == 1:
            raise ValueError(f"{where}: a minibatch of one step has no spread to normalise advantages by; {why}")
        rollout = ppo.n_steps * self.n_envs
        if rollout % ppo.batch_size == 1:
            raise ValueError(
                f"{where}: the rollout of {rollout} steps (n_steps {ppo.n_steps} x n_envs {self.n_envs}) ends in "
                f"a minibatch of one step; choose a batch_size that leaves none; {why}"
            )

    def _game(self, env_id: str) -> Any:
        """An env's game, made with the config's env kwargs: an unknown env id or a bad env kwarg is named."""
        import gymnasium as gym

        import patience_gym  # noqa: F401 - registers the envs

        if env_id not in gym.registry or not env_id.startswith("patience_gym/"):
            known = ", ".join(k for k in gym.registry if k.startswith("patience_gym/"))
            raise ValueError(f"unknown env id {env_id!r}; registered: {known}")
        try:
            env = gym.make(env_id, **self.env_kwargs)
        except (TypeError, ValueError, KeyError, gym.error.Error) as exc:
            raise ValueError(f"env_kwargs: {exc}") from None
        game = env.unwrapped.game  # type: ignore[attr-defined]
        env.close()
        return game

    def _check_agents(self, game: Any, learner_game: Any) -> None:
        """Every report agent exists for the game, the warm start's teacher for the learner's, with their options."""
        from agents.registry import check_agent_spec

        checks = [(f"report.agents[{i}]", spec, game, self.env_id) for i, spec in enumerate(self.report.agents)]
        if self.pretrain.episodes > 0:
            checks.append(("pretrain.teacher", self.pretrain.teacher, learner_game, self.learner_env_id))
        for key, spec, played, env_id in checks:
            try:
                check_agent_spec(spec, played.name, env_id, self.env_kwargs)
            except ValueError as exc:
                raise ValueError(f"{key}: {exc}") from None


_TRAIN = TypeAdapter(TrainConfig)


class UniqueKeyLoader(yaml.SafeLoader):
    """YAML's safe loader, refusing a key given twice in one mapping (plain YAML keeps the last silently)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue
            key = self.construct_object(key_node, deep=deep)
            with contextlib.suppress(TypeError):  # an unhashable key: the loader names it below
                if key in seen:
                    raise yaml.constructor.ConstructorError(
                        "while reading a mapping", node.start_mark, f"key {key!r} is given twice", key_node.start_mark
                    )
                seen.add(key)
        return super().construct_mapping(node, deep)


def read_settings(path: str | Path, env_id: str | None = None) -> dict[str, Any]:
    """The settings of ``env_id`` (or of the file's only env) in a YAML file, ``env_id`` among them, unchecked."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"config file {path} does not exist")
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise ConfigError(f"{path} is not UTF-8 text (byte 0x{raw[exc.start]:02x} on line {line})") from None
    try:
        data = yaml.load(text, Loader=UniqueKeyLoader)
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML: {yaml_error_line(exc)}") from None
    if not isinstance(data, dict) or not data:
        raise ConfigError(f"{path}: expected a mapping of env id -> settings")
    if env_id is None:
        if len(data) != 1:
            raise ConfigError(f"{path} configures {len(data)} envs ({', '.join(data)}): choose one with --env-id")
        env_id = next(iter(data))
    if env_id not in data:
        raise ConfigError(f"{path} has no entry for {env_id}; it configures {', '.join(data)}")
    settings = data[env_id] or {}
    if not isinstance(settings, dict):
        raise ConfigError(f"{path}: {env_id} must be a mapping of settings, got {settings!r}")
    return {"env_id": env_id, **settings}


def load_config(path: str | Path, env_id: str | None = None, overrides: Mapping[str, Any] | None = None) -> TrainConfig:
    """The config of ``env_id`` (or of the file's only env) from a YAML file, with ``overrides`` (dotted keys,
    the command line's) in place of its values, checked once; a problem named with the file (or the flag)."""
    data = read_settings(path, env_id)
    for key, value in (overrides or {}).items():
        *parents, leaf = key.split(".")
        target = data
        for part in parents:
            target[part] = dict(target[part]) if isinstance(target.get(part), dict) else {}
            target = target[part]
        target[leaf] = value
    try:
        return _TRAIN.validate_python(data)
    except ValidationError as exc:
        raise ConfigError(f"{path}: {one_line(exc, data['env_id'], overrides or ())}") from None


def yaml_error_line(exc: yaml.YAMLError) -> str:
    """A YAML error in one line: where (1-based line and column) and what."""
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    context = getattr(exc, "context", None)
    where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
    return where + (f"{problem} ({context})" if context else problem)


def config_data(config: TrainConfig) -> dict[str, Any]:
    """A config as plain data (schedules as written), as ``training.json`` keeps it."""
    data: dict[str, Any] = _TRAIN.dump_python(config)
    return data


def config_to_dict(config: TrainConfig) -> dict[str, Any]:
    """The YAML mapping that :func:`load_config` reads back as ``config``."""
    data = config_data(config)
    return {data.pop("env_id"): data}


def ppo_settings(ppo: dict[str, Any]) -> dict[str, Any]:
    """A config's ``ppo`` mapping with the defaults of what it leaves out (:class:`PPOConfig`'s)."""
    defaults: dict[str, Any] = TypeAdapter(PPOConfig).dump_python(PPOConfig())
    return defaults | ppo


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
        raise ConfigError(f"{where}: cannot import {name!r}" if where else f"cannot import {name!r}") from exc


def policy_class(name: str) -> type:
    """The class a config's ``policy`` names: one of MaskablePPO's (``MlpPolicy``, ...) or a dotted path to a
    subclass of its ``MaskableActorCriticPolicy``; a ValueError saying which it may be where it is neither."""
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    aliases: dict[str, type] = MaskablePPO.policy_aliases
    found = aliases.get(name) if "." not in name else _import_dotted(name, "")
    if not (isinstance(found, type) and issubclass(found, MaskableActorCriticPolicy)):
        raise ValueError(
            f"must be one of {', '.join(aliases)} or the dotted path of a MaskableActorCriticPolicy subclass"
        )
    return found


#: The heads a per-head ``net_arch`` sizes (SB3's MlpExtractor: the policy's and the value's).
NET_HEADS = ("pi", "vf")


def check_policy_kwargs(policy_kwargs: dict[str, Any]) -> None:
    """What a config's ``policy_kwargs`` may hold before any network is built: ``net_arch`` layer sizes, an
    ``activation_fn`` of torch.nn, an importable ``features_extractor_class``, mappings for ``*_kwargs``; a
    ValueError naming the key where not (the policy itself checks the rest when the run is set up)."""
    if policy_kwargs.get("net_arch") is not None:
        check_net_arch(policy_kwargs["net_arch"])
    if "activation_fn" in policy_kwargs:
        check_activation(policy_kwargs["activation_fn"])
    extractor = policy_kwargs.get("features_extractor_class")
    where = "features_extractor_class"
    if extractor is not None and not (
        isinstance(extractor, str) and isinstance(_import_dotted(extractor, where), type)
    ):
        raise ValueError(f"{where}: {extractor!r} is not the dotted path of a class")
    for key, value in policy_kwargs.items():
        if key.endswith("_kwargs") and value is not None and not isinstance(value, dict):
            raise ValueError(f"{key}: {value!r} is not a mapping of keyword arguments")


def check_net_arch(arch: Any) -> None:
    """A ``net_arch`` SB3 builds: a list of layer sizes (whole numbers of at least 1) or such a list per head."""
    how = "give a list of layer sizes ([64, 64]) or one per head ({pi: [64, 64], vf: [64, 64]})"
    heads = arch.items() if isinstance(arch, dict) else [("", arch)]
    for head, sizes in heads:
        key = f"net_arch.{head}" if head else "net_arch"
        if isinstance(arch, dict) and head not in NET_HEADS:
            raise ValueError(f"net_arch: {head!r} is not a head (pi, vf); {how}")
        if not isinstance(sizes, list):
            raise ValueError(f"{key}: {sizes!r} is not a list of layer sizes; {how}")
        for size in sizes:
            if isinstance(size, bool) or not isinstance(size, int) or size < 1:
                raise ValueError(f"{key}: layer size {size!r} is not a whole number of at least 1; {how}")


def check_activation(name: Any) -> None:
    """An ``activation_fn``: the name of a torch.nn module class (``ReLU``, ``Tanh``)."""
    from torch import nn

    found = getattr(nn, name, None) if isinstance(name, str) else None
    if not (isinstance(found, type) and issubclass(found, nn.Module)):
        raise ValueError(f"activation_fn: {name!r} is not the name of a torch.nn activation (ReLU, Tanh, ...)")


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
