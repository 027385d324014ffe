"""Pure rules modules, one per game, and a lazy lookup by name."""

from __future__ import annotations

import importlib
from typing import Any

from patience_gym.core import Game
from patience_gym.specs import SPECS

#: Game name -> "module:Class"; imported only when used (from the game table, :mod:`patience_gym.specs`).
GAMES: dict[str, str] = {spec.game: spec.rules for spec in SPECS}


def make_game(name: str, **options: Any) -> Game[Any]:
    """The rules object of game ``name`` with rule ``options``."""
    target = GAMES.get(name)
    if target is None:
        raise ValueError(f"unknown game {name!r}; known games: {', '.join(sorted(GAMES))}")
    module, cls = target.split(":")
    game: Game[Any] = getattr(importlib.import_module(module), cls)(**options)
    return game
