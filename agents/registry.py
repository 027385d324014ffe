"""Build agents from command-line specs: ``random``, ``greedy``, ``solver``, ``planner``, ``ppo:PATH``,
``search:PATH,sims=16``."""

from __future__ import annotations

import functools
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

    The table agents take their constructor's options after a colon: ``planner:samples=12,margin=1``, checked
    once by :func:`options_model` (then by the class itself). ``ppo:PATH`` needs the env it will play,
    ``gym.make(env_id, **env_kwargs)``: the model is loaded by :func:`agents.load.load_for_env`, which refuses
    one trained on another env id, other rule options or another encoding (a :class:`agents.load.ModelSpecError`).
    """
    from pydantic import ValidationError

    from agents.pydantic_errors import one_line

    kind, _, arg = spec.partition(":")
    if kind == "random":
        if agent_options(spec):
            raise ValueError(f"agent {spec!r}: random takes no options")
        return RandomAgent(seed)
    if kind in _BY_KIND:
        table = _BY_KIND[kind]
        target = table.get(game_name)
        if target is None:
            raise ValueError(f"no {kind} agent for game {game_name!r}; games with one: {', '.join(sorted(table))}")
        agent_cls = _load(target)
        model = options_model(agent_cls)
        try:
            options = model.model_validate(agent_options(spec))
        except ValidationError as exc:
            first = exc.errors()[0]
            if first["type"] == "extra_forbidden":
                known = ", ".join(model.model_fields) or "none"
                raise ValueError(f"agent {spec!r}: unknown option {first['loc'][0]}; {kind} takes {known}") from None
            raise ValueError(f"agent {spec!r}: option {one_line(exc)}") from None
        return agent_cls(**options.model_dump())
    if kind == "search":
        from agents.search.agent import SearchAgent, parse_spec

        if env_id is None:
            raise ValueError(f"agent {spec!r} needs the env id it will play (make_agent(..., env_id=, env_kwargs=))")
        path, options = parse_spec(spec)
        return SearchAgent(path, env_id, env_kwargs, **options)
    if kind == "ppo":
        if not arg:
            raise ValueError("the ppo agent needs a model path: ppo:PATH")
        if env_id is None:
            raise ValueError(f"agent {spec!r} needs the env id it will play (make_agent(..., env_id=, env_kwargs=))")
        return load_for_env(arg, env_id, env_kwargs)
    raise ValueError(f"unknown agent {spec!r}; use random, greedy, solver, planner, ppo:PATH or search:PATH")


def check_agent_spec(
    spec: str, game_name: str, env_id: str | None = None, env_kwargs: Mapping[str, Any] | None = None
) -> None:
    """A ValueError naming what is wrong with an agent spec (``planner:samples=12``) for ``game_name``: the agent
    is built (a ``ppo:PATH`` model loaded for ``gym.make(env_id, **env_kwargs)``, the env it is to play)."""
    try:
        make_agent(spec, game_name, env_id=env_id, env_kwargs=env_kwargs)
    except (OSError, TypeError, ValueError) as exc:
        raise ValueError(str(exc)) from None


@functools.cache
def options_model(agent_cls: type[Agent]) -> Any:
    """A pydantic model of an agent class's options: its constructor's parameters, none of them negative."""
    import inspect
    import typing

    from pydantic import ConfigDict, Field, create_model

    hints = typing.get_type_hints(agent_cls.__init__)
    fields: dict[str, Any] = {}
    for name, param in inspect.signature(agent_cls.__init__).parameters.items():
        if name == "self" or param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        hint = hints.get(name, Any)
        base = int if hint in (int, int | None, bool) else float
        default = param.default if param.default is not param.empty else ...
        number = typing.Annotated[base, Field(ge=0)]  # type: ignore[valid-type]
        fields[name] = (number | None if type(None) in typing.get_args(hint) else number, default)
    return create_model(agent_cls.__name__ + "Options", __config__=ConfigDict(extra="forbid"), **fields)
