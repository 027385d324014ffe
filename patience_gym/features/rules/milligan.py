"""``rules_moves`` of the Miss Milligan family (Miss Milligan, Giant, the pocket version): one observer for all three.

The observation is the game's ``planes``, then ``[overflow, min(legal / slots, 1)]``, then one row
per legal move in action order (:mod:`patience_gym.features.rules.layout`). Every value is read from
the face-up cards and the rules (:mod:`patience_gym.games.milligan`); the stock's cards are never read,
only how many are left. The batched engine writes the same rows bit for bit
(:func:`patience_gym.vector.milligan_kernels.observe_rules`).

**Kinds** (``SOURCE_KIND`` / ``DEST_KIND``; 0 is left for unused rows) and their indexes:

======================  ====  ==========================================================
kind                    int   index
======================  ====  ==========================================================
column                  1     the column, 0..7 (a source, or a destination holding cards)
empty column            2     the column, 0..7 (a destination only: a vacancy)
foundation              3     the slot 0..7 (``2 * suit`` and ``2 * suit + 1``, suits CDHS)
waiver                  4     0 (Miss Milligan's waived card(s))
pocket                  5     0 (the pocket version's pocket)
stock                   6     0 (the source of a deal)
every column            7     0 (the destination of a deal: one card onto each column)
======================  ====  ==========================================================

**Cards.** ``MOVED`` is the card that lands (a packet's base, its highest card), ``MOVED_TOP``
the packet's exposed end (= ``MOVED`` for one card). ``ONTO``: the destination's exposed card
(the foundation's top card; none for a vacancy, an empty foundation or the reserve, which is
always empty when it takes cards). For a column or the reserve as the source, ``UNCOVERS`` is
the card under the packet and ``SOURCE_NEXT`` the next cards down that pile, nearest first;
for a foundation top coming down, the foundation's cards under it, from the top. A deal moves
and uncovers stock cards: ``MOVED``, ``MOVED_TOP``, ``UNCOVERS`` and ``SOURCE_NEXT`` are
:data:`~patience_gym.features.rules.layout.HIDDEN_CARD` as far as the stock has cards after
the deal (the stock is one face-down pile, the next deal's first card on top), ``ONTO`` is
none.

**Numbers.** ``COUNT``: cards moved / 52 (8 for a deal). ``WAIT``: the moved card's rank
minus the rank each of its suit's two foundations needs next, the least over those still
below it, / 13, read before the move (a foundation top coming down: only the other pile of
its suit counts); 1.0 when neither pile is below it, and for a deal (its cards are hidden).
``FOUNDATION``: the foundation's height after a move onto it / 13. ``SOURCE_LEFT`` /
``DEST_AFTER``: pile sizes after the move / 52, capped at 1 (a foundation's size is its
height; for a deal the stock left, and the longest column after it). ``REVEALS``: 1.0 for a
deal, the only move that turns cards. ``AFTER_LEGAL``: the number of legal moves of the
position the move leads to, by the game's own move generation on a copy (the progress rule
included: the idle limit and the positions seen since the last progress event, so a move
that would repeat one is not counted) / slots, capped at 1; 0 for a deal. ``GAME_VALUE``: the
cards left in the stock after the move / 96 (the stock at the start), the same for every move
but a deal.

**Slots.** :data:`SLOTS` = 128. The most legal moves met in masked-random playouts (512 and
1,024 games at a time, 2,000 to 8,000 steps each, about 10 million positions for each of the
larger variants, the deal mostly held back so that positions grow): Miss Milligan 30, with
``waive_sequences`` 83; Giant 114 (with ``worry_back_anytime`` 105); the pocket version 28.
Positions with more than 64 were about 3 in 10,000 with ``waive_sequences`` and 1 in 10,000 in
Giant, so 64 rows would overflow now and then; none was seen above 128 (a hand-built Giant
position with four whole sequences and three vacancies has 165: the overflow flag is set).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from patience_gym.cards import RANK
from patience_gym.core import Game
from patience_gym.features.base import Observer, for_games
from patience_gym.features.rules import layout as L
from patience_gym.features.rules.base import MoveRowsObserver
from patience_gym.games.milligan import PLANES_SIZE, MilliganGame, MilliganState
from patience_gym.games.milligan_tables import (
    COLUMN_TO_RESERVE,
    DEAL_MOVE,
    FOUNDATION_TO_COLUMN,
    MAX_STOCK,
    NUM_ACTIONS,
    NUM_COLUMNS,
    SUIT2,
    TO_FOUNDATION,
    decode_action,
)

KIND_COLUMN = 1
KIND_EMPTY_COLUMN = 2
KIND_FOUNDATION = 3
KIND_WAIVER = 4
KIND_POCKET = 5
KIND_STOCK = 6
KIND_EVERY_COLUMN = 7
#: The reserve's kind by ``MilliganGame.reserve_kind`` (Giant has none).
RESERVE_KINDS = {"waiver": KIND_WAIVER, "pocket": KIND_POCKET, "": 0}
#: Rows of the move list (see the module docstring for the measured counts).
SLOTS = 128
#: Pile sizes are given / this, capped at 1.
PILE_SCALE = 52


def card_wait(card: int, found: Sequence[int]) -> float:
    """``WAIT`` of ``card`` under the foundation heights ``found`` (module docstring)."""
    rank = RANK[card]
    s = SUIT2[card]
    least = 13
    for height in (found[s], found[s + 1]):
        if height < rank and rank - 1 - height < least:
            least = rank - 1 - height
    return least / 13 if least < 13 else 1.0


def _pile(value: int) -> float:
    return min(value / PILE_SCALE, 1.0)


def move_row(game: MilliganGame, state: MilliganState, action: int, slots: int) -> list[float]:
    """The :data:`~patience_gym.features.rules.layout.ROW` values of the legal ``action`` in ``state``."""
    row = [0.0] * L.ROW
    row[L.ACTION] = (action + 1) / NUM_ACTIONS
    kind, src, dst, k = decode_action(action)
    cols = state.columns
    found = state.found
    stock_left = len(state.stock) - state.pos
    if kind == DEAL_MOVE:
        left = stock_left - NUM_COLUMNS
        row[L.SOURCE_KIND] = KIND_STOCK
        row[L.DEST_KIND] = KIND_EVERY_COLUMN
        row[L.MOVED] = row[L.MOVED_TOP] = L.HIDDEN_CARD
        for t in range(1 + L.NEXT_CARDS):  # UNCOVERS, then SOURCE_NEXT
            row[L.UNCOVERS + t] = L.HIDDEN_CARD if left > t else L.NO_CARD
        row[L.COUNT] = NUM_COLUMNS / 52
        row[L.WAIT] = 1.0
        row[L.SOURCE_LEFT] = _pile(left)
        row[L.DEST_AFTER] = _pile(max(len(c) for c in cols) + 1)
        row[L.REVEALS] = 1.0
        row[L.GAME_VALUE] = left / MAX_STOCK
        return row
    reserve_kind = RESERVE_KINDS[game.reserve_kind]
    pile: Sequence[int]
    if kind == FOUNDATION_TO_COLUMN:
        base = (src >> 1) * 13
        pile = range(base, base + found[src])
        row[L.SOURCE_KIND] = KIND_FOUNDATION
        row[L.SOURCE_INDEX] = src
    elif src >= 0:
        pile = cols[src]
        row[L.SOURCE_KIND] = KIND_COLUMN
        row[L.SOURCE_INDEX] = src
    else:
        pile = state.reserve
        row[L.SOURCE_KIND] = reserve_kind
    n = len(pile)
    moved = pile[n - k]
    row[L.MOVED] = moved + 1
    row[L.MOVED_TOP] = pile[n - 1] + 1
    for t in range(1 + L.NEXT_CARDS):
        p = n - k - 1 - t
        row[L.UNCOVERS + t] = pile[p] + 1 if p >= 0 else L.NO_CARD
    row[L.COUNT] = k / 52
    row[L.WAIT] = card_wait(moved, found)
    row[L.SOURCE_LEFT] = _pile(n - k)
    if kind == TO_FOUNDATION:
        rank = RANK[moved]
        s = SUIT2[moved]
        if found[s] != rank - 1:
            s += 1
        row[L.DEST_KIND] = KIND_FOUNDATION
        row[L.DEST_INDEX] = s
        row[L.ONTO] = moved if rank > 1 else L.NO_CARD  # the card one rank lower: (moved - 1) + 1
        row[L.FOUNDATION] = rank / 13
        after = rank
    elif kind == COLUMN_TO_RESERVE:
        row[L.DEST_KIND] = reserve_kind
        after = len(state.reserve) + k
    else:
        m = len(cols[dst])
        row[L.DEST_KIND] = KIND_COLUMN if m else KIND_EMPTY_COLUMN
        row[L.DEST_INDEX] = dst
        row[L.ONTO] = cols[dst][-1] + 1 if m else L.NO_CARD
        after = m + k
    row[L.DEST_AFTER] = _pile(after)
    child = state.copy()
    game.apply(child, action)
    row[L.AFTER_LEGAL] = min(len(game.legal_actions(child)) / slots, 1.0)
    row[L.GAME_VALUE] = stock_left / MAX_STOCK
    return row


class RulesMovesObserver(MoveRowsObserver):
    """``rules_moves``: the planes, the position values and a row per legal move (module docstring)."""

    def __init__(self, game: MilliganGame, slots: int = SLOTS) -> None:
        super().__init__(game, PLANES_SIZE, slots)
        self.milligan = game

    def write_global(self, state: MilliganState, out: np.ndarray) -> None:
        out[:] = self.milligan.observe(state, "planes")

    def legal_actions(self, state: MilliganState) -> list[int]:
        return self.milligan.legal_actions(state)

    def move_row(self, state: MilliganState, action: int) -> list[float]:
        return move_row(self.milligan, state, action, self.slots)


def _factory() -> Callable[[Game[Any]], Observer]:
    return for_games(MilliganGame, "Miss Milligan features need a game of that family", RulesMovesObserver)


#: The encoding's factory, for :data:`patience_gym.features.milligan.ENCODINGS`.
RULES_MOVES = _factory()
