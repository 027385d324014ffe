"""Prototype: a streamlined first pass (whole-run moves only, no worry back), then the full search."""
import sys, time
from agents.solvers import milligan as M
from patience_gym.games.milligan_tables import CC, RC, FC, DEAL, MAX_RUN

class SSearch(M._Search):
    streamlined = False
    drop_fc = True
    whole = True
    def moves(self, state, symmetric):
        acts = super().moves(state, symmetric)
        if not self.streamlined:
            return acts
        out = []
        for a in acts:
            if self.drop_fc and FC <= a < DEAL:
                continue
            if self.whole and a < RC:
                i, rest = divmod(a - CC, M._CC_SPAN)
                k = rest % MAX_RUN + 1
                if k != state.runs[i]:
                    continue
            out.append(a)
        return out

def solve(game, state, nodes, share, drop_fc, whole, dives):
    s = SSearch(game, state.copy(), nodes, None, M.PRUNINGS)
    s.drop_fc = drop_fc; s.whole = whole
    try:
        for n in range(dives):
            if s.greedy(None if n == 0 else __import__('numpy').random.default_rng(n)) is not None:
                return 'won-dive', s.nodes
        s.streamlined = True
        cap = s.max_nodes
        s.max_nodes = s.nodes + int(share * (cap - s.nodes))
        try:
            line = s.dfs()
            if line is not None:
                return 'won-stream', s.nodes
        except M._OutOfBudget:
            pass
        s.max_nodes = cap
        s.streamlined = False
        line = s.dfs()
        return ('won' if line is not None else 'lost'), s.nodes
    except M._OutOfBudget:
        return 'undecided', s.nodes

if __name__ == '__main__':
    game_name = sys.argv[1]; seeds = [int(x) for x in sys.argv[2].split(',')]
    nodes = int(sys.argv[3]); share = float(sys.argv[4]); drop_fc = sys.argv[5] == '1'; whole = sys.argv[6] == '1'
    dives = int(sys.argv[7]) if len(sys.argv) > 7 else 1
    won = 0
    for seed in seeds:
        g, st = M.deal(M.ENV_IDS[game_name], seed)
        t = time.perf_counter()
        v, n = solve(g, st, nodes, share, drop_fc, whole, dives)
        won += v.startswith('won')
        print(f'seed {seed}: {v} {n} nodes {time.perf_counter()-t:.1f}s', flush=True)
    print('won', won, 'of', len(seeds))
