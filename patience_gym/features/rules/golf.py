"""Golf's ``rules_moves``: one row per legal move (play a column's exposed card, or deal), 8 slots.

Kinds: source 0 = stock, 1 = column; destination 2 = waste. Indexes: the
column (0..6), 0 for the stock and the waste. ``SOURCE_NEXT``: the column's
cards beneath the uncovered one, nearest first (every Golf link is face up);
for a deal, ``HIDDEN_CARD`` for each stock card still face down past the next.
``GAME_VALUE``: how many unseen cards (not on the links, not in the waste)
would fit on the moved card, / 8: its chances of taking a dealt card (0 for a
deal). ``WAIT`` is 1.0 (Golf has no foundations). A round (``GolfRound-v0``)
reads the hole in play; its global part is the round's ``planes`` (hole / 8 last).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from patience_gym.cards import RANK
from patience_gym.features.base import for_games
from patience_gym.features.rules import layout as L
from patience_gym.features.rules.base import MoveRowsObserver
from patience_gym.games.golf import DEAL, NUM_COLUMNS, Golf, GolfRound, GolfState, hole_in_play

SLOTS = NUM_COLUMNS + 1
STOCK_KIND, COLUMN_KIND, WASTE_KIND = 0, 1, 2


def golf_row(golf: Golf, state: GolfState, action: int) -> list[float]:
    """The :data:`~patience_gym.features.rules.layout.ROW` values of the legal ``action`` in ``state``."""
    row = [0.0] * L.ROW
    row[L.ACTION] = (action + 1) / golf.num_actions
    row[L.DEST_KIND] = WASTE_KIND
    row[L.ONTO] = state.waste[-1] + 1
    row[L.COUNT] = 1 / 52
    row[L.WAIT] = 1.0
    row[L.DEST_AFTER] = (len(state.waste) + 1) / 52
    if action == DEAL:
        left = state.stock_left - 1
        row[L.SOURCE_KIND] = STOCK_KIND
        # the dealt card and the face-down cards under it that the row names
        under = min(left, 1 + L.NEXT_CARDS)
        row[L.MOVED] = row[L.MOVED_TOP] = L.HIDDEN_CARD
        row[L.UNCOVERS : L.UNCOVERS + under] = [L.HIDDEN_CARD] * under
        row[L.SOURCE_LEFT] = left / 52
        row[L.REVEALS] = 1.0
        return row
    col = state.columns[action]
    card = col[-1]
    row[L.SOURCE_KIND] = COLUMN_KIND
    row[L.SOURCE_INDEX] = action
    row[L.MOVED] = row[L.MOVED_TOP] = card + 1
    for k, under in enumerate(col[-2::-1][: 1 + L.NEXT_CARDS]):
        row[L.UNCOVERS + k] = under + 1
    row[L.SOURCE_LEFT] = (len(col) - 1) / 52
    after = state.copy()
    golf.apply(after, action)
    row[L.AFTER_LEGAL] = 0.0 if golf.is_over(after) else min(1.0, int(golf.legal_mask(after).sum()) / SLOTS)
    fits = golf.fits[RANK[card]]
    row[L.GAME_VALUE] = sum(1 for c in state.stock[state.pos :] if fits[RANK[c]]) / 8
    return row


class RulesMovesObserver(MoveRowsObserver):
    """Golf's (or a round's) ``rules_moves`` observation: the ``planes``, the position values, 8 move rows."""

    def __init__(self, game: Golf | GolfRound) -> None:
        super().__init__(game, game.obs_spec("planes").shape[0], SLOTS)

    def write_global(self, state: Any, out: np.ndarray) -> None:
        out[:] = self.game.observe(state, "planes")

    def position(self, state: Any) -> tuple[Golf, GolfState]:
        return hole_in_play(self.game, state)

    def legal_actions(self, position: tuple[Golf, GolfState]) -> list[int]:
        golf, hole = position
        return np.flatnonzero(golf.legal_mask(hole)).tolist()

    def move_row(self, position: tuple[Golf, GolfState], action: int) -> list[float]:
        return golf_row(*position, action)


#: The encoding's factory, for :data:`patience_gym.features.golf.ENCODINGS` (a hole or a round).
RULES_MOVES = for_games((Golf, GolfRound), "Golf features need a Golf or GolfRound game", RulesMovesObserver)
