"""The policy for extractors that give the action logits themselves, and the layout arguments they read.

:class:`LogitsPolicy` reads an extractor's first ``num_actions`` outputs as the
logits; :func:`complete_extractor_kwargs` fills an extractor's layout arguments
from the observation encoding, so that configs never write observation offsets.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any

import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import MlpExtractor
from stable_baselines3.common.type_aliases import Schedule
from torch import nn


class FirstLogits(nn.Module):
    """The first ``n`` features, as action logits."""

    def __init__(self, n: int) -> None:
        super().__init__()
        self.n = n

    def forward(self, latent: torch.Tensor) -> torch.Tensor:
        return latent[:, : self.n]


class ValueFromFeatures(MlpExtractor):
    """SB3's ``MlpExtractor`` whose actor latent is all the features and whose critic reads those after the logits."""

    def __init__(
        self, features_dim: int, num_logits: int, vf_arch: list[int], activation_fn: type[nn.Module], device: Any
    ) -> None:
        super().__init__(features_dim - num_logits, {"pi": [], "vf": vf_arch}, activation_fn, device)
        self.num_logits = num_logits
        self.latent_dim_pi = features_dim

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        return features

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        return self.value_net(features[:, self.num_logits :])  # type: ignore[no-any-return]


class LogitsPolicy(MaskableActorCriticPolicy):
    """MaskablePPO policy whose features extractor gives the action logits itself (its first ``n`` outputs).

    ``critic_reads_logits=False`` gives the value MLP only the features after the
    logits (the extractor's value features). With the default ``True`` it reads
    them all, as the models trained before this option did; for
    :class:`MoveListScorer`, whose unlisted actions' logits sit at -10, that
    saturates the value MLP's tanh units, and the critic's output stops depending
    on the position (see ``docs/pages/research.md``). Then a separate critic
    extractor with a ``critic_only`` attribute has it set, so that it may skip the logits.
    """

    def __init__(self, *args: Any, critic_reads_logits: bool = True, **kwargs: Any) -> None:
        self.critic_reads_logits = critic_reads_logits
        kwargs.setdefault("net_arch", {"pi": [], "vf": [64]})
        super().__init__(*args, **kwargs)

    def _build_mlp_extractor(self) -> None:
        if self.critic_reads_logits:
            super()._build_mlp_extractor()
            return
        arch = self.net_arch
        if not isinstance(arch, dict) or arch.get("pi", []):
            raise ValueError(
                f"LogitsPolicy(critic_reads_logits=False) takes net_arch {{'pi': [], 'vf': [...]}}, got {arch!r}"
            )
        num_logits = int(self.action_space.n)  # type: ignore[attr-defined]
        self.mlp_extractor = ValueFromFeatures(
            self.features_dim, num_logits, list(arch.get("vf", [])), self.activation_fn, self.device
        )

    def _get_constructor_parameters(self) -> dict[str, Any]:
        return {**super()._get_constructor_parameters(), "critic_reads_logits": self.critic_reads_logits}

    def _build(self, lr_schedule: Schedule) -> None:
        super()._build(lr_schedule)
        self.action_net = FirstLogits(int(self.action_space.n))  # type: ignore[attr-defined]
        critic = self.vf_features_extractor
        if not self.share_features_extractor and not self.critic_reads_logits and hasattr(critic, "critic_only"):
            setattr(critic, "critic_only", True)  # noqa: B010 - its logits are never read: it may skip them
        self.optimizer = self.optimizer_class(  # type: ignore[call-arg]
            self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs
        )


def complete_extractor_kwargs(policy_kwargs: Mapping[str, Any], layout: Mapping[str, int]) -> dict[str, Any]:
    """``policy_kwargs`` with the feature extractor's layout arguments (``global_size``, ``move_features``,
    ``num_actions``) filled in from the observation's layout (``env.unwrapped.observer.layout``).

    Configs never write observation offsets: the network reads them from the encoding it is given.
    A value the config does give must agree with the layout.
    """
    resolved = dict(policy_kwargs)
    extractor = resolved.get("features_extractor_class")
    if not isinstance(extractor, type) or not layout:
        return resolved
    accepted = inspect.signature(extractor).parameters
    kwargs = dict(resolved.get("features_extractor_kwargs") or {})
    for key, value in layout.items():
        if key not in accepted:
            continue
        if key in kwargs and kwargs[key] != value:
            raise ValueError(
                f"features_extractor_kwargs.{key} is {kwargs[key]}, but the observation's layout has {value}; "
                "leave it out: it is read from the observation encoding"
            )
        kwargs[key] = value
    resolved["features_extractor_kwargs"] = kwargs
    return resolved
