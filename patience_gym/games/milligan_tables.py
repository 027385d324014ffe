"""Constant tables of the Miss Milligan family: action layout, packing, hashing.

Kept apart from the rules so that :mod:`patience_gym.games.milligan` reads as
rules, and so that agents and tests can import the layout without the game.

Action layout (one flat ``Discrete(1010)`` for every variant; an action a
variant has no use for is simply never legal):

==========  =====  ===============================================  ===========
first       size   move                                             notation
==========  =====  ===============================================  ===========
0           728    ``k`` cards (1..13) from column ``i`` to ``j``   ``c3>c5x2``
728         104    ``k`` cards from the reserve to column ``j``     ``w>c1``
832         104    ``k`` cards from column ``i`` to the reserve     ``c3>w``
936         8      exposed card of column ``i`` to a foundation     ``c3>f``
944         1      the reserve's exposed card to a foundation       ``w>f``
945         64     top of foundation ``f`` to column ``j``          ``f2>c4``
1009        1      deal eight cards from the stock                  ``deal``
==========  =====  ===============================================  ===========

The reserve is the waived card(s) in Miss Milligan (``w``) and the pocket in
the pocket version (``p``); Giant has none. A count of one is not written
(``c3>c5`` moves one card, ``c3>c5x2`` two); ``x1`` is accepted on input.
Columns and foundations are numbered from 1 in the notation.
"""

from __future__ import annotations

import random

from patience_gym.cards import NUM_CARDS, RANK, RED, SUIT

NUM_COLUMNS = 8
NUM_FOUNDATIONS = 8
TOTAL_CARDS = 2 * NUM_CARDS  # 104
MAX_RUN = 13  # a built sequence runs King down to Ace at most
#: Rows per column in the observation. A column never holds more than the
#: 104 cards of the game, so no legal position overflows.
MAX_COLUMN = TOTAL_CARDS
MAX_STOCK = TOTAL_CARDS - NUM_COLUMNS  # 96

# --- action layout ---------------------------------------------------------
CC = 0
RC = CC + NUM_COLUMNS * (NUM_COLUMNS - 1) * MAX_RUN  # 728
CR = RC + NUM_COLUMNS * MAX_RUN  # 832
CF = CR + NUM_COLUMNS * MAX_RUN  # 936
RF = CF + NUM_COLUMNS  # 944
FC = RF + 1  # 945
DEAL = FC + NUM_FOUNDATIONS * NUM_COLUMNS  # 1009
NUM_ACTIONS = DEAL + 1  # 1010


def cc_action(i: int, j: int, k: int) -> int:
    """Action moving ``k`` cards from column ``i`` to column ``j`` (0-based, ``i != j``)."""
    return CC + (i * (NUM_COLUMNS - 1) + (j if j < i else j - 1)) * MAX_RUN + k - 1


#: Kinds of move, as :func:`decode_action` names them.
TO_FOUNDATION, COLUMN_TO_COLUMN, RESERVE_TO_COLUMN, COLUMN_TO_RESERVE, FOUNDATION_TO_COLUMN, DEAL_MOVE = range(6)


def decode_action(action: int) -> tuple[int, int, int, int]:
    """``(kind, source, destination, k)`` of an action: ``source`` is a column, or a foundation slot for
    :data:`FOUNDATION_TO_COLUMN`, -1 for the reserve or none; ``destination`` a column or -1; ``k`` the
    cards moved (0 for a deal)."""
    if action < RC:
        i, rest = divmod(action - CC, (NUM_COLUMNS - 1) * MAX_RUN)
        jj, k1 = divmod(rest, MAX_RUN)
        return COLUMN_TO_COLUMN, i, jj if jj < i else jj + 1, k1 + 1
    if action < CR:
        j, k1 = divmod(action - RC, MAX_RUN)
        return RESERVE_TO_COLUMN, -1, j, k1 + 1
    if action < CF:
        i, k1 = divmod(action - CR, MAX_RUN)
        return COLUMN_TO_RESERVE, i, -1, k1 + 1
    if action < RF:
        return TO_FOUNDATION, action - CF, -1, 1
    if action == RF:
        return TO_FOUNDATION, -1, -1, 1
    if action < DEAL:
        s, j = divmod(action - FC, NUM_COLUMNS)
        return FOUNDATION_TO_COLUMN, s, j, 1
    return DEAL_MOVE, -1, -1, 0


#: ``CC_BASE[i][j]``: ``cc_action(i, j, 1)`` (-1 on the diagonal).
CC_BASE: tuple[tuple[int, ...], ...] = tuple(
    tuple(cc_action(i, j, 1) if i != j else -1 for j in range(NUM_COLUMNS)) for i in range(NUM_COLUMNS)
)

# --- packing ---------------------------------------------------------------
#: ``FITS[upper * 52 + lower]``: may ``lower`` be packed on ``upper`` (one rank
#: lower, the other colour)?
FITS: tuple[bool, ...] = tuple(
    RANK[lower] == RANK[upper] - 1 and RED[lower] != RED[upper]
    for upper in range(NUM_CARDS)
    for lower in range(NUM_CARDS)
)


def _onto_table() -> tuple[tuple[tuple[int, int], ...], ...]:
    """``ONTO[foot * 14 + L]``: (target card, k) for a built run of ``L`` cards ending in ``foot``.

    The head of the last ``k`` cards has rank ``rank(foot) + k - 1`` and the
    foot's colour when ``k`` is odd; it may go on either card of the next
    rank in the other colour.
    """
    table: list[tuple[tuple[int, int], ...]] = []
    for foot in range(NUM_CARDS):
        for run in range(MAX_RUN + 1):
            pairs = []
            for k in range(1, run + 1):
                head_rank = RANK[foot] + k - 1
                head_red = RED[foot] if k % 2 else not RED[foot]
                if head_rank >= 13:
                    break
                for target in range(NUM_CARDS):
                    if RANK[target] == head_rank + 1 and RED[target] != head_red:
                        pairs.append((target, k))
            table.append(tuple(pairs))
    return tuple(table)


ONTO = _onto_table()
#: ``ONTO_SET[foot * 14 + L]``: the target cards of ``ONTO[foot * 14 + L]`` as a set.
#: A run ending in ``foot`` goes on target ``t`` with ``k = rank(t) - rank(foot)`` cards.
ONTO_SET: tuple[frozenset[int], ...] = tuple(frozenset(t for t, _ in pairs) for pairs in ONTO)

#: ``PARENTS[c]``: the cards ``c`` may be packed on (one rank higher, the other colour).
PARENTS: tuple[tuple[int, ...], ...] = tuple(
    tuple(upper for upper in range(NUM_CARDS) if FITS[upper * NUM_CARDS + c]) for c in range(NUM_CARDS)
)

PARENT_SET: tuple[frozenset[int], ...] = tuple(frozenset(p) for p in PARENTS)

#: ``KING_DEPTH[foot]``: how many cards from the foot a run ending in ``foot``
#: must hold to be headed by a King.
KING_DEPTH: tuple[int, ...] = tuple(14 - RANK[c] for c in range(NUM_CARDS))
#: ``SUIT2[c]``: the first foundation slot of ``c``'s suit (slots ``2s`` and ``2s+1``).
SUIT2: tuple[int, ...] = tuple(2 * SUIT[c] for c in range(NUM_CARDS))

# --- position fingerprints (Zobrist) -----------------------------------------
# Slots 0..7 are the columns, slot 8 the reserve; a key per (slot, row, card).
# Drawn from Python's Mersenne Twister with a fixed seed, which is stable
# across Python versions, so fingerprints in saved states stay valid.
_RESERVE_SLOT = NUM_COLUMNS
_rng = random.Random(0x4D696C6C)
ZCARD: tuple[int, ...] = tuple(_rng.getrandbits(64) for _ in range((NUM_COLUMNS + 1) * MAX_COLUMN * NUM_CARDS))
#: ``ZFOUND[slot * 14 + height]``.
ZFOUND: tuple[int, ...] = tuple(_rng.getrandbits(64) for _ in range(NUM_FOUNDATIONS * 14))
#: ``ZORIGIN[origin + 1]`` for the waived card's column (-1: none).
ZORIGIN: tuple[int, ...] = tuple(_rng.getrandbits(64) for _ in range(NUM_COLUMNS + 1))
del _rng


def zkey(slot: int, row: int, card: int) -> int:
    """Fingerprint key of ``card`` at ``row`` of column ``slot`` (8: the reserve)."""
    return ZCARD[(slot * MAX_COLUMN + row) * NUM_CARDS + card]
