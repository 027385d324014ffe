import ctypes
import sys
import time

import gymnasium as gym

from patience_gym.cards import RANK

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


def emax(game, st, logsize=25):
    ranks = (ctypes.c_int * 35)(
        *[RANK[st.columns[c][r]] if r < len(st.columns[c]) else 0 for c in range(7) for r in range(5)]
    )
    h0 = (ctypes.c_int * 7)(*[len(c) for c in st.columns])
    stock = [RANK[c] for c in st.stock[st.pos :]]
    sarr = (ctypes.c_int * max(1, len(stock)))(*stock)
    fits = (ctypes.c_uint8 * 196)(*[int(game.fits[a][b]) for a in range(14) for b in range(14)])
    n = ctypes.c_longlong()
    t = time.perf_counter()
    v = lib.solve_emax(ranks, h0, RANK[st.waste[-1]], sarr, len(stock), fits, logsize, ctypes.byref(n))
    return v, n.value, time.perf_counter() - t


env = gym.make("patience_gym/Golf-v0")
for seed in map(int, sys.argv[1:] if __name__ == "__main__" else []):
    env.reset(seed=seed)
    g, st = env.unwrapped.game, env.unwrapped.state
    print(seed, *emax(g, st), flush=True)
