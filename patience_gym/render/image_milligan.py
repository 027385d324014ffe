"""Miss Milligan, Giant and the pocket version as a picture.

Eight foundations in a row (two per suit: clubs, diamonds, hearts, spades),
the eight columns below them, and on the right the stock with the waived
cards or the pocket beneath it. Long columns close up to fit the table.
"""

from __future__ import annotations

from typing import Any

from PIL import Image

from patience_gym.render.image import INK_DIM, Table, fan_offset, join, last_move_text, outcome_text

SIZE = (704, 720)
CARD_W, CARD_H = 62, 86
_LEFT, _PITCH = 24, 72
_FOUND_Y = 40
_COL_Y = 176
_SIDE_X = _LEFT + 8 * _PITCH + 14
_BOTTOM = SIZE[1] - 34
_PREFERRED = 24


def draw(game: Any, state: Any, last_action: int | None, previous: Any = None) -> Image.Image:
    """The position, with the last move framed."""
    from patience_gym.games.milligan import IDLE_LIMIT

    table = Table(SIZE, CARD_W, CARD_H)
    for s, height in enumerate(state.found):
        x = _LEFT + s * _PITCH
        if height:
            table.card(x, _FOUND_Y, (s >> 1) * 13 + height - 1)
        else:
            table.slot(x, _FOUND_Y, suit=s >> 1)
    table.stock(_SIDE_X, _FOUND_Y, state.stock_left, "stock")
    offsets = []
    for j, col in enumerate(state.columns):
        x = _LEFT + j * _PITCH
        table.text(x + CARD_W / 2, _COL_Y - 15, f"c{j + 1}", size=13, anchor="mm", fill=INK_DIM)
        offset = fan_offset(len(col), _BOTTOM - _COL_Y, CARD_H, _PREFERRED)
        offsets.append(offset)
        if col:
            table.column(x, _COL_Y, col, offset)
        else:
            table.slot(x, _COL_Y, "K" if not game.vacancy_any else "")
    reserve_offset = fan_offset(len(state.reserve), _BOTTOM - _COL_Y, CARD_H, _PREFERRED)
    if game.reserve_kind:
        name = "pocket" if game.reserve_kind == "pocket" else "waived"
        if state.reserve and state.origin >= 0:
            name += f" (c{state.origin + 1})"
        table.text(_SIDE_X + CARD_W / 2, _COL_Y - 15, name, size=13, anchor="mm", fill=INK_DIM)
        if state.reserve:
            table.column(_SIDE_X, _COL_Y, state.reserve, reserve_offset)
        else:
            table.slot(_SIDE_X, _COL_Y)
    if last_action is not None:
        _mark(table, game, state, previous, last_action, offsets, reserve_offset)
    table.status(
        game.title,
        f"score {state.total}/104",
        join([last_move_text(game, last_action), outcome_text(game, state)]),
        f"stock {state.stock_left}  ·  idle moves left {IDLE_LIMIT - state.idle}  ·  best {state.best}",
    )
    return table.image


def _mark(
    table: Table, game: Any, state: Any, previous: Any, action: int, offsets: list[float], reserve_offset: float
) -> None:
    """Frame where the last move went (bright) and where it came from (thin)."""
    from patience_gym.games.milligan_tables import (
        COLUMN_TO_COLUMN,
        COLUMN_TO_RESERVE,
        FOUNDATION_TO_COLUMN,
        RESERVE_TO_COLUMN,
        TO_FOUNDATION,
        decode_action,
    )

    kind, src, dst, k = decode_action(action)

    def column_run(j: int, count: int, bright: bool) -> None:
        col = state.columns[j]
        x, off = _LEFT + j * _PITCH, offsets[j]
        first = max(0, len(col) - count)
        (table.highlight if bright else table.source)(x, _COL_Y + first * off, CARD_H + (len(col) - 1 - first) * off)

    def reserve_run(count: int) -> None:
        first = max(0, len(state.reserve) - count)
        height = CARD_H + (len(state.reserve) - 1 - first) * reserve_offset
        table.highlight(_SIDE_X, _COL_Y + first * reserve_offset, height)

    def column_foot(j: int) -> None:
        table.source(_LEFT + j * _PITCH, _COL_Y + len(state.columns[j]) * offsets[j])

    if kind == COLUMN_TO_COLUMN:
        column_foot(src)
        column_run(dst, k, True)
    elif kind == RESERVE_TO_COLUMN:
        table.source(_SIDE_X, _COL_Y + len(state.reserve) * reserve_offset)
        column_run(dst, k, True)
    elif kind == COLUMN_TO_RESERVE:
        column_foot(src)
        reserve_run(k)
    elif kind == TO_FOUNDATION:
        if src >= 0:
            column_foot(src)
        else:
            table.source(_SIDE_X, _COL_Y + len(state.reserve) * reserve_offset)
        if previous is not None:
            for s, (now, before) in enumerate(zip(state.found, previous.found)):
                if now != before:
                    table.highlight(_LEFT + s * _PITCH, _FOUND_Y)
    elif kind == FOUNDATION_TO_COLUMN:
        table.source(_LEFT + src * _PITCH, _FOUND_Y)
        column_run(dst, 1, True)
    else:  # a deal: one card onto the foot of every column
        table.source(_SIDE_X, _FOUND_Y)
        for j in range(len(state.columns)):
            column_run(j, 1, True)
