"""The greedy Puss in the Corner player in numba, on the batched rows of :mod:`patience_gym.vector.puss_kernels`.

Each function mirrors one of :mod:`patience_gym.heuristics.puss_greedy` (same rules, same ties), reading
env ``i``'s row ``g[i]`` only where the player sees it: the foundations' needs, the packets, the dealt
card and the pass. The redeal's take-up order is chosen as there: every order is taken up and the second
pass dealt through with these rules in a scratch row (the packets are in view, so the new pack's order
is known), and the first packet of the best order is taken. ``tests/vector/test_rollouts.py`` checks
every move against the single env's greedy.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from patience_gym.games.puss import CORNER_TO_FOUNDATION, DEAL, MERGE, MERGES, PACK_SIZE, TAKE, TO_CORNER, TO_FOUNDATION
from patience_gym.vector.puss_kernels import (
    _MERGE_COUNT,
    _MERGE_PAIRS,
    _PILE_A,
    _PILE_B,
    _RANK,
    CORNERS,
    HAND,
    LEN,
    NEED,
    OVER,
    PASS,
    SCORE,
    SEVEN,
    _apply,
    _legal_bits,
)

NO_WAIT = 99  #: an empty packet's "top": anything may go on it safely
NUM_MERGES = len(MERGES)


@njit(cache=True, inline="always")
def _wait(g: np.ndarray, i: int, card: int) -> int:
    """``card_waits``: the ranks ``card``'s foundation must still climb before it fits."""
    a = g[i, NEED + _PILE_A[card]]
    b = g[i, NEED + _PILE_B[card]]
    low, high = min(a, b), max(a, b)
    r = _RANK[card]
    return r - (high if high <= r else low)


@njit(cache=True, inline="always")
def _card(g: np.ndarray, i: int, k: int, j: int) -> int:
    """Packet ``k``'s ``j``-th card from the bottom."""
    return g[i, CORNERS + PACK_SIZE * k + j] - 1


@njit(cache=True, inline="always")
def _lowest_bit(x: int) -> int:
    """The lowest set bit of ``x`` (0 for ``x == 0``, which the rules never ask about)."""
    b = 0
    while b < 63 and not (x >> b) & 1:
        b += 1
    return b if x else 0


@njit(cache=True)
def _choose_corner(g: np.ndarray, i: int, card: int) -> int:
    wc = _wait(g, i, card)
    fit_gap, fit_k = -1, -1  # the top waits longer than the card: the closest such fit
    empty = -1
    harm_wait, harm_k = -1, -1  # else the top that waits longest
    for k in range(4):
        n = g[i, LEN + k]
        if n == 0:
            if empty < 0:
                empty = k
            continue
        wt = _wait(g, i, _card(g, i, k, n - 1))
        if wt > wc:
            if fit_k < 0 or wt - wc < fit_gap:
                fit_gap, fit_k = wt - wc, k
        elif harm_k < 0 or wt > harm_wait:
            harm_wait, harm_k = wt, k
    if fit_k >= 0:
        return fit_k
    if empty >= 0:
        return empty
    return harm_k


@njit(cache=True)
def _choose_play(g: np.ndarray, i: int, bits: int) -> int:
    """The packet-to-foundation play exposing the shortest wait beneath, or -1."""
    plays = (bits >> CORNER_TO_FOUNDATION) & 0xFFFF
    if plays == 0:
        return -1
    best_under, best = 0, -1
    for k in range(4):
        fits = (plays >> (4 * k)) & 0b1111
        if fits == 0:
            continue
        n = g[i, LEN + k]
        under = _wait(g, i, _card(g, i, k, n - 2)) if n > 1 else NO_WAIT
        action = CORNER_TO_FOUNDATION + 4 * k + _lowest_bit(fits)
        if best < 0 or under < best_under or (under == best_under and action < best):
            best_under, best = under, action
    return best


@njit(cache=True)
def _choose_merge(g: np.ndarray, i: int, bits: int) -> int:
    """The legal merge made of the safest harmless pairs (one per pair), or -1."""
    slack = np.zeros((4, 4), dtype=np.int64)  # 0: not a harmless pair
    any_slack = False
    for x in range(4):
        nx = g[i, LEN + x]
        if nx == 0:
            continue
        worst = -1000
        for j in range(nx):
            worst = max(worst, _wait(g, i, _card(g, i, x, j)))
        for y in range(4):
            ny = g[i, LEN + y]
            if x != y and ny:
                margin = _wait(g, i, _card(g, i, y, ny - 1)) - worst
                if margin > 0:
                    slack[x, y] = margin
                    any_slack = True
    if not any_slack:
        return -1
    best_pairs, best_total, best = 0, 0, -1
    for m in range(NUM_MERGES):
        action = MERGE + m
        if not (bits >> action) & 1:
            continue
        total = 0
        ok = True
        for j in range(_MERGE_COUNT[m]):
            s = slack[_MERGE_PAIRS[m, j, 0], _MERGE_PAIRS[m, j, 1]]
            if s == 0:
                ok = False
                break
            total += s
        if not ok:
            continue
        pairs = _MERGE_COUNT[m]
        if best < 0 or pairs > best_pairs or (pairs == best_pairs and total > best_total):
            best_pairs, best_total, best = pairs, total, action
    return best


@njit(cache=True)
def _choose_unplanned(g: np.ndarray, i: int, bits: int, sevens_after: bool) -> int:
    """``choose_move(..., plan_redeal=False)``: the first packet that may be taken up, at a redeal."""
    hand = g[i, HAND]
    if hand >= 0:
        fits = (bits >> TO_FOUNDATION) & 0b1111
        if g[i, SEVEN] and not (fits != 0 and sevens_after):
            merge = _choose_merge(g, i, bits)
            if merge >= 0:
                return merge
        if fits:
            return TO_FOUNDATION + _lowest_bit(fits)
        return TO_CORNER + _choose_corner(g, i, hand)
    play = _choose_play(g, i, bits)
    if play >= 0:
        return play
    if g[i, SEVEN]:
        merge = _choose_merge(g, i, bits)
        if merge >= 0:
            return merge
    if (bits >> DEAL) & 1:
        return DEAL
    return TAKE + _lowest_bit((bits >> TAKE) & 0b1111)


@njit(cache=True)
def _replay(g: np.ndarray, i: int, order: np.ndarray, scratch: np.ndarray, forced: bool, sevens_after: bool) -> int:
    """``redeal_values``' trial: take up the packets in ``order`` (the last follows by itself), deal the
    second pass through with the unplanned rules; the cards on the foundations at the end."""
    scratch[0, :] = g[i, :]
    for j in range(order.shape[0] - 1):
        if scratch[0, PASS] == 1:
            _apply(scratch, 0, TAKE + order[j], sevens_after)
    bits = _legal_bits(scratch, 0, forced)
    while bits != OVER:
        _apply(scratch, 0, _choose_unplanned(scratch, 0, bits, sevens_after), sevens_after)
        bits = _legal_bits(scratch, 0, forced)
    return int(scratch[0, SCORE])


@njit(cache=True)
def _choose_redeal(g: np.ndarray, i: int, takes: int, scratch: np.ndarray, forced: bool, sevens_after: bool) -> int:
    """The first packet of the take-up order whose replay scores best (ties: the lowest packet)."""
    packets = np.empty(4, dtype=np.int64)
    n = 0
    for k in range(4):
        if (takes >> k) & 1:
            packets[n] = k
            n += 1
    best = np.full(4, -1, dtype=np.int64)
    order = np.empty(n, dtype=np.int64)
    # every order of the n packets: the digits of c in base n, kept where they are all different
    total = n**n
    for c in range(total):
        used = 0
        rest = c
        for j in range(n):
            d = rest % n
            rest //= n
            if (used >> d) & 1:
                break
            used |= 1 << d
            order[j] = packets[d]
        if used != (1 << n) - 1:
            continue
        score = _replay(g, i, order, scratch, forced, sevens_after)
        if score > best[order[0]]:
            best[order[0]] = score
    top = -1
    choice = -1
    for j in range(n):
        k = packets[j]
        if best[k] > top:
            top, choice = best[k], k
    return choice


@njit(cache=True)
def greedy_kernel(
    which: np.ndarray, g: np.ndarray, bits: np.ndarray, forced: bool, sevens_after: bool, out: np.ndarray
) -> None:
    """``puss_greedy.choose_move`` in every env with ``which`` (0 where the game is over, and elsewhere)."""
    scratch = np.empty((1, g.shape[1]), dtype=g.dtype)
    for i in range(g.shape[0]):
        b = bits[i]
        if b == OVER or not which[i]:
            out[i] = 0
            continue
        action = _choose_unplanned(g, i, b, sevens_after)
        takes = (b >> TAKE) & 0b1111
        if action >= TAKE and takes & (takes - 1):  # two packets or more may be taken up next
            action = TAKE + _choose_redeal(g, i, takes, scratch, forced, sevens_after)
        out[i] = action
