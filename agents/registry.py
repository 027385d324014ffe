"""Build agents from command-line specs: ``random``, ``greedy``, ``solver``, ``planner``, ``ppo:PATH``."""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

from agents.base import Agent
from agents.baselines.random import RandomAgent
from agents.load import load_for_env
from patience_gym.specs import SPECS, load


def _table(kind: str) -> dict[str, str]:
    """Game name (``env.unwrapped.game.name``) -> "module:Class" of its ``kind`` agent, from the game table."""
    return {spec.game: spec.agents[kind] for spec in SPECS if kind in spec.agents}


#: Game name -> "module:Class" of its greedy baseline.
GREEDY: dict[str, str] = _table("greedy")
#: Game name -> "module:Class" of its perfect-knowledge solver (an upper bound, not a fair agent).
SOLVER: dict[str, str] = _table("solver")
#: Game name -> "module:Class" of its search planner (sees only the visible position).
PLANNER: dict[str, str] = _table("planner")

_BY_KIND = {"greedy": GREEDY, "solver": SOLVER, "planner": PLANNER}

#: The agent kinds that come from a per-game table (and can teach a policy: see agents.training.imitation).
TEACHERS: tuple[str, ...] = tuple(_BY_KIND)


def _load(target: str) -> type[Agent]:
    agent_cls: type[Agent] = load(target)
    return agent_cls


def agent_options(spec: str) -> dict[str, float | None]:
    """The ``name=value`` options of a spec such as ``planner:samples=12,margin=1`` (numbers, or ``none``)."""
    kind, _, arg = spec.partition(":")
    options: dict[str, float | None] = {}
    for item in filter(None, arg.split(",")):
        name, eq, text = item.partition("=")
        if not eq or not name.isidentifier():
            raise ValueError(f"agent {spec!r}: options are name=value, got {item!r}")
        try:
            options[name] = None if text.lower() == "none" else float(text)
        except ValueError:
            raise ValueError(f"agent {spec!r}: option {name} must be a number or none, got {text!r}") from None
    return options


def make_agent(
    spec: str,
    game_name: str,
    seed: int | None = None,
    *,
    env_id: str | None = None,
    env_kwargs: Mapping[str, Any] | None = None,
) -> Agent:
    """An agent from a spec: ``random``, ``greedy``, ``solver``, ``planner`` or ``ppo:PATH``.

    The table agents take their constructor's options after a colon: ``planner:samples=12,margin=1``.
    ``ppo:PATH`` needs the env it will play, ``gym.make(env_id, **env_kwargs)``: the model is loaded by
    :func:`agents.load.load_for_env`, which refuses one trained on another env id, other rule options or
    another encoding (a :class:`agents.load.ModelSpecError`).
    """
    kind, _, arg = spec.partition(":")
    if kind == "random":
        return RandomAgent(seed)
    if kind in _BY_KIND:
        table = _BY_KIND[kind]
        target = table.get(game_name)
        if target is None:
            raise ValueError(f"no {kind} agent for game {game_name!r}; games with one: {', '.join(sorted(table))}")
        options = {k: int(v) if v is not None and v.is_integer() else v for k, v in agent_options(spec).items()}
        agent_cls = _load(target)
        try:
            return agent_cls(**options)
        except TypeError as exc:
            raise ValueError(f"agent {spec!r}: {agent_cls.__name__} does not take these options ({exc})") from None
    if kind == "ppo":
        if not arg:
            raise ValueError("the ppo agent needs a model path: ppo:PATH")
        if env_id is None:
            raise ValueError(f"agent {spec!r} needs the env id it will play (make_agent(..., env_id=, env_kwargs=))")
        return load_for_env(arg, env_id, env_kwargs)
    raise ValueError(f"unknown agent {spec!r}; use random, greedy, solver, planner or ppo:PATH")


def check_agent_spec(
    spec: str, game_name: str, env_id: str | None = None, env_kwargs: dict[str, Any] | None = None
) -> None:
    """A ValueError naming what is wrong with an agent spec (``planner:samples=12``) for ``game_name``;
    a ``ppo:PATH`` agent is loaded for ``gym.make(env_id, **env_kwargs)``, the env it is to play."""
    from pydantic import ValidationError

    from agents.pydantic_errors import describe

    kind, _, arg = spec.partition(":")
    if kind == "ppo":  # built as the report builds it: the model is found and loaded now, not after training
        try:
            make_agent(spec, game_name, env_id=env_id, env_kwargs=env_kwargs)
        except (OSError, TypeError, ValueError) as exc:
            raise ValueError(str(exc)) from None
        return
    options = agent_options(spec)
    if kind == "random":
        if options:
            raise ValueError(f"agent {spec!r}: random takes no options")
        return
    table = _BY_KIND.get(kind)
    if table is None:
        raise ValueError(f"unknown agent {spec!r}; use random, greedy, solver, planner or ppo:PATH")
    target = table.get(game_name)
    if target is None:
        raise ValueError(f"no {kind} agent for game {game_name!r}; games with one: {', '.join(sorted(table))}")
    model = _agent_options_model(target)
    try:
        model.model_validate({k: int(v) if v is not None and v.is_integer() else v for k, v in options.items()})
    except ValidationError as exc:
        first = exc.errors()[0]
        name = first["loc"][0] if first["loc"] else "?"
        if first["type"] == "extra_forbidden":
            raise ValueError(f"unknown option {name} (options: {', '.join(model.model_fields) or 'none'})") from None
        raise ValueError(describe(exc).replace(f"{name} must", f"option {name} must", 1)) from None
    try:
        make_agent(spec, game_name)  # the class's own checks (planner samples >= 1, ...)
    except (TypeError, ValueError) as exc:
        raise ValueError(str(exc)) from None


def _agent_options_model(target: str) -> Any:
    """A pydantic model of an agent class's options: its constructor's parameters, none of them negative."""
    import inspect
    import typing

    from pydantic import ConfigDict, Field, create_model

    module, cls_name = target.split(":")
    init = getattr(importlib.import_module(module), cls_name).__init__
    hints = typing.get_type_hints(init)
    fields: dict[str, Any] = {}
    for name, param in inspect.signature(init).parameters.items():
        if name == "self" or param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        hint = hints.get(name, Any)
        base = int if hint in (int, int | None, bool) else float
        default = param.default if param.default is not param.empty else ...
        number = typing.Annotated[base, Field(ge=0)]  # type: ignore[valid-type]
        fields[name] = (number | None if type(None) in typing.get_args(hint) else number, default)
    return create_model(cls_name + "Options", __config__=ConfigDict(extra="forbid"), **fields)
