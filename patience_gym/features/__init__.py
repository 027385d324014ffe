"""Observation encodings beyond the rules' plain ones, and the registry the env reads.

A game's rules module gives the plain encodings (``ids``, ``planes``). Richer
encodings (Golf's ``ranks`` and ``runs``, the move lists ``moves*``) are built
here, one module per game, from the visible position and the heuristics in
:mod:`patience_gym.heuristics`. The rules never import this package: the env
asks :func:`make_observer` for an :class:`Observer` of the encoding it was given.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

from patience_gym.core import Game
from patience_gym.features.base import Observer, PlainObserver
from patience_gym.specs import SPECS

__all__ = ["FEATURE_MODULES", "Observer", "PlainObserver", "encodings", "make_observer", "observe"]

#: Game name -> module whose ``ENCODINGS`` maps encoding names to observer factories (from :mod:`patience_gym.specs`).
FEATURE_MODULES: dict[str, str] = {spec.game: spec.features for spec in SPECS if spec.features}


def _feature_factories(game: Game[Any]) -> Mapping[str, Callable[[Game[Any]], Observer]]:
    module = FEATURE_MODULES.get(game.name)
    if module is None:
        return {}
    factories: Mapping[str, Callable[[Game[Any]], Observer]] = importlib.import_module(module).ENCODINGS
    return factories


def encodings(game: Game[Any]) -> tuple[str, ...]:
    """Every observation encoding of ``game``: its plain ones (the first is the default), then the features."""
    return tuple(game.obs_encodings) + tuple(e for e in _feature_factories(game) if e not in game.obs_encodings)


def make_observer(game: Game[Any], encoding: str) -> Observer:
    """The observer of ``encoding`` for ``game``; ValueError naming the known encodings otherwise."""
    if not isinstance(encoding, str):
        raise TypeError(f"obs_encoding must be a string, got {type(encoding).__name__}")
    if encoding in game.obs_encodings:
        return PlainObserver(game, encoding)
    factory = _feature_factories(game).get(encoding)
    if factory is None:
        raise ValueError(f"unknown obs_encoding {encoding!r} for {game.name}; choose one of {list(encodings(game))}")
    return factory(game)


def observe(game: Game[Any], state: Any, encoding: str) -> Any:
    """``state`` in ``encoding``, by a fresh observer (for one-off looks: an env keeps its observer)."""
    return make_observer(game, encoding).observe(state)
