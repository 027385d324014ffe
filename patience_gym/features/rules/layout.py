"""The row layout shared by every game's ``rules_moves`` encoding (one network family reads them all).

Observation = ``planes`` (the game's plain encoding) + ``[overflow, legal / slots]``
+ ``slots`` rows of :data:`ROW` values. Rows list the legal moves in
increasing action order; unused rows are all zero. ``overflow`` is 1.0 when
there were more legal moves than rows: the moves past the last row stay legal
in the mask but have no row (the policy sees the flag, nothing is hidden).

A row (indices below):

* ``ACTION``: ``(action + 1) / num_actions`` (0.0: an unused row);
* ``SOURCE_KIND``, ``DEST_KIND``: small integers naming the kind of place
  the move takes cards from and puts them on (each game lists its kinds);
  ``SOURCE_INDEX``, ``DEST_INDEX``: which pile of that kind (0-based);
* card fields, each ``card + 1`` (1..52), :data:`NO_CARD` (0) for none and
  :data:`HIDDEN_CARD` (53) for a card the player cannot see:
  ``MOVED`` (the card that lands, for a packet its base), ``MOVED_TOP`` (the
  packet's other end, = ``MOVED`` for one card), ``ONTO`` (the card it lands
  on), ``UNCOVERS`` (the source's new top), and ``SOURCE_NEXT`` ..
  ``SOURCE_NEXT + NEXT_CARDS - 1``: the cards beneath the uncovered one,
  nearest first (for a packet taken up: its cards in the order they will be
  dealt);
* numbers in [0, 1]: ``COUNT`` (cards moved / 52), ``WAIT`` (how many cards
  the moved card's foundations need before it: min over the foundations it may
  go to of its rank minus the rank that foundation needs next, / 13; 1.0 when
  none can take it any more or the game has no foundations), ``FOUNDATION``
  (the height of the foundation it lands on after the move / 13; 0 when it
  does not land on one), ``SOURCE_LEFT`` and ``DEST_AFTER`` (pile sizes after
  the move / 52), ``REVEALS`` (1.0 when the move turns a card that was hidden),
  ``AFTER_LEGAL`` (legal moves in the position it leads to / slots, capped at 1;
  0 when ``REVEALS``), ``GAME_VALUE`` (one game-specific value, documented by
  the game).
"""

from __future__ import annotations

from typing import Final

ENCODING: Final = "rules_moves"

NO_CARD: Final = 0
HIDDEN_CARD: Final = 53
NEXT_CARDS: Final = 4

ACTION: Final = 0
SOURCE_KIND: Final = 1
DEST_KIND: Final = 2
SOURCE_INDEX: Final = 3
DEST_INDEX: Final = 4
MOVED: Final = 5
MOVED_TOP: Final = 6
ONTO: Final = 7
UNCOVERS: Final = 8
SOURCE_NEXT: Final = 9
COUNT: Final = SOURCE_NEXT + NEXT_CARDS  # 13
WAIT: Final = COUNT + 1
FOUNDATION: Final = WAIT + 1
SOURCE_LEFT: Final = FOUNDATION + 1
DEST_AFTER: Final = SOURCE_LEFT + 1
REVEALS: Final = DEST_AFTER + 1
AFTER_LEGAL: Final = REVEALS + 1
GAME_VALUE: Final = AFTER_LEGAL + 1
ROW: Final = GAME_VALUE + 1  # 21

#: The integer fields a network embeds (kinds, indexes, cards); the rest are numbers in [0, 1].
CARD_FIELDS: Final = tuple(range(MOVED, COUNT))
KIND_FIELDS: Final = (SOURCE_KIND, DEST_KIND, SOURCE_INDEX, DEST_INDEX)
NUMBER_FIELDS: Final = tuple(range(COUNT, ROW))
#: Largest kind or index value any game writes (a network's embedding tables are this size + 1).
MAX_INDEX: Final = 15

#: Position values after the planes.
POSITION_VALUES: Final = 2  # overflow flag, legal moves / slots


def size(planes_size: int, slots: int) -> int:
    """Length of a ``rules_moves`` observation."""
    return planes_size + POSITION_VALUES + slots * ROW


def layout(planes_size: int, slots: int, num_actions: int) -> dict[str, int]:
    """The observer's ``layout`` (what a network reads to split the observation)."""
    return {
        "global_size": planes_size + POSITION_VALUES,
        "move_features": ROW - 1,
        "num_actions": num_actions,
    }
