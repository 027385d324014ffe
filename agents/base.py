"""The one small interface shared by every agent."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

import numpy as np

from patience_gym.env import PatienceEnv


class Agent(ABC):
    """Chooses a legal action from the observation, the mask and the visible position.

    ``env`` is the unwrapped :class:`~patience_gym.env.PatienceEnv`. Agents may
    read ``env.game`` (the rules) and the *visible* parts of ``env.state``;
    reading hidden cards (the face-down stock) is reserved to agents whose
    name says they have perfect knowledge (solvers).
    """

    #: Short name used in tables and on the command line.
    name: str = "agent"
    #: Whether :meth:`act` reads ``obs``. Agents that choose from ``env.state`` and the mask alone set it
    #: False, and :func:`agents.evaluation.evaluate.play_episodes` then plays them on the env's default observation,
    #: which changes none of their moves but skips the cost of a rich encoding (``moves_endgame``).
    reads_observation: bool = True
    #: Whether :meth:`act_many` chooses for many games at once as :meth:`act` would for each, and
    #: :meth:`reset` keeps nothing between games, so the evaluation may play its deals in lockstep.
    plays_in_lockstep: bool = False

    def reset(self, seed: int | None = None) -> None:  # noqa: B027 - optional hook
        """Called before each episode with the episode's seed."""

    @abstractmethod
    def act(self, env: PatienceEnv, obs: np.ndarray, mask: np.ndarray) -> int:
        """A legal action (``mask[action]`` is True)."""

    def act_many(self, envs: list[PatienceEnv], observations: list[np.ndarray], masks: list[np.ndarray]) -> list[int]:
        """:meth:`act` for several games at once (one action per env); by default one game after another."""
        return [self.act(env, obs, mask) for env, obs, mask in zip(envs, observations, masks, strict=True)]

    def label(self, env: PatienceEnv, obs: np.ndarray, mask: np.ndarray) -> int:
        """The action this agent would take where another player is to move (DAgger's teacher).

        :meth:`observe` is then told the move actually made. By default the same as :meth:`act`.
        """
        return self.act(env, obs, mask)

    def observe(self, env: PatienceEnv, action: int) -> None:  # noqa: B027 - optional hook
        """Told the move another player makes from the position last labelled (before it is made)."""


class PlanFollower(Agent):
    """Plays a move list made by a search, and searches again where play leaves it (the solvers).

    Subclasses give the position to plan from (:meth:`position`) and the search (:meth:`plan`). A new
    plan is made when the old one runs out or the position is not the one its next move was planned
    for: a new deal, or another player's move (DAgger).
    """

    reads_observation = False

    def __init__(self) -> None:
        self._plan: list[int] = []
        self._expected: Any = None  # the position the plan's next move is for

    def reset(self, seed: int | None = None) -> None:
        self._plan = []
        self._expected = None

    def position(self, env: PatienceEnv) -> tuple[Any, Any]:
        """The rules and the position to play: by default ``env.game`` and ``env.state``."""
        return env.game, env.state

    @abstractmethod
    def plan(self, game: Any, state: Any) -> list[int]:
        """The move list to play from ``state``."""

    def on_plan(self, state: Any, mask: np.ndarray) -> bool:
        """Whether the current plan's next move is still the one to play from ``state`` (the plan is not empty)."""
        return self._expected is not None and state == self._expected

    def act(self, env: PatienceEnv, obs: np.ndarray, mask: np.ndarray) -> int:
        game, state = self.position(env)
        if not self._plan or not self.on_plan(state, mask):
            self._plan = self.plan(game, state)
        action = self._plan.pop(0)
        self._expected = state.copy()
        game.apply(self._expected, action)
        return action
