"""Exact Golf play for a player who does not see the stock order: expectimax over the next card.

The perfect-knowledge solver (:mod:`agents.solvers.golf`) knows the stock's order, so its score bounds any
fair player's from below. This module computes what the best fair player expects: the player knows which
ranks are left in the stock (the deck less the cards in view) but not their order, so each deal is a chance
node whose outcome is any rank left, with probability its count over the cards left, and each turn between
deals is a choice of plays. The value of an action is the expected final score of taking it and playing on
optimally (lower is better; a cleared hole scores minus the stock left), computed from the visible position
and :meth:`~patience_gym.core.Game.unseen_cards` alone, so it never reads the hidden order.

The search memoises chance positions (column heights and the stock's rank counts: the dealt card replaces
the waste card, so the waste does not matter there) and searches the plays between two deals without a
memo. Its cost grows fast with the stock: a few seconds from about 11 stock cards, minutes or more for a
whole hole (research notes, section 29), hence the budget in chance positions.
"""

from __future__ import annotations

from agents.solvers.golf import _fits_bytes
from patience_gym.cards import RANK
from patience_gym.games.golf import DEAL, NUM_COLUMNS, Golf, GolfState

try:  # the same search in C, built by `pip install -e .` when a compiler is present
    from agents.solvers import _golf_expectimax as _fast  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - depends on the build
    _fast = None

HAVE_FAST = _fast is not None


def _position(game: Golf, state: GolfState) -> tuple[list[list[int]], list[int], int]:
    """Column ranks, the stock's count of each rank (index 0 unused) and the waste rank: what the player knows."""
    columns = [[RANK[c] for c in col] for col in state.columns]
    counts = [0] * 14
    for card in game.unseen_cards(state):
        counts[RANK[card]] += 1
    return columns, counts, RANK[state.waste[-1]]


def action_values(
    game: Golf, state: GolfState, max_positions: int | None = None, fast: bool = True
) -> list[float | None] | None:
    """The expected final score of each action (index = env action; None where illegal) under the best play
    that does not see the stock order; None when more than ``max_positions`` chance positions are needed.

    Uses the C core when built (``fast=True``), else :func:`action_values_python` (the same values, slowly).
    """
    if max_positions is not None and max_positions < 0:
        raise ValueError(f"max_positions must be at least 0, not {max_positions}")
    if game.is_over(state):
        raise ValueError("the hole is over: no action has a value")
    if fast and _fast is not None:
        columns, counts, waste = _position(game, state)
        budget = max_positions if max_positions is not None else 2**62
        values, _ = _fast.values(_fits_bytes(game.fits), columns, counts, waste, budget)
        return values  # type: ignore[no-any-return]
    return action_values_python(game, state, max_positions)


def action_values_python(game: Golf, state: GolfState, max_positions: int | None = None) -> list[float | None] | None:
    """The reference expectimax in pure Python (what the C core computes, in the same order)."""
    columns, start_counts, waste = _position(game, state)
    fits = game.fits
    budget = max_positions if max_positions is not None else 10**18

    class OverBudget(Exception):
        pass

    memo: dict[tuple[tuple[int, ...], tuple[int, ...]], float] = {}

    def turn(heights: tuple[int, ...], top: int, counts: tuple[int, ...], left: int) -> float:
        in_stock = sum(counts)
        if left == 0:
            return -in_stock
        best = chance(heights, counts, left) if in_stock else 1e9
        moved = False
        for i in range(NUM_COLUMNS):
            if best <= -in_stock:
                break
            h = heights[i]
            if h and fits[top][columns[i][h - 1]]:
                moved = True
                after = heights[:i] + (h - 1,) + heights[i + 1 :]
                best = min(best, turn(after, columns[i][h - 1], counts, left - 1))
        if not in_stock and not moved:
            best = left
        return best

    def chance(heights: tuple[int, ...], counts: tuple[int, ...], left: int) -> float:
        key = (heights, counts)
        if key in memo:
            return memo[key]
        if len(memo) >= budget:
            raise OverBudget
        in_stock = sum(counts)
        mean = 0.0
        for r in range(1, 14):
            if counts[r]:
                dealt = counts[:r] + (counts[r] - 1,) + counts[r + 1 :]
                mean += counts[r] / in_stock * turn(heights, r, dealt, left)
        memo[key] = mean
        return mean

    heights = tuple(len(c) for c in columns)
    counts = tuple(start_counts)
    left = sum(heights)
    values: list[float | None] = [None] * (NUM_COLUMNS + 1)
    try:
        for i in range(NUM_COLUMNS):
            h = heights[i]
            if h and fits[waste][columns[i][h - 1]]:
                after = heights[:i] + (h - 1,) + heights[i + 1 :]
                values[i] = turn(after, columns[i][h - 1], counts, left - 1)
        if sum(counts) and left:
            values[DEAL] = chance(heights, counts, left)
    except OverBudget:
        return None
    return values
