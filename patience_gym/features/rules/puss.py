"""Puss in the Corner's ``rules_moves``: each legal move by what it does, from the visible position.

Layout: :mod:`patience_gym.features.rules.layout`, with a global part of the
planes, then 52 values, then the position values ``[overflow, legal / slots]``
(``layout.size(ORDER_END, slots)``, ``global_size`` = :data:`ORDER_END` + 2),
then :data:`SLOTS` rows, one per legal move in action order.

What the player sees is what the ``planes`` show: the foundations, the four
corner packets card by card (all face up), the dealt card in hand, and how
many cards the face-down pack holds. What the player remembers is shown too:
the packets are taken up face up, in the player's order, so during the redeal
the player knows the order of the cards taken up so far, and on the second
pass the whole order of the pack. The 52 values after the planes give it
(:func:`patience_gym.games.puss.write_pack_order`, as the ``moves`` encoding
does): for each card its place in the pack being dealt, ``(48 - index) / 48``
(the next card nearest 1), 0 for a card not in it. Only the first pass's
pack is unknown: its cards are
:data:`~patience_gym.features.rules.layout.HIDDEN_CARD` here.

Kinds (``SOURCE_KIND`` / ``DEST_KIND``), each with index 0 unless said:

* :data:`PACK_KIND` (1): the face-down pack (the deal's source; a take-up's
  destination, the redeal pack being built);
* :data:`HAND_KIND` (2): the dealt card awaiting placement (the deal's
  destination; the placements' source);
* :data:`PACKET_KIND` (3): corner packet A..D (index 0..3);
* :data:`FOUNDATION_KIND` (4): foundation f1..f4 (index 0..3: the piles of the
  Aces of clubs, diamonds, hearts, spades);
* :data:`PAIRS_KIND` (5): a double merge of the sevens privilege (both pairs of
  a pairing): source and destination kind; the indexes and card fields
  describe its first pair (``MERGES[m][0]``: the packet put on the other, the
  packet it goes on), ``COUNT`` counts the cards of both pairs moved.

Rows by action:

* **deal**: pack -> hand. First pass: ``MOVED``/``MOVED_TOP`` hidden,
  ``UNCOVERS`` and ``SOURCE_NEXT`` the face-down cards under it (hidden; none
  past the pack's end), ``WAIT`` 0 (the card is unknown), ``REVEALS`` 1,
  ``AFTER_LEGAL`` 0. Second pass (the order is remembered): ``MOVED``/``MOVED_TOP``
  the card dealt, ``UNCOVERS`` the next one and ``SOURCE_NEXT`` those after
  it, nearest first; ``REVEALS`` 0 and ``AFTER_LEGAL`` as for any move.
* **placement** (dealt card onto packet k or foundation f): hand -> packet /
  foundation; ``ONTO`` the packet's or foundation's top.
* **packet top to foundation**: packet k -> foundation f; ``UNCOVERS`` the
  packet's next card, ``SOURCE_NEXT`` the cards under it, nearest first.
* **merge** (single): packet -> packet, ``MOVED``/``MOVED_TOP`` the moved
  packet's base/top, ``ONTO`` the top it lands on.
* **take-up** of packet k: packet k -> pack. ``MOVED``/``MOVED_TOP`` the
  packet's base/top, ``ONTO`` the last card taken up before (none for the
  first packet), ``SOURCE_NEXT`` the packet's first cards in the order
  they will be dealt (its base first). ``COUNT`` includes the last packet left,
  which follows at once.

``WAIT`` is the moved card's (``MOVED``'s). ``GAME_VALUE``: the cards in the
face-down pack after the move / 48 (the planes' pack count: at the redeal, the
cards taken up so far). ``AFTER_LEGAL`` counts the legal moves after the move
(0 once the game is over). :data:`SLOTS` = 36 is the most legal moves a position
can have (8 packet tops to a foundation, 4 take-ups and 24 merges with
``sevens_after_placing``; 28 under the default rules), so ``overflow`` is never
set at the default size (masked-random play, ~15,000 games and 3 million
decisions per rule option, reached 28, 29, 30 and 30 under the default
rules, ``sevens_after_placing``, ``forced_foundation=False`` and both).
"""

from __future__ import annotations

from typing import Final

import numpy as np

from patience_gym.cards import RANK, RED
from patience_gym.features.base import for_games
from patience_gym.features.rules.base import MoveRowsObserver
from patience_gym.features.rules.layout import (
    ACTION,
    AFTER_LEGAL,
    COUNT,
    DEST_AFTER,
    DEST_INDEX,
    DEST_KIND,
    FOUNDATION,
    GAME_VALUE,
    HIDDEN_CARD,
    MOVED,
    MOVED_TOP,
    NEXT_CARDS,
    NO_CARD,
    ONTO,
    REVEALS,
    ROW,
    SOURCE_INDEX,
    SOURCE_KIND,
    SOURCE_LEFT,
    SOURCE_NEXT,
    UNCOVERS,
    WAIT,
)
from patience_gym.games.puss import (
    CORNER_TO_FOUNDATION,
    DEAL,
    FOUNDATION_RED,
    MERGE,
    MERGES,
    NUM_ACTIONS,
    OBS_PACK,
    PACK_SIZE,
    PLANES_SIZE,
    TAKE,
    TO_CORNER,
    TO_FOUNDATION,
    PussInTheCorner,
    PussState,
    write_pack_order,
)

PACK_KIND: Final = 1
HAND_KIND: Final = 2
PACKET_KIND: Final = 3
FOUNDATION_KIND: Final = 4
PAIRS_KIND: Final = 5
#: The most legal moves a Puss in the Corner position can have (see the module docstring).
SLOTS: Final = 36
#: The end of the remembered pack order (52 values after the planes), where the position values start.
ORDER_END: Final = PLANES_SIZE + 52
#: ``_COLOUR_PILES[c]``: the foundations of card ``c``'s colour.
_COLOUR_PILES = tuple(tuple(f for f in range(4) if FOUNDATION_RED[f] == RED[c]) for c in range(52))


def wait(card: int, need: list[int]) -> float:
    """How many cards the foundations of ``card``'s colour need before it, / 13 (1.0: none can take it)."""
    rank = RANK[card]
    gaps = [rank - need[f] for f in _COLOUR_PILES[card] if need[f] <= rank]
    return min(gaps, default=13) / 13


def _legal_count(game: PussInTheCorner, state: PussState) -> int:
    """The number of legal moves (0 once the game is over, as the env's mask)."""
    return 0 if game.is_over(state) else game.legal_bits(state).bit_count()


def move_row(game: PussInTheCorner, state: PussState, action: int, slots: int) -> list[float]:
    """The row of the legal ``action`` in ``state`` (see the module docstring); reads no hidden card."""
    row = [0.0] * ROW
    row[ACTION] = (action + 1) / NUM_ACTIONS
    corners = state.corners
    if action == DEAL and state.pass_no == 1:  # the face-down pack: the card dealt and those under it unknown
        left = state.pack_left - 1
        row[SOURCE_KIND], row[DEST_KIND] = PACK_KIND, HAND_KIND
        row[MOVED] = row[MOVED_TOP] = HIDDEN_CARD
        row[UNCOVERS] = HIDDEN_CARD if left else NO_CARD
        for j in range(min(NEXT_CARDS, max(left - 1, 0))):
            row[SOURCE_NEXT + j] = HIDDEN_CARD
        row[COUNT] = 1 / 52
        row[SOURCE_LEFT] = left / 52
        row[DEST_AFTER] = 1 / 52
        row[REVEALS] = 1.0
        row[GAME_VALUE] = left / PACK_SIZE
        return row
    after = state.copy()
    game.apply(after, action)
    stock = int(after.obs[OBS_PACK])
    row[AFTER_LEGAL] = min(1.0, _legal_count(game, after) / slots)
    row[GAME_VALUE] = stock / PACK_SIZE
    count = 1
    f = -1  # the foundation it lands on
    if action == DEAL:  # the second pass: the player took the packets up and knows the pack's order
        rest = state.pack[state.pos :]
        moved = rest[0]
        row[SOURCE_KIND], row[DEST_KIND] = PACK_KIND, HAND_KIND
        row[UNCOVERS] = rest[1] + 1 if len(rest) > 1 else NO_CARD
        for j, card in enumerate(rest[2 : 2 + NEXT_CARDS]):
            row[SOURCE_NEXT + j] = card + 1
        row[SOURCE_LEFT] = (len(rest) - 1) / 52
        row[DEST_AFTER] = 1 / 52
    elif action < CORNER_TO_FOUNDATION:  # the dealt card, onto a packet or a foundation
        moved = state.hand
        row[SOURCE_KIND] = HAND_KIND
        if action < TO_FOUNDATION:
            k = action - TO_CORNER
            row[DEST_KIND], row[DEST_INDEX] = PACKET_KIND, k
            row[ONTO] = corners[k][-1] + 1 if corners[k] else NO_CARD
            row[DEST_AFTER] = (len(corners[k]) + 1) / 52
        else:
            f = action - TO_FOUNDATION
    elif action < MERGE:
        k, f = divmod(action - CORNER_TO_FOUNDATION, 4)
        packet = corners[k]
        moved = packet[-1]
        row[SOURCE_KIND], row[SOURCE_INDEX] = PACKET_KIND, k
        row[UNCOVERS] = packet[-2] + 1 if len(packet) > 1 else NO_CARD
        for j, card in enumerate(packet[-3 : -NEXT_CARDS - 3 : -1]):
            row[SOURCE_NEXT + j] = card + 1
        row[SOURCE_LEFT] = (len(packet) - 1) / 52
    elif action < TAKE:
        pairs = MERGES[action - MERGE]
        upper, lower = pairs[0]
        moved = corners[upper][0]
        row[SOURCE_KIND] = row[DEST_KIND] = PACKET_KIND if len(pairs) == 1 else PAIRS_KIND
        row[SOURCE_INDEX], row[DEST_INDEX] = upper, lower
        row[MOVED_TOP] = corners[upper][-1] + 1
        row[ONTO] = corners[lower][-1] + 1
        count = sum(len(corners[x]) for x, _ in pairs)
        row[DEST_AFTER] = (len(corners[lower]) + len(corners[upper])) / 52
    else:
        k = action - TAKE
        packet = corners[k]
        moved = packet[0]
        row[SOURCE_KIND], row[SOURCE_INDEX], row[DEST_KIND] = PACKET_KIND, k, PACK_KIND
        row[MOVED_TOP] = packet[-1] + 1
        row[ONTO] = state.redeal[-1] + 1 if state.redeal else NO_CARD
        for j, card in enumerate(packet[:NEXT_CARDS]):
            row[SOURCE_NEXT + j] = card + 1
        count = sum(map(len, corners)) - sum(map(len, after.corners))
        row[DEST_AFTER] = stock / 52
    if f >= 0:
        height = len(state.foundations[f]) + 1
        row[DEST_KIND], row[DEST_INDEX] = FOUNDATION_KIND, f
        row[ONTO] = state.foundations[f][-1] + 1
        row[FOUNDATION] = height / 13
        row[DEST_AFTER] = height / 52
    row[MOVED] = moved + 1
    if action < MERGE:
        row[MOVED_TOP] = moved + 1
    row[COUNT] = count / 52
    row[WAIT] = wait(moved, state.need)
    return row


class RulesMovesObserver(MoveRowsObserver):
    """``rules_moves`` for Puss in the Corner: the planes, the remembered pack order, the position values,
    a row per legal move."""

    def __init__(self, game: PussInTheCorner, slots: int = SLOTS) -> None:
        super().__init__(game, ORDER_END, slots)
        self.puss = game

    def write_global(self, state: PussState, out: np.ndarray) -> None:
        out[:PLANES_SIZE] = self.puss.observe_planes(state)
        write_pack_order(state, out[PLANES_SIZE:ORDER_END])

    def legal_actions(self, state: PussState) -> list[int]:
        bits = 0 if self.puss.is_over(state) else self.puss.legal_bits(state)
        return [a for a in range(NUM_ACTIONS) if bits >> a & 1]

    def move_row(self, state: PussState, action: int) -> list[float]:
        return move_row(self.puss, state, action, self.slots)


#: The encoding's factory, for :data:`patience_gym.features.puss.ENCODINGS`.
RULES_MOVES = for_games(PussInTheCorner, "Puss in the Corner features need that game", RulesMovesObserver)
