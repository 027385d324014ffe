"""Golf and Golf round as a picture: seven columns of five, the stock and the waste fanned beside it."""

from __future__ import annotations

from typing import Any

from PIL import Image

from patience_gym.render.image import INK_DIM, Table, join, last_move_text, outcome_text

SIZE = (640, 448)
CARD_W, CARD_H = 70, 98
_LEFT, _PITCH = 26, 84
_TOP, _ROW = 56, 26  # first link row and the overlap of the rows
_LOW = 286  # stock and waste row
_WASTE_X, _WASTE_STEP, _WASTE_SHOWN = 140, 36, 8
_PANEL_X = 480


def draw(game: Any, state: Any, last_action: int | None, previous: Any = None) -> Image.Image:
    """The hole in play; for a round, the round's progress too."""
    table = Table(SIZE, CARD_W, CARD_H)
    if game.name == "golf_round":
        _draw_round(table, game, state, last_action, previous)
    else:
        _draw_hole(table, game, state, last_action)
        score = int(game.score(state))
        table.status(
            "Golf",
            f"score {score}",
            last_move_text(game, last_action),
            join([outcome_text(game, state), f"{state.links_left} links left"]),
        )
    return table.image


def _draw_round(table: Table, game: Any, state: Any, last_action: int | None, previous: Any) -> None:
    hole = state.hole_state
    if previous is not None:
        ended_hole = previous.hole != state.hole
    else:
        fresh = len(hole.waste) == 1 and hole.links_left == 35
        ended_hole = last_action is not None and fresh and state.hole > 0 and not game.is_over(state)
    # The move that ended a hole leaves the next hole freshly dealt: nothing of it is on the table.
    _draw_hole(table, game.hole_game, hole, None if ended_hole else last_action)
    table.text(_PANEL_X, _LOW, "Round", size=15, bold=True)
    for i in range(9):
        row, col = divmod(i, 3)
        done = i < len(state.hole_scores)
        shown = str(state.hole_scores[i]) if done else "now" if i == state.hole else "·"
        table.text(_PANEL_X + col * 50, _LOW + 26 + row * 22, f"{i + 1}: {shown}", size=13, fill=INK_DIM)
    total = int(game.score(state))
    note = f"hole {state.hole} ended ({state.hole_scores[-1]})" if ended_hole else ""
    table.status(
        f"Golf round  ·  hole {state.hole + 1}/9",
        f"round {total} (bogey 40)",
        join([note, last_move_text(game, last_action)]),
        outcome_text(game, state),
    )


def _draw_hole(table: Table, game: Any, state: Any, last_action: int | None) -> None:
    for c, col in enumerate(state.columns):
        x = _LEFT + c * _PITCH
        table.text(x + CARD_W / 2, _TOP - 16, f"c{c + 1}", size=13, anchor="mm", fill=INK_DIM)
        if not col:
            table.slot(x, _TOP, "cleared")
        table.column(x, _TOP, col, _ROW)
    table.stock(_LEFT, _LOW, state.stock_left, "stock")
    shown = state.waste[-_WASTE_SHOWN:]
    for i, card in enumerate(shown):
        table.card(_WASTE_X + i * _WASTE_STEP, _LOW, card)
    top_x = _WASTE_X + (len(shown) - 1) * _WASTE_STEP
    table.text(_WASTE_X + CARD_W / 2, _LOW + CARD_H + 4, f"waste {len(state.waste)}", size=13, anchor="mt")
    if last_action is None:
        return
    table.highlight(top_x, _LOW)
    if last_action == len(state.columns):  # turned a stock card
        table.source(_LEFT, _LOW)
    else:
        x = _LEFT + last_action * _PITCH
        table.source(x, _TOP + len(state.columns[last_action]) * _ROW)
