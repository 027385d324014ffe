"""Nine-hole rounds (GolfRound-v0 seeds) with the fitted value, in the rank simulator."""
import sys, time, numpy as np, torch
from patience_gym.cards import RANK
from patience_gym.games.golf import GolfRound, Golf
from benchmarks.golf_value_iteration_study import play
from benchmarks.golf_value_iteration_study.fvi import ValueNet

def hole_ranks(cards):
    s = Golf._from_cards(cards)
    cols = np.array([[RANK[c] for c in col] for col in s.columns], np.int64)
    return cols, RANK[s.waste[-1]], [RANK[c] for c in s.stock[s.pos:]]

torch.set_num_threads(1)
net = ValueNet(); net.load_state_dict(torch.load(sys.argv[1])); net.eval()
depth = int(sys.argv[2]); first, n = int(sys.argv[3]), int(sys.argv[4])
t0 = time.time(); rounds = []
for seed in range(first, first + n):
    st = GolfRound().init(np.random.default_rng(seed))
    rounds.append(sum(play.play_hole(net, *hole_ranks(d), depth) for d in st.deals))
r = np.array(rounds, float)
print(f"rounds {first}-{first+n-1} depth {depth}: {r.mean():.2f} +- {1.96*r.std(ddof=1)/len(r)**.5:.2f}; "
      f"at or under 40: {(r<=40).mean():.3f}; {time.time()-t0:.0f}s")
np.save(f"rounds_{first}_{n}_d{depth}.npy", r)
