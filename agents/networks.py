"""Feature extractors for card-game observations (Stable-Baselines3 ``features_extractor_class``).

``CardEmbedding`` reads an ``ids`` observation whose first ``card_slots``
entries are card ids (0 = empty, 1..52 = card + 1) and the rest plain
numbers. Every card slot is embedded with one card table shared by all slots
(rank and suit embeddings summed, so the net sees that a 7 is a 7 wherever it
lies) plus a learned slot embedding; a small self-attention layer lets each
slot look at the others, and the flattened result, with the scaled numbers,
is the feature vector. Use it in a config as::

    policy_kwargs:
      features_extractor_class: agents.networks.CardEmbedding
      features_extractor_kwargs: {card_slots: 36, embed_dim: 32}
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
