"""Prototype: cap the nodes spent below each last deal (the stock-out ending), with doubling passes."""
import sys, time
import numpy as np
from agents.solvers import milligan as M
from patience_gym.games.milligan import IDLE_LIMIT
from patience_gym.games.milligan_tables import TOTAL_CARDS

class CSearch(M._Search):
    def capped_dfs(self, cap):
        game = self.game; root = self.root
        self.tick()
        table = {}
        sym = self.symmetric(root)
        table[self.key(root, sym)] = root.idle
        stack = [(root, self.moves(root, sym), [0], -1)]
        path = []
        bound = self.bound
        nstock = len(root.stock)
        abandoned = False
        while stack:
            state, acts, at, started = stack[-1]
            i = at[0]
            if started >= 0 and self.nodes - started > cap:
                # abandon this ending
                abandoned = True
                stack.pop()
                if path: path.pop()
                continue
            if i == len(acts):
                stack.pop()
                if path: path.pop()
                continue
            at[0] = i + 1
            action = acts[i]
            child = state.copy()
            game.apply(child, action)
            if child.total == TOTAL_CARDS:
                path.append(action); return path, abandoned
            sym = self.symmetric(child)
            key = self.key(child, sym)
            done = table.get(key)
            if done is not None and done <= child.idle:
                continue
            if bound and child.idle + M.idle_needed(game, child) > IDLE_LIMIT:
                continue
            self.tick()
            table[key] = child.idle
            st = started
            if st < 0 and state.pos < nstock and child.pos >= nstock:
                st = self.nodes
            stack.append((child, self.moves(child, sym), [0], st))
            path.append(action)
        return None, abandoned

def solve(game, state, nodes, cap0, share):
    s = CSearch(game, state.copy(), nodes, None, M.PRUNINGS)
    try:
        if s.greedy(None) is not None:
            return 'won-dive', s.nodes
        cap = cap0
        while s.nodes < share * nodes:
            line, ab = s.capped_dfs(cap)
            if line is not None:
                return f'won-cap{cap}', s.nodes
            if not ab:
                return 'lost', s.nodes
            cap *= 2
        line = s.dfs()
        return ('won' if line is not None else 'lost'), s.nodes
    except M._OutOfBudget:
        return 'undecided', s.nodes

if __name__ == '__main__':
    game_name = sys.argv[1]; seeds = [int(x) for x in sys.argv[2].split(',')]
    nodes = int(sys.argv[3]); cap0 = int(sys.argv[4]); share = float(sys.argv[5])
    won = 0
    for seed in seeds:
        g, st = M.deal(M.ENV_IDS[game_name], seed)
        t = time.perf_counter()
        v, n = solve(g, st, nodes, cap0, share)
        won += v.startswith('won')
        print(f'seed {seed}: {v} {n} nodes {time.perf_counter()-t:.1f}s', flush=True)
    print('won', won, 'of', len(seeds))
