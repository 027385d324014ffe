"""Puss in the Corner's move-list encodings: ``moves``, ``moves_replay`` and ``moves_replay_all``.

``moves``: the planes; then per card its place in the pack being dealt (second
pass: the remembered order of the packets taken up; 0 for cards not in it,
else (48 - index) / 48 so the next card is nearest 1); the four foundations'
needed ranks / 14; then ``MOVE_FEATURES`` per action
(:mod:`patience_gym.heuristics.puss_moves`).

``moves_replay``: the ``moves`` layout with two more values per action, set on
the take-up actions only: the greedy's mental replay of the second pass
(:mod:`patience_gym.heuristics.puss_greedy`) for the best take-up order that
starts with this packet, as cards on the foundations / 52, and that minus the
best over all the packets that may be taken up next, / 8 (capped at -1).

``moves_replay_all``: the same, and on every legal second-pass action the same
two values for the greedy's replay of the rest of the game after that action
(remembered per pack by this observer's :class:`SecondPassReplay`).

``rules_moves``: the rules-only move rows of :mod:`patience_gym.features.rules.puss`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

import numpy as np

from patience_gym.core import Game, ObsSpec
from patience_gym.features.base import Observer, for_games
from patience_gym.features.rules.layout import ENCODING as RULES_MOVES
from patience_gym.features.rules.puss import RULES_MOVES as rules_moves_observer
from patience_gym.games.puss import (
    MERGES,
    NUM_ACTIONS,
    NUM_CORNERS,
    PLANES_SIZE,
    TAKE,
    PussInTheCorner,
    PussState,
    write_pack_order,
)
from patience_gym.heuristics.puss_greedy import SecondPassReplay, redeal_values
from patience_gym.heuristics.puss_moves import MOVE_FEATURES, move_features

MOVES_GLOBAL = PLANES_SIZE + 52 + 4
MOVES_SIZE = MOVES_GLOBAL + NUM_ACTIONS * MOVE_FEATURES
REPLAY_FEATURES = MOVE_FEATURES + 2
MOVES_REPLAY_SIZE = MOVES_GLOBAL + NUM_ACTIONS * REPLAY_FEATURES


class MovesObserver(Observer):
    """The ``moves`` encoding (and, with ``replay``/``second_pass``, the two replay encodings)."""

    encoding = "moves"
    replay = False
    second_pass = False

    def __init__(self, game: PussInTheCorner) -> None:
        super().__init__(game)
        self.puss = game
        self._spec = ObsSpec((MOVES_REPLAY_SIZE if self.replay else MOVES_SIZE,), -1.0, 1.0, np.float32)
        self._second_pass_memo = SecondPassReplay() if self.second_pass else None
        features = REPLAY_FEATURES if self.replay else MOVE_FEATURES
        self.layout = MappingProxyType({"global_size": MOVES_GLOBAL, "move_features": features})

    @property
    def spec(self) -> ObsSpec:
        return self._spec

    def observe(self, state: PussState) -> np.ndarray:
        out = np.empty(self._spec.shape[0], dtype=np.float32)
        out[:PLANES_SIZE] = self.puss.observe_planes(state)
        write_pack_order(state, out[PLANES_SIZE : PLANES_SIZE + 52])
        out[PLANES_SIZE + 52 : MOVES_GLOBAL] = np.asarray(state.need, dtype=np.float32) / 14
        bits = self.puss.legal_bits(state)
        features = move_features(state.corners, state.hand, state.need, state.pack_left, bits, MERGES)
        if not self.replay:
            out[MOVES_GLOBAL:] = features.ravel()
            return out
        rows = out[MOVES_GLOBAL:].reshape(NUM_ACTIONS, REPLAY_FEATURES)
        rows[:, :MOVE_FEATURES] = features
        rows[:, MOVE_FEATURES:] = 0.0
        takes = [k for k in range(NUM_CORNERS) if bits >> (TAKE + k) & 1]
        if takes:
            values = redeal_values(self.puss, state, takes)
            _write_replay(rows, {TAKE + k: v for k, v in values.items()})
        elif self._second_pass_memo is not None and state.pass_no == 2 and bits:
            actions = [a for a in range(NUM_ACTIONS) if bits >> a & 1]
            _write_replay(rows, self._second_pass_memo.values(self.puss, state, actions))
        return out


class ReplayObserver(MovesObserver):
    """``moves_replay``: the take-up actions carry the greedy's replay of the second pass."""

    encoding = "moves_replay"
    replay = True


class ReplayAllObserver(MovesObserver):
    """``moves_replay_all``: every legal second-pass action carries the greedy's replay after it, too."""

    encoding = "moves_replay_all"
    replay = True
    second_pass = True


def _write_replay(rows: np.ndarray, values: Mapping[int, int]) -> None:
    """Set each action's replay value and its shortfall from the best."""
    top = max(values.values())
    for action, value in values.items():
        rows[action, MOVE_FEATURES] = value / 52
        rows[action, MOVE_FEATURES + 1] = max(-1.0, (value - top) / 8)


def _puss(cls: type[MovesObserver]) -> Callable[[Game[Any]], Observer]:
    return for_games(PussInTheCorner, "Puss in the Corner features need that game", cls)


ENCODINGS: dict[str, Callable[[Game[Any]], Observer]] = {
    "moves": _puss(MovesObserver),
    "moves_replay": _puss(ReplayObserver),
    "moves_replay_all": _puss(ReplayAllObserver),
    RULES_MOVES: rules_moves_observer,
}
