"""Shared test helpers."""

from __future__ import annotations

import numpy as np

import patience_gym  # noqa: F401 - registers the envs


def masked_random_action(rng: np.random.Generator, mask: np.ndarray) -> int:
    legal = np.flatnonzero(mask)
    assert len(legal) > 0, "mask is all-False while the game is live"
    return int(legal[rng.integers(len(legal))])
