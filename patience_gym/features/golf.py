"""Golf's feature encodings: ``ranks`` (suits dropped) and ``runs`` (the planes plus visible runs).

Both serve one hole (``Golf``) and a round (``GolfRound``, which appends the
hole in play / 8, as its plain encodings do). Their sizes are in
:mod:`patience_gym.features.golf_layout` (the networks read them there, free of the heuristics).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np

from patience_gym.cards import RANK
from patience_gym.core import Game, ObsSpec
from patience_gym.features.base import Observer, for_games
from patience_gym.features.golf_layout import RANKS_SIZE, RUNS_SIZE
from patience_gym.features.rules.golf import RULES_MOVES as rules_moves_observer
from patience_gym.features.rules.layout import ENCODING as RULES_MOVES
from patience_gym.games.golf import (
    NUM_COLUMNS,
    NUM_HOLES,
    NUM_LINKS,
    NUM_ROWS,
    PLANES_SIZE,
    STOCK_SIZE,
    Golf,
    GolfRound,
    GolfRoundState,
    GolfState,
)
from patience_gym.heuristics.golf_runs import column_runs


class RanksObserver(Observer):
    """Suits dropped (Golf ignores them): ranks by slot, exposed ranks, waste rank, unseen counts."""

    encoding = "ranks"
    spec = ObsSpec((RANKS_SIZE,), 0.0, 1.0, np.float32)

    def observe(self, state: GolfState) -> np.ndarray:
        obs = np.zeros(RANKS_SIZE, dtype=np.float32)
        unseen = [4] * 13
        exposed_at = NUM_LINKS * 13
        for c, col in enumerate(state.columns):
            for r, card in enumerate(col):
                rank = RANK[card] - 1
                obs[(r * NUM_COLUMNS + c) * 13 + rank] = 1.0
                unseen[rank] -= 1
            if col:
                obs[exposed_at + c * 13 + RANK[col[-1]] - 1] = 1.0
        for card in state.waste:
            unseen[RANK[card] - 1] -= 1
        waste_at = exposed_at + NUM_COLUMNS * 13
        obs[waste_at + RANK[state.waste[-1]] - 1] = 1.0
        obs[waste_at + 13 : waste_at + 26] = np.array(unseen, dtype=np.float32) / 4.0
        obs[-1] = (len(state.stock) - state.pos) / (STOCK_SIZE - 1)
        return obs


class RunsObserver(Observer):
    """The planes, then per column: the longest visible run it starts, the openness after it, its height.

    See :mod:`patience_gym.heuristics.golf_runs`; only visible cards are read.
    """

    encoding = "runs"
    spec = ObsSpec((RUNS_SIZE,), 0.0, 1.0, np.float32)

    def __init__(self, game: Golf) -> None:
        super().__init__(game)
        self.golf = game

    def observe(self, state: GolfState) -> np.ndarray:
        obs = np.zeros(RUNS_SIZE, dtype=np.float32)
        obs[:PLANES_SIZE] = self.golf.observe(state, "planes")
        at = PLANES_SIZE
        for c, (length, openness) in enumerate(column_runs(self.golf.fits, state.columns, state.waste)):
            obs[at + 3 * c] = length / NUM_LINKS
            obs[at + 3 * c + 1] = openness / 52
            obs[at + 3 * c + 2] = len(state.columns[c]) / NUM_ROWS
        return obs


class RoundObserver(Observer):
    """A hole encoding for a nine-hole round: the hole in play's observation, then the hole / 8."""

    def __init__(self, game: GolfRound, hole: Observer) -> None:
        super().__init__(game)
        self.hole = hole
        self.encoding = hole.encoding
        self._spec = dataclasses.replace(hole.spec, shape=(hole.spec.shape[0] + 1,))

    @property
    def spec(self) -> ObsSpec:
        return self._spec

    def observe(self, state: GolfRoundState) -> np.ndarray:
        obs = self.hole.observe(state.hole_state)
        return np.append(obs, np.array(state.hole / (NUM_HOLES - 1), dtype=obs.dtype))


def _factory(hole_observer: Callable[[Golf], Observer]) -> Callable[[Game[Any]], Observer]:
    def make(game: Golf | GolfRound) -> Observer:
        if isinstance(game, GolfRound):
            return RoundObserver(game, hole_observer(game.hole_game))
        return hole_observer(game)

    return for_games((Golf, GolfRound), "Golf features need a Golf or GolfRound game", make)


ENCODINGS: dict[str, Callable[[Game[Any]], Observer]] = {
    "ranks": _factory(RanksObserver),
    "runs": _factory(RunsObserver),
    RULES_MOVES: rules_moves_observer,
}
