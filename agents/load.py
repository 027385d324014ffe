"""Models that carry their spec: the env id, rule options and observation encoding a model was trained on.

:func:`save_model_spec` writes the spec into the saved SB3 zip (as ``patience_gym_spec.json``, an entry SB3
ignores on load); :func:`load` reads it back and returns a :class:`agents.ppo.PPOAgent` ready for
``agents.evaluation.evaluate``, refusing a model trained for another env id, rule options or encoding::

    agent = load("models/golf.zip", env_id="patience_gym/Golf-v0")
    env = gym.make(agent.spec.env_id, **agent.spec.make_kwargs())

:func:`load_for_env` is how every tool makes a ``ppo:PATH`` agent (through
:func:`agents.registry.make_agent`): the model for the env it is asked to play, refused when it was
trained on another env id, other rule options or another encoding, or when its observations do not fit.

From the shell::

    python -m agents.load show models/golf.zip
    python -m agents.load stamp models/golf.zip --env patience_gym/Golf-v0 --obs-encoding runs \\
        [--env-kwargs '{"queens_on_kings": true}'] [--card models/golf.md]
    python -m agents.load slim models/golf.zip

:func:`slim_model` drops the optimizer's per-parameter state (Adam's moment estimates, two thirds of a
zip) from a model kept to be played: the policy's weights are untouched, the model loads as before, and
further training starts its moments afresh.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import importlib
import json
import os
import random
import reprlib
import shutil
import sys
import tempfile
import types
import zipfile
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import torch

import patience_gym
from agents.ppo import PPOAgent
from patience_gym.env import env_kwargs_from_json
from patience_gym.features import make_observer

SPEC_ENTRY = "patience_gym_spec.json"
OPTIMIZER_ENTRY = "policy.optimizer.pth"
SPEC_VERSION = 1

#: Env ids that may play a model trained on another: a Golf hole model plays each hole of a round.
COMPATIBLE: dict[str, tuple[str, ...]] = {"patience_gym/GolfRound-v0": ("patience_gym/Golf-v0",)}

#: Module paths that saved models name (a model pickles its policy class, its feature extractor and its
#: schedules by module path), and where those classes live now: ``agents/`` was laid out by role (issue 33).
MOVED_MODULES: dict[str, str] = {
    "agents.networks": "agents.training.networks",
    "agents.config": "agents.training.config",
}


class _MovedModule(types.ModuleType):
    """An old module path of :data:`MOVED_MODULES`: each name is looked up in the module that took its place
    (imported on first use), so a model saved before the move unpickles the same classes."""

    def __init__(self, name: str, target: str) -> None:
        super().__init__(name, f"{name} moved to {target}; this alias only resolves the names saved models hold")
        self._target = target

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("__"):
            raise AttributeError(attr)
        if (self.__name__, attr) == ("agents.config", "LinearSchedule"):
            return _legacy_linear_schedule()
        return getattr(importlib.import_module(self._target), attr)


_LEGACY: dict[str, type] = {}


def _legacy_linear_schedule() -> type:
    """``agents.config.LinearSchedule``: the schedule models saved before SB3's ``LinearSchedule`` was used
    pickled (``start * progress_remaining``, with the state ``{"start": ...}``), unpickled as SB3's."""
    if not _LEGACY:
        from stable_baselines3.common.utils import LinearSchedule as SB3Linear

        class LinearSchedule(SB3Linear):
            """Unpickles the old ``start * progress_remaining`` schedule as SB3's."""

            def __setstate__(self, state: dict[str, Any]) -> None:
                SB3Linear.__init__(self, state["start"], 0.0, 1.0)

        LinearSchedule.__module__, LinearSchedule.__qualname__ = "agents.config", "LinearSchedule"
        _LEGACY["LinearSchedule"] = LinearSchedule
    return _LEGACY["LinearSchedule"]


for _old, _new in MOVED_MODULES.items():  # every model loader imports this module (agents/__init__ does too)
    sys.modules.setdefault(_old, _MovedModule(_old, _new))


class ModelSpecError(ValueError):
    """A model without a spec, with a spec that cannot be read, or one trained for something else."""


@dataclasses.dataclass(frozen=True)
class ModelSpec:
    """What a model was trained on, as stored inside its zip."""

    env_id: str
    env_kwargs: dict[str, Any]
    obs_encoding: str
    observation_shape: list[int]
    num_actions: int
    library_version: str = patience_gym.__version__
    card: str | None = None
    spec_version: int = SPEC_VERSION

    def plays(self, env_id: str) -> bool:
        """Whether the model may play ``env_id``: its own env, or one of :data:`COMPATIBLE`."""
        return env_id == self.env_id or self.env_id in COMPATIBLE.get(env_id, ())

    def make_kwargs(self) -> dict[str, Any]:
        """The kwargs of ``gym.make(spec.env_id, ...)`` that give the model's observations."""
        return {**self.env_kwargs, "obs_encoding": self.obs_encoding}

    @classmethod
    def from_dict(cls, data: Any, where: str) -> ModelSpec:
        if not isinstance(data, Mapping):
            raise ModelSpecError(f"{where}: the model spec must be a JSON object")
        version = data.get("spec_version")
        if not _whole(version, 1) or version != SPEC_VERSION:
            raise ModelSpecError(f"{where}: model spec version {version!r}; this library reads {SPEC_VERSION}")
        fields = {f.name for f in dataclasses.fields(cls)}
        unknown = set(data) - fields
        if unknown:
            raise ModelSpecError(f"{where}: unknown key(s) in the model spec: {', '.join(sorted(unknown))}")
        missing = [f.name for f in dataclasses.fields(cls) if f.name not in data and f.default is dataclasses.MISSING]
        if missing:
            raise ModelSpecError(f"{where}: the model spec lacks {', '.join(missing)}")
        for name, value in data.items():
            what = _field_problem(name, value)
            if what:
                raise ModelSpecError(f"{where}: the model spec's {name} must be {what}, got {reprlib.repr(value)}")
        return cls(
            **{**data, "env_kwargs": dict(data["env_kwargs"]), "observation_shape": list(data["observation_shape"])}
        )


def _whole(value: Any, least: int) -> bool:
    """``value`` is an int (not a bool) of at least ``least``."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= least


def _field_problem(name: str, value: Any) -> str | None:
    """What a spec field's ``value`` must be where it is not (``"a string"``), else None."""
    if name in ("env_id", "obs_encoding", "library_version"):
        return None if isinstance(value, str) and value else "a non-empty string"
    if name == "env_kwargs":
        ok = isinstance(value, Mapping) and all(isinstance(k, str) for k in value) and "obs_encoding" not in value
        return None if ok else "an object of env options by name, without obs_encoding (its own field)"
    if name == "observation_shape":
        ok = isinstance(value, list) and all(_whole(n, 1) for n in value)
        return None if ok else "a list of positive integers"
    if name == "num_actions":
        return None if _whole(value, 1) else "a positive integer"
    if name == "card":
        return None if value is None or isinstance(value, str) else "a string (or null)"
    return None  # spec_version: checked first


def model_file(path: str | Path) -> Path:
    """The saved model a ``ppo:PATH`` spec names (``PATH``, or ``PATH.zip`` as Stable-Baselines3 allows)."""
    path = Path(path)
    if not path.exists() and path.with_suffix(".zip").exists():
        path = path.with_suffix(".zip")
    if not path.exists():
        raise FileNotFoundError(f"no PPO model at {path}")
    if not zipfile.is_zipfile(path):
        raise ModelSpecError(f"{path} is not a saved model (not a zip file)")
    return path


def save_model_spec(
    model_path: str | Path,
    env_id: str,
    env_kwargs: Mapping[str, Any] | None = None,
    obs_encoding: str | None = None,
    card: str | None = None,
) -> ModelSpec:
    """Store the spec inside the saved model ``model_path`` (replacing any spec already there).

    ``env_kwargs`` are the rule options (an ``obs_encoding`` among them is taken as the encoding);
    ``card`` is the model card's text (how it was made, what it scores). The env is made once to check
    that its observations have the model's shape and its action count matches.
    """
    path = model_file(model_path)
    if env_id not in patience_gym.ENVS:
        raise ValueError(f"{env_id} is not a patience_gym env; choose one of {', '.join(patience_gym.ENVS)}")
    kwargs = dict(env_kwargs or {})
    given = kwargs.pop("obs_encoding", None)
    if given is not None and obs_encoding is not None and given != obs_encoding:
        raise ValueError(f"obs_encoding {obs_encoding!r} disagrees with env_kwargs' obs_encoding {given!r}")
    obs_encoding = obs_encoding or given
    make_kwargs: dict[str, Any] = {**kwargs, **({"obs_encoding": obs_encoding} if obs_encoding else {})}
    try:
        env = gym.make(env_id, **make_kwargs)
    except (gym.error.Error, TypeError, ValueError) as exc:
        raise ValueError(f"cannot make env {env_id!r} with {kwargs} and obs_encoding {obs_encoding!r}: {exc}") from None
    unwrapped: Any = env.unwrapped
    shape = list(env.observation_space.shape or ())
    actions = int(env.action_space.n)  # type: ignore[attr-defined]
    with _global_rng_kept():  # train.py stamps every checkpoint: its run must not change by it
        model_shape, model_actions = _model_shape(PPOAgent(path))
    if model_shape != shape or model_actions != actions:
        raise ModelSpecError(
            f"model {path} observes shape {model_shape} with {model_actions} actions, but {env_id} "
            f"(obs_encoding {unwrapped.obs_encoding!r}) gives shape {shape} with {actions} actions"
        )
    spec = ModelSpec(env_id, kwargs, unwrapped.obs_encoding, shape, actions, card=card)
    _write_entry(path, SPEC_ENTRY, json.dumps(dataclasses.asdict(spec), indent=1))
    return spec


def slim_model(model_path: str | Path) -> tuple[int, int]:
    """Drop the optimizer's per-parameter state from a saved model, in place: (bytes before, bytes after).

    The optimizer entry keeps its hyperparameters (``param_groups``), so SB3 loads the model as before;
    every other entry, the policy's weights among them, is copied byte for byte.
    """
    import io

    import torch as th

    path = model_file(model_path)
    before = path.stat().st_size
    with zipfile.ZipFile(path) as archive:
        if OPTIMIZER_ENTRY not in archive.namelist():
            raise ModelSpecError(f"{path} has no {OPTIMIZER_ENTRY}: not a model saved by SB3")
        state = th.load(io.BytesIO(archive.read(OPTIMIZER_ENTRY)), map_location="cpu", weights_only=True)
    if not isinstance(state, dict) or "param_groups" not in state:
        raise ModelSpecError(f"{path}: {OPTIMIZER_ENTRY} is not an optimizer's state dict")
    buffer = io.BytesIO()
    th.save({**state, "state": {}}, buffer)
    _write_entry(path, OPTIMIZER_ENTRY, buffer.getvalue())
    return before, path.stat().st_size


def _write_entry(path: Path, name: str, data: str | bytes) -> None:
    """Rewrite the zip with entry ``name`` replaced (written to a temporary file, then moved in place)."""
    fd, tmp = tempfile.mkstemp(suffix=".zip", dir=path.parent)
    os.close(fd)
    try:
        with zipfile.ZipFile(path) as src, zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as dst:
            for item in src.infolist():
                if item.filename != name:
                    dst.writestr(item, src.read(item.filename))
            dst.writestr(name, data)
        shutil.copymode(path, tmp)  # mkstemp's file is private; keep the model's permissions
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def read_model_spec(model_path: str | Path) -> ModelSpec | None:
    """The spec stored in a saved model, or None for a model saved without one."""
    path = model_file(model_path)
    with zipfile.ZipFile(path) as archive:
        if SPEC_ENTRY not in archive.namelist():
            return None
        try:
            data = json.loads(archive.read(SPEC_ENTRY))
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise ModelSpecError(f"{path}: the model spec is not valid JSON: {exc}") from None
    return ModelSpec.from_dict(data, str(path))


def load(
    path: str | Path,
    env_id: str | None = None,
    obs_encoding: str | None = None,
    env_kwargs: Mapping[str, Any] | None = None,
    deterministic: bool = True,
) -> PPOAgent:
    """The model at ``path`` as an agent, with its spec as ``agent.spec``.

    Given ``env_id``, ``obs_encoding`` or ``env_kwargs`` (rule options), each must be what the model was
    trained on (a Golf-v0 model may play GolfRound-v0, hole by hole); otherwise :class:`ModelSpecError`.
    """
    spec = read_model_spec(path)
    if spec is None:
        raise ModelSpecError(
            f"model {path} carries no spec (env id, rule options, observation encoding): "
            "stamp it with agents.load.save_model_spec, or play it as ppo:PATH with the env kwargs it needs"
        )
    if spec.env_id not in patience_gym.ENVS:
        raise ModelSpecError(
            f"model {path} was trained on {spec.env_id}, which patience_gym {patience_gym.__version__} does not "
            f"register (it has {', '.join(patience_gym.ENVS)})"
        )
    _check_spec_env(spec, path)
    if env_id is not None and not spec.plays(env_id):
        raise ModelSpecError(f"model {path} was trained on {spec.env_id}, not {env_id}")
    if obs_encoding is not None and obs_encoding != spec.obs_encoding:
        raise ModelSpecError(
            f"model {path} was trained on obs_encoding {spec.obs_encoding!r}, not {obs_encoding!r}; "
            f"make the env with obs_encoding={spec.obs_encoding!r}"
        )
    if env_kwargs is not None:
        options = {k: v for k, v in env_kwargs.items() if k != "obs_encoding"}
        if options != spec.env_kwargs:
            raise ModelSpecError(f"model {path} was trained with rule options {spec.env_kwargs}, not {options}")
        if "obs_encoding" in env_kwargs:
            return load(path, env_id, env_kwargs["obs_encoding"], None, deterministic)
    agent = PPOAgent(model_file(path), deterministic=deterministic)
    shape, actions = _model_shape(agent)
    if (shape, actions) != (list(spec.observation_shape), spec.num_actions):
        raise ModelSpecError(
            f"model {path}: its spec says observation shape {spec.observation_shape} with {spec.num_actions} "
            f"actions; the model observes shape {shape} with {actions}: stamp it again "
            "(python -m agents.load stamp)"
        )
    agent.spec = spec  # type: ignore[attr-defined]
    return agent


def load_for_env(
    path: str | Path, env_id: str, env_kwargs: Mapping[str, Any] | None = None, deterministic: bool = True
) -> PPOAgent:
    """The model at ``path`` as the agent that plays ``gym.make(env_id, **env_kwargs)``.

    A model that carries its spec must have been trained on that env id (or one it may play: see
    :data:`COMPATIBLE`), with the same rule options (defaults included) and encoding; a model without
    one is taken at the user's word. Either way the model's observations and actions must fit the env.
    Anything else is a :class:`ModelSpecError` naming both, raised here rather than at the first move.
    """
    kwargs = dict(env_kwargs or {})
    asked = _make_env(env_id, kwargs, "the env to play")
    spec = read_model_spec(path)
    if spec is None:
        agent = PPOAgent(model_file(path), deterministic=deterministic)
    else:
        agent = load(path, deterministic=deterministic)
        trained = _make_env(spec.env_id, spec.make_kwargs(), f"the env model {path} was trained on")
        same_rules = dataclasses.asdict(trained.game.options) == dataclasses.asdict(asked.game.options)
        if not (spec.plays(env_id) and same_rules and trained.obs_encoding == asked.obs_encoding):
            shown = {**kwargs, "obs_encoding": asked.obs_encoding}
            raise ModelSpecError(
                f"model {path} was trained on {spec.env_id} {json.dumps(spec.make_kwargs(), sort_keys=True)}, "
                f"not {env_id} {json.dumps(shown, sort_keys=True)}"
            )
    shape, actions = _model_shape(agent)
    fits = [list(asked.observation_space.shape or ())]
    asked.reset(seed=0)
    stage, _ = asked.game.stage(asked.state)  # a part the model may be shown (a hole of a round)
    if stage is not asked.game:
        fits.append(list(make_observer(stage, asked.obs_encoding).spec.shape))
    if shape not in fits or actions != int(asked.action_space.n):
        raise ModelSpecError(
            f"model {path} observes shape {shape} with {actions} actions, but {env_id} (obs_encoding "
            f"{asked.obs_encoding!r}) gives shape {fits[0]} with {asked.action_space.n} actions: make the env "
            "with the rules and obs_encoding the model was trained on"
        )
    return agent


def _check_spec_env(spec: ModelSpec, path: str | Path) -> None:
    """A ModelSpecError naming the spec's env_kwargs or obs_encoding where its env would not take them."""
    try:
        game = gym.make(spec.env_id, **spec.env_kwargs).unwrapped.game  # type: ignore[attr-defined]
    except (gym.error.Error, TypeError, ValueError) as exc:
        why = str(exc).split(" was raised from the environment creator")[0]  # gym.make's suffix repeats the kwargs
        raise ModelSpecError(
            f"model {path}: the spec's env_kwargs {spec.env_kwargs} are not options of {spec.env_id}: {why}"
        ) from None
    try:
        make_observer(game, spec.obs_encoding)
    except (TypeError, ValueError) as exc:
        raise ModelSpecError(f"model {path}: the spec's obs_encoding {spec.obs_encoding!r} is refused: {exc}") from None


def _make_env(env_id: str, kwargs: Mapping[str, Any], what: str) -> Any:
    """The unwrapped patience env ``gym.make(env_id, **kwargs)``; a ModelSpecError naming ``what`` otherwise."""
    if env_id not in patience_gym.ENVS:
        known = ", ".join(patience_gym.ENVS)
        raise ModelSpecError(f"{what}, {env_id}, is not a patience_gym env; choose one of {known}")
    try:
        return gym.make(env_id, **kwargs).unwrapped
    except (gym.error.Error, TypeError, ValueError) as exc:
        raise ModelSpecError(f"cannot make {what}, {env_id} with {dict(kwargs)}: {exc}") from None


@contextlib.contextmanager
def _global_rng_kept() -> Iterator[None]:
    """Python's, numpy's and torch's global random states as they were before: loading a model reseeds them
    (SB3 sets the seed the model was saved with) and draws from them (a new policy's initial weights)."""
    python_state, numpy_state = random.getstate(), np.random.get_state()
    with torch.random.fork_rng():
        yield
    random.setstate(python_state)
    np.random.set_state(numpy_state)


def _model_shape(agent: PPOAgent) -> tuple[list[int], int]:
    """The observation shape and the number of actions of the agent's model."""
    model: Any = agent.model
    return list(model.observation_space.shape or ()), int(model.action_space.n)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    show = sub.add_parser("show", help="print a model's spec")
    show.add_argument("model")
    stamp = sub.add_parser("stamp", help="store the spec inside a saved model")
    stamp.add_argument("model")
    stamp.add_argument("--env", required=True, help="env id the model was trained on")
    stamp.add_argument("--obs-encoding", help="observation encoding (default: the env's default)")
    stamp.add_argument("--env-kwargs", default="{}", help="JSON dict of rule options")
    stamp.add_argument("--card", help="a text file: the model card to store with it")
    slim = sub.add_parser("slim", help="drop the optimizer's state from a model kept to be played")
    slim.add_argument("model")
    args = parser.parse_args(argv)
    try:
        if args.command == "slim":
            before, after = slim_model(args.model)
            print(f"{args.model}: {before:,} -> {after:,} bytes")
            return 0
        if args.command == "show":
            spec = read_model_spec(args.model)
            if spec is None:
                print(f"{args.model}: no spec")
                return 1
        else:
            kwargs = env_kwargs_from_json(args.env_kwargs)
            card = _read_card(args.card) if args.card else None
            spec = save_model_spec(args.model, args.env, kwargs, args.obs_encoding, card)
    except (ValueError, FileNotFoundError, TypeError) as exc:
        parser.exit(2, f"error: {exc}\n")
    print(json.dumps(dataclasses.asdict(spec), indent=1))
    return 0


def _read_card(path: str) -> str:
    """The text of the model card at ``path``; a ValueError naming the flag where it is not a readable text file."""
    if Path(path).is_dir():
        raise ValueError(f"--card: {path} is a directory, not a text file")
    try:
        return Path(path).read_text()
    except FileNotFoundError:
        raise ValueError(f"--card: no file at {path}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"--card: cannot read {path} as text: {exc}") from None


if __name__ == "__main__":
    sys.exit(main())
