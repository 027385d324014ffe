"""The one network for every game's rules-only ``rules_moves`` encoding (:class:`MoveRows`).

This module imports nothing that reaches :mod:`patience_gym.heuristics` (an import-linter
contract checks it): a policy trained with it reads the rules alone.
"""

from __future__ import annotations

import gymnasium as gym
import torch
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from agents.training.networks.layers import state_net
from patience_gym.features.rules import layout as L


class MoveRows(BaseFeaturesExtractor):
    """One network for every game's ``rules_moves`` encoding: each legal move scored by shared weights.

    The observation is the game's plain ``planes`` and two position values
    (``global_size`` in all), then rows of ``1 + move_features`` values, one per
    legal move (:mod:`patience_gym.features.rules.layout`). An MLP turns the
    global part into a state vector. Each row becomes a token from its cards
    (every card field embedded by one rank table and one suit table, shared by
    all fields, so a 7 is a 7 wherever it lies), its kinds and indexes (small
    embeddings) and its numbers, joined with the state vector. The tokens then
    see each other (the max over the listed moves joined to each token), and a
    shared linear head scores each one into its action's logit. Actions without a row
    get ``unlisted`` (they are masked, or past the slots, which the overflow
    value shows). Output: the ``num_actions`` logits, then ``2 * hidden`` value
    features (the state vector and the mean token); pair it with
    :class:`LogitsPolicy` and ``critic_reads_logits: false``.
    """

    def __init__(
        self,
        observation_space: gym.spaces.Box,
        global_size: int,
        move_features: int,
        num_actions: int,
        hidden: int = 128,
        card_dim: int = 16,
        kind_dim: int = 8,
        unlisted: float = -10.0,
    ) -> None:
        n = int(observation_space.shape[0])
        row = 1 + move_features
        if row != L.ROW or not 0 < global_size < n or (n - global_size) % row:
            raise ValueError(
                f"MoveRows reads a 'rules_moves' observation ({L.ROW}-value rows after the global part); "
                f"got {n} values, global_size {global_size}, rows of 1 + {move_features}"
            )
        super().__init__(observation_space, features_dim=num_actions + 2 * hidden)
        self.global_size = global_size
        self.num_actions = num_actions
        self.slots = (n - global_size) // row
        self.unlisted = unlisted
        cards = torch.arange(L.HIDDEN_CARD + 1)
        known = (cards > 0) & (cards < L.HIDDEN_CARD)
        # Card field value -> rank (0 none, 1..13, 14 hidden) and suit (0 none, 1..4, 5 hidden).
        rank = torch.where(known, (cards - 1) % 13 + 1, torch.where(cards == L.HIDDEN_CARD, 14, 0))
        suit = torch.where(known, (cards - 1) // 13 + 1, torch.where(cards == L.HIDDEN_CARD, 5, 0))
        self.register_buffer("card_rank", rank, persistent=False)
        self.register_buffer("card_suit", suit, persistent=False)
        self.register_buffer("card_fields", torch.tensor(L.CARD_FIELDS), persistent=False)
        self.register_buffer("kind_fields", torch.tensor(L.KIND_FIELDS), persistent=False)
        self.register_buffer("number_fields", torch.tensor(L.NUMBER_FIELDS), persistent=False)
        self.register_buffer("kind_offset", torch.arange(len(L.KIND_FIELDS)) * (L.MAX_INDEX + 1), persistent=False)
        self.glob = state_net(global_size, hidden)
        self.rank = nn.Embedding(15, card_dim)
        self.suit = nn.Embedding(6, card_dim)
        self.kinds = nn.Embedding(len(L.KIND_FIELDS) * (L.MAX_INDEX + 1), kind_dim)  # one table per field
        row_in = len(L.CARD_FIELDS) * card_dim + len(L.KIND_FIELDS) * kind_dim + len(L.NUMBER_FIELDS)
        self.token_in = nn.Linear(row_in + hidden, hidden)
        self.token = nn.Sequential(nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.mix = nn.Sequential(nn.Linear(2 * hidden, hidden), nn.ReLU())
        self.score = nn.Linear(hidden, 1)

    def _buffer(self, name: str) -> torch.Tensor:
        value: torch.Tensor = getattr(self, name)
        return value

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        b = obs.shape[0]
        g = self.glob(obs[:, : self.global_size])
        rows = obs[:, self.global_size :].view(b, self.slots, L.ROW)
        listed = rows[:, :, L.ACTION] > 0
        # Rows are packed from the first slot: only the longest list in the batch is read, and only
        # the listed rows are embedded (a gather, then a scatter back for the moves to see each other).
        width = max(int(listed.sum(dim=1).max().item()), 1)
        listed = listed[:, :width]
        batch, slot = torch.nonzero(listed, as_tuple=True)
        picked = rows[batch, slot]  # (moves, ROW)
        cards = picked[:, self._buffer("card_fields")].long().clamp(0, L.HIDDEN_CARD)
        table = self.rank(self._buffer("card_rank")) + self.suit(self._buffer("card_suit"))  # (54, card_dim)
        kinds = picked[:, self._buffer("kind_fields")].long().clamp(0, L.MAX_INDEX) + self._buffer("kind_offset")
        x = torch.cat(
            [table[cards].flatten(1), self.kinds(kinds).flatten(1), picked[:, self._buffer("number_fields")]], dim=1
        )
        # The first layer reads [row, g]: g's share is computed once per position, not per row.
        split = x.shape[1]
        weight = self.token_in.weight
        g_share = nn.functional.linear(g, weight[:, split:], self.token_in.bias)
        t = self.token(nn.functional.linear(x, weight[:, :split]) + g_share[batch])  # (moves, hidden), >= 0
        # Each move then reads the max over its position's moves. The tokens are ReLU outputs, so zeros
        # stand in for the unlisted slots; the mix layer's pooled half is computed once per position.
        index = batch.unsqueeze(1).expand(-1, t.shape[1])
        pooled = t.new_zeros(b, t.shape[1]).scatter_reduce(0, index, t, reduce="amax")
        mix_in = self.mix[0]
        assert isinstance(mix_in, nn.Linear)
        hidden = t.shape[1]
        pooled_share = nn.functional.linear(pooled, mix_in.weight[:, hidden:], mix_in.bias)
        mixed = torch.relu(nn.functional.linear(t, mix_in.weight[:, :hidden]) + pooled_share[batch])
        scores = self.score(mixed).squeeze(-1)
        ids = torch.round(picked[:, L.ACTION] * self.num_actions).long() - 1
        logits = torch.full((b, self.num_actions), self.unlisted, device=obs.device, dtype=obs.dtype)
        logits = logits.index_put((batch, ids), scores)
        counts = listed.sum(dim=1, keepdim=True).clamp(min=1)
        mean = t.new_zeros(b, hidden).index_add(0, batch, mixed) / counts
        return torch.cat([logits, g, mean], dim=1)
