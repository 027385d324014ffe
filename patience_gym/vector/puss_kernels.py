"""Puss in the Corner's rules on the batched engine's rows: the row layout, its tables and the move kernels.

Env ``i``'s whole position is the int8 row ``g[i]`` (layout below; :mod:`patience_gym.vector.puss`
describes it). The functions here mirror ``PussInTheCorner``'s rules on one row: the legal moves
(:func:`_legal_bits`) and a move (:func:`_apply`). Both the batched game (:mod:`patience_gym.vector.puss`)
and the batched greedy (:mod:`patience_gym.vector.puss_greedy`) step rows with them, so the dependency
runs one way: this module imports neither.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from patience_gym.cards import RANK, RED
from patience_gym.games.puss import (
    ACES,
    CORNER_TO_FOUNDATION,
    DEAL,
    FOUNDATION_RED,
    FOUNDATION_SLOTS,
    FREE,
    MERGE,
    MERGES,
    OBS_CORNERS,
    OBS_HAND,
    OBS_PACK,
    OBS_PASS,
    OBS_PHASE,
    OBS_SEVEN,
    OBS_SIZE,
    PACK_SIZE,
    PLACE,
    REDEAL,
    TAKE,
    TO_CORNER,
    TO_FOUNDATION,
)

# --- the row ``g[i]`` of env ``i`` ----------------------------------------------
POS, PACK_LEN, HAND, PASS, SEVEN, RLEN, SCORE = range(7)
LEN = 7  #: 7..10: packet k's length
NEED = 11  #: 11..14: the rank foundation f takes next
PACK = 16  #: the current pack in dealing order; at the redeal, the cards taken up so far
OBS = PACK + PACK_SIZE  #: the "ids" observation, whose slots also hold the packets (card + 1)
CORNERS = OBS + OBS_CORNERS  #: + 48 k + j: packet k's j-th card from the bottom, + 1
WIDTH = 320  #: OBS + OBS_SIZE, rounded up to whole cache lines
assert OBS + OBS_SIZE <= WIDTH
OVER = -1  #: ``bits[i]`` of a finished game

# --- tables (frozen into the kernels as constants) ----------------------------
_RANK = np.array(RANK, dtype=np.int64)
_ACES = np.array(ACES, dtype=np.int64)
#: ``_MERGE_PAIRS[m, j]`` = (upper, lower) of merge ``m``'s ``j``-th pair; ``_MERGE_COUNT[m]`` pairs.
_MERGE_PAIRS = np.zeros((len(MERGES), 2, 2), dtype=np.int64)
_MERGE_COUNT = np.array([len(pairs) for pairs in MERGES], dtype=np.int64)
for _m, _pairs in enumerate(MERGES):
    _MERGE_PAIRS[_m, : len(_pairs)] = _pairs
#: ``_MERGE_BITS[nonempty]``: the merge actions allowed when the packets in ``nonempty`` (bit k) hold cards.
_MERGE_BITS = np.array(
    [
        sum(
            1 << (MERGE + m)
            for m, pairs in enumerate(MERGES)
            if all(nonempty >> x & 1 and nonempty >> y & 1 for x, y in pairs)
        )
        for nonempty in range(16)
    ],
    dtype=np.int64,
)
#: ``_PILE_A[c]``, ``_PILE_B[c]``: the two foundations of card ``c``'s colour.
_PILE_A = np.array([FOUNDATION_RED.index(RED[c]) for c in range(52)], dtype=np.int64)
_PILE_B = np.array([3 - FOUNDATION_RED[::-1].index(RED[c]) for c in range(52)], dtype=np.int64)


# --- rules --------------------------------------------------------------------
@njit(cache=True, inline="always")
def _fit(g: np.ndarray, i: int, card: int) -> int:
    """Bit ``f`` set where ``card`` fits foundation ``f`` now (branch-free: the two piles of its colour)."""
    rank = _RANK[card]
    f = _PILE_A[card]
    h = _PILE_B[card]
    return (g[i, NEED + f] == rank) << f | (g[i, NEED + h] == rank) << h


@njit(cache=True, inline="always")
def _nonempty(g: np.ndarray, i: int) -> int:
    """Bit ``k`` set where packet ``k`` holds cards."""
    return (g[i, LEN] > 0) | (g[i, LEN + 1] > 0) << 1 | (g[i, LEN + 2] > 0) << 2 | (g[i, LEN + 3] > 0) << 3


@njit(cache=True, inline="always")
def _legal_bits(g: np.ndarray, i: int, forced: bool) -> int:
    """The single env's ``_refresh``: ``OVER`` where ``PussInTheCorner.is_over``, else its ``_bits``."""
    if g[i, SCORE] == 52:
        return OVER
    hand = g[i, HAND]
    if hand >= 0:
        fits = _fit(g, i, hand)
        bits = fits << TO_FOUNDATION
        if not (fits != 0 and forced):
            bits |= 0b1111 << TO_CORNER
        if g[i, SEVEN]:
            bits |= _MERGE_BITS[_nonempty(g, i)]
        return bits
    if g[i, RLEN] > 0:
        return _nonempty(g, i) << TAKE
    bits = 0  # packet tops onto the foundations
    for k in range(4):  # branch-free: an empty packet's "top" (slot 0, card -1 read as 0) counts for nothing
        n = g[i, LEN + k]
        top = max(g[i, CORNERS + PACK_SIZE * k + max(n - 1, 0)] - 1, 0)
        bits |= (_fit(g, i, top) * (n > 0)) << (CORNER_TO_FOUNDATION + 4 * k)
    if g[i, POS] < g[i, PACK_LEN]:
        bits |= 1 << DEAL
    elif g[i, PASS] == 1:
        bits |= _nonempty(g, i) << TAKE
    elif bits == 0:  # the second pass is out and nothing plays: the game is over
        return OVER
    if g[i, SEVEN]:
        bits |= _MERGE_BITS[_nonempty(g, i)]
    return bits


@njit(cache=True, inline="always")
def _set_obs(g: np.ndarray, i: int, slot: int, value: int) -> None:
    g[i, OBS + slot] = value


@njit(cache=True, inline="always")
def _to_foundation(g: np.ndarray, i: int, f: int, card: int) -> None:
    rank = _RANK[card]
    _set_obs(g, i, f * FOUNDATION_SLOTS + rank - 1, card + 1)
    g[i, SCORE] += 1
    g[i, NEED + f] = rank + 1


@njit(cache=True, inline="always")
def _hand_placed(g: np.ndarray, i: int, sevens_after: bool) -> None:
    g[i, HAND] = -1
    _set_obs(g, i, OBS_HAND, 0)
    _set_obs(g, i, OBS_PHASE, FREE)
    if g[i, SEVEN] and not sevens_after:
        g[i, SEVEN] = 0
        _set_obs(g, i, OBS_SEVEN, 0)


@njit(cache=True, inline="always")
def _merge(g: np.ndarray, i: int, upper: int, lower: int) -> None:
    """Put packet ``upper`` on packet ``lower``, keeping both in order."""
    n = g[i, LEN + upper]
    start = g[i, LEN + lower]
    for j in range(n):
        g[i, CORNERS + PACK_SIZE * lower + start + j] = g[i, CORNERS + PACK_SIZE * upper + j]
        g[i, CORNERS + PACK_SIZE * upper + j] = 0
    g[i, LEN + lower] = start + n
    g[i, LEN + upper] = 0


@njit(cache=True, inline="always")
def _take_up(g: np.ndarray, i: int, k: int) -> None:
    """Take packet ``k`` up next; the last packet left follows at once, and the second pass starts."""
    g[i, SEVEN] = 0
    _set_obs(g, i, OBS_SEVEN, 0)
    for _ in range(2):
        r = g[i, RLEN]
        n = g[i, LEN + k]
        for j in range(n):  # the pack is out: its place holds the cards taken up
            g[i, PACK + r + j] = g[i, CORNERS + PACK_SIZE * k + j] - 1
            g[i, CORNERS + PACK_SIZE * k + j] = 0
        g[i, RLEN] = r + n
        g[i, LEN + k] = 0
        left = 0
        last = -1
        for c in range(4):
            if g[i, LEN + c] > 0:
                left += 1
                last = c
        if left != 1:
            break
        k = last
    if g[i, LEN] or g[i, LEN + 1] or g[i, LEN + 2] or g[i, LEN + 3]:
        _set_obs(g, i, OBS_PHASE, REDEAL)
        _set_obs(g, i, OBS_PACK, g[i, RLEN])
        return
    n = g[i, RLEN]
    g[i, PACK_LEN] = n
    g[i, POS] = 0
    g[i, RLEN] = 0
    g[i, PASS] = 2
    _set_obs(g, i, OBS_PASS, 2)
    _set_obs(g, i, OBS_PHASE, FREE)
    _set_obs(g, i, OBS_PACK, n)


@njit(cache=True, inline="always")
def _apply(g: np.ndarray, i: int, action: int, sevens_after: bool) -> float:
    """``PussInTheCorner.apply`` of a legal ``action`` in env ``i``; its reward."""
    if action == DEAL:
        card = g[i, PACK + g[i, POS]]
        g[i, POS] += 1
        g[i, HAND] = card
        seven = _RANK[card] == 7
        g[i, SEVEN] = seven
        _set_obs(g, i, OBS_HAND, card + 1)
        _set_obs(g, i, OBS_PACK, g[i, PACK_LEN] - g[i, POS])
        _set_obs(g, i, OBS_PHASE, PLACE)
        _set_obs(g, i, OBS_SEVEN, seven)
        return 0.0
    if action < TO_FOUNDATION:
        k = action - TO_CORNER
        n = g[i, LEN + k]
        g[i, CORNERS + PACK_SIZE * k + n] = g[i, HAND] + 1
        g[i, LEN + k] = n + 1
        _hand_placed(g, i, sevens_after)
        return 0.0
    if action < CORNER_TO_FOUNDATION:
        _to_foundation(g, i, action - TO_FOUNDATION, g[i, HAND])
        _hand_placed(g, i, sevens_after)
        return 1.0
    if action < MERGE:
        k = (action - CORNER_TO_FOUNDATION) // 4
        n = g[i, LEN + k] - 1
        g[i, LEN + k] = n
        card = g[i, CORNERS + PACK_SIZE * k + n] - 1
        g[i, CORNERS + PACK_SIZE * k + n] = 0
        _to_foundation(g, i, (action - CORNER_TO_FOUNDATION) % 4, card)
        return 1.0
    if action < TAKE:
        m = action - MERGE
        for j in range(_MERGE_COUNT[m]):
            _merge(g, i, _MERGE_PAIRS[m, j, 0], _MERGE_PAIRS[m, j, 1])
        g[i, SEVEN] = 0
        _set_obs(g, i, OBS_SEVEN, 0)
        return 0.0
    _take_up(g, i, action - TAKE)
    return 0.0


@njit(cache=True, inline="always")
def _start(g: np.ndarray, i: int) -> None:
    """Env ``i``'s first position for the pack in its row: the Aces out, the packets empty."""
    g[i, :PACK] = 0
    g[i, OBS:] = 0
    for f in range(4):
        g[i, NEED + f] = 2
        _set_obs(g, i, f * FOUNDATION_SLOTS, _ACES[f] + 1)
    g[i, PACK_LEN] = PACK_SIZE
    g[i, HAND] = -1
    g[i, PASS] = 1
    g[i, SCORE] = 4
    _set_obs(g, i, OBS_PACK, PACK_SIZE)
    _set_obs(g, i, OBS_PASS, 1)
