"""Build agents from command-line specs: ``random``, ``greedy``, ``solver``, ``planner``, ``ppo:PATH``."""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

from agents.base import Agent, RandomAgent
from agents.load import load_for_env

#: Game name (``env.unwrapped.game.name``) -> "module:Class" of its greedy baseline.
GREEDY: dict[str, str] = {
    "golf": "agents.baselines.greedy_golf:GolfGreedy",
    "golf_round": "agents.baselines.greedy_golf:GolfGreedy",
    "puss_in_the_corner": "agents.baselines.greedy_puss:PussGreedy",
    "miss_milligan": "agents.baselines.greedy_milligan:MilliganGreedy",
    "giant": "agents.baselines.greedy_milligan:MilliganGreedy",
    "miss_milligan_pocket": "agents.baselines.greedy_milligan:MilliganGreedy",
}

#: Game name -> "module:Class" of its perfect-knowledge solver (an upper bound, not a fair agent).
SOLVER: dict[str, str] = {
    "golf": "agents.solvers.golf:GolfSolverAgent",
    "golf_round": "agents.solvers.golf:GolfSolverAgent",
    "puss_in_the_corner": "agents.solvers.puss:PussSolverAgent",
}

#: Game name -> "module:Class" of its search planner (sees only the visible position).
PLANNER: dict[str, str] = {
    "golf": "agents.planners.golf:GolfPlanner",
    "golf_round": "agents.planners.golf:GolfPlanner",
    "puss_in_the_corner": "agents.planners.puss:PussPlanner",
    "miss_milligan": "agents.planners.milligan:MilliganPlanner",
    "giant": "agents.planners.milligan:MilliganPlanner",
    "miss_milligan_pocket": "agents.planners.milligan:MilliganPlanner",
}

_BY_KIND = {"greedy": GREEDY, "solver": SOLVER, "planner": PLANNER}

#: The agent kinds that come from a per-game table (and can teach a policy: see agents.training.imitation).
TEACHERS: tuple[str, ...] = tuple(_BY_KIND)


def _load(target: str) -> type[Agent]:
    module, cls = target.split(":")
    agent_cls: type[Agent] = getattr(importlib.import_module(module), cls)
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
