"""Fitted value iteration for Golf's chance positions (prototype).

Chance position: a deal's link ranks (7 columns x 5, bottom first), the column heights (hkey: 3 bits a
column) and the stock rank counts (what a player who does not see the stock knows). Its value is the
expected final score under the best play that does not see the order.
"""

from __future__ import annotations

import numpy as np
from numba import njit

FITS = np.zeros((14, 14), dtype=np.bool_)
for _a in range(1, 14):
    for _b in range(1, 14):
        FITS[_a, _b] = abs(_a - _b) == 1 and _a != 13


@njit(cache=True)
def heights_of(hkey):
    h = np.empty(7, np.int64)
    for i in range(7):
        h[i] = (hkey >> (3 * i)) & 7
    return h


@njit(cache=True)
def hsum(hkey):
    s = 0
    for i in range(7):
        s += (hkey >> (3 * i)) & 7
    return s


@njit(cache=True)
def reach(cols, hkey0, waste0, fits, out):
    """Distinct hkeys reachable by plays from (hkey0, waste0), hkey0 included; returns their count."""
    seen = set()
    seen.add(hkey0 * 16 + waste0)
    got = set()
    got.add(hkey0)
    stack_h = np.empty(64, np.int64)
    stack_w = np.empty(64, np.int64)
    n = 0
    stack_h[0] = hkey0
    stack_w[0] = waste0
    top = 1
    out[n] = hkey0
    n += 1
    while top > 0:
        top -= 1
        hk = stack_h[top]
        w = stack_w[top]
        for i in range(7):
            h = (hk >> (3 * i)) & 7
            if h == 0:
                continue
            card = cols[i, h - 1]
            if not fits[w, card]:
                continue
            nk = hk - (1 << (3 * i))
            s = nk * 16 + card
            if s in seen:
                continue
            seen.add(s)
            if nk not in got:
                got.add(nk)
                out[n] = nk
                n += 1
            if top >= stack_h.shape[0]:
                ns = np.empty(stack_h.shape[0] * 2, np.int64)
                ns[:top] = stack_h[:top]
                stack_h = ns
                nw = np.empty(stack_w.shape[0] * 2, np.int64)
                nw[:top] = stack_w[:top]
                stack_w = nw
            stack_h[top] = nk
            stack_w[top] = card
            top += 1
    return n


@njit(cache=True)
def expand(deal_cols, pos_deal, pos_hkey, pos_counts, fits):
    """Children of every chance position: for each stock rank r (group), the hkeys reachable after dealing r.

    Returns group_pos, group_r, group_w (probability), group_start, child_hkey (children of group g are
    child_hkey[group_start[g]:group_start[g+1]]).
    """
    n = pos_deal.shape[0]
    cap = n * 40
    child = np.empty(cap, np.int64)
    gpos = np.empty(n * 13, np.int64)
    gr = np.empty(n * 13, np.int64)
    gw = np.empty(n * 13, np.float32)
    gstart = np.empty(n * 13 + 1, np.int64)
    out = np.empty(4096, np.int64)
    m = 0
    g = 0
    for i in range(n):
        k = 0
        for r in range(1, 14):
            k += pos_counts[i, r]
        cols = deal_cols[pos_deal[i]]
        for r in range(1, 14):
            c = pos_counts[i, r]
            if c == 0:
                continue
            cnt = reach(cols, pos_hkey[i], r, fits, out)
            if m + cnt > child.shape[0]:
                nc = np.empty(child.shape[0] * 2, np.int64)
                nc[:m] = child[:m]
                child = nc
            gpos[g] = i
            gr[g] = r
            gw[g] = c / k
            gstart[g] = m
            for j in range(cnt):
                child[m] = out[j]
                m += 1
            g += 1
    gstart[g] = m
    return gpos[:g], gr[:g], gw[:g], gstart[: g + 1], child[:m]


@njit(cache=True)
def fold_targets(n_pos, gpos, gw, gstart, child_val):
    """Target of each position: sum over groups of w * min over the group's children."""
    t = np.zeros(n_pos, np.float32)
    for g in range(gpos.shape[0]):
        best = 1e9
        for j in range(gstart[g], gstart[g + 1]):
            if child_val[j] < best:
                best = child_val[j]
        t[gpos[g]] += gw[g] * best
    return t


def deal_ranks(seed: int):
    """(cols[7,5] ranks bottom first, waste rank, stock ranks in order) of the env's Golf hole for seed."""
    from patience_gym.cards import RANK
    from patience_gym.games.golf import Golf

    s = Golf().init(np.random.default_rng(seed))
    cols = np.array([[RANK[c] for c in col] for col in s.columns], np.int64)
    return cols, RANK[s.waste[-1]], [RANK[c] for c in s.stock[s.pos :]]


@njit(cache=True)
def best_after(deal_cols, deal_idx, hkeys, fits):
    """m[i, r-1]: the fewest links left after dealing rank r onto position i and playing (no stock counted)."""
    n = deal_idx.shape[0]
    m = np.empty((n, 13), np.float32)
    out = np.empty(4096, np.int64)
    for i in range(n):
        cols = deal_cols[deal_idx[i]]
        for r in range(1, 14):
            cnt = reach(cols, hkeys[i], r, fits, out)
            best = 99
            for j in range(cnt):
                s = hsum(out[j])
                if s < best:
                    best = s
            m[i, r - 1] = best
    return m
