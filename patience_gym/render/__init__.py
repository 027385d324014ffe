"""Renderers: positions as text (and as pictures), found by game name.

Renderers read the rules (:mod:`patience_gym.games`); the rules never import them.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from patience_gym.core import Game
from patience_gym.specs import SPECS

#: Game name -> "module:function" drawing a state of that game as text (from :mod:`patience_gym.specs`).
TEXT_RENDERERS: dict[str, str] = {spec.game: spec.text_renderer for spec in SPECS}


def render_text(game: Game[Any], state: Any) -> str:
    """The layout of ``state`` as text a person can read and play from."""
    target = TEXT_RENDERERS.get(game.name)
    if target is None:
        raise ValueError(f"no text renderer for game {game.name!r}")
    module, name = target.split(":")
    render: Callable[[Game[Any], Any], str] = getattr(importlib.import_module(module), name)
    return render(game, state)
