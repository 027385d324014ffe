"""Puss in the Corner as a picture.

The pack and the dealt card at the top left, the four foundations (started by
the Aces of clubs, diamonds, hearts and spades) at the top right, and the four
corner packets A-D below, each fanned from its bottom card to its top card.
"""

from __future__ import annotations

from typing import Any

from PIL import Image

from patience_gym.render.image import Table, fan_offset, join, last_move_text, outcome_text

SIZE = (640, 640)
CARD_W, CARD_H = 66, 92
_ROW_Y = 46
_PACK_X, _HAND_X = 24, 112
_FOUND_X, _FOUND_PITCH = 300, 80
_PACKET_Y = 196
_PACKET_X, _PACKET_PITCH = 62, 150
_BOTTOM = SIZE[1] - 34
_PREFERRED = 24
_TODO = ("deal or play a packet's top card", "place the dealt card", "take up the next packet")


def draw(game: Any, state: Any, last_action: int | None, previous: Any = None) -> Image.Image:
    """The position, with the last move framed."""
    from patience_gym.games.puss import CORNER_NAMES, REDEAL

    table = Table(SIZE, CARD_W, CARD_H)
    if state.phase == REDEAL:
        table.stock(_PACK_X, _ROW_Y, len(state.redeal), "taken up")
    else:
        table.stock(_PACK_X, _ROW_Y, state.pack_left, "pack")
    if state.hand >= 0:
        table.card(_HAND_X, _ROW_Y, state.hand)
    else:
        table.slot(_HAND_X, _ROW_Y)
    table.text(_HAND_X + CARD_W / 2, _ROW_Y + CARD_H + 4, "dealt", size=13, anchor="mt")
    for f, pile in enumerate(state.foundations):
        x = _FOUND_X + f * _FOUND_PITCH
        table.card(x, _ROW_Y, pile[-1])
        table.text(x + CARD_W / 2, _ROW_Y + CARD_H + 4, f"f{f + 1}  ({len(pile)})", size=13, anchor="mt")
    offsets = []
    for k, packet in enumerate(state.corners):
        x = _PACKET_X + k * _PACKET_PITCH
        table.text(x + CARD_W / 2, _PACKET_Y - 15, f"{CORNER_NAMES[k]}  ({len(packet)})", size=13, anchor="mm")
        offset = fan_offset(len(packet), _BOTTOM - _PACKET_Y, CARD_H, _PREFERRED)
        offsets.append(offset)
        if packet:
            table.column(x, _PACKET_Y, packet, offset)
        else:
            table.slot(x, _PACKET_Y, CORNER_NAMES[k])
    if last_action is not None:
        _mark(table, state, previous, last_action, offsets)
    todo = "" if game.is_over(state) else "to do: " + _TODO[state.phase]
    table.status(
        f"Puss in the Corner  ·  pass {state.pass_no}",
        f"score {state.score}/52",
        join([last_move_text(game, last_action), outcome_text(game, state)]),
        join([todo, "sevens privilege" if state.seven else ""]),
    )
    return table.image


def _mark(table: Table, state: Any, previous: Any, action: int, offsets: list[float]) -> None:
    """Frame where the last move went (bright) and where it came from (thin)."""
    from patience_gym.games.puss import CORNER_TO_FOUNDATION, MERGE, MERGES, TAKE, TO_CORNER, TO_FOUNDATION

    def packet(k: int, count: int | None, bright: bool) -> None:
        cards = state.corners[k]
        x, off = _PACKET_X + k * _PACKET_PITCH, offsets[k]
        if not cards or not bright:
            table.source(x, _PACKET_Y + max(0, len(cards)) * off if cards else _PACKET_Y)
            return
        first = 0 if count is None else max(0, len(cards) - count)
        table.highlight(x, _PACKET_Y + first * off, CARD_H + (len(cards) - 1 - first) * off)

    def foundation(f: int) -> None:
        table.highlight(_FOUND_X + f * _FOUND_PITCH, _ROW_Y)

    if action == 0:  # deal
        table.source(_PACK_X, _ROW_Y)
        table.highlight(_HAND_X, _ROW_Y)
    elif action < TO_FOUNDATION:
        table.source(_HAND_X, _ROW_Y)
        packet(action - TO_CORNER, 1, True)
    elif action < CORNER_TO_FOUNDATION:
        table.source(_HAND_X, _ROW_Y)
        foundation(action - TO_FOUNDATION)
    elif action < MERGE:
        k, f = divmod(action - CORNER_TO_FOUNDATION, 4)
        packet(k, None, False)
        foundation(f)
    elif action < TAKE:
        for upper, lower in MERGES[action - MERGE]:
            moved = len(previous.corners[upper]) if previous is not None else None
            packet(upper, None, False)
            packet(lower, moved, True)
    else:  # take up a packet (the last one left follows by itself)
        table.source(_PACKET_X + (action - TAKE) * _PACKET_PITCH, _PACKET_Y)
        table.highlight(_PACK_X, _ROW_Y)
