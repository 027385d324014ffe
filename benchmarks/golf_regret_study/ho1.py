"""A one-level planner (research notes, section 29): whole turns, exact over the next stock rank, hindsight after it.

For each end of the current turn (kept: the best ``TOP`` by 16-world hindsight values), the mean over the next
stock rank of the best end of the following turn, each valued by the perfect-knowledge solver on ``m`` sampled
stock orders that start with that rank. Costs 80-100 s a hole; scored by ``regret.py --ho1``.
"""

from __future__ import annotations

import time
from collections import Counter

import numpy as np

from agents.solvers import _golf_solver as F  # type: ignore[attr-defined]
from agents.solvers.golf import _fits_bytes
from patience_gym.cards import RANK
from patience_gym.games.golf import DEAL

TOP = 3
DEBUG = False


def turn_ends(cols, heights, waste, fits):
    ends = {}

    def dfs(h, w, path):
        key = (h, w)
        if key in ends:
            return
        ends[key] = path
        for i in range(7):
            if h[i]:
                c = cols[i][h[i] - 1]
                if fits[w][c]:
                    dfs(h[:i] + (h[i] - 1,) + h[i + 1 :], c, path + [i])

    dfs(tuple(heights), waste, [])
    return ends


class HO1:
    def __init__(self, game, m=4, max_nodes=2_000_000, seed=0):
        self.game, self.m, self.max_nodes = game, m, max_nodes
        self.fits = game.fits
        self.fb = _fits_bytes(game.fits)
        self.rng = np.random.default_rng(seed)
        self.plan: list[int] = []
        self.solves = 0

    def pk(self, cols, h, waste, stock, key=None):
        if key is not None and key in self.memo:
            return self.memo[key]
        self.solves += 1
        c = [cols[i][: h[i]] for i in range(7)]
        v = F.solve(self.fb, c, stock, waste, self.max_nodes)[0]
        if key is not None:
            self.memo[key] = v
        return v

    def _unused(self, cols, h, waste, stock):
        c = [cols[i][: h[i]] for i in range(7)]
        return F.solve(self.fb, c, stock, waste, self.max_nodes)[0]

    def act(self, state) -> int:
        if self.plan:
            return self.plan.pop(0)
        g = self.game
        mask = g.legal_mask(state)
        legal = np.flatnonzero(mask)
        if len(legal) == 1:
            return int(legal[0])
        cols = [[RANK[c] for c in col] for col in state.columns]
        heights = [len(c) for c in cols]
        waste = RANK[state.waste[-1]]
        unseen = sorted(RANK[c] for c in g.unseen_cards(state))
        U = len(unseen)
        ends = turn_ends(cols, heights, waste, self.fits)
        if len(ends) == 1:
            return DEAL
        if U == 0:
            best = min(ends, key=lambda k: (sum(k[0]), len(ends[k])))
            self.plan = list(ends[best])
            return self.plan.pop(0)
        counts = Counter(unseen)
        self.memo = {}
        t0 = time.perf_counter()
        s0 = self.solves
        worlds = {}
        for r in counts:
            rest = list(unseen)
            rest.remove(r)
            worlds[r] = [[rest[i] for i in self.rng.permutation(len(rest))] for _ in range(self.m)]
        keep = list(ends)
        if len(keep) > TOP:
            ho_worlds = [[unseen[i] for i in self.rng.permutation(U)] for _ in range(16)]
            hov = {k: sum(self.pk(cols, k[0], k[1], wd) for wd in ho_worlds) / 16 for k in keep}
            keep = sorted(keep, key=lambda k: (hov[k], len(ends[k])))[:TOP]
        vals = {}
        for h, w in keep:
            if sum(h) == 0:
                vals[(h, w)] = -U
                continue
            v = 0.0
            for r, cnt in counts.items():
                ends2 = turn_ends(cols, list(h), r, self.fits)
                best2 = None
                for h2, w2 in ends2:
                    if sum(h2) == 0:
                        val = -(U - 1)
                    else:
                        val = sum(self.pk(cols, h2, w2, wd, (h2, w2, r, j)) for j, wd in enumerate(worlds[r])) / self.m
                    if best2 is None or val < best2:
                        best2 = val
                v += cnt / U * best2
            vals[(h, w)] = v
        best = min(vals, key=lambda k: (vals[k], len(ends[k])))
        if DEBUG:
            seconds = time.perf_counter() - t0
            print(f"U={U} ends={len(ends)} solves={self.solves - s0} t={seconds:.2f}", flush=True)
        self.plan = list(ends[best]) + [DEAL]
        return self.plan.pop(0)
