"""One-off study (issue 34, research notes section 10): how well GolfMoves can clone greedy on Golf.

Records greedy on 2,000 deals (seeds 0..1999) and 500 held-out deals (seeds
10,000..10,499) in the given encoding, fits ``GolfMoves`` (hidden 64, optional
``chain_rounds``) for 8 epochs of 512-row batches, and prints the agreement with
greedy on the held-out decisions after each epoch.

Usage: ``python -m benchmarks.golf_chain_clone CHAIN_ROUNDS [CHAIN_WIDTH] [ENCODING] [AGGREGATE]``
(e.g. ``0 16 rules_moves``, ``3 16 rules_moves``, ``0 16 runs``, ``3 16 rules_moves max``; AGGREGATE is
the graph network's message, ``sum`` or ``max``, research notes section 33).
"""

import sys

import gymnasium as gym
import torch
from sb3_contrib import MaskablePPO

import patience_gym  # noqa: F401
from agents.training import imitation
from agents.training.networks import GolfMoves, LogitsPolicy

torch.set_num_threads(1)
rounds = int(sys.argv[1])
width = int(sys.argv[2]) if len(sys.argv) > 2 else 16
encoding = sys.argv[3] if len(sys.argv) > 3 else "rules_moves"
aggregate = sys.argv[4] if len(sys.argv) > 4 else "sum"
env_id, kwargs = "patience_gym/Golf-v0", {"obs_encoding": encoding}
train = imitation.collect(env_id, kwargs, "greedy", range(2000))
test = imitation.collect(env_id, kwargs, "greedy", range(10000, 10500))
torch.manual_seed(0)
extractor = {"hidden": 64, "encoding": encoding, "chain_rounds": rounds, "chain_width": width}
if rounds:
    extractor["chain_aggregate"] = aggregate
policy_kwargs = {"features_extractor_class": GolfMoves, "features_extractor_kwargs": extractor}
model = MaskablePPO(LogitsPolicy, gym.make(env_id, **kwargs), policy_kwargs=policy_kwargs, seed=0)
obs, masks, actions = (torch.as_tensor(x) for x in (test.obs, test.masks, test.actions))
for epoch in range(8):
    history = imitation.fit(model, train, epochs=1, batch_size=512, seed=epoch)
    held_out = imitation._accuracy(model.policy, obs, masks, actions, torch.arange(len(test)))
    print(rounds, width, encoding, aggregate, epoch, round(history[0]["accuracy"], 4), round(held_out, 4))
