"""Move scorers for the heuristic ``moves`` encodings: every action, or every listed move, scored by one
set of weights (:class:`MoveScorer`, :class:`MoveListScorer`)."""

from __future__ import annotations

import gymnasium as gym
import torch
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from agents.training.networks.layers import move_net, state_net


def _score_moves(score: nn.Module, moves: torch.Tensor, embedded: torch.Tensor, g: torch.Tensor) -> torch.Tensor:
    """One score per move, shape (batch, moves), from its features, its action embedding and the state vector."""
    x = torch.cat([moves, embedded, g.unsqueeze(1).expand(-1, moves.shape[1], -1)], dim=2)
    return score(x).squeeze(-1)


class MoveScorer(BaseFeaturesExtractor):
    """Score every action from its own features, with one set of weights (any game with a ``moves`` encoding).

    The observation is ``global_size`` values about the whole position followed
    by ``move_features`` values for each action (for Puss in the Corner:
    :mod:`patience_gym.heuristics.puss_moves`; ``MOVES_GLOBAL`` and ``MOVE_FEATURES``).
    An MLP turns the global part into a state vector; each action's logit is a
    shared MLP of its features, a small learned embedding of the action (which
    kind of move, which packet) and the state vector, so what is learnt about
    "put the card where the top waits longer" holds for every packet. Output:
    the action logits followed by ``hidden`` value features (the state
    vector); pair it with :class:`LogitsPolicy`.
    """

    def __init__(
        self,
        observation_space: gym.spaces.Box,
        global_size: int,
        move_features: int,
        hidden: int = 128,
        action_embed: int = 16,
    ) -> None:
        n = int(observation_space.shape[0])
        if not 0 < global_size < n or (n - global_size) % move_features:
            raise ValueError(
                f"MoveScorer: an observation of {n} values is not {global_size} global values "
                f"followed by whole rows of {move_features} move features"
            )
        num_actions = (n - global_size) // move_features
        super().__init__(observation_space, features_dim=num_actions + hidden)
        self.global_size = global_size
        self.num_actions = num_actions
        self.move_features = move_features
        # Built in this order (state net, embedding, move net) so that parameter order and
        # initialisation match the models trained before these nets were shared (optimizer state).
        self.glob = state_net(global_size, hidden)
        self.action = nn.Parameter(torch.zeros(num_actions, action_embed))
        nn.init.normal_(self.action, std=0.1)
        self.score = move_net(move_features, action_embed, hidden)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        g = self.glob(obs[:, : self.global_size])
        moves = obs[:, self.global_size :].view(-1, self.num_actions, self.move_features)
        scores = _score_moves(self.score, moves, self.action.expand(obs.shape[0], -1, -1), g)
        return torch.cat([scores, g], dim=1)


class MoveListScorer(BaseFeaturesExtractor):
    """:class:`MoveScorer` for games with many possible actions, few legal at once: scores a list of moves.

    The observation is ``global_size`` values about the position followed by
    rows of ``1 + move_features`` values, one per legal move: the action's id
    as ``(action + 1) / num_actions`` (0: an empty row), then the move's
    features (for the Miss Milligan family: :mod:`patience_gym.heuristics.milligan_moves`,
    ``MOVES_GLOBAL`` and ``MOVE_FEATURES``). Each row is scored like a
    :class:`MoveScorer` action and its score written to its action's logit;
    actions without a row get the logit ``unlisted`` (illegal ones are masked
    anyway). Output: the ``num_actions`` logits followed by ``hidden`` value
    features; pair it with :class:`LogitsPolicy`.
    """

    def __init__(
        self,
        observation_space: gym.spaces.Box,
        global_size: int,
        move_features: int,
        num_actions: int,
        hidden: int = 128,
        action_embed: int = 16,
        unlisted: float = -10.0,
    ) -> None:
        n = int(observation_space.shape[0])
        row = 1 + move_features
        if not 0 < global_size < n or (n - global_size) % row:
            raise ValueError(
                f"MoveListScorer: an observation of {n} values is not {global_size} global values "
                f"followed by whole rows of 1 + {move_features} values"
            )
        super().__init__(observation_space, features_dim=num_actions + hidden)
        self.global_size = global_size
        self.num_actions = num_actions
        self.slots = (n - global_size) // row
        self.row = row
        self.unlisted = unlisted
        self.glob = state_net(global_size, hidden)  # in this order: see MoveScorer
        self.action = nn.Embedding(num_actions, action_embed)
        nn.init.normal_(self.action.weight, std=0.1)
        self.score = move_net(move_features, action_embed, hidden)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        g = self.glob(obs[:, : self.global_size])
        rows = obs[:, self.global_size :].view(-1, self.slots, self.row)
        ids = torch.round(rows[:, :, 0] * self.num_actions).long() - 1  # -1: empty row
        # Only the listed rows are scored (a few dozen of the 128 slots): gather them, score, scatter.
        batch, slot = torch.nonzero(ids >= 0, as_tuple=True)
        listed = ids[batch, slot]
        x = torch.cat([rows[batch, slot, 1:], self.action(listed), g[batch]], dim=1)
        scores = self.score(x).squeeze(-1)
        logits = torch.full((obs.shape[0], self.num_actions), self.unlisted, device=obs.device, dtype=obs.dtype)
        logits = logits.index_put((batch, listed), scores)
        return torch.cat([logits, g], dim=1)
