"""Fitted value iteration for Golf chance positions; prototype driver."""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch
from torch import nn

from benchmarks.golf_value_iteration_study.core import FITS, best_after, deal_ranks, expand, fold_targets, hsum, reach

torch.set_num_threads(2)
SHIFTS = torch.arange(7) * 3
POW5 = 5 ** np.arange(14, dtype=np.int64)


class ValueNet(nn.Module):
    def __init__(self, width: int = 64, hidden: int = 192) -> None:
        super().__init__()
        self.col = nn.Sequential(nn.Linear(93, width), nn.ReLU(), nn.Linear(width, width), nn.ReLU())
        self.head = nn.Sequential(
            nn.Linear(2 * width + 175, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, 1)
        )

    def forward(self, cols: torch.Tensor, hkey: torch.Tensor, counts: torch.Tensor, m: torch.Tensor) -> torch.Tensor:
        """cols [B,7,5] ranks, hkey [B], counts [B,14] (index 0 unused), m [B,13] best links left after each rank."""
        b = cols.shape[0]
        h = (hkey[:, None] >> SHIFTS) & 7
        j = torch.arange(5)[None, None, :]
        mask = j < h[:, :, None]
        ranks = torch.gather(cols, 2, (h[:, :, None] - 1 - j).clamp(min=0)) * mask  # top first
        oh = nn.functional.one_hot(ranks, 14).reshape(b, 7, 70).float()
        top = torch.gather(cols, 2, (h - 1).clamp(min=0)[:, :, None])[:, :, 0] * (h > 0)
        padded = nn.functional.pad(counts, (0, 1))  # index 14 = 0
        lo = torch.gather(padded, 1, (top - 1).clamp(min=0)) * (top >= 2)
        hi = torch.gather(padded, 1, (top + 1).clamp(max=14)) * (top + 1 <= 12)
        fit = (lo + hi).clamp(max=8)
        cf = torch.cat([oh, nn.functional.one_hot(top, 14).float(), nn.functional.one_hot(fit, 9).float()], 2)
        e = self.col(cf)
        pooled = torch.cat([e.sum(1), e.max(1).values], 1)
        links = nn.functional.one_hot(ranks.reshape(b, 35), 14).sum(1)[:, 1:].clamp(max=4)
        k = counts[:, 1:].sum(1).clamp(max=16)
        hs = h.sum(1, keepdim=True).float()
        expected = (counts[:, 1:].float() * m).sum(1, keepdim=True) / k.clamp(min=1)[:, None]
        g = torch.cat(
            [
                m / 35.0,
                (hs - m) / 10.0,
                expected / 35.0,
                hs / 35.0,
                nn.functional.one_hot(counts[:, 1:].clamp(max=4), 5).reshape(b, 65).float(),
                nn.functional.one_hot(k, 17).float(),
                nn.functional.one_hot(links, 5).reshape(b, 65).float(),
            ],
            1,
        )
        return self.head(torch.cat([pooled, g], 1))[:, 0] + expected[:, 0]


def evaluate(net, deal_cols_t, deal, hkey, counts, m, batch=32768):
    out = np.empty(len(deal), np.float32)
    with torch.no_grad():
        for s in range(0, len(deal), batch):
            d = torch.from_numpy(deal[s : s + batch])
            out[s : s + batch] = net(
                deal_cols_t[d], torch.from_numpy(hkey[s : s + batch]), torch.from_numpy(counts[s : s + batch]),
                torch.from_numpy(m[s : s + batch]),
            ).numpy()
    return out


def generate(seeds, rng, p_random=0.5, per_deal=0):
    """Chance positions met along half-greedy half-random play on the given deals (all turn ends recorded)."""
    deal_cols = np.zeros((len(seeds), 7, 5), np.int64)
    P_deal, P_hkey, P_counts = [], [], []
    out = np.empty(4096, np.int64)
    for d, seed in enumerate(seeds):
        cols, waste, order = deal_ranks(int(seed))
        deal_cols[d] = cols
        counts = np.zeros(14, np.int64)
        for r in order:
            counts[r] += 1
        hk = sum(5 << (3 * i) for i in range(7))
        pos = 0
        while True:
            n = reach(cols, hk, waste, FITS, out)
            cand = out[:n].copy()
            k = len(order) - pos
            if k == 0:
                break
            for c in cand:
                if c != 0:
                    P_deal.append(d)
                    P_hkey.append(c)
                    P_counts.append(counts.copy())
            if rng.random() < p_random:
                hk = int(cand[rng.integers(n)])
            else:
                hk = int(cand[np.argmin([hsum(c) for c in cand])])
            if hk == 0:
                break
            waste = order[pos]
            counts[waste] -= 1
            pos += 1
    deal_arr = np.array(P_deal, np.int64)
    if per_deal:
        keep = np.zeros(len(deal_arr), bool)
        starts = np.searchsorted(deal_arr, np.arange(len(seeds) + 1))
        for d in range(len(seeds)):
            a, b = starts[d], starts[d + 1]
            keep[rng.choice(np.arange(a, b), size=min(per_deal, b - a), replace=False)] = True
        P_deal = deal_arr[keep]; P_hkey = np.array(P_hkey)[keep]; P_counts = np.array(P_counts)[keep]
        deal_arr = P_deal
    hkey_arr = np.array(P_hkey, np.int64)
    counts_arr = np.array(P_counts, np.int64)
    key = np.stack([deal_arr, hkey_arr, counts_arr @ POW5], 1)
    _, idx = np.unique(key, axis=0, return_index=True)
    return deal_cols, deal_arr[idx], hkey_arr[idx], counts_arr[idx]


def children(deal_cols, p_deal, p_hkey, p_counts):
    gpos, gr, gw, gstart, child = expand(deal_cols, p_deal, p_hkey, p_counts, FITS)
    sizes = np.diff(gstart)
    cg = np.repeat(np.arange(len(gpos)), sizes)
    c_pos = gpos[cg]
    c_deal = p_deal[c_pos]
    c_counts = p_counts[c_pos].copy()
    c_counts[np.arange(len(cg)), gr[cg]] -= 1
    k_after = c_counts[:, 1:].sum(1)
    sums = np.zeros(len(child), np.int64)
    for i in range(7):
        sums += (child >> (3 * i)) & 7
    exact = np.where(child == 0, -k_after, sums).astype(np.float32)
    needs_net = (child != 0) & (k_after > 0)
    key = np.stack([c_deal, child, c_counts @ POW5], 1)[needs_net]
    uniq, first, inverse = np.unique(key, axis=0, return_index=True, return_inverse=True)
    sel = np.flatnonzero(needs_net)[first]
    return dict(
        gpos=gpos, gw=gw, gstart=gstart, exact=exact, needs_net=needs_net, inverse=inverse.ravel(),
        u_deal=c_deal[sel], u_hkey=child[sel], u_counts=c_counts[sel],
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--deals", type=int, default=2000)
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--out", default="value.pt")
    ap.add_argument("--per-deal", type=int, default=0)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    t0 = time.time()
    seeds = np.arange(10_000_000, 10_000_000 + args.deals)
    deal_cols, p_deal, p_hkey, p_counts = generate(seeds, rng, per_deal=args.per_deal)
    print(f"positions {len(p_deal)} in {time.time() - t0:.0f}s", flush=True)
    ch = children(deal_cols, p_deal, p_hkey, p_counts)
    print(f"children {len(ch['exact'])} unique net children {len(ch['u_deal'])} at {time.time() - t0:.0f}s", flush=True)
    p_m = best_after(deal_cols, p_deal, p_hkey, FITS)
    ch["u_m"] = best_after(deal_cols, ch["u_deal"], ch["u_hkey"], FITS)
    print(f"features at {time.time() - t0:.0f}s", flush=True)
    deal_cols_t = torch.from_numpy(deal_cols)
    pm_t = torch.from_numpy(p_m)
    net = ValueNet()
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    n = len(p_deal)
    pd_t, ph_t, pc_t = torch.from_numpy(p_deal), torch.from_numpy(p_hkey), torch.from_numpy(p_counts)
    for it in range(args.iters):
        vals = ch["exact"].copy()
        v = evaluate(net, deal_cols_t, ch["u_deal"], ch["u_hkey"], ch["u_counts"], ch["u_m"])
        vals[ch["needs_net"]] = v[ch["inverse"]]
        targets = torch.from_numpy(fold_targets(n, ch["gpos"], ch["gw"], ch["gstart"], vals))
        losses = []
        for _ep in range(args.epochs):
            perm = torch.randperm(n)
            for s in range(0, n, 1024):
                b = perm[s : s + 1024]
                pred = net(deal_cols_t[pd_t[b]], ph_t[b], pc_t[b], pm_t[b])
                loss = nn.functional.mse_loss(pred, targets[b])
                opt.zero_grad()
                loss.backward()
                opt.step()
                losses.append(loss.item())
        print(f"iter {it} loss {np.mean(losses[-200:]):.3f} target mean {targets.mean():.2f} at {time.time() - t0:.0f}s",
              flush=True)
        torch.save(net.state_dict(), args.out)


if __name__ == "__main__":
    main()
