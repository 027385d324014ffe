"""Text rendering of Golf positions."""

from __future__ import annotations

from typing import TYPE_CHECKING

from patience_gym.cards import CODE

if TYPE_CHECKING:
    from patience_gym.games.golf import Golf, GolfRound, GolfRoundState, GolfState


def render_hole(game: Golf, state: GolfState) -> str:
    """The links as columns (exposed card lowest), the waste, the stock and the moves."""
    depth = max((len(c) for c in state.columns), default=0)
    lines = ["  ".join(f"c{i + 1}" for i in range(len(state.columns)))]
    for row in range(depth):
        cells = [CODE[col[row]] if row < len(col) else "  " for col in state.columns]
        lines.append("  ".join(cells).rstrip())
    moves = " ".join(game.describe_action(a) for a in game.legal_actions(state)) or "none"
    lines.append(f"waste: {CODE[state.waste[-1]]}   stock: {state.stock_left} cards   score: {int(game.score(state))}")
    lines.append(f"moves: {moves}")
    return "\n".join(lines) + "\n"


def render_round(game: GolfRound, state: GolfRoundState) -> str:
    """The hole in play, headed by the round's progress."""
    total = sum(state.hole_scores)
    head = f"hole {state.hole + 1}/9   finished holes: {state.hole_scores or '-'}   round so far: {total} (bogey 40)"
    return head + "\n" + render_hole(game.hole_game, state.hole_state)
