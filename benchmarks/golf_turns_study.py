"""Study (issue 35; deleted after its commit): Golf hindsight optimisation over whole turns against per move.

``budgets``: how far the Golf solver is from exact within a node budget, on 40 initial deals.
``turn`` / ``hop``: the turn planner below, or the registered per-move planner, on the same holes
(``Golf.init(np.random.default_rng(seed))``), printing one JSON line a hole:

    python -m benchmarks.golf_turns_study budgets
    python -m benchmarks.golf_turns_study turn 6000 200 16 > turn16.jsonl
    python -m benchmarks.golf_turns_study hop 6000 200 16 > hop16.jsonl
"""
import sys, time, json
import numpy as np
from agents.solvers.golf import solve
from agents.planners.golf import GolfPlanner
from patience_gym.games.golf import Golf, GolfState, DEAL
from patience_gym.heuristics.golf_greedy import choose_move
from types import SimpleNamespace

def turn_ends(game, state):
    """end position key -> (state, set of first moves reaching it by plays only)."""
    ends = {}
    def key(s): return (tuple(len(c) for c in s.columns), s.waste[-1] if s.waste else -1)
    stack = [(state, None)]
    seen = set()
    while stack:
        s, first = stack.pop()
        k = key(s)
        if (k, first) in seen: continue
        seen.add((k, first))
        ends.setdefault(k, (s, set()))[1].add(DEAL if first is None else first)
        if game.is_over(s): continue
        for a in game.legal_actions(s):
            if a == DEAL: continue
            t = s.copy(); game.apply(t, a)
            stack.append((t, a if first is None else first))
    return ends

class TurnPlanner:
    def __init__(self, samples, max_nodes=20000, seed=0):
        self.samples, self.max_nodes = samples, max_nodes
        self.rng = np.random.default_rng(seed)
    def choose(self, game, state):
        legal = game.legal_actions(state)
        if len(legal) == 1: return legal[0]
        if state.stock_left == 0:
            return solve(game, state, self.max_nodes).moves[0]
        worlds = [game.determinize(state, self.rng) for _ in range(self.samples)]
        best = {}
        for k, (e, firsts) in turn_ends(game, state).items():
            if game.is_over(e):
                v = game.score(e)
            else:
                tot = 0.0
                for w in worlds:
                    ew = GolfState([c[:] for c in e.columns], e.waste[:], w.stock, w.pos)
                    game.apply(ew, DEAL)
                    tot += game.score(ew) if game.is_over(ew) else solve(game, ew, self.max_nodes).score
                v = tot / len(worlds)
            for f in firsts:
                if f not in best or v < best[f]: best[f] = v
        g = choose_move(game, state, game.legal_mask(state))
        return min(best, key=lambda a: (best[a], a != g, a))


if sys.argv[1] == "budgets":
    game = Golf()
    for nodes in (20_000, 200_000, 2_000_000):
        t = time.perf_counter()
        found = [solve(game, game.init(np.random.default_rng(s)), nodes) for s in range(40)]
        print(nodes, "exact", sum(f.exact for f in found), "mean", np.mean([f.score for f in found]), "s", (time.perf_counter() - t) / 40)
    sys.exit()
mode, start, n, samples = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
game = Golf()
for seed in range(start, start + n):
    state = game.init(np.random.default_rng(seed))
    t0 = time.perf_counter(); moves = 0
    if mode == "turn":
        p = TurnPlanner(samples, seed=seed)
    else:
        p = GolfPlanner(samples=samples); p.reset(seed)
    while not game.is_over(state):
        if mode == "turn": a = p.choose(game, state)
        else: a = p.act(SimpleNamespace(game=game, state=state), np.zeros(1), game.legal_mask(state))
        game.apply(state, a); moves += 1
    print(json.dumps(dict(seed=seed, score=game.score(state), moves=moves, s=time.perf_counter()-t0)), flush=True)
