"""Per-deal fitted value: fine-tune a trained net on seed 0's links alone, then play section 27's 200 stock orders.

Usage: python -m benchmarks.golf_value_iteration_study.perdeal TRAJECTORIES ITERATIONS EPOCHS MODEL
"""
import sys, time, numpy as np, torch
from torch import nn
from benchmarks.golf_value_iteration_study.core import FITS, best_after, deal_ranks, hsum, reach, fold_targets
from benchmarks.golf_value_iteration_study.fvi import ValueNet, children, evaluate, POW5
from benchmarks.golf_value_iteration_study import play
from patience_gym.cards import RANK
from patience_gym.games.golf import Golf

torch.set_num_threads(2)
seed = 0
cols, waste0, _ = deal_ranks(seed)
base = Golf().init(np.random.default_rng(seed))
stock = [RANK[c] for c in base.stock[base.pos:]]
rng = np.random.default_rng(123)
ntraj, iters, epochs = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
t0 = time.time()
P_h, P_c = [], []
out = np.empty(4096, np.int64)
for t in range(ntraj):
    order = [stock[j] for j in rng.permutation(len(stock))]
    counts = np.zeros(14, np.int64)
    for r in order: counts[r] += 1
    hk = sum(5 << (3 * i) for i in range(7)); w = waste0; pos = 0
    while True:
        n = reach(cols, hk, w, FITS, out); cand = out[:n].copy(); k = len(order) - pos
        if k == 0: break
        for c in cand:
            if c: P_h.append(int(c)); P_c.append(counts.copy())
        hk = int(cand[rng.integers(n)]) if rng.random() < 0.5 else int(min(cand, key=hsum))
        if hk == 0: break
        w = order[pos]; counts[w] -= 1; pos += 1
ph = np.array(P_h, np.int64); pc = np.array(P_c, np.int64)
_, idx = np.unique(np.stack([ph, pc @ POW5], 1), axis=0, return_index=True)
ph, pc = ph[idx], pc[idx]; pd = np.zeros(len(ph), np.int64)
dc = cols[None].copy()
ch = children(dc, pd, ph, pc)
pm = best_after(dc, pd, ph, FITS); ch["u_m"] = best_after(dc, ch["u_deal"], ch["u_hkey"], FITS)
print(f"{len(ph)} positions, {len(ch['u_deal'])} net children, {time.time()-t0:.0f}s", flush=True)
net = ValueNet(); net.load_state_dict(torch.load(sys.argv[4])); 
opt = torch.optim.Adam(net.parameters(), lr=3e-4)
dct = torch.from_numpy(dc); n = len(ph)
pd_t, ph_t, pc_t, pm_t = map(torch.from_numpy, (pd, ph, pc, pm))
for it in range(iters):
    vals = ch["exact"].copy()
    v = evaluate(net, dct, ch["u_deal"], ch["u_hkey"], ch["u_counts"], ch["u_m"])
    vals[ch["needs_net"]] = v[ch["inverse"]]
    tg = torch.from_numpy(fold_targets(n, ch["gpos"], ch["gw"], ch["gstart"], vals))
    for _ in range(epochs):
        perm = torch.randperm(n)
        for s in range(0, n, 512):
            b = perm[s:s+512]
            loss = nn.functional.mse_loss(net(dct[pd_t[b]], ph_t[b], pc_t[b], pm_t[b]), tg[b])
            opt.zero_grad(); loss.backward(); opt.step()
print(f"fitted in {time.time()-t0:.0f}s, last loss {loss.item():.3f}", flush=True)
net.eval(); torch.set_num_threads(1)
sc = []
for i in range(200):
    r = np.random.default_rng([0, i]); order = [RANK[base.stock[base.pos:][j]] for j in r.permutation(len(stock))]
    sc.append(play.play_hole(net, cols, waste0, order, 2))
s = np.array(sc, float); print(f"seed 0, 200 orders: {s.mean():.2f} +- {1.96*s.std(ddof=1)/200**.5:.2f}; total {time.time()-t0:.0f}s")
