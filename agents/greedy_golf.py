"""Greedy Golf baseline: play the longest run the visible cards allow.

This is how a good player plays Golf by eye. Before each move it looks at the
links and the waste card only (never the face-down stock) and:

1. finds the longest run of plays it can make from the current waste card
   without turning a stock card (a depth-first search over the exposed
   cards; positions are memoised by column heights and waste rank);
2. among runs of equal length, keeps the one that leaves the links most
   open for the next turned card: the most still-unseen cards (not on the
   links, not in the waste) whose rank is one away from some exposed card;
   then, the one that empties taller columns first (ties: lowest column);
3. turns a stock card only when no card can be played.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.base import Agent
from patience_gym.cards import RANK
from patience_gym.env import PatienceEnv
from patience_gym.games.golf import DEAL, Golf, GolfState, hole_in_play

# A search never visits more positions than this per move (runs are short in practice).
MAX_NODES = 50_000


class GolfGreedy(Agent):
    """Longest visible run first; ties keep the links open (see module docstring)."""

    name = "greedy"

    def act(self, env: PatienceEnv, obs: np.ndarray, mask: np.ndarray) -> int:
        game, hole = hole_in_play(env.game, env.state)
        return choose_move(game, hole, mask)


def choose_move(game: Golf, state: GolfState, mask: np.ndarray) -> int:
    """The greedy move in ``state`` (legal under ``mask``)."""
    plays = [a for a in range(DEAL) if mask[a]]
    if not plays:
        return DEAL
    if len(plays) == 1 and not _has_follow_up(game, state, plays[0]):
        return plays[0]
    planner = _RunPlanner(game, state)
    return planner.best_first_move()


def _has_follow_up(game: Golf, state: GolfState, action: int) -> bool:
    """Whether any play would follow ``action`` (lets single obvious plays skip the search)."""
    col = state.columns[action]
    fits = game._fits[RANK[col[-1]]]
    if len(col) > 1 and fits[RANK[col[-2]]]:
        return True
    return any(fits[RANK[c[-1]]] for i, c in enumerate(state.columns) if c and i != action)


class _RunPlanner:
    """Depth-first search for the longest run of plays from the visible position."""

    def __init__(self, game: Golf, state: GolfState) -> None:
        self.fits = game._fits
        self.columns = state.columns
        self.heights = [len(c) for c in state.columns]
        seen = {c for col in state.columns for c in col}
        seen.update(state.waste)
        unseen_by_rank = [0] * 14
        for card in range(52):
            if card not in seen:
                unseen_by_rank[RANK[card]] += 1
        self.unseen_by_rank = unseen_by_rank
        self.memo: dict[tuple[Any, ...], tuple[tuple[int, int], int]] = {}
        self.nodes = 0
        self.waste_rank = RANK[state.waste[-1]]

    def best_first_move(self) -> int:
        _, move = self._search(self.waste_rank)
        return move

    def _openness(self) -> int:
        """Unseen cards on which some exposed card could be played (next-turn chances)."""
        exposed = {RANK[col[h - 1]] for col, h in zip(self.columns, self.heights) if h}
        total = 0
        for r in range(1, 14):
            fits_on_r = self.fits[r]
            if any(fits_on_r[e] for e in exposed):
                total += self.unseen_by_rank[r]
        return total

    def _search(self, waste_rank: int) -> tuple[tuple[int, int], int]:
        """Best (run length, openness) reachable from here, and the first move to it."""
        key = (tuple(self.heights), waste_rank)
        cached = self.memo.get(key)
        if cached is not None:
            return cached
        self.nodes += 1
        fits = self.fits[waste_rank]
        best: tuple[int, int] = (0, self._openness())
        best_move = DEAL
        best_rank: tuple[int, int, int] = (*best, 0)
        if self.nodes <= MAX_NODES:
            for i, col in enumerate(self.columns):
                h = self.heights[i]
                if not h or not fits[RANK[col[h - 1]]]:
                    continue
                self.heights[i] = h - 1
                (length, openness), _ = self._search(RANK[col[h - 1]])
                self.heights[i] = h
                ranked = (length + 1, openness, h)
                if ranked > best_rank:
                    best_rank, best, best_move = ranked, (length + 1, openness), i
        self.memo[key] = (best, best_move)
        return best, best_move
