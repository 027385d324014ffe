"""Text rendering of Puss in the Corner positions."""

from __future__ import annotations

from typing import TYPE_CHECKING

from patience_gym.cards import CODE

if TYPE_CHECKING:
    from patience_gym.games.puss import PussInTheCorner, PussState

_PHASES = ("deal or play a packet's top card", "place the dealt card", "take up the next packet")


def render(game: PussInTheCorner, state: PussState) -> str:
    """Foundations (Ace first), packets A-D (bottom first, top last), the dealt card and the moves."""
    from patience_gym.games.puss import CORNER_NAMES, FOUNDATION_RED, REDEAL

    lines = []
    for f, pile in enumerate(state.foundations):
        colour = "red" if FOUNDATION_RED[f] else "black"
        lines.append(f"f{f + 1} ({colour}): " + " ".join(CODE[c] for c in pile))
    for k, packet in enumerate(state.corners):
        lines.append(f"{CORNER_NAMES[k]}: " + (" ".join(CODE[c] for c in packet) or "-"))
    pack = f"taken up: {len(state.redeal)} cards" if state.phase == REDEAL else f"pack: {state.pack_left} cards"
    dealt = CODE[state.hand] if state.hand >= 0 else "-"
    seven = "   sevens privilege: yes" if state.seven else ""
    lines.append(f"pass {state.pass_no}   {pack}   dealt: {dealt}   score: {state.score}/52{seven}")
    lines.append(f"to do: {_PHASES[state.phase]}")
    moves = (
        ", ".join(repr(game.describe_action(a)) for a in game.legal_actions(state)) if not game.is_over(state) else ""
    )
    lines.append(f"moves: {moves or 'none'}")
    return "\n".join(lines) + "\n"
