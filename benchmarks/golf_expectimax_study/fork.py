"""From the first position with at most 10 stock cards left in the planner's game: the plain planner
(HO) to the end, the exact expectimax policy to the end (E10), and HO until 8 left then exact (E8)."""

import copy
import json
import sys
import time

import gymnasium as gym
from hybrid import GolfPlanner, Hybrid


def finish(agent, env, obs, info):
    t = time.perf_counter()
    while True:
        a = agent.act(env.unwrapped, obs, info["action_mask"])
        obs, r, term, trunc, info = env.step(a)
        if term or trunc:
            return info["score"], time.perf_counter() - t


lo, hi = int(sys.argv[1]), int(sys.argv[2])
for seed in range(lo, hi):
    env = gym.make("patience_gym/Golf-v0")
    obs, info = env.reset(seed=seed)
    agent = GolfPlanner()
    agent.reset(seed)
    done = None
    while True:
        st = env.unwrapped.state
        if len(st.stock) - st.pos <= 8:
            break
        a = agent.act(env.unwrapped, obs, info["action_mask"])
        obs, r, term, trunc, info = env.step(a)
        if term or trunc:
            done = info["score"]
            break
    if done is not None:
        print(json.dumps({"seed": seed, "ho": done, "e8": done, "fork": False}), flush=True)
        continue
    out = {"seed": seed, "fork": True}
    for name, k in (("ho", -1), ("e8", 8)):
        e, o, i, ag = copy.deepcopy((env, obs, info, agent))
        h = Hybrid(k)
        h._rng = ag._rng
        out[name], out["t_" + name] = finish(h, e, o, i)
    print(json.dumps(out), flush=True)
