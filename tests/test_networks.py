"""Card-embedding feature extractor and the config's policy_kwargs resolution."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
import torch

from agents.config import ConfigError, resolve_policy_kwargs
from agents.networks import CardEmbedding


def test_card_embedding_shapes_and_rank_sharing():
    env = gym.make("patience_gym/Golf-v0")
    extractor = CardEmbedding(env.observation_space, card_slots=36, embed_dim=8, attention=False)
    obs, _ = env.reset(seed=0)
    batch = torch.as_tensor(np.stack([obs, obs]), dtype=torch.float32)
    features = extractor(batch)
    assert features.shape == (2, 36 * 8 + 1) == (2, extractor.features_dim)
    # Same card in the same slot => same features; the stock count is scaled into [0, 1].
    assert torch.equal(features[0], features[1])
    assert 0 <= features[0, -1] <= 1


def test_card_embedding_trains_with_maskable_ppo():
    from sb3_contrib import MaskablePPO

    env = gym.make("patience_gym/Golf-v0")
    kwargs = resolve_policy_kwargs(
        {"features_extractor_class": "agents.networks.CardEmbedding", "features_extractor_kwargs": {"card_slots": 36}}
    )
    model = MaskablePPO("MlpPolicy", env, policy_kwargs=kwargs, n_steps=64, batch_size=32, n_epochs=1)
    model.learn(64)
    obs, _ = env.reset(seed=1)
    action, _ = model.predict(obs, action_masks=env.unwrapped.action_masks())
    assert env.unwrapped.action_masks()[int(action)]


def test_bad_policy_kwargs_are_named():
    with pytest.raises(ConfigError, match="cannot import 'agents.networks.Nope'"):
        resolve_policy_kwargs({"features_extractor_class": "agents.networks.Nope"})
    with pytest.raises(ConfigError, match="torch.nn has no 'Relu'"):
        resolve_policy_kwargs({"activation_fn": "Relu"})
    assert resolve_policy_kwargs({"activation_fn": "ReLU"})["activation_fn"] is torch.nn.ReLU
    with pytest.raises(ValueError, match="card_slots must be in 1..37"):
        CardEmbedding(gym.make("patience_gym/Golf-v0").observation_space, card_slots=40)
