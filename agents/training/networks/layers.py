"""The small MLPs the move-scoring extractors share: the state net and the move net."""

from __future__ import annotations

from torch import nn


def state_net(global_size: int, hidden: int) -> nn.Module:
    """The state MLP: the global values to a state vector."""
    return nn.Sequential(nn.Linear(global_size, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())


def move_net(move_features: int, action_embed: int, hidden: int) -> nn.Module:
    """The move MLP: a move's features, its action embedding and the state vector to one score."""
    return nn.Sequential(nn.Linear(move_features + action_embed + hidden, hidden), nn.ReLU(), nn.Linear(hidden, 1))
