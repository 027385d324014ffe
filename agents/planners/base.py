"""The shared determinization search: plan over the visible position, sampling the unseen cards.

A *determinization* of a position is a fully known state that agrees with
everything the player can see, its face-down cards replaced by a random order
of the cards the player has not seen. Which cards those are is computed from
the visible position alone (the full deck minus every visible card), never
from the hidden stock, and the order is drawn from the planner's own RNG
(seeded by :meth:`~DeterminizationPlanner.reset`). Each candidate action is
scored on the same ``samples`` worlds (common random numbers) and the best
mean wins; the rollout policy's own choice is credited ``margin`` (a guard
against picking a move for its lucky samples), and ties go to it, then to the
lowest action, so the choice is deterministic
given the seed (while the sample count, not the clock, is what binds).

Budget per move: at most ``samples`` worlds, and no new world is started
once the time spent, plus the last world's cost, would pass ``max_seconds``
(at least one world is always scored). When nothing is hidden (or the hidden
order is known from what the player saw), one world is enough.
"""

from __future__ import annotations

import time
from abc import abstractmethod
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from agents.base import Agent
from patience_gym.env import PatienceEnv


def unseen_cards(deck: Counter[int], visible: Iterable[int]) -> list[int]:
    """The cards of ``deck`` (card -> copies) not among ``visible``, in card order."""
    left = deck.copy()
    left.subtract(visible)
    if any(n < 0 for n in left.values()):
        raise ValueError("the visible cards are not part of the deck")
    return sorted(left.elements())


class DeterminizationPlanner(Agent):
    """Sampled-world search over the visible position; subclasses supply the game-specific parts."""

    reads_observation = False

    name = "planner"

    #: Every card of the game's deck with its number of copies.
    deck: Counter[int]

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
        choice = self.label(env, obs, mask)
        self.observe(env, choice)
        return choice

    def label(self, env: PatienceEnv, obs: np.ndarray, mask: np.ndarray) -> int:
        """The planner's choice, remembering nothing: what it sees is remembered by :meth:`observe`."""
        game, state = self.position(env)
        legal = [int(a) for a in np.flatnonzero(mask)]
        if len(legal) == 1:
            return legal[0]
        shortcut = self.shortcut(game, state, legal)
        if shortcut is not None:
            return shortcut
        candidates = self.candidates(game, state, legal)
        return candidates[0] if len(candidates) == 1 else self.search(game, state, candidates)

    def observe(self, env: PatienceEnv, action: int) -> None:
        game, state = self.position(env)
        self.chosen(game, state, action)

    # --- the shared mechanism -------------------------------------------
    def unseen(self, game: Any, state: Any) -> list[int]:
        """The cards the player has not seen: the deck minus the visible cards."""
        return unseen_cards(self.deck, self.visible_cards(game, state))

    def determinize(self, game: Any, state: Any, unseen: Sequence[int] | None = None) -> Any:
        """One sampled world: ``state`` with its hidden part replaced by a random order of the unseen cards."""
        if unseen is None:
            unseen = self.unseen(game, state)
        order = self.recalled_order(game, state, unseen)
        if order is None:
            order = [unseen[i] for i in self._rng.permutation(len(unseen))]
        return self.with_hidden(game, state, tuple(order))

    def search(self, game: Any, state: Any, candidates: Sequence[int]) -> int:
        """The candidate with the best mean value over the sampled worlds (ties: lowest action)."""
        unseen = self.unseen(game, state)
        known = not unseen or self.recalled_order(game, state, unseen) is not None
        worlds = 1 if known else self.samples
        totals = [0.0] * len(candidates)
        start = time.perf_counter()
        done = 0
        preferred = -1
        for _ in range(worlds):
            world = self.determinize(game, state, unseen)
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
    def visible_cards(self, game: Any, state: Any) -> list[int]:
        """Every card the player can see in ``state`` (with repeats for two-pack games)."""

    @abstractmethod
    def with_hidden(self, game: Any, state: Any, order: tuple[int, ...]) -> Any:
        """A new state equal to ``state`` in all it shows, with ``order`` as its face-down cards."""

    @abstractmethod
    def value(self, game: Any, world: Any, action: int) -> float:
        """How good ``action`` is in the fully known ``world`` (higher is better); ``world`` stays unchanged."""

    def preferred(self, game: Any, world: Any) -> int:
        """The move that wins ties (the rollout policy's choice); -1 for none."""
        return -1

    def recalled_order(self, game: Any, state: Any, unseen: Sequence[int]) -> Sequence[int] | None:
        """The hidden order where the player has seen it (e.g. packets taken up for a redeal), else None."""
        return None

    def shortcut(self, game: Any, state: Any, legal: list[int]) -> int | None:
        """A move taken without search, or None to search."""
        return None

    def candidates(self, game: Any, state: Any, legal: list[int]) -> list[int]:
        """The legal actions worth searching (duplicates by symmetry dropped); all by default."""
        return legal

    def chosen(self, game: Any, state: Any, action: int) -> None:
        """Called with every move played (to remember what was seen)."""
