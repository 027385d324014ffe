"""The baselines: random, and each game's greedy player (whose rule lives in :mod:`patience_gym.heuristics`).

Import the modules directly (:mod:`agents.baselines.random`, :mod:`agents.baselines.greedy_golf`,
:mod:`agents.baselines.greedy_puss`, :mod:`agents.baselines.greedy_milligan`): this package imports none of
them, so that a game's baseline loads only what it needs.
"""
