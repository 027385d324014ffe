"""Golf planner with the exact expectimax once the stock is short: paired against the plain planner."""

import ctypes
import json
import sys
import time

import gymnasium as gym
import numpy as np

from agents.planners.golf import GolfPlanner
from patience_gym.cards import RANK
from patience_gym.games.golf import DEAL

lib = ctypes.CDLL(str(__import__("pathlib").Path(__file__).with_name("emax.so")))
lib.solve_emax.restype = ctypes.c_double
lib.solve_emax.argtypes = [
    ctypes.POINTER(ctypes.c_int),
    ctypes.POINTER(ctypes.c_int),
    ctypes.c_int,
    ctypes.POINTER(ctypes.c_int),
    ctypes.c_int,
    ctypes.POINTER(ctypes.c_uint8),
    ctypes.c_int,
    ctypes.POINTER(ctypes.c_longlong),
]


def value(game, columns, top, stock):
    ranks = (ctypes.c_int * 35)(
        *[RANK[columns[c][r]] if r < len(columns[c]) else 0 for c in range(7) for r in range(5)]
    )
    h0 = (ctypes.c_int * 7)(*[len(c) for c in columns])
    sarr = (ctypes.c_int * max(1, len(stock)))(*stock)
    fits = (ctypes.c_uint8 * 196)(*[int(game.fits[a][b]) for a in range(14) for b in range(14)])
    for logsize in (20, 23, 26):
        n = ctypes.c_longlong()
        v = lib.solve_emax(ranks, h0, top, sarr, len(stock), fits, logsize, ctypes.byref(n))
        if n.value >= 0:
            return v
    raise RuntimeError("too big")


class Hybrid(GolfPlanner):
    def __init__(self, k, **kw):
        super().__init__(**kw)
        self.k = k

    def act(self, env, obs, mask):
        game, st = self.position(env)
        left = len(st.stock) - st.pos
        legal = [int(a) for a in np.flatnonzero(mask)]
        if left > self.k or len(legal) == 1:
            return super().act(env, obs, mask)
        stock = [RANK[c] for c in st.stock[st.pos :]]  # as a multiset only: the order is not read
        best, best_v = None, None
        for a in legal:
            if a == DEAL:
                v = 0.0
                for r in sorted(set(stock)):
                    rest = list(stock)
                    rest.remove(r)
                    v += stock.count(r) / len(stock) * value(game, st.columns, r, rest)
            else:
                cols = [list(c) for c in st.columns]
                card = cols[a].pop()
                v = value(game, cols, RANK[card], stock)
            if best_v is None or v < best_v - 1e-9:
                best, best_v = a, v
        return best


def play(agent, seed):
    env = gym.make("patience_gym/Golf-v0")
    obs, info = env.reset(seed=seed)
    agent.reset(seed)
    t = time.perf_counter()
    moves = 0
    while True:
        a = agent.act(env.unwrapped, obs, info["action_mask"])
        obs, r, term, trunc, info = env.step(a)
        moves += 1
        if term or trunc:
            return info["score"], time.perf_counter() - t, moves


if __name__ == "__main__":
    k = int(sys.argv[1])
    lo, hi = int(sys.argv[2]), int(sys.argv[3])
    for seed in range(lo, hi):
        a = play(GolfPlanner(), seed)
        b = play(Hybrid(k), seed)
        print(json.dumps({"seed": seed, "ho": a[0], "hy": b[0], "t_ho": a[1], "t_hy": b[1], "moves": b[2]}), flush=True)
