import sys
from agents.solvers import milligan as M
from stream import SSearch
seed=int(sys.argv[1]); stream=sys.argv[2]=='1'
g, st = M.deal(M.ENV_IDS['giant'], seed)
class D(SSearch):
    best_pos=0; best_total=0; hist={}
    def tick(self):
        super().tick()
    def moves(self, state, symmetric):
        self.best_pos=max(self.best_pos,state.pos); self.best_total=max(self.best_total,state.total)
        self.hist[state.pos]=self.hist.get(state.pos,0)+1
        return super().moves(state, symmetric)
s=D(g, st.copy(), 100000, None, M.PRUNINGS); s.streamlined=stream
print('stock', len(st.stock), 'pos0', st.pos)
try: print(s.dfs())
except M._OutOfBudget: print('out')
print('best pos', s.best_pos, 'best total', s.best_total, sorted(s.hist.items()))
