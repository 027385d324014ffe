"""The frame every game's ``rules_moves`` observer fills: the global part, the position values, the move rows."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence
from types import MappingProxyType
from typing import Any

import numpy as np

from patience_gym.core import Game, ObsSpec
from patience_gym.features.base import Observer
from patience_gym.features.rules import layout as L


class MoveRowsObserver(Observer):
    """``rules_moves``: ``global_size`` values (:meth:`write_global`), ``[overflow, legal / slots]``, then a
    row per legal move (:meth:`move_row`) in action order, ``slots`` rows; the moves past them are flagged."""

    encoding = L.ENCODING

    def __init__(self, game: Game[Any], global_size: int, slots: int) -> None:
        super().__init__(game)
        if isinstance(slots, bool) or not isinstance(slots, int) or slots < 1:
            raise ValueError(f"slots must be a positive integer, got {slots!r}")
        self.global_size = global_size
        self.slots = slots
        self._spec = ObsSpec((L.size(global_size, slots),), 0.0, float(L.HIDDEN_CARD), np.float32)
        self.layout = MappingProxyType(L.layout(global_size, slots, game.num_actions))

    @property
    def spec(self) -> ObsSpec:
        return self._spec

    @abstractmethod
    def write_global(self, state: Any, out: np.ndarray) -> None:
        """Write the position's global part (the planes, and what the game adds) into ``out``."""

    def position(self, state: Any) -> Any:
        """What :meth:`legal_actions` and :meth:`move_row` read, prepared once per observation (the state)."""
        return state

    @abstractmethod
    def legal_actions(self, position: Any) -> Sequence[int]:
        """The legal actions of the position in increasing order (none once the game is over)."""

    @abstractmethod
    def move_row(self, position: Any, action: int) -> Sequence[float]:
        """The :data:`~patience_gym.features.rules.layout.ROW` values of the legal ``action``."""

    def observe(self, state: Any) -> np.ndarray:
        out = np.zeros(self._spec.shape[0], dtype=np.float32)
        g = self.global_size
        self.write_global(state, out[:g])
        position = self.position(state)
        actions = self.legal_actions(position)
        out[g] = len(actions) > self.slots
        out[g + 1] = min(1.0, len(actions) / self.slots)
        rows = out[g + L.POSITION_VALUES :].reshape(self.slots, L.ROW)
        for r, action in enumerate(actions[: self.slots]):
            rows[r] = self.move_row(position, action)
        return out
