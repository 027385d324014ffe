"""Feature extractors for the plain ``ids`` encodings: card and slot embeddings, and Golf's column tokens.

``CardEmbedding`` reads an ``ids`` observation whose first ``card_slots``
entries are card ids (0 = empty, 1..52 = card + 1) and the rest plain
numbers. Every card slot is embedded with one card table shared by all slots
(rank and suit embeddings summed, so the net sees that a 7 is a 7 wherever it
lies) plus a learned slot embedding; a small self-attention layer lets each
slot look at the others, and the flattened result, with the scaled numbers,
is the feature vector. ``GolfColumns`` reads Golf-v0's ``ids`` observation and
gives the action logits itself (pair it with ``LogitsPolicy``).
"""

from __future__ import annotations

import gymnasium as gym
import torch
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn


class CardEmbedding(BaseFeaturesExtractor):
    """Shared card embeddings + slot embeddings + one attention layer over the slots."""

    def __init__(
        self,
        observation_space: gym.spaces.Box,
        card_slots: int,
        embed_dim: int = 32,
        attention: bool = True,
        heads: int = 4,
    ) -> None:
        n = int(observation_space.shape[0])
        if not 0 < card_slots <= n:
            raise ValueError(f"card_slots must be in 1..{n}, got {card_slots}")
        extra = n - card_slots
        super().__init__(observation_space, features_dim=card_slots * embed_dim + extra)
        self.card_slots = card_slots
        high = torch.as_tensor(observation_space.high[card_slots:], dtype=torch.float32)
        self.register_buffer("extra_scale", 1.0 / torch.clamp(high, min=1.0))
        self.rank = nn.Embedding(14, embed_dim)  # 0 = empty slot
        self.suit = nn.Embedding(5, embed_dim)
        self.slot = nn.Parameter(torch.zeros(card_slots, embed_dim))
        nn.init.normal_(self.slot, std=0.02)
        self.attention = (
            nn.TransformerEncoderLayer(embed_dim, heads, dim_feedforward=2 * embed_dim, dropout=0.0, batch_first=True)
            if attention
            else None
        )

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        ids = obs[:, : self.card_slots].long()
        card = (ids - 1).clamp(min=0)
        present = ids > 0
        rank = torch.where(present, card % 13 + 1, torch.zeros_like(card))
        suit = torch.where(present, card // 13 + 1, torch.zeros_like(card))
        x = self.rank(rank) + self.suit(suit) + self.slot
        if self.attention is not None:
            x = self.attention(x)
        scale: torch.Tensor = self.extra_scale  # type: ignore[assignment]
        extra = obs[:, self.card_slots :] * scale
        return torch.cat([x.flatten(1), extra], dim=1)


class GolfColumns(BaseFeaturesExtractor):
    """Golf policy features from the ``ids`` encoding: one token per column, scored by shared weights.

    Column ``c`` becomes a token from its ranks read from the exposed card
    upward (the order they can be played in), each rank embedded by one
    table and position; a global token holds the waste rank and the stock
    count. A small transformer lets every column see the others and the
    waste, so "play this card, then that one" can be judged. The same
    weights score every column (moving a column to another place moves its
    logit with it), a global head scores ``deal``, and the global token's
    state is the value features. Output: the 8 action logits followed by
    ``embed_dim`` value features; pair it with :class:`LogitsPolicy`, which
    reads the first 8 as the logits.
    """

    def __init__(self, observation_space: gym.spaces.Box, embed_dim: int = 64, layers: int = 2, heads: int = 4):
        if tuple(observation_space.shape) != (37,):
            raise ValueError(f"GolfColumns reads Golf-v0's 'ids' observation (37,), got {observation_space.shape}")
        super().__init__(observation_space, features_dim=8 + embed_dim)
        self.rank = nn.Embedding(14, embed_dim)  # 0 = no card
        self.depth = nn.Parameter(torch.zeros(5, embed_dim))  # 0 = exposed
        self.waste = nn.Embedding(14, embed_dim)
        self.stock = nn.Linear(1, embed_dim)
        self.kind = nn.Parameter(torch.zeros(2, embed_dim))  # column token, global token
        nn.init.normal_(self.depth, std=0.02)
        nn.init.normal_(self.kind, std=0.02)
        layer = nn.TransformerEncoderLayer(
            embed_dim, heads, dim_feedforward=2 * embed_dim, dropout=0.0, batch_first=True
        )
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.play = nn.Sequential(nn.Linear(embed_dim, embed_dim), nn.ReLU(), nn.Linear(embed_dim, 1))
        self.deal = nn.Sequential(nn.Linear(embed_dim, embed_dim), nn.ReLU(), nn.Linear(embed_dim, 1))

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        ids = obs[:, :35].long().view(-1, 5, 7).transpose(1, 2)  # (batch, column, row), row 0 deepest
        rank = torch.where(ids > 0, (ids - 1) % 13 + 1, torch.zeros_like(ids))
        height = (ids > 0).sum(dim=2, keepdim=True)
        # Read each column from its exposed card upward: position p holds row height-1-p.
        position = torch.arange(5, device=obs.device)
        upward = rank.gather(2, (height - 1 - position).clamp(min=0))
        upward = torch.where(position < height, upward, torch.zeros_like(upward))
        columns = (self.rank(upward) + self.depth).sum(dim=2) + self.kind[0]
        waste = (obs[:, 35].long() - 1) % 13 + 1
        glob = self.waste(waste) + self.stock(obs[:, 36:37] / 16.0) + self.kind[1]
        x = self.encoder(torch.cat([columns, glob.unsqueeze(1)], dim=1))
        logits = torch.cat([self.play(x[:, :7]).squeeze(-1), self.deal(x[:, 7])], dim=1)
        return torch.cat([logits, x[:, 7]], dim=1)
