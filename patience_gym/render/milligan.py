"""Text rendering of Miss Milligan, Giant and pocket-version positions.

Columns are drawn as rows of text (deepest card first, exposed card last),
since a column may grow long; the built sequence at each foot is set off
with ``|``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from patience_gym.cards import CODE, RANK_CHARS

if TYPE_CHECKING:
    from patience_gym.games.milligan import MilliganGame, MilliganState


def render(game: MilliganGame, state: MilliganState) -> str:
    """The foundations, the reserve, the columns, the stock, the progress budget and the moves."""
    from patience_gym.games.milligan import IDLE_LIMIT

    tops = []
    for s, height in enumerate(state.found):
        suit = "CDHS"[s >> 1]
        tops.append(f"f{s + 1}:{RANK_CHARS[height - 1] + suit if height else '--'}")
    lines = [f"{game.title}   foundations: {' '.join(tops)}   ({state.total}/104)"]
    if game.reserve_kind:
        held = " ".join(CODE[c] for c in state.reserve) or "--"
        if game.reserve_kind == "pocket":
            lines.append(f"pocket: {held}")
        else:
            origin = f" (from c{state.origin + 1})" if state.reserve else ""
            lines.append(f"waived: {held}{origin}")
    for j, col in enumerate(state.columns):
        run = state.runs[j]
        head = " ".join(CODE[c] for c in col[: len(col) - run])
        foot = " ".join(CODE[c] for c in col[len(col) - run :])
        body = f"{head} | {foot}" if head else foot
        lines.append(f"c{j + 1}: {body or '(vacancy)'}")
    lines.append(
        f"stock: {state.stock_left} cards   idle moves left: {IDLE_LIMIT - state.idle}   "
        f"best: {state.best}   score: {state.total}"
    )
    if game.is_won(state):
        lines.append("won")
    else:
        moves = " ".join(game.describe_action(a) for a in game.legal_actions(state))
        lines.append(f"moves: {moves or 'none (game over)'}")
    return "\n".join(lines) + "\n"
