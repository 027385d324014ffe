# emax from positions after the first k deals of a greedy game (stock left 16-k)
from drive import emax, env

from patience_gym.heuristics.golf_greedy import choose_move

for seed in (0, 1):
    for k in (12, 10, 8, 6):
        env.reset(seed=seed)
        g, st = env.unwrapped.game, env.unwrapped.state
        while st.pos < 1 + (16 - (16 - k)) and not g.is_over(st):
            a = choose_move(g, st, g.legal_mask(st))
            g.apply(st, a)
        # now play until just before the next deal
        left = len(st.stock) - st.pos
        print(seed, "stock left", left, "links", sum(map(len, st.columns)), *emax(g, st, 24), flush=True)
