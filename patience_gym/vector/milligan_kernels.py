"""Numba kernels of the batched Miss Milligan family (Miss Milligan, Giant, the pocket version).

A second implementation of :mod:`patience_gym.games.milligan`, kept honest by
``tests/vector/test_vector_agreement.py``: the same moves, the same action layout
(:mod:`patience_gym.games.milligan_tables`), the same progress rule with the
same 64-bit Zobrist fingerprints, over array state for N games.

State of game ``e`` (all arrays have N rows):

* ``cols[e, j, r]``: card at row ``r`` (0 = deepest) of column ``j``; ``clen[e, j]`` its length,
  ``runs[e, j]`` the length of the built sequence at its foot, ``tops[e, j]`` its exposed card (-1: empty).
* ``found[e, s]``: height of foundation slot ``s`` (suit ``s // 2``).
* ``stock[e, :]``: the 96 stock cards in dealing order; ``sc[e, POS]`` of them are dealt.
* ``res[e, :sc[e, NRES]]``: the reserve (waived cards or pocket), deepest first; ``sc[e, ORIGIN]``
  the waived cards' column (-1: none).
* ``sc[e, BEST]``, ``sc[e, IDLE]``, ``sc[e, TOTAL]``: foundation high-water mark, idle moves since
  the last progress event, cards on the foundations.
* ``hsh[e]``: the position's fingerprint; ``seen[e, :sc[e, NSEEN]]`` the fingerprints met since the
  last progress event (the current one included), ``seen[e, FILTER]`` a 64-bit filter of them.
* ``ids[e]``: the "ids" observation, kept up to date move by move as the single env keeps it.
* ``mask[e]``: the legal actions, ``sc[e, NLEGAL]`` how many (0: the game is over), listed in
  ``acts[e, :sc[e, NLEGAL]]`` (to clear them cheaply).

Variant settings are plain integers: ``vacancy_any`` (0/1), ``rkind`` (0 none, 1 waiver, 2 pocket),
``maxres`` (cards the reserve may take at once: 0, 1 or 13) and ``down`` (foundation tops come down:
0 never, 1 once the stock is out, 2 any time).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from patience_gym.features.rules import layout as RL
from patience_gym.features.rules import milligan as RK
from patience_gym.games.milligan import _P_EXPOSED as P_EXPOSED
from patience_gym.games.milligan import _P_FOUND as P_FOUND
from patience_gym.games.milligan import _P_RESERVE as P_RESERVE
from patience_gym.games.milligan import _P_ROW as P_ROW
from patience_gym.games.milligan import _P_RUN as P_RUN
from patience_gym.games.milligan import _P_STOCK as P_STOCK
from patience_gym.games.milligan import _R as R_SLOT
from patience_gym.games.milligan import (
    IDLE_LIMIT,
    OBS_BEST,
    OBS_FOUNDATIONS,
    OBS_IDLE,
    OBS_ORIGIN,
    OBS_RESERVE,
    OBS_SIZE,
    OBS_STOCK,
    PLANE_WIDTH,
    PLANES_SIZE,
)
from patience_gym.games.milligan_tables import (
    CF,
    CR,
    DEAL,
    FC,
    MAX_COLUMN,
    MAX_RUN,
    MAX_STOCK,
    NUM_ACTIONS,
    NUM_COLUMNS,
    NUM_FOUNDATIONS,
    RC,
    RF,
    TOTAL_CARDS,
    ZCARD,
    ZFOUND,
    ZORIGIN,
)
from patience_gym.vector.rng import permute

# columns of the per-game scalar array ``sc``
POS, NRES, ORIGIN, BEST, IDLE, TOTAL, NSEEN, NLEGAL = range(8)
NUM_SCALARS = 8
#: Room for the fingerprints between two progress events (the position after each idle move, and the first).
SEEN_CAP = IDLE_LIMIT + 1
#: Column of ``seen`` after the fingerprints: a 64-bit filter, bit ``h >> 58`` set for each fingerprint ``h`` held.
FILTER = SEEN_CAP
_ONE = np.uint64(1)
_TOP6 = np.uint64(58)

# The layouts (the "ids" slots, the "planes" offsets, the reserve's fingerprint slot) are the rules' own.
PLANES_G = TOTAL_CARDS * PLANE_WIDTH  # where the planes' global values start

#: Zobrist keys as arrays: ``ZC[slot, row, card]``, ``ZF[slot, height]``, ``ZO[origin + 1]``.
ZC = np.array(ZCARD, dtype=np.uint64).reshape(NUM_COLUMNS + 1, MAX_COLUMN, 52)
ZF = np.array(ZFOUND, dtype=np.uint64).reshape(NUM_FOUNDATIONS, 14)
ZO = np.array(ZORIGIN, dtype=np.uint64)


@njit(cache=True, inline="always")
def _red(c: int) -> bool:
    s = c // 13
    return s == 1 or s == 2


@njit(cache=True, inline="always")
def _fits(upper: int, lower: int) -> bool:
    """May ``lower`` be packed on ``upper`` (one rank lower, the other colour)?"""
    return lower % 13 == upper % 13 - 1 and _red(lower) != _red(upper)


@njit(cache=True, inline="always")
def _card(cols, res, e, slot, row):  # type: ignore[no-untyped-def]
    """Game ``e``'s card at ``row`` of ``slot`` (a column, or ``R_SLOT``: the reserve)."""
    return res[e, row] if slot == R_SLOT else cols[e, slot, row]


@njit(cache=True, inline="always")
def _moved_delta(cols, res, e, si, n, k, dj, dst_row, zc):  # type: ignore[no-untyped-def]
    """Fingerprint change of moving the last ``k`` of slot ``si``'s ``n`` cards to slot ``dj`` from ``dst_row``."""
    d = np.uint64(0)
    for t in range(n - k, n):
        c = _card(cols, res, e, si, t)
        d ^= zc[si, t, c] ^ zc[dj, dst_row + t - (n - k), c]
    return d


@njit(cache=True, inline="always")
def _unseen(seen, e, nseen, d):  # type: ignore[no-untyped-def]
    if not (seen[e, FILTER] >> (d >> _TOP6)) & _ONE:
        return True
    for t in range(nseen):  # noqa: SIM110 (a loop numba compiles tight)
        if seen[e, t] == d:
            return False
    return True


@njit(cache=True, inline="always")
def _foot_run(cols, e, i, n):  # type: ignore[no-untyped-def]
    """The length of the built sequence at the foot of column ``i``'s first ``n`` cards."""
    if n == 0:
        return 0
    run = 1
    while run < n and _fits(cols[e, i, n - run - 1], cols[e, i, n - run]):
        run += 1
    return run


@njit(cache=True, inline="always")
def _add(mask, acts, e, count, a):  # type: ignore[no-untyped-def]
    """Mark action ``a`` legal and list it; the new count."""
    mask[e, a] = True
    acts[e, count] = a
    return count + 1


@njit(cache=True, inline="always")
def legal_one(
    e, cols, clen, runs, tops, found, res, sc, hsh, seen, mask, acts, zc, zf, zo, vacancy_any, rkind, maxres, down
):  # type: ignore[no-untyped-def]
    """Fill ``mask[e]`` with the legal actions of game ``e``; store and return their number.

    The exposed cards' ranks, one bit each, by colour (``rb_red``, ``rb_black``) let most sources
    be skipped without looking at every target column.
    """
    for t in range(sc[e, NLEGAL]):  # clear the last legal actions (cheaper than the whole row)
        mask[e, acts[e, t]] = False
    total = sc[e, TOTAL]
    if total == TOTAL_CARDS:
        sc[e, NLEGAL] = 0
        return 0
    h = hsh[e]
    stock_out = sc[e, POS] >= MAX_STOCK
    at_best = total == sc[e, BEST]
    may_idle = sc[e, IDLE] < IDLE_LIMIT
    nseen = sc[e, NSEEN]
    check = nseen > 1
    nres = sc[e, NRES]
    origin = sc[e, ORIGIN]
    count = 0
    if not stock_out:
        count = _add(mask, acts, e, count, DEAL)

    # exposed cards to the foundations; their ranks by colour
    rb_red = 0
    rb_black = 0
    nempty = 0
    for i in range(NUM_COLUMNS):
        n = clen[e, i]
        if n == 0:
            nempty += 1
            continue
        c = np.int64(tops[e, i])
        r = c % 13
        if _red(c):
            rb_red |= 1 << r
        else:
            rb_black |= 1 << r
        s = 2 * (c // 13)
        if found[e, s] == r or found[e, s + 1] == r:
            if at_best:
                count = _add(mask, acts, e, count, CF + i)
            elif may_idle:
                if found[e, s] != r:
                    s += 1
                d = h ^ zc[i, n - 1, c] ^ zf[s, r] ^ zf[s, r + 1]
                if not check or _unseen(seen, e, nseen, d):
                    count = _add(mask, acts, e, count, CF + i)
    if nres:
        c = np.int64(res[e, nres - 1])
        r = c % 13
        s = 2 * (c // 13)
        if found[e, s] == r or found[e, s + 1] == r:
            if at_best:
                count = _add(mask, acts, e, count, RF)
            elif may_idle:
                if found[e, s] != r:
                    s += 1
                d = h ^ zc[R_SLOT, nres - 1, c] ^ zf[s, r] ^ zf[s, r + 1]
                if nres == 1:
                    d ^= zo[origin + 1] ^ zo[0]
                if not check or _unseen(seen, e, nseen, d):
                    count = _add(mask, acts, e, count, RF)

    if may_idle:
        # column to column: a run ending in rank fr goes on rank fr + k, of the other colour than
        # its head, i.e. of the foot's colour exactly when k is even
        for i in range(NUM_COLUMNS):
            run = runs[e, i]
            if run == 0:
                continue
            n = clen[e, i]
            foot = np.int64(tops[e, i])
            frank = foot % 13
            fred = _red(foot)
            span = (((1 << run) - 1) << (frank + 1)) & 0x1FFF
            odd = 0x0AAA if frank % 2 == 0 else 0x1555  # ranks frank + k with k odd
            same = rb_red if fred else rb_black
            other = rb_black if fred else rb_red
            if (other & span & odd) | (same & span & ~odd):
                for j in range(NUM_COLUMNS):
                    mj = clen[e, j]
                    if j == i or mj == 0:
                        continue
                    t = np.int64(tops[e, j])
                    k = t % 13 - frank
                    if k < 1 or k > run or (_red(t) != fred) != (k % 2 == 1):
                        continue
                    if check and not _unseen(seen, e, nseen, h ^ _moved_delta(cols, res, e, i, n, k, j, mj, zc)):
                        continue
                    a = (i * (NUM_COLUMNS - 1) + (j if j < i else j - 1)) * MAX_RUN + k - 1
                    count = _add(mask, acts, e, count, a)
            if nempty:
                if vacancy_any:
                    k0 = 1
                else:
                    k0 = 13 - frank
                    if k0 > run:
                        continue
                    run = k0
                for j in range(NUM_COLUMNS):
                    if clen[e, j]:
                        continue
                    base = (i * (NUM_COLUMNS - 1) + (j if j < i else j - 1)) * MAX_RUN - 1
                    for k in range(k0, run + 1):
                        if check and not _unseen(seen, e, nseen, h ^ _moved_delta(cols, res, e, i, n, k, j, 0, zc)):
                            continue
                        count = _add(mask, acts, e, count, base + k)

        # the reserve
        if rkind:
            if nres:
                for k in range(1, nres + 1):
                    head = np.int64(res[e, nres - k])
                    hrank = head % 13
                    parents = rb_black if _red(head) else rb_red
                    if not ((parents >> (hrank + 1)) & 1 or nempty or (k == nres and origin >= 0)):
                        continue
                    for j in range(NUM_COLUMNS):
                        mj = clen[e, j]
                        ok = _fits(tops[e, j], head) if mj else vacancy_any or hrank == 12
                        if k == nres and j == origin:
                            ok = True  # restoring the waived cards, fitting or not
                        if not ok:
                            continue
                        if check:
                            d = h ^ _moved_delta(cols, res, e, R_SLOT, nres, k, j, mj, zc)
                            if k == nres:
                                d ^= zo[origin + 1] ^ zo[0]
                            if not _unseen(seen, e, nseen, d):
                                continue
                        a = RC + j * MAX_RUN + k - 1
                        if not mask[e, a]:  # the origin may also be a fitting target
                            count = _add(mask, acts, e, count, a)
            elif rkind == 2 or stock_out:
                waiver = rkind == 1
                for i in range(NUM_COLUMNS):
                    n = clen[e, i]
                    if n == 0:
                        continue
                    kmax = 1 if maxres == 1 else runs[e, i]
                    for k in range(1, kmax + 1):
                        if check:
                            d = h ^ _moved_delta(cols, res, e, i, n, k, R_SLOT, 0, zc)
                            if waiver:
                                d ^= zo[0] ^ zo[i + 1]
                            if not _unseen(seen, e, nseen, d):
                                continue
                        count = _add(mask, acts, e, count, CR + i * MAX_RUN + k - 1)

        # foundation tops back down
        if down and total and (stock_out or down == 2):
            for s in range(NUM_FOUNDATIONS):
                height = found[e, s]
                if height == 0 or (s % 2 == 0 and found[e, s + 1] == height):
                    continue
                c = (s >> 1) * 13 + height - 1
                parents = rb_black if _red(c) else rb_red
                into_empty = nempty and (vacancy_any or height == 13)
                if not ((parents >> height) & 1 or into_empty):
                    continue
                for j in range(NUM_COLUMNS):
                    mj = clen[e, j]
                    ok = _fits(tops[e, j], c) if mj else into_empty
                    if not ok:
                        continue
                    if check:
                        d = h ^ zf[s, height] ^ zf[s, height - 1] ^ zc[j, mj, c]
                        if not _unseen(seen, e, nseen, d):
                            continue
                    count = _add(mask, acts, e, count, FC + s * NUM_COLUMNS + j)

    sc[e, NLEGAL] = count
    return count


@njit(cache=True, inline="always")
def _move(e, cols, clen, runs, tops, res, sc, ids, si, dj, k, h, zc):  # type: ignore[no-untyped-def]
    """Move the last ``k`` cards of slot ``si`` to slot ``dj`` (slot 8: the reserve); the new fingerprint.

    The arrays are indexed in place, never sliced: a slice's reference counting cost more than the move.
    """
    n = sc[e, NRES] if si == R_SLOT else clen[e, si]
    m = sc[e, NRES] if dj == R_SLOT else clen[e, dj]
    fit = m > 0 and _fits(_card(cols, res, e, dj, m - 1), _card(cols, res, e, si, n - k))
    ob_s = OBS_RESERVE if si == R_SLOT else si * MAX_COLUMN
    ob_d = OBS_RESERVE if dj == R_SLOT else dj * MAX_COLUMN
    for t in range(k):
        c = _card(cols, res, e, si, n - k + t)
        h ^= zc[si, n - k + t, c] ^ zc[dj, m + t, c]
        if dj == R_SLOT:
            res[e, m + t] = c
        else:
            cols[e, dj, m + t] = c
        ids[e, ob_s + n - k + t] = 0
        ids[e, ob_d + m + t] = c + 1
    if si == R_SLOT:
        sc[e, NRES] = n - k
    else:
        clen[e, si] = n - k
        tops[e, si] = cols[e, si, n - k - 1] if n > k else -1
        run = runs[e, si]
        runs[e, si] = run - k if run > k else _foot_run(cols, e, si, n - k)
    if dj == R_SLOT:
        sc[e, NRES] = m + k
    else:
        clen[e, dj] = m + k
        tops[e, dj] = cols[e, dj, m + k - 1]
        runs[e, dj] = runs[e, dj] + k if fit else k
    return h


@njit(cache=True, inline="always")
def _place(e, j, c, cols, clen, runs, tops, ids, h, zc):  # type: ignore[no-untyped-def]
    """Put card ``c`` at the foot of column ``j`` (a foundation top coming down, or a deal); the new fingerprint."""
    m = clen[e, j]
    runs[e, j] = runs[e, j] + 1 if m and _fits(cols[e, j, m - 1], c) else 1
    cols[e, j, m] = c
    clen[e, j] = m + 1
    tops[e, j] = c
    ids[e, j * MAX_COLUMN + m] = c + 1
    return h ^ zc[j, m, c]


@njit(cache=True, inline="always")
def apply_one(e, a, cols, clen, runs, tops, found, stock, res, sc, hsh, seen, ids, zc, zf, zo, rkind):  # type: ignore[no-untyped-def]
    """Play the legal action ``a`` in game ``e``; its reward."""
    h = hsh[e]
    reward = 0.0
    if a < RC:  # column to column
        i = a // ((NUM_COLUMNS - 1) * MAX_RUN)
        rest = a % ((NUM_COLUMNS - 1) * MAX_RUN)
        jj = rest // MAX_RUN
        j = jj if jj < i else jj + 1
        h = _move(e, cols, clen, runs, tops, res, sc, ids, i, j, rest % MAX_RUN + 1, h, zc)
    elif a < CR:  # reserve to column
        j = (a - RC) // MAX_RUN
        h = _move(e, cols, clen, runs, tops, res, sc, ids, R_SLOT, j, (a - RC) % MAX_RUN + 1, h, zc)
        if sc[e, NRES] == 0:
            h ^= zo[sc[e, ORIGIN] + 1] ^ zo[0]
            sc[e, ORIGIN] = -1
            ids[e, OBS_ORIGIN] = 0
    elif a < CF:  # column to reserve
        i = (a - CR) // MAX_RUN
        h = _move(e, cols, clen, runs, tops, res, sc, ids, i, R_SLOT, (a - CR) % MAX_RUN + 1, h, zc)
        if rkind == 1:
            h ^= zo[0] ^ zo[i + 1]
            sc[e, ORIGIN] = i
            ids[e, OBS_ORIGIN] = i + 1
    elif a < FC:  # column or reserve to a foundation
        if a == RF:
            n = sc[e, NRES] - 1
            c = res[e, n]
            sc[e, NRES] = n
            h ^= zc[R_SLOT, n, c]
            ids[e, OBS_RESERVE + n] = 0
            if n == 0:
                h ^= zo[sc[e, ORIGIN] + 1] ^ zo[0]
                sc[e, ORIGIN] = -1
                ids[e, OBS_ORIGIN] = 0
        else:
            i = a - CF
            n = clen[e, i] - 1
            c = cols[e, i, n]
            clen[e, i] = n
            tops[e, i] = cols[e, i, n - 1] if n else -1
            h ^= zc[i, n, c]
            ids[e, i * MAX_COLUMN + n] = 0
            run = runs[e, i]
            runs[e, i] = run - 1 if run > 1 else _foot_run(cols, e, i, n)
        r = c % 13
        s = 2 * (c // 13)
        if found[e, s] != r:
            s += 1
        found[e, s] = r + 1
        h ^= zf[s, r] ^ zf[s, r + 1]
        ids[e, OBS_FOUNDATIONS + s] = c + 1
        sc[e, TOTAL] += 1
        reward = 1.0
    elif a < DEAL:  # foundation top to a column
        s = (a - FC) // NUM_COLUMNS
        j = (a - FC) % NUM_COLUMNS
        height = found[e, s]
        c = (s >> 1) * 13 + height - 1
        found[e, s] = height - 1
        ids[e, OBS_FOUNDATIONS + s] = c if height > 1 else 0
        sc[e, TOTAL] -= 1
        h ^= zf[s, height] ^ zf[s, height - 1]
        h = _place(e, j, c, cols, clen, runs, tops, ids, h, zc)
        reward = -1.0
    else:  # deal
        pos = sc[e, POS]
        for j in range(NUM_COLUMNS):
            h = _place(e, j, stock[e, pos + j], cols, clen, runs, tops, ids, h, zc)
        sc[e, POS] = pos + NUM_COLUMNS
        ids[e, OBS_STOCK] = MAX_STOCK - pos - NUM_COLUMNS
    hsh[e] = h
    total = sc[e, TOTAL]
    if a == DEAL or total > sc[e, BEST]:
        if total > sc[e, BEST]:
            sc[e, BEST] = total
            ids[e, OBS_BEST] = total
        sc[e, IDLE] = 0
        seen[e, 0] = h
        seen[e, FILTER] = _ONE << (h >> _TOP6)
        sc[e, NSEEN] = 1
    else:
        sc[e, IDLE] += 1
        if _unseen(seen, e, sc[e, NSEEN], h):  # a set: the same fingerprint is kept once
            seen[e, sc[e, NSEEN]] = h
            seen[e, FILTER] |= _ONE << (h >> _TOP6)
            sc[e, NSEEN] += 1
    ids[e, OBS_IDLE] = IDLE_LIMIT - sc[e, IDLE]
    return reward


@njit(cache=True, inline="always")
def _deal_one(e, deck, rng_states, cols, clen, runs, tops, found, stock, sc, hsh, seen, ids, zc, zf, zo):  # type: ignore[no-untyped-def]
    """Deal a new game in game ``e``, drawn from its RNG as ``Game.init`` draws it (its mask apart)."""
    permute(rng_states, e, deck)  # shuffled_deck(rng, 2): two packs, card i % 52 at position i
    for j in range(ids.shape[1]):
        ids[e, j] = 0
    ids[e, OBS_STOCK] = MAX_STOCK
    ids[e, OBS_IDLE] = IDLE_LIMIT
    h = zo[0]
    for j in range(NUM_COLUMNS):
        c = deck[j] % 52
        cols[e, j, 0] = c
        ids[e, j * MAX_COLUMN] = c + 1
        tops[e, j] = c
        clen[e, j] = 1
        runs[e, j] = 1
        h ^= zc[j, 0, c]
    for s in range(NUM_FOUNDATIONS):
        found[e, s] = 0
        h ^= zf[s, 0]
    for p in range(MAX_STOCK):
        stock[e, p] = deck[NUM_COLUMNS + p] % 52
    sc[e, POS] = 0
    sc[e, NRES] = 0
    sc[e, ORIGIN] = -1
    sc[e, BEST] = 0
    sc[e, IDLE] = 0
    sc[e, TOTAL] = 0
    hsh[e] = h
    seen[e, 0] = h
    seen[e, FILTER] = _ONE << (h >> _TOP6)
    sc[e, NSEEN] = 1


#: ``_nrt=False``: no reference counting. The kernel allocates nothing (its scratch ``deck`` is passed in),
#: and numba's reference counting of the arrays handed to the inlined move generator and move (an atomic
#: increment and decrement per array per call, which its pruning pass cannot remove across their
#: branches: numba issue #2350) took about a quarter of the step's time.
@njit(cache=True, _nrt=False)  # type: ignore[call-overload]
def step_kernel(  # type: ignore[no-untyped-def]
    actions, resetting, rng_states, deck, reward, terminated, illegal,
    cols, clen, runs, tops, found, stock, res, sc, hsh, seen, ids, mask, acts,
    zc, zf, zo, vacancy_any, rkind, maxres, down,
):  # fmt: skip
    """Deal a new game in every game with ``resetting`` (reward 0, not terminated, not illegal) and step
    the others; an illegal or out-of-range action leaves its game unchanged with reward -1.

    Resets and steps share this one kernel so that the move generator and the move are compiled
    (inlined) once; ``deck`` is scratch space for a deal (int64 [104]).
    """
    for e in range(actions.shape[0]):
        if resetting[e]:
            _deal_one(e, deck, rng_states, cols, clen, runs, tops, found, stock, sc, hsh, seen, ids, zc, zf, zo)
            reward[e] = 0.0
            illegal[e] = False
        else:
            a = actions[e]
            if a < 0 or a >= NUM_ACTIONS or not mask[e, a]:
                reward[e] = -1.0
                illegal[e] = True
                terminated[e] = sc[e, NLEGAL] == 0
                continue
            reward[e] = apply_one(
                e, a, cols, clen, runs, tops, found, stock, res, sc, hsh, seen, ids, zc, zf, zo, rkind
            )  # fmt: skip
            illegal[e] = False
        n = legal_one(
            e, cols, clen, runs, tops, found, res, sc, hsh, seen, mask, acts,
            zc, zf, zo, vacancy_any, rkind, maxres, down,
        )  # fmt: skip
        terminated[e] = n == 0 and not resetting[e]


@njit(cache=True)
def observe_ids(cols, clen, found, res, sc, out):  # type: ignore[no-untyped-def]
    """The "ids" observation of every game into ``out`` (int8 [N, 857])."""
    for e in range(out.shape[0]):
        o = out[e]
        o[:] = 0
        for j in range(NUM_COLUMNS):
            for r in range(clen[e, j]):
                o[j * MAX_COLUMN + r] = cols[e, j, r] + 1
        for s in range(NUM_FOUNDATIONS):
            height = found[e, s]
            o[OBS_FOUNDATIONS + s] = (s >> 1) * 13 + height if height else 0
        for r in range(sc[e, NRES]):
            o[OBS_RESERVE + r] = res[e, r] + 1
        o[OBS_ORIGIN] = sc[e, ORIGIN] + 1
        o[OBS_STOCK] = MAX_STOCK - sc[e, POS]
        o[OBS_IDLE] = IDLE_LIMIT - sc[e, IDLE]
        o[OBS_BEST] = sc[e, BEST]


@njit(cache=True)
def observe_planes(cols, clen, runs, found, res, sc, out):  # type: ignore[no-untyped-def]
    """The "planes" observation of every game into ``out`` (float32 [N, 1468])."""
    met = np.zeros(52, dtype=np.int64)
    for e in range(out.shape[0]):
        _planes_one(e, cols, clen, runs, found, res, sc, out[e], met)


@njit(cache=True, inline="always")
def _planes_one(e, cols, clen, runs, found, res, sc, o, met):  # type: ignore[no-untyped-def]
    """Game ``e``'s "planes" observation into ``o`` (its first ``PLANES_SIZE`` values); ``met``: scratch [52]."""
    for t in range(PLANES_SIZE):
        o[t] = 0.0
    met[:] = 0
    for j in range(NUM_COLUMNS):
        n = clen[e, j]
        first_run = n - runs[e, j]
        b = 0
        for r in range(n):
            c = cols[e, j, r]
            b = (2 * c + met[c]) * PLANE_WIDTH
            met[c] += 1
            o[b + j] = 1.0
            o[b + P_ROW] = r / (MAX_COLUMN - 1)
            if r >= first_run:
                o[b + P_RUN] = 1.0
        if n:
            o[b + P_EXPOSED] = 1.0
    for s in range(NUM_FOUNDATIONS):
        for c in range((s >> 1) * 13, (s >> 1) * 13 + found[e, s]):
            o[(2 * c + met[c]) * PLANE_WIDTH + P_FOUND] = 1.0
            met[c] += 1
    nres = sc[e, NRES]
    for r in range(nres):
        c = res[e, r]
        b = (2 * c + met[c]) * PLANE_WIDTH
        met[c] += 1
        o[b + P_RESERVE] = 1.0
        o[b + P_ROW] = r / (MAX_RUN - 1)
        o[b + P_RUN] = 1.0
        if r == nres - 1:
            o[b + P_EXPOSED] = 1.0
    for c in range(52):
        for copy in range(met[c], 2):
            o[(2 * c + copy) * PLANE_WIDTH + P_STOCK] = 1.0
    o[PLANES_G] = (MAX_STOCK - sc[e, POS]) / MAX_STOCK
    o[PLANES_G + 1] = (IDLE_LIMIT - sc[e, IDLE]) / IDLE_LIMIT
    o[PLANES_G + 2] = sc[e, BEST] / TOTAL_CARDS
    o[PLANES_G + 3 + sc[e, ORIGIN] + 1] = 1.0


assert PLANES_SIZE == PLANES_G + 3 + NUM_COLUMNS + 1


# --- rules_moves (patience_gym.features.rules.milligan, bit for bit) ---------------------------------------
@njit(cache=True, inline="always")
def _pile_card(cols, res, e, skind, sidx, p):  # type: ignore[no-untyped-def]
    """Card ``p`` (0 = deepest) of game ``e``'s source pile: a column, a foundation slot or the reserve."""
    if skind == RK.KIND_COLUMN:
        return np.int64(cols[e, sidx, p])
    if skind == RK.KIND_FOUNDATION:
        return np.int64((sidx >> 1) * 13 + p)
    return np.int64(res[e, p])


@njit(cache=True, inline="always")
def _card_wait(card, found, e):  # type: ignore[no-untyped-def]
    """``WAIT`` of ``card`` (``patience_gym.features.rules.milligan.card_wait``)."""
    rank = card % 13 + 1
    s = 2 * (card // 13)
    least = 13
    for height in (found[e, s], found[e, s + 1]):
        if height < rank and rank - 1 - height < least:
            least = rank - 1 - height
    return least / 13 if least < 13 else 1.0


@njit(cache=True, inline="always")
def _pile(value):  # type: ignore[no-untyped-def]
    return min(value / RK.PILE_SCALE, 1.0)


def rules_scratch() -> tuple[np.ndarray, ...]:
    """The one-game scratch arrays :func:`observe_rules` plays each move on (its ``scratch`` argument)."""
    return (
        np.zeros((1, NUM_COLUMNS, MAX_COLUMN), dtype=np.int8),  # cols
        np.zeros((1, NUM_COLUMNS), dtype=np.int8),  # clen
        np.zeros((1, NUM_COLUMNS), dtype=np.int8),  # runs
        np.zeros((1, NUM_COLUMNS), dtype=np.int8),  # tops
        np.zeros((1, NUM_FOUNDATIONS), dtype=np.int8),  # found
        np.zeros((1, MAX_STOCK), dtype=np.int8),  # stock: never read, a deal is not played on the copy
        np.zeros((1, MAX_RUN), dtype=np.int8),  # res
        np.zeros((1, NUM_SCALARS), dtype=np.int64),  # sc
        np.zeros(1, dtype=np.uint64),  # hsh
        np.zeros((1, SEEN_CAP + 1), dtype=np.uint64),  # seen
        np.zeros((1, OBS_SIZE), dtype=np.int8),  # ids: written by apply_one, never read
        np.zeros((1, NUM_ACTIONS), dtype=np.bool_),  # mask
        np.zeros((1, NUM_ACTIONS), dtype=np.int16),  # acts
        np.zeros(NUM_ACTIONS, dtype=np.int64),  # one game's legal actions, sorted
        np.zeros(52, dtype=np.int64),  # the planes' card copies met
    )


#: ``_nrt=False`` as :func:`step_kernel` (no reference counting in the inlined move generator); the
#: scratch arrays come from :func:`rules_scratch`, and the mask of the scratch game must start all False.
@njit(cache=True, _nrt=False)  # type: ignore[call-overload]
def observe_rules(  # type: ignore[no-untyped-def]
    cols, clen, runs, tops, found, res, sc, hsh, seen, mask, acts,
    zc, zf, zo, vacancy_any, rkind, maxres, down, reserve_kind, slots, scratch, out,
):  # fmt: skip
    """The "rules_moves" observation of every game into ``out`` (float32 [N, size(PLANES_SIZE, slots)]).

    ``AFTER_LEGAL`` plays each move on a copy of the game in one-game scratch arrays (``apply_one``) and
    counts the legal moves there (``legal_one``), as the single env's observer does with the rules.
    """
    s_cols, s_clen, s_runs, s_tops, s_found, s_stock, s_res, s_sc, s_hsh, s_seen, s_ids, s_mask, s_acts, order, met = (
        scratch
    )
    last = s_sc[0, NLEGAL]  # the scratch mask's legal count (legal_one clears what it listed)
    first_row = PLANES_SIZE + RL.POSITION_VALUES
    for e in range(out.shape[0]):
        o = out[e]
        _planes_one(e, cols, clen, runs, found, res, sc, o, met)
        for t in range(PLANES_SIZE, o.shape[0]):
            o[t] = 0.0
        nlegal = sc[e, NLEGAL]
        o[PLANES_SIZE] = 1.0 if nlegal > slots else 0.0
        o[PLANES_SIZE + 1] = min(nlegal / slots, 1.0)
        stock_left = MAX_STOCK - sc[e, POS]
        nres = sc[e, NRES]
        for t in range(nlegal):  # the legal actions in action order (insertion sort: a few dozen)
            a = acts[e, t]
            p = t
            while p > 0 and order[p - 1] > a:
                order[p] = order[p - 1]
                p -= 1
            order[p] = a
        for slot in range(min(nlegal, slots)):
            a = order[slot]
            b = first_row + slot * RL.ROW
            o[b + RL.ACTION] = (a + 1) / NUM_ACTIONS
            if a == DEAL:
                left = stock_left - NUM_COLUMNS
                o[b + RL.SOURCE_KIND] = RK.KIND_STOCK
                o[b + RL.DEST_KIND] = RK.KIND_EVERY_COLUMN
                o[b + RL.MOVED] = RL.HIDDEN_CARD
                o[b + RL.MOVED_TOP] = RL.HIDDEN_CARD
                for t in range(1 + RL.NEXT_CARDS):
                    o[b + RL.UNCOVERS + t] = RL.HIDDEN_CARD if left > t else RL.NO_CARD
                o[b + RL.COUNT] = NUM_COLUMNS / 52
                o[b + RL.WAIT] = 1.0
                o[b + RL.SOURCE_LEFT] = _pile(left)
                longest = 0
                for j in range(NUM_COLUMNS):
                    longest = max(longest, np.int64(clen[e, j]))
                o[b + RL.DEST_AFTER] = _pile(longest + 1)
                o[b + RL.REVEALS] = 1.0
                o[b + RL.GAME_VALUE] = left / MAX_STOCK
                continue
            # decode the action: source pile (kind, index, length), destination column (-1: none), cards
            dj = -1
            if a < RC:
                skind = RK.KIND_COLUMN
                sidx = a // ((NUM_COLUMNS - 1) * MAX_RUN)
                rest = a % ((NUM_COLUMNS - 1) * MAX_RUN)
                jj = rest // MAX_RUN
                dj = jj if jj < sidx else jj + 1
                k = rest % MAX_RUN + 1
            elif a < CR:
                skind = reserve_kind
                sidx = 0
                dj = (a - RC) // MAX_RUN
                k = (a - RC) % MAX_RUN + 1
            elif a < CF:
                skind = RK.KIND_COLUMN
                sidx = (a - CR) // MAX_RUN
                k = (a - CR) % MAX_RUN + 1
            elif a < RF:
                skind = RK.KIND_COLUMN
                sidx = a - CF
                k = 1
            elif a == RF:
                skind = reserve_kind
                sidx = 0
                k = 1
            else:
                skind = RK.KIND_FOUNDATION
                sidx = (a - FC) // NUM_COLUMNS
                dj = (a - FC) % NUM_COLUMNS
                k = 1
            if skind == RK.KIND_COLUMN:
                n = np.int64(clen[e, sidx])
            elif skind == RK.KIND_FOUNDATION:
                n = np.int64(found[e, sidx])
            else:
                n = nres
            o[b + RL.SOURCE_KIND] = skind
            o[b + RL.SOURCE_INDEX] = sidx
            moved = _pile_card(cols, res, e, skind, sidx, n - k)
            o[b + RL.MOVED] = moved + 1
            o[b + RL.MOVED_TOP] = _pile_card(cols, res, e, skind, sidx, n - 1) + 1
            for t in range(1 + RL.NEXT_CARDS):
                p = n - k - 1 - t
                o[b + RL.UNCOVERS + t] = _pile_card(cols, res, e, skind, sidx, p) + 1 if p >= 0 else RL.NO_CARD
            o[b + RL.COUNT] = k / 52
            o[b + RL.WAIT] = _card_wait(moved, found, e)
            o[b + RL.SOURCE_LEFT] = _pile(n - k)
            if CF <= a <= RF:  # to a foundation
                rank = moved % 13 + 1
                s = 2 * (moved // 13)
                if found[e, s] != rank - 1:
                    s += 1
                o[b + RL.DEST_KIND] = RK.KIND_FOUNDATION
                o[b + RL.DEST_INDEX] = s
                o[b + RL.ONTO] = moved if rank > 1 else RL.NO_CARD
                o[b + RL.FOUNDATION] = rank / 13
                after = rank
            elif dj < 0:  # to the reserve
                o[b + RL.DEST_KIND] = reserve_kind
                after = nres + k
            else:
                m = np.int64(clen[e, dj])
                o[b + RL.DEST_KIND] = RK.KIND_COLUMN if m else RK.KIND_EMPTY_COLUMN
                o[b + RL.DEST_INDEX] = dj
                o[b + RL.ONTO] = cols[e, dj, m - 1] + 1 if m else RL.NO_CARD
                after = m + k
            o[b + RL.DEST_AFTER] = _pile(after)
            # the legal moves after the move, on a copy of game e
            for j in range(NUM_COLUMNS):
                for r in range(clen[e, j]):
                    s_cols[0, j, r] = cols[e, j, r]
                s_clen[0, j] = clen[e, j]
                s_runs[0, j] = runs[e, j]
                s_tops[0, j] = tops[e, j]
            for s in range(NUM_FOUNDATIONS):
                s_found[0, s] = found[e, s]
            for r in range(nres):
                s_res[0, r] = res[e, r]
            for t in range(NUM_SCALARS):
                s_sc[0, t] = sc[e, t]
            s_sc[0, NLEGAL] = last
            s_hsh[0] = hsh[e]
            for t in range(sc[e, NSEEN]):
                s_seen[0, t] = seen[e, t]
            s_seen[0, FILTER] = seen[e, FILTER]
            apply_one(0, a, s_cols, s_clen, s_runs, s_tops, s_found, s_stock, s_res, s_sc, s_hsh, s_seen, s_ids,
                      zc, zf, zo, rkind)  # fmt: skip
            last = legal_one(
                0, s_cols, s_clen, s_runs, s_tops, s_found, s_res, s_sc, s_hsh, s_seen, s_mask, s_acts,
                zc, zf, zo, vacancy_any, rkind, maxres, down,
            )  # fmt: skip
            o[b + RL.AFTER_LEGAL] = min(last / slots, 1.0)
            o[b + RL.GAME_VALUE] = stock_left / MAX_STOCK
