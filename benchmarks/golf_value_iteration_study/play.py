"""Plays Golf holes with the fitted value (depth 1 or 2) in the rank-level simulator."""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch

from benchmarks.golf_value_iteration_study.core import FITS, best_after, deal_ranks, hsum, reach
from benchmarks.golf_value_iteration_study.fvi import ValueNet

FULL = sum(5 << (3 * i) for i in range(7))
_out = np.empty(4096, np.int64)
_out2 = np.empty(4096, np.int64)


def values(net, cols_t, hkeys, counts_rows):
    if not hkeys:
        return np.zeros(0, np.float32)
    b = len(hkeys)
    hk = np.array(hkeys, np.int64)
    m = best_after(cols_t.numpy(), np.zeros(b, np.int64), hk, FITS)
    with torch.no_grad():
        return net(
            cols_t.expand(b, 7, 5), torch.from_numpy(hk), torch.from_numpy(np.stack(counts_rows)), torch.from_numpy(m)
        ).numpy()


def choose(net, cols, cols_t, hk, waste, counts, depth):
    n = reach(cols, hk, waste, FITS, _out)
    cand = [int(c) for c in _out[:n]]
    k = int(counts.sum())
    if 0 in cand:
        return 0
    if k == 0:
        return min(cand, key=hsum)
    if depth == 1:
        v = values(net, cols_t, cand, [counts] * len(cand))
        return cand[int(np.argmin(v))]
    # depth 2: one exact chance level, the fitted value after it
    q = np.zeros(len(cand))
    net_h, net_c, slots = [], [], []  # slots: (cand index, weight, list of (exact value or net index))
    for ci, c in enumerate(cand):
        for r in range(1, 14):
            if counts[r] == 0:
                continue
            m = reach(cols, c, r, FITS, _out2)
            after = counts.copy()
            after[r] -= 1
            entries = []
            for j in range(m):
                ch = int(_out2[j])
                if ch == 0:
                    entries.append((True, -(k - 1)))
                elif k - 1 == 0:
                    entries.append((True, hsum(ch)))
                else:
                    entries.append((False, len(net_h)))
                    net_h.append(ch)
                    net_c.append(after)
            slots.append((ci, counts[r] / k, entries))
    v = values(net, cols_t, net_h, net_c)
    for ci, w, entries in slots:
        q[ci] += w * min(val if ex else float(v[val]) for ex, val in entries)
    return cand[int(np.argmin(q))]


def play_hole(net, cols, waste, order, depth):
    cols_t = torch.from_numpy(cols)[None]
    counts = np.zeros(14, np.int64)
    for r in order:
        counts[r] += 1
    hk, pos = FULL, 0
    while True:
        hk = choose(net, cols, cols_t, hk, waste, counts, depth)
        if hk == 0:
            return -(len(order) - pos)
        if pos == len(order):
            return hsum(hk)
        waste = order[pos]
        counts[waste] -= 1
        pos += 1


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("--depth", type=int, default=2)
    ap.add_argument("--orders", type=int, default=0, help="seed 0's links with N stock orders (study's orders)")
    ap.add_argument("--holes", type=int, default=200)
    ap.add_argument("--first", type=int, default=300000)
    args = ap.parse_args()
    torch.set_num_threads(1)
    net = ValueNet()
    net.load_state_dict(torch.load(args.model))
    net.eval()
    t0 = time.time()
    if args.orders:
        from patience_gym.cards import RANK
        from patience_gym.games.golf import Golf

        game = Golf()
        base = game.init(np.random.default_rng(0))
        cols, waste, _ = deal_ranks(0)
        stock = list(base.stock[base.pos :])
        scores = []
        for i in range(args.orders):
            rng = np.random.default_rng([0, i])
            order = [RANK[stock[j]] for j in rng.permutation(len(stock))]
            scores.append(play_hole(net, cols, waste, order, args.depth))
    else:
        scores = []
        for seed in range(args.first, args.first + args.holes):
            cols, waste, order = deal_ranks(seed)
            scores.append(play_hole(net, cols, waste, order, args.depth))
    s = np.array(scores, float)
    print(f"depth {args.depth}: {s.mean():.2f} +- {1.96 * s.std(ddof=1) / len(s) ** 0.5:.2f} over {len(s)} "
          f"({time.time() - t0:.1f}s)")
    np.save(f"scores_d{args.depth}_{'orders' if args.orders else args.first}.npy", s)


if __name__ == "__main__":
    main()
