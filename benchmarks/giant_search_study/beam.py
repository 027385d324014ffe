"""Prototype: a beam over the deals (stock phase), a best-first search of each gap between deals, then
the exact search of the ending from the best positions once the stock is out."""
import heapq, sys, time
from agents.solvers import milligan as M
from patience_gym.games.milligan_tables import DEAL, TOTAL_CARDS
from patience_gym.heuristics.milligan_moves import evaluation


def gap(s, state, path, per_state):
    """Best-first over the non-deal moves from state; returns (won_line|None, list of (value, key, child, path) after a deal
    or, once the stock is out, the visited positions)."""
    game = s.game
    out_stock = state.pos >= len(state.stock)
    seen = {}
    heap = [(-evaluation(state), 0, state, path)]
    n = 0
    counter = 1
    results = []
    while heap and n < per_state:
        negv, _, st, p = heapq.heappop(heap)
        s.tick(); n += 1
        acts = game.legal_actions(st)
        for a in acts:
            child = st.copy()
            game.apply(child, a)
            if child.total == TOTAL_CARDS:
                return p + [a], results
            if a == DEAL:
                results.append((evaluation(child), child, p + [a]))
                continue
            k = s.key(child, False)
            d = seen.get(k)
            if d is not None and d <= child.idle:
                continue
            seen[k] = child.idle
            v = evaluation(child)
            heapq.heappush(heap, (-v, counter, child, p + [a])); counter += 1
            if out_stock:
                results.append((v, child, p + [a]))
    return None, results


def beam(s, width, per_state):
    layer = [(evaluation(s.root), s.root, [])]
    while True:
        nxt = []
        for v, st, p in layer:
            if st.pos >= len(st.stock):
                nxt.append((v, st, p)); continue
            line, res = gap(s, st, p, per_state)
            if line is not None:
                return line, None
            nxt.extend(res)
        if not nxt:
            return None, None
        # dedupe
        best = {}
        for v, st, p in nxt:
            k = s.key(st, False)
            if k not in best or best[k][0] < v:
                best[k] = (v, st, p)
        layer = sorted(best.values(), key=lambda t: -t[0])[:width]
        if all(st.pos >= len(st.stock) for _, st, _ in layer):
            return None, layer


def solve(game, state, nodes, width, per_state, end_nodes):
    s = M._Search(game, state.copy(), nodes, None, M.PRUNINGS)
    try:
        if s.greedy(None) is not None:
            return 'won-dive', s.nodes
        line, ends = beam(s, width, per_state)
        if line is not None:
            return 'won-beam', s.nodes
        for v, st, p in ends or []:
            sub = M._Search(game, st, end_nodes, None, M.PRUNINGS)
            try:
                l2 = sub.dfs()
            except M._OutOfBudget:
                l2 = None
            s.nodes += sub.nodes
            if l2 is not None:
                return 'won-end', s.nodes
            if s.nodes > nodes:
                break
        return 'undecided*', s.nodes
    except M._OutOfBudget:
        return 'undecided', s.nodes

if __name__ == '__main__':
    game_name = sys.argv[1]; seeds = [int(x) for x in sys.argv[2].split(',')]
    nodes = int(sys.argv[3]); width = int(sys.argv[4]); per_state = int(sys.argv[5]); end_nodes = int(sys.argv[6])
    won = 0
    for seed in seeds:
        g, st = M.deal(M.ENV_IDS[game_name], seed)
        t = time.perf_counter()
        v, n = solve(g, st, nodes, width, per_state, end_nodes)
        won += v.startswith('won')
        print(f'seed {seed}: {v} {n} nodes {time.perf_counter()-t:.1f}s', flush=True)
    print('won', won, 'of', len(seeds))
