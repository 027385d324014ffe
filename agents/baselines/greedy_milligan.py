"""Greedy baselines for Miss Milligan, Giant and the pocket version.

The rules it plays by are in :mod:`patience_gym.heuristics.milligan_greedy`
(shared with the ``moves_endgame`` encoding's replays); this module wraps them
as an agent. It reads only the visible position, never the stock order.

Option ``endgame=1`` (spec ``greedy:endgame=1``; not the baseline): the same
greedy while the stock lasts; once it is out (nothing is hidden then), at
every move with a choice it plays the legal move whose full greedy game to
the end puts the most cards on the foundations (ties: its own move). The
values are the ``moves_endgame`` encoding's
(:meth:`patience_gym.heuristics.milligan_endgame.EndgameReplay.move_values`), so a
policy trained on that encoding can learn this agent's moves from what it
sees. It is the teacher of ``configs/miss_milligan_pocket_moves_endgame.yaml``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from agents.base import Agent
from patience_gym.env import PatienceEnv
from patience_gym.games.milligan import MilliganGame, MilliganState
from patience_gym.heuristics.milligan_endgame import EndgameReplay
from patience_gym.heuristics.milligan_greedy import GreedyRules
from patience_gym.heuristics.milligan_moves import evaluation

#: Score of the visible position (higher is better); see :mod:`patience_gym.heuristics.milligan_greedy`.
evaluate = evaluation


def greedy_line(
    game: MilliganGame,
    state: MilliganState,
    noise: float = 0.0,
    rng: np.random.Generator | None = None,
    before_move: Callable[[], None] | None = None,
) -> tuple[list[int], MilliganState]:
    """The greedy baseline's game from ``state`` to the end (played on a copy): its moves and the final position.

    With ``noise`` and ``rng``, each move is instead a uniformly random legal move with chance ``noise``.
    ``before_move`` is called before every move (the solver counts its budget there).
    """
    after = state.copy()
    rules = GreedyRules()
    line: list[int] = []
    while not game.is_over(after):
        if before_move is not None:
            before_move()
        action = rules.choose(game, after, game.legal_mask(after))
        if noise and rng is not None and rng.random() < noise:
            legal = game.legal_actions(after)
            action = legal[int(rng.integers(len(legal)))]
        game.apply(after, action)
        line.append(action)
    return line, after


class MilliganGreedy(Agent):
    """Foundation first, then strictly improving moves, short search, deal, resign (see module docstring)."""

    reads_observation = False

    name = "greedy"

    def __init__(self, endgame: int = 0) -> None:
        self.rules = GreedyRules()
        self.endgame = bool(endgame)
        self.endgame_replay = EndgameReplay()
        if self.endgame:
            self.name = "greedy, ending by rollouts"

    def reset(self, seed: int | None = None) -> None:
        self.rules.reset()

    def resigned(self, state: MilliganState) -> bool:
        """Whether the greedy has resigned (rule 5) until the next progress event."""
        return self.rules.resigned(state)

    def act(self, env: PatienceEnv, obs: np.ndarray, mask: np.ndarray) -> int:
        game = env.game
        assert isinstance(game, MilliganGame), "MilliganGreedy plays the Miss Milligan family only"
        return self.choose(game, env.state, mask)

    def choose(self, game: MilliganGame, state: MilliganState, mask: np.ndarray) -> int:
        own = self.rules.choose(game, state, mask)
        if not self.endgame or state.stock_left > 0:
            return own
        values = self.endgame_replay.move_values(game, state)
        if len(values) < 2:
            return own
        top = max(values.values())
        return own if values.get(own) == top else min(a for a, v in values.items() if v == top)
