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

from types import MappingProxyType
from typing import Any

import numpy as np

from patience_gym.cards import RANK
from patience_gym.core import Game, ObsSpec
from patience_gym.features.base import Observer
from patience_gym.features.rules import layout as L
from patience_gym.games.golf import DEAL, NUM_COLUMNS, PLANE_WIDTH, Golf, GolfRound, GolfState, hole_in_play

SLOTS = NUM_COLUMNS + 1
STOCK_KIND, COLUMN_KIND, WASTE_KIND = 0, 1, 2


def golf_rows(golf: Golf, state: GolfState, rows: np.ndarray) -> int:
    """Write the legal moves' rows of ``state`` into ``rows`` (zeroed, ``SLOTS`` x ``ROW``); their count."""
    mask = golf.legal_mask(state)
    top = state.waste[-1]
    unseen = [0] * 14
    for card in state.stock[state.pos :]:
        unseen[RANK[card]] += 1
    n = 0
    for action in np.flatnonzero(mask).tolist():
        row = rows[n]
        row[L.ACTION] = (action + 1) / golf.num_actions
        row[L.DEST_KIND] = WASTE_KIND
        row[L.ONTO] = top + 1
        row[L.COUNT] = 1 / 52
        row[L.WAIT] = 1.0
        row[L.DEST_AFTER] = (len(state.waste) + 1) / 52
        if action == DEAL:
            left = state.stock_left - 1
            row[L.SOURCE_KIND] = STOCK_KIND
            row[L.MOVED] = row[L.MOVED_TOP] = L.HIDDEN_CARD
            if left:
                row[L.UNCOVERS] = L.HIDDEN_CARD
                row[L.SOURCE_NEXT : L.SOURCE_NEXT + min(left - 1, L.NEXT_CARDS)] = L.HIDDEN_CARD
            row[L.SOURCE_LEFT] = left / 52
            row[L.REVEALS] = 1.0
        else:
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
            row[L.GAME_VALUE] = sum(unseen[r] for r in range(1, 14) if after[r]) / 8
        n += 1
    return n


class RulesMovesObserver(Observer):
    """Golf's (or a round's) ``rules_moves`` observation: the ``planes``, the position values, 8 move rows."""

    encoding = L.ENCODING

    def __init__(self, game: Golf | GolfRound) -> None:
        super().__init__(game)
        planes = game.obs_spec("planes").shape[0]
        self.planes_size = planes
        self._spec = ObsSpec((L.size(planes, SLOTS),), 0.0, float(L.HIDDEN_CARD), np.float32)
        self.layout = MappingProxyType(L.layout(planes, SLOTS, game.num_actions, 52, PLANE_WIDTH))

    @property
    def spec(self) -> ObsSpec:
        return self._spec

    def observe(self, state: Any) -> np.ndarray:
        out = np.zeros(self._spec.shape[0], dtype=np.float32)
        out[: self.planes_size] = self.game.observe(state, "planes")
        golf, hole = hole_in_play(self.game, state)
        at = self.planes_size + L.POSITION_VALUES
        n = golf_rows(golf, hole, out[at:].reshape(SLOTS, L.ROW))
        out[self.planes_size + 1] = n / SLOTS
        return out


def make(game: Game[Any]) -> Observer:
    """The factory registered as Golf's and GolfRound's ``rules_moves``."""
    if not isinstance(game, (Golf, GolfRound)):
        raise TypeError(f"Golf features need a Golf or GolfRound game, got {game.name}")
    return RulesMovesObserver(game)
