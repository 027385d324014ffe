"""Exact play where nothing is hidden: search by the rules, not a heuristic.

Once no card is face down (Puss in the Corner once the first pass's pack is dealt out: the take-up and the
second pass are open; a Golf hole once its stock is turned; a Miss Milligan family game once its stock is
dealt out), the rest of the game is a puzzle with nothing hidden, and the project's perfect-knowledge
solvers play it exactly. Their move ordering reads the greedy's evaluation, which changes how fast a proven
line is found, never its value; a line the solver does not prove best within its budget is not used (None),
so no heuristic's guess stands in for it. The family's solver proves wins only (a won game is the best
score), and it runs without its greedy dives: only its exact depth-first search plays.

Before that, a Golf hole with few stock cards left has an exact move too, for a player who does not see
the stock order: the expectimax over the orders still possible (:func:`chance_values`, the same search the
planner makes from 11 cards left). It reads no hidden card, only how many of each rank are unseen.
"""

from __future__ import annotations

from typing import Any

from agents.search.network import value_of

#: Positions a solver may search for one exact value.
MAX_NODES = 50_000
#: The Miss Milligan family's games, by name.
MILLIGAN_FAMILY = ("miss_milligan", "giant", "miss_milligan_pocket")


def exact_line(game: Any, state: Any, max_nodes: int = MAX_NODES) -> tuple[float, list[int]] | None:
    """The value (:func:`agents.search.network.value_of`) of best play from ``state`` and a line of moves that
    reaches it, where nothing is hidden and a solver proves it within ``max_nodes`` (the final score's value and
    no moves where the game is over); else None."""
    if game.is_over(state):
        return value_of(game.name, game.score(state)), []
    if game.hidden_count(state):
        return None
    if game.name == "puss_in_the_corner":
        from agents.solvers.puss import solve as solve_puss

        found = solve_puss(game, state, max_nodes=max_nodes)
        return (value_of(game.name, found.cards), list(found.moves)) if found.proven else None
    if game.name == "golf":
        from agents.solvers.golf import solve as solve_golf

        hole = solve_golf(game, state, max_nodes=max_nodes)
        return (value_of(game.name, hole.score), list(hole.moves)) if hole.exact else None
    if game.name in MILLIGAN_FAMILY:
        from agents.solvers.milligan import solve as solve_milligan

        solution = solve_milligan(game, state, max_nodes=max_nodes, dives=0)
        if solution.verdict != "won":
            return None
        end = state.copy()
        for action in solution.moves:
            game.apply(end, action)
        return value_of(game.name, game.score(end)), list(solution.moves)
    return None


def exact_value(game: Any, state: Any, max_nodes: int = MAX_NODES) -> float | None:
    """:func:`exact_line`'s value alone."""
    found = exact_line(game, state, max_nodes)
    return None if found is None else found[0]


def chance_values(game: Any, state: Any, stock_at_most: int, max_positions: int) -> list[float] | None:
    """Each legal action's exact expected value (:func:`agents.search.network.value_of` of the expected final
    score; ``-inf`` on illegal ones) for a player who does not see the stock order, in a Golf hole with at
    most ``stock_at_most`` stock cards left, where it takes at most ``max_positions`` chance positions; else
    None (another game, more stock left, or over budget)."""
    if game.name != "golf" or game.is_over(state) or state.stock_left > stock_at_most:
        return None
    from agents.solvers.golf_expectimax import action_values

    found = action_values(game, state, max_positions)
    if found is None:
        return None
    return [float("-inf") if v is None else value_of(game.name, v) for v in found]
