"""The observer contract: one observation encoding of one game's states."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

import numpy as np

from patience_gym.core import Game, ObsSpec


class Observer(ABC):
    """Turns states of ``game`` into one fixed-shape observation; never reads hidden cards.

    An observer may remember what it computed (a replay memo, say): that memory
    belongs to it, not to the rules object, and never changes what it returns.
    """

    encoding: str
    #: Sizes a network needs to read the observation (e.g. ``global_size``, ``move_features``,
    #: ``num_actions`` of a move list); empty for flat encodings.
    layout: Mapping[str, int] = MappingProxyType({})

    def __init__(self, game: Game[Any]) -> None:
        self.game = game

    @property
    @abstractmethod
    def spec(self) -> ObsSpec:
        """Shape and bounds of the observation."""

    @abstractmethod
    def observe(self, state: Any) -> np.ndarray:
        """The observation of ``state``."""


class PlainObserver(Observer):
    """One of the rules module's own encodings (``game.obs_encodings``)."""

    def __init__(self, game: Game[Any], encoding: str) -> None:
        super().__init__(game)
        game.check_encoding(encoding)
        self.encoding = encoding
        self._spec = game.obs_spec(encoding)

    @property
    def spec(self) -> ObsSpec:
        return self._spec

    def observe(self, state: Any) -> np.ndarray:
        return self.game.observe(state, self.encoding)


def for_games(
    game_types: type | tuple[type, ...], need: str, make: Callable[[Any], Observer]
) -> Callable[[Game[Any]], Observer]:
    """``make`` as an encoding's factory: a game not of ``game_types`` is refused.

    The TypeError reads "``need``, got <the game's name>".
    """

    def factory(game: Game[Any]) -> Observer:
        if not isinstance(game, game_types):
            raise TypeError(f"{need}, got {game.name}")
        return make(game)

    return factory
