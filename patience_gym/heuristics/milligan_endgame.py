"""Endgame replays for the Miss Milligan family: each legal move followed by the greedy's game to the end.

Once the stock is out nothing is hidden: every card is face up in the
columns, on the foundations or in the reserve. A player can then try each
legal move in their head and play the rest of the game out by the greedy's
rules (:mod:`patience_gym.heuristics.milligan_greedy`), counting the cards that
reach the foundations. The research notes (``docs/pages/research.md``) measured what this
is worth (the pocket version, 100 deals: 59.17 to 76.91 cards).

Playing each of those games to the end costs seconds per game, so the
outcomes are remembered. What follows a position depends on its history
only through the progress rule (the idle moves made and the positions seen
since the last progress event) and the greedy's resignation mark, and
right after a progress event all three are fresh: the idle count is 0, the
positions seen are the current one only, and the mark is stale. So the
outcome of a position just after a progress event (with the stock out) is a
function of the position alone: its fingerprint and the foundation
high-water mark. Each replay stops at the first such position it has met
before and records its outcome at every such position on its way. The
moves before the first progress event are replayed each time (their history
matters). Outcomes are exact: the same as an unremembered replay.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from patience_gym.heuristics.milligan_greedy import GreedyRules

if TYPE_CHECKING:
    from patience_gym.games.milligan import MilliganGame, MilliganState

#: Remembered outcomes kept before the memo is emptied (a few thousand per game are typical).
OUTCOMES_KEPT = 500_000


class EndgameReplay:
    """Greedy outcomes of endgame positions, remembered at progress events (see module docstring)."""

    def __init__(self) -> None:
        self.outcomes: dict[int, int] = {}
        self._last: tuple[tuple[int, ...], dict[int, int]] = ((), {})

    @staticmethod
    def key(state: MilliganState) -> int:
        """The memo key of a position just after a progress event: fingerprint and high-water mark."""
        return state.hash | state.best << 64

    def outcome(self, game: MilliganGame, state: MilliganState) -> int:
        """Cards on the foundations when a fresh greedy plays ``state`` (stock out) to the end."""
        if state.stock_left:
            raise ValueError("endgame replays need the stock out: they would read the face-down cards")
        trial = state.copy()
        rules = GreedyRules()
        passed: list[int] = []
        value = -1
        while not game.is_over(trial):
            if trial.idle == 0:
                key = self.key(trial)
                known = self.outcomes.get(key)
                if known is not None:
                    value = known
                    break
                passed.append(key)
            game.apply(trial, rules.choose(game, trial, game.legal_mask(trial)))
        if value < 0:
            value = trial.total
        if len(self.outcomes) + len(passed) > OUTCOMES_KEPT:
            self.outcomes.clear()
        for key in passed:
            self.outcomes[key] = value
        return value

    def values(self, game: MilliganGame, state: MilliganState, actions: list[int]) -> dict[int, int]:
        """Each of ``actions`` (legal in ``state``, stock out) mapped to the outcome of the greedy's game after it.

        The last answer is kept, so the observation and a teacher reading the same position share it.
        """
        seen = 0
        for h in state.seen:
            seen ^= h
        asked = (state.hash, state.best, state.idle, seen, *actions)
        if asked == self._last[0]:
            return dict(self._last[1])
        values = {}
        for action in actions:
            child = state.copy()
            game.apply(child, action)
            values[action] = self.outcome(game, child)
        self._last = (asked, values)
        return dict(values)

    def move_values(self, game: MilliganGame, state: MilliganState) -> dict[int, int]:
        """Once the stock is out: each legal move mapped to the cards on the foundations at the end of the
        greedy's game after it. Empty while the stock lasts (nothing hidden is read) and once the game is over."""
        if state.stock_left or game.is_over(state):
            return {}
        return self.values(game, state, game.legal_actions(state))
