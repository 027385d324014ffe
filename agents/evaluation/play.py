"""Play a patience game in the terminal, with hints from any agent.

Usage::

    python -m agents.evaluation.play patience_gym/MissMilligan-v0 --seed 3 --hint-agent planner
    python -m agents.evaluation.play patience_gym/Golf-v0 --env-kwargs '{"obs_encoding": "rules_moves"}' \\
        --hint-agent ppo:models/golf_rules.zip

The game, its commands and its record are :mod:`patience_gym.play`'s (``python -m
patience_gym.play`` plays with the greedy heuristic's hints and needs no agents); here
``--hint-agent SPEC`` (``greedy``, ``planner:samples=12``, ``solver``, ``ppo:PATH``, ...) picks
the agent that gives the hints. It is made at start-up by :func:`agents.registry.make_agent`,
so an unknown agent, a missing model or a model trained for another env, rules or encoding is
refused before the deal.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any, TextIO

import numpy as np

from agents.registry import make_agent
from patience_gym import play
from patience_gym.play import Hint, Session


def agent_hint(spec: str, session: Session) -> Hint:
    """The hint of agent ``spec`` for ``session``'s game: its move, the agent reset to the deal's seed
    before each (as a fresh one); ValueError, TypeError or FileNotFoundError where it cannot be made."""
    agent = make_agent(
        spec, session.game_env.game.name, seed=session.seed, env_id=session.env_id, env_kwargs=session.env_kwargs
    )

    def hint(env: Any, obs: np.ndarray, mask: np.ndarray) -> int:
        agent.reset(session.seed)
        return int(agent.act(env, obs, mask))

    return hint


def main(argv: Sequence[str] | None = None, stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    """:func:`patience_gym.play.main` with ``--hint-agent``; returns the exit status."""
    return play.main(
        argv, stdin, stdout, hint_maker=agent_hint, prog="python -m agents.evaluation.play", description=__doc__
    )


if __name__ == "__main__":
    sys.exit(main())
