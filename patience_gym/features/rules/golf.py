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
from patience_gym.core import Game
from patience_gym.features.base import Observer
from patience_gym.features.rules import layout as L
from patience_gym.features.rules.base import MoveRowsObserver
from patience_gym.games.golf import DEAL, NUM_COLUMNS, PLANE_WIDTH, Golf, GolfRound, GolfState, hole_in_play

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
        row[L.MOVED] = row[L.MOVED_TOP] = L.HIDDEN_CARD
        if left:
            row[L.UNCOVERS] = L.HIDDEN_CARD
            row[L.SOURCE_NEXT : L.SOURCE_NEXT + min(left - 1, L.NEXT_CARDS)] = [L.HIDDEN_CARD] * min(
                left - 1, L.NEXT_CARDS
            )
        row[L.SOURCE_LEFT] = left / 52
        row[L.REVEALS] = 1.0
        return row
    col = state.columns[action]
    card = col[-1]
    row[L.SOURCE_KIND] = COLUMN_KIND
    row[L.SOURCE_INDEX] = action
    row[L.MOVED] = row[L.MOVED_TOP] = card + 1
    beneath = col[-2::-1][: 1 + L.NEXT_CARDS]
    for k, under in enumerate(beneath):
        row[L.UNCOVERS + k] = under + 1
    row[L.SOURCE_LEFT] = (len(col) - 1) / 52
    after = golf.fits[RANK[card]]
    others = [other for c, other in enumerate(state.columns) if c != action and other]
    playable = sum(1 for other in others if after[RANK[other[-1]]])
    playable += bool(beneath) and after[RANK[beneath[0]]]
    playable += state.stock_left > 0
    if state.links_left == 1:  # the last link: the hole is won, nothing follows
        playable = 0
    row[L.AFTER_LEGAL] = min(1.0, playable / SLOTS)
    unseen = [RANK[c] for c in state.stock[state.pos :]]
    row[L.GAME_VALUE] = sum(1 for r in unseen if after[r]) / 8
    return row


class RulesMovesObserver(MoveRowsObserver):
    """Golf's (or a round's) ``rules_moves`` observation: the ``planes``, the position values, 8 move rows."""

    def __init__(self, game: Golf | GolfRound) -> None:
        super().__init__(game, game.obs_spec("planes").shape[0], SLOTS, 52, PLANE_WIDTH)

    def write_global(self, state: Any, out: np.ndarray) -> None:
        out[:] = self.game.observe(state, "planes")

    def legal_actions(self, state: Any) -> list[int]:
        golf, hole = hole_in_play(self.game, state)
        return np.flatnonzero(golf.legal_mask(hole)).tolist()

    def move_row(self, state: Any, action: int) -> list[float]:
        golf, hole = hole_in_play(self.game, state)
        return golf_row(golf, hole, action)


def make(game: Game[Any]) -> Observer:
    """The factory registered as Golf's and GolfRound's ``rules_moves``."""
    if not isinstance(game, (Golf, GolfRound)):
        raise TypeError(f"Golf features need a Golf or GolfRound game, got {game.name}")
    return RulesMovesObserver(game)
