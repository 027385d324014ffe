"""The one small interface shared by every agent."""

from __future__ import annotations

from abc import ABC, abstractmethod

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

    def reset(self, seed: int | None = None) -> None:  # noqa: B027 - optional hook
        """Called before each episode with the episode's seed."""

    @abstractmethod
    def act(self, env: PatienceEnv, obs: np.ndarray, mask: np.ndarray) -> int:
        """A legal action (``mask[action]`` is True)."""

    def label(self, env: PatienceEnv, obs: np.ndarray, mask: np.ndarray) -> int:
        """The action this agent would take where another player is to move (DAgger's teacher).

        :meth:`observe` is then told the move actually made. By default the same as :meth:`act`.
        """
        return self.act(env, obs, mask)

    def observe(self, env: PatienceEnv, action: int) -> None:  # noqa: B027 - optional hook
        """Told the move another player makes from the position last labelled (before it is made)."""
