"""Pure rules modules, one per game, and a lazy lookup by name."""

from __future__ import annotations

import importlib
from typing import Any

from patience_gym.core import Game

#: Game name -> "module:Class"; imported only when used.
GAMES: dict[str, str] = {
    "golf": "patience_gym.games.golf:Golf",
    "golf_round": "patience_gym.games.golf:GolfRound",
    "puss_in_the_corner": "patience_gym.games.puss:PussInTheCorner",
    "miss_milligan": "patience_gym.games.milligan:MissMilligan",
    "giant": "patience_gym.games.milligan:Giant",
    "miss_milligan_pocket": "patience_gym.games.milligan:MissMilliganPocket",
}


def make_game(name: str, **options: Any) -> Game[Any]:
    """The rules object of game ``name`` with rule ``options``."""
    target = GAMES.get(name)
    if target is None:
        raise ValueError(f"unknown game {name!r}; known games: {', '.join(sorted(GAMES))}")
    module, cls = target.split(":")
    game: Game[Any] = getattr(importlib.import_module(module), cls)(**options)
    return game
