"""Fitted value against exact values (Python expectimax with a memo) at low stock counts, on 30 fresh deals."""
import sys, functools
import numpy as np, torch
from benchmarks.golf_value_iteration_study.core import FITS, best_after, deal_ranks, hsum, reach
from benchmarks.golf_value_iteration_study.fvi import ValueNet
net=ValueNet(); net.load_state_dict(torch.load(sys.argv[1])); net.eval()
KMAX=int(sys.argv[2]) if len(sys.argv)>2 else 6
rng=np.random.default_rng(1)
errs={}
for seed in range(20000000,20000030):
    cols,waste,order=deal_ranks(seed)
    out=np.empty(4096,np.int64)
    @functools.lru_cache(None)
    def V(hk, counts):
        k=sum(counts); tot=0.0
        for r in range(1,14):
            c=counts[r]
            if not c: continue
            o=np.empty(4096,np.int64); n=reach(cols,hk,r,FITS,o)
            after=list(counts); after[r]-=1; after=tuple(after)
            best=1e9
            for ch in o[:n]:
                ch=int(ch)
                v=-(k-1) if ch==0 else (hsum(ch) if k-1==0 else V(ch,after))
                best=min(best,v)
            tot+=c/k*best
        return tot
    # random positions: play random turns until k <= KMAX
    counts=np.zeros(14,np.int64)
    for r in order: counts[r]+=1
    hk=sum(5<<(3*i) for i in range(7)); pos=0
    while True:
        n=reach(cols,hk,waste,FITS,out); cand=out[:n]
        hk=int(cand[rng.integers(n)]) if rng.random()<0.5 else int(min(cand,key=hsum))
        k=len(order)-pos
        if hk==0 or k==0: break
        if k<=KMAX:
            ex=V(hk,tuple(int(x) for x in counts))
            with torch.no_grad():
                pr=net(torch.from_numpy(cols)[None],torch.tensor([hk]),torch.from_numpy(counts)[None],torch.from_numpy(best_after(cols[None],np.zeros(1,np.int64),np.array([hk]),FITS))).item()
            errs.setdefault(k,[]).append(pr-ex)
        waste=order[pos]; counts[waste]-=1; pos+=1
for k in sorted(errs):
    e=np.array(errs[k]); print(k, len(e), f"bias {e.mean():+.3f} rmse {np.sqrt((e**2).mean()):.3f}")
