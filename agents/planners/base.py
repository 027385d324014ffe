"""The shared determinization search: plan over the visible position, sampling the unseen cards.

A *determinization* of a position is a fully known state that agrees with
everything the player can see, its face-down cards replaced by a random order
of the cards the player has not seen: the rules' public
:meth:`~patience_gym.core.Game.determinize`, which reads the visible position
alone (never the hidden order), with the planner's own RNG (seeded by
:meth:`~DeterminizationPlanner.reset`). Each candidate action is
scored on the same ``samples`` worlds (common random numbers) and the best
mean wins; the rollout policy's own choice is credited ``margin`` (a guard
against picking a move for its lucky samples), and ties go to it, then to the
lowest action, so the choice is deterministic
given the seed (while the sample count, not the clock, is what binds).

Budget per move: at most ``samples`` worlds, and no new world is started
once the time spent, plus the last world's cost, would pass ``max_seconds``
(at least one world is always scored). When nothing is hidden (or the hidden
order is known to the player, as Puss in the Corner's second pass), one world is enough.
"""

from __future__ import annotations

import time
from abc import abstractmethod
from collections.abc import Sequence
from typing import Any

import numpy as np

from agents.base import Agent
from patience_gym.env import PatienceEnv


class DeterminizationPlanner(Agent):
    """Sampled-world search over the visible position; subclasses supply the game-specific parts."""

    reads_observation = False

    name = "planner"

    def __init__(self, samples: int, max_seconds: float | None, margin: float = 0.0) -> None:
        if samples < 1:
            raise ValueError("samples must be at least 1")
        self.samples = samples
        self.max_seconds = max_seconds
        self.margin = margin
        self._rng = np.random.default_rng()
        #: Moves searched, worlds scored, and moves where the clock cut the sampling short.
        self.stats = {"searched": 0, "worlds": 0, "cut_by_time": 0}

    # --- the Agent interface --------------------------------------------
    def reset(self, seed: int | None = None) -> None:
        self._rng = np.random.default_rng(seed)

    def act(self, env: PatienceEnv, obs: np.ndarray, mask: np.ndarray) -> int:
        game, state = self.position(env)
        legal = [int(a) for a in np.flatnonzero(mask)]
        if len(legal) == 1:
            return legal[0]
        shortcut = self.shortcut(game, state, legal)
        if shortcut is not None:
            return shortcut
        candidates = self.candidates(game, state, legal)
        return candidates[0] if len(candidates) == 1 else self.search(game, state, candidates)

    # --- the shared mechanism -------------------------------------------
    def determinize(self, game: Any, state: Any) -> Any:
        """One sampled world: ``state`` with its hidden part a random order of the unseen cards."""
        return game.determinize(state, self._rng)

    def search(self, game: Any, state: Any, candidates: Sequence[int]) -> int:
        """The candidate with the best mean value over the sampled worlds (ties: lowest action)."""
        worlds = self.samples if game.unseen_cards(state) else 1
        totals = [0.0] * len(candidates)
        start = time.perf_counter()
        done = 0
        preferred = -1
        for _ in range(worlds):
            world = self.determinize(game, state)
            if done == 0:
                preferred = self.preferred(game, world)
            for i, action in enumerate(candidates):
                totals[i] += self.value(game, world, action)
            done += 1
            if self.max_seconds is not None and done < worlds:
                elapsed = time.perf_counter() - start
                if elapsed + elapsed / done > self.max_seconds:
                    self.stats["cut_by_time"] += 1
                    break
        self.stats["searched"] += 1
        self.stats["worlds"] += done
        bonus = [self.margin * done if a == preferred else 0.0 for a in candidates]
        best = max(
            range(len(candidates)), key=lambda i: (totals[i] + bonus[i], candidates[i] == preferred, -candidates[i])
        )
        return candidates[best]

    # --- game-specific parts --------------------------------------------
    @abstractmethod
    def position(self, env: PatienceEnv) -> tuple[Any, Any]:
        """The rules and the state the planner searches (e.g. the hole in play of a Golf round)."""

    @abstractmethod
    def value(self, game: Any, world: Any, action: int) -> float:
        """How good ``action`` is in the fully known ``world`` (higher is better); ``world`` stays unchanged."""

    def preferred(self, game: Any, world: Any) -> int:
        """The move that wins ties (the rollout policy's choice); -1 for none."""
        return -1

    def shortcut(self, game: Any, state: Any, legal: list[int]) -> int | None:
        """A move taken without search, or None to search."""
        return None

    def candidates(self, game: Any, state: Any, legal: list[int]) -> list[int]:
        """The legal actions worth searching (duplicates by symmetry dropped); all by default."""
        return legal
