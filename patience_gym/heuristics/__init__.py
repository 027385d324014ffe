"""What a good player computes from a visible position: the greedy agents' knowledge.

Golf's playable runs and greedy move, Miss Milligan's move values, lookahead and greedy replays,
Puss in the Corner's move values, redeal and second-pass replays. These modules
read the rules (:mod:`patience_gym.games`) and never change them; the feature
encodings (:mod:`patience_gym.features`) and the agents build on them.
"""
