"""What a good player computes from a visible position: the greedy agents' knowledge.

Golf's playable runs and greedy move, Miss Milligan's move values, lookahead and greedy replays,
Puss in the Corner's move values, redeal and second-pass replays. These modules
read the rules (:mod:`patience_gym.games`) and never change them; the feature
encodings (:mod:`patience_gym.features`) and the agents build on them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from patience_gym.specs import by_game, load


def greedy_move(game: Any, state: Any, mask: np.ndarray) -> int:
    """The greedy baseline's move in ``state`` (legal under ``mask``), read from the visible position only:
    the game table's ``greedy_move`` of ``game``; ValueError where the game has none."""
    target = by_game(game.name).greedy_move
    if target is None:
        raise ValueError(f"no greedy heuristic for game {game.name!r}")
    return int(load(target)(game, state, mask))
