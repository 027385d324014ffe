"""Prototype: randomized restarts for the family solver (Luby schedule)."""
import sys, time
import numpy as np
from agents.solvers import milligan as M

class _Restart(Exception):
    pass

def luby(i):
    k = 1
    while (1 << k) - 1 < i:
        k += 1
    while True:
        if i == (1 << k) - 1:
            return 1 << (k - 1)
        i -= (1 << (k - 1)) - 1
        k = 1
        while (1 << k) - 1 < i:
            k += 1

class RSearch(M._Search):
    rng = None
    cap = None
    def moves(self, state, symmetric):
        acts = super().moves(state, symmetric)
        if self.rng is not None and len(acts) > 1:
            # perturb: keep order with noise on positions
            keys = np.arange(len(acts)) + self.rng.exponential(self.temp, len(acts))
            acts = [acts[i] for i in np.argsort(keys, kind='stable')]
        return acts
    def tick(self):
        super().tick()
        if self.cap is not None and self.nodes >= self.cap:
            raise _Restart

def solve(game, state, seconds, base, temp, share):
    s = RSearch(game, state.copy(), int(seconds), None, M.PRUNINGS)
    s.temp = temp
    start = time.perf_counter()
    try:
        # greedy dive first
        line = s.greedy(None)
        if line is not None:
            return 'won', s.nodes
        i = 1
        while s.nodes < share * seconds:
            s.rng = np.random.default_rng(i)
            s.cap = s.nodes + base * luby(i)
            try:
                line = s.dfs()
                if line is not None:
                    return 'won', s.nodes
                # exhausted => lost (randomized order still complete)
                return 'lost', s.nodes
            except _Restart:
                pass
            i += 1
        s.rng = None; s.cap = None
        line = s.dfs()
        return ('won' if line is not None else 'lost'), s.nodes
    except M._OutOfBudget:
        return 'undecided', s.nodes

if __name__ == '__main__':
    game_name = sys.argv[1]; seeds = [int(x) for x in sys.argv[2].split(',')]
    seconds = float(sys.argv[3]); base = int(sys.argv[4]); temp = float(sys.argv[5]); share = float(sys.argv[6])
    won = 0
    for seed in seeds:
        g, st = M.deal(M.ENV_IDS[game_name], seed)
        t = time.perf_counter()
        v, n = solve(g, st, seconds, base, temp, share)
        won += v == 'won'
        print(f'seed {seed}: {v} {n} nodes {time.perf_counter()-t:.1f}s', flush=True)
    print('won', won, 'of', len(seeds))
