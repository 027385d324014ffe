"""Study (issue 35 item 4; deleted after its commit): what the Miss Milligan family planner should do.

    python -m benchmarks.milligan_planner_study greedy ENV FIRST N            # the greedy's wins, one list
    python -m benchmarks.milligan_planner_study endgame ENV FIRST N NODES    # greedy, then the solver once the stock is out
    python -m benchmarks.milligan_planner_study replan ENV FIRST N NODES END # solve one sampled stock, follow it to the next deal

(seeds FIRST..FIRST+N-1 of the registered env; one JSON line a deal.) The runs quoted in the research
notes: ``endgame`` of each game at 20,000 positions on seeds 100000-100059, Giant at 150,000 and the
pocket version at 100,000; ``replan`` of Giant at 5,000 and 20,000 (ending 20,000).
"""
import sys


def endgame(ARGS):
    import sys, time, json
    import numpy as np
    from agents.baselines.greedy_milligan import MilliganGreedy
    from agents.solvers.milligan import solve, deal

    env_id, start, n, nodes = ARGS[0], int(ARGS[1]), int(ARGS[2]), int(ARGS[3])
    res = []
    for seed in range(start, start + n):
        game, state = deal(env_id, seed)
        g = MilliganGreedy(); g.reset()
        moves = 0; t0 = time.perf_counter(); solved = None
        while not game.is_over(state):
            if state.stock_left == 0 and solved is None:
                sol = solve(game, state, max_nodes=nodes)
                solved = sol.verdict
                if sol.verdict == "won":
                    for a in sol.moves:
                        game.apply(state, a); moves += 1
                    break
            a = g.choose(game, state, game.legal_mask(state))
            game.apply(state, a); moves += 1
        res.append(dict(seed=seed, won=bool(game.is_won(state)) if hasattr(game,'is_won') else None, score=float(game.score(state)) if hasattr(game,'score') else None, verdict=solved, moves=moves, s=time.perf_counter()-t0))
        print(json.dumps(res[-1]), flush=True)



def replan(ARGS):
    import sys, time, json
    import numpy as np
    from agents.baselines.greedy_milligan import MilliganGreedy
    from agents.solvers.milligan import solve, deal
    from patience_gym.games.milligan_tables import DEAL

    env_id, start, n, nodes, end_nodes = ARGS[0], int(ARGS[1]), int(ARGS[2]), int(ARGS[3]), int(ARGS[4])
    for seed in range(start, start + n):
        game, state = deal(env_id, seed)
        rng = np.random.default_rng(seed + 7)
        g = MilliganGreedy(); g.reset()
        moves = 0; t0 = time.perf_counter(); plan = []; solves = 0; greedy_phase = False; wonplans = 0; endv = None
        while not game.is_over(state):
            if state.stock_left == 0:
                if endv is None:
                    sol = solve(game, state, max_nodes=end_nodes); endv = sol.verdict
                    if sol.verdict == "won":
                        plan = list(sol.moves)
                    else:
                        plan = []
                a = plan.pop(0) if plan else g.choose(game, state, game.legal_mask(state))
            else:
                if not plan and not greedy_phase:
                    world = game.determinize(state, rng)
                    sol = solve(game, world, max_nodes=nodes); solves += 1
                    if sol.verdict == "won":
                        wonplans += 1
                        k = sol.moves.index(DEAL) + 1 if DEAL in sol.moves else len(sol.moves)
                        plan = list(sol.moves[:k])
                    else:
                        greedy_phase = True
                a = plan.pop(0) if plan else g.choose(game, state, game.legal_mask(state))
            assert game.legal_mask(state)[a]
            if a == DEAL: greedy_phase = False
            game.apply(state, a); moves += 1
        print(json.dumps(dict(seed=seed, won=bool(game.is_won(state)), score=float(game.score(state)), end=endv, solves=solves, wonplans=wonplans, moves=moves, s=time.perf_counter()-t0)), flush=True)



def greedy_only(ARGS):
    import sys, json
    from agents.baselines.greedy_milligan import MilliganGreedy
    from agents.solvers.milligan import deal
    env_id, start, n = ARGS[0], int(ARGS[1]), int(ARGS[2])
    w = []
    for seed in range(start, start+n):
        game, state = deal(env_id, seed); g = MilliganGreedy(); g.reset()
        while not game.is_over(state):
            game.apply(state, g.choose(game, state, game.legal_mask(state)))
        w.append(int(game.is_won(state)))
    print(json.dumps(w))



if __name__ == "__main__":
    {"greedy": greedy_only, "endgame": endgame, "replan": replan}[sys.argv[1]](sys.argv[2:])
