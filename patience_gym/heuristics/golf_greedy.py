"""The greedy Golf player's rule: play the longest run the visible cards allow.

This is how a good player plays Golf by eye. Before each move it looks at the
links and the waste card only (never the face-down stock) and:

1. finds the longest run of plays it can make from the current waste card
   without turning a stock card (a depth-first search over the exposed
   cards; positions are memoised by column heights and waste rank; the
   search is :mod:`patience_gym.heuristics.golf_runs`, which the ``runs`` encoding shows);
2. among runs of equal length, keeps the one that leaves the links most
   open for the next turned card: the most still-unseen cards (not on the
   links, not in the waste) whose rank is one away from some exposed card;
   then, the one that empties taller columns first (ties: lowest column);
3. turns a stock card only when no card can be played.

The greedy agent (``agents.baselines.greedy_golf``) and the Golf planner's rollouts play by it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from patience_gym.games.golf import DEAL, Golf, GolfState, hole_in_play
from patience_gym.heuristics.golf_runs import column_runs


def choose_move(game: Golf, state: GolfState, mask: np.ndarray) -> int:
    """The greedy move in ``state`` (legal under ``mask``)."""
    plays = [a for a in range(DEAL) if mask[a]]
    if not plays:
        return DEAL
    if len(plays) == 1:
        return plays[0]
    runs = column_runs(game.fits, state.columns, state.waste)
    # Longest run, then most open ending, then the taller column; ties: the lowest column.
    return max(plays, key=lambda a: (*runs[a], len(state.columns[a]), -a))


def greedy_move(game: Any, state: Any, mask: np.ndarray) -> int:
    """The greedy baseline's move in a Golf hole or round (the game table's ``greedy_move``)."""
    hole_game, hole = hole_in_play(game, state)
    return choose_move(hole_game, hole, mask)
