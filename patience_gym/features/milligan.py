"""The Miss Milligan family's move-list encodings: ``moves``, ``moves_search`` and ``moves_endgame``.

``moves``: the planes, then ``EXTRA`` position values and the list of legal
moves, ``MOVE_SLOTS`` rows of ``ROW`` values
(:mod:`patience_gym.heuristics.milligan_moves`). ``moves_search``: the same,
with the lookahead's two values on each row. ``moves_endgame``: the same, with
the endgame replay's two values on each row, set once the stock is out
(:mod:`patience_gym.heuristics.milligan_endgame`; the observer keeps the memo). ``rules_moves``: the
rules-only move rows shared by every game (:mod:`patience_gym.features.rules.milligan`).
"""

from __future__ import annotations

from collections.abc import Callable
from types import MappingProxyType
from typing import Any

import numpy as np

from patience_gym.core import Game, ObsSpec
from patience_gym.features.base import Observer, for_games
from patience_gym.features.rules.layout import ENCODING as RULES_MOVES
from patience_gym.features.rules.milligan import RULES_MOVES as rules_moves_observer
from patience_gym.games.milligan import PLANES_SIZE, MilliganGame, MilliganState
from patience_gym.heuristics.milligan_endgame import EndgameReplay
from patience_gym.heuristics.milligan_moves import (
    ENDGAME_ROW,
    EXTRA,
    MOVE_SLOTS,
    ROW,
    SEARCH_ROW,
    move_rows,
    write_endgame,
)

MOVES_GLOBAL = PLANES_SIZE + EXTRA
MOVES_SIZE = MOVES_GLOBAL + MOVE_SLOTS * ROW
MOVES_SEARCH_SIZE = MOVES_GLOBAL + MOVE_SLOTS * SEARCH_ROW
MOVES_ENDGAME_SIZE = MOVES_GLOBAL + MOVE_SLOTS * ENDGAME_ROW


class MovesObserver(Observer):
    """The planes, the position values and the list of legal moves with their features."""

    encoding = "moves"
    search = False
    size = MOVES_SIZE

    def __init__(self, game: MilliganGame) -> None:
        super().__init__(game)
        self.milligan = game
        self._spec = ObsSpec((self.size,), -1.0, 1.0, np.float32)
        row = (self.size - MOVES_GLOBAL) // MOVE_SLOTS
        self.layout = MappingProxyType(
            {"global_size": MOVES_GLOBAL, "move_features": row - 1, "num_actions": game.num_actions}
        )

    @property
    def spec(self) -> ObsSpec:
        return self._spec

    def observe(self, state: MilliganState) -> np.ndarray:
        out = np.empty(self.size, dtype=np.float32)
        self._fill(out, state, self.milligan.legal_actions(state))
        return out

    def _fill(self, out: np.ndarray, state: MilliganState, acts: list[int]) -> np.ndarray:
        """Write the planes and position values into ``out``; return the move rows (not yet written)."""
        out[:PLANES_SIZE] = self.milligan.observe(state, "planes")
        rows, extra = move_rows(self.milligan, state, acts, search=self.search)
        out[PLANES_SIZE:MOVES_GLOBAL] = extra
        if out.shape[0] == MOVES_GLOBAL + rows.size:
            out[MOVES_GLOBAL:] = rows.ravel()
        return rows


class SearchObserver(MovesObserver):
    """``moves_search``: each move row also carries the lookahead's two values."""

    encoding = "moves_search"
    search = True
    size = MOVES_SEARCH_SIZE


class EndgameObserver(SearchObserver):
    """``moves_endgame``: ``moves_search`` plus each move's greedy replay to the end once the stock is out."""

    encoding = "moves_endgame"
    size = MOVES_ENDGAME_SIZE

    def __init__(self, game: MilliganGame) -> None:
        super().__init__(game)
        self.replay = EndgameReplay()

    def observe(self, state: MilliganState) -> np.ndarray:
        out = np.empty(self.size, dtype=np.float32)
        acts = self.milligan.legal_actions(state)
        rows = self._fill(out, state, acts)
        wide = out[MOVES_GLOBAL:].reshape(MOVE_SLOTS, ENDGAME_ROW)
        wide[:, :SEARCH_ROW] = rows
        wide[:, SEARCH_ROW:] = 0.0
        write_endgame(wide, acts, self.replay.move_values(self.milligan, state))
        return out


def _milligan(cls: type[MovesObserver]) -> Callable[[Game[Any]], Observer]:
    return for_games(MilliganGame, "Miss Milligan features need a game of that family", cls)


ENCODINGS: dict[str, Callable[[Game[Any]], Observer]] = {
    "moves": _milligan(MovesObserver),
    "moves_search": _milligan(SearchObserver),
    "moves_endgame": _milligan(EndgameObserver),
    RULES_MOVES: rules_moves_observer,
}
