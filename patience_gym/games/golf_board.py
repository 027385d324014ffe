"""Golf board text, as read and written by PySolFC and black-hole-solver.

::

    Talon: 8H 2C JH 7D 6D 8S 8D QS 6C 3D 8C TC 6S 9C 2H 6H
    Foundations: TH
    JD 5H KH AS 4H
    2D KD 3H AH AC
    ...

``Talon`` lists the face-down stock in turning order, ``Foundations`` the
waste card on top, and each further line one column, exposed card last.
Empty columns are empty lines (or ``-``). The text keeps only the waste's top
card: the cards it does not name are the ones played to the waste under it, so
any position in play reads back with the same observation, legal moves and
stock (the order of the waste under its top card is not kept).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from patience_gym.cards import CODE, parse_cards

NUM_COLUMNS = 7


def parse_board(text: str) -> dict[str, Any]:
    """A Golf ``state_dict`` from board text; ValueError naming the bad line."""
    talon: list[str] | None = None
    waste: list[str] | None = None
    columns: list[list[str]] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if line.startswith("#"):
            continue
        if line.lower().startswith("talon:"):
            talon = line.split(":", 1)[1].split()
        elif line.lower().startswith("foundations:"):
            waste = line.split(":", 1)[1].split()
            if len(waste) != 1:
                raise ValueError(f"board line {number}: Foundations must name exactly one card, got {line!r}")
        elif talon is not None or waste is not None or line:
            if ":" in line:
                raise ValueError(f"board line {number}: unexpected label in {line!r}")
            columns.append([] if line in ("", "-") else line.split())
    while columns and not columns[-1] and len(columns) > NUM_COLUMNS:
        columns.pop()
    if talon is None:
        raise ValueError("board text has no 'Talon:' line")
    if waste is None:
        raise ValueError("board text has no 'Foundations:' line")
    if len(columns) != NUM_COLUMNS:
        raise ValueError(f"board text must have {NUM_COLUMNS} column lines, got {len(columns)}")
    return {"tableau": columns, "waste": _played(columns, waste, talon) + waste, "stock": talon}


def _played(columns: list[list[str]], waste: list[str], talon: list[str]) -> list[str]:
    """The cards the board does not name, in card order: those played to the waste under its top card.

    Empty where the named cards do not parse or repeat one; the state's own check then names the problem.
    """
    try:
        named = parse_cards([card for col in columns for card in col] + waste + talon)
    except ValueError:
        return []
    if len(set(named)) != len(named):
        return []
    return [CODE[card] for card in sorted(set(range(len(CODE))) - set(named))]


def format_board(state: Mapping[str, Any]) -> str:
    """Board text of a Golf ``state_dict``, or of a GolfRound's hole in play (only the waste's top card is kept)."""
    state = state.get("hole_state", state)
    lines = ["Talon: " + " ".join(state["stock"]), "Foundations: " + state["waste"][-1]]
    lines += [" ".join(col) for col in state["tableau"]]
    return "\n".join(lines) + "\n"
