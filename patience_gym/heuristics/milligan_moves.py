"""What a Miss Milligan player weighs before each move: position terms and per-move features.

Used by the ``moves`` observation encoding of the Miss Milligan family and by
the greedy baseline (:func:`position_terms`). Everything is read from the
face-up cards: each move is tried on a copy of the position, and ``deal``
is never tried (it would turn up stock cards), so no hidden card is read.

**Position terms** (:func:`position_terms`): the *cover*, the number of cards
lying on the next needed cards (for each foundation pile, the card that
would go on it next; where both copies of a card are needed, the shallower
ones count); the *breaks*, cards lying on a card they are not built on; the
*vacancies*, empty columns.

**Move list.** The legal moves, in action order, fill up to
:data:`MOVE_SLOTS` rows of ``1 + MOVE_FEATURES`` values: the action's id as
``(action + 1) / NUM_ACTIONS`` (0 for an empty row), then

* ``0..5`` the kind of move: to a foundation, column to column, reserve to
  column, column to reserve, foundation to column, deal;
* ``6`` cards moved / 13; ``7`` a progress event (a deal or a new high on
  the foundations);
* the change the move makes to ``8`` the cards on the foundations, ``9`` the
  cover (/10), ``10`` the breaks (/3), ``11`` the vacancies (/2), ``12`` the
  cards held in the reserve (0 or 1), ``13`` the greedy baseline's
  evaluation (/200), and ``14`` whether that change is above 0;
* the source column: ``15`` it empties, ``16`` its height after (/20), and
  the card the move uncovers: ``17`` it fits on a foundation, ``18`` its
  wait (how many ranks its foundation must still climb, /12), ``19`` the
  cards lying on the column's nearest card that fits on a foundation (/10,
  1 when there is none or ten or more);
* the destination column: ``20`` it was empty, ``21`` its height (/20);
* ``22`` exposed cards (and the reserve's) that fit on a foundation after
  the move (/4); ``23`` the rank of the moved card, or of the head of the
  moved sequence (/13); ``24`` the move restores waived cards to their column.

Every value is capped to -1..1. Positions with more than
:data:`MOVE_SLOTS` legal moves (none met in thousands of played games) list
the first ones; the rest get no row, and :func:`move_rows` says so.

**Lookahead** (the ``moves_search`` encoding, ``search=True``): each row
has two more values, :data:`SEARCH_FEATURES` in all. When no move plays a
card to a foundation as a new high and no move (other than a deal) raises the
greedy's evaluation, a player looks a few moves ahead before dealing:
:func:`lookahead` searches the lines of up to :data:`SEARCH_DEPTH` moves (no
deal) for one that ends strictly better than now. ``25`` marks the first move
of the best such line, ``26`` is that line's gain (/200); when there is none,
``25`` marks the deal (if the stock has cards). This is the search the greedy
baseline makes at that point (:mod:`agents.baselines.greedy_milligan`, steps 3 and 4),
read from the face-up cards only, like every other feature. (It is not run
when the legal moves overflow the list, where the greedy's first two steps
could not be read from the rows either; such positions are flagged.)

**Endgame replays** (the ``moves_endgame`` encoding): each row has two more
values, :data:`ENDGAME_FEATURES` in all, set only once the stock is out
(nothing is hidden then; 0 before): ``27`` the cards on the foundations at
the end of the greedy's game after the move (/104), ``28`` its shortfall
from the best such outcome among the legal moves (/10, capped at -1; 0 for
the best). See :mod:`patience_gym.heuristics.milligan_endgame`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from patience_gym.cards import RANK, SUIT
from patience_gym.games.milligan_tables import (
    DEAL,
    DEAL_MOVE,
    FITS,
    FOUNDATION_TO_COLUMN,
    NUM_ACTIONS,
    NUM_COLUMNS,
    RESERVE_TO_COLUMN,
    decode_action,
)

if TYPE_CHECKING:
    from patience_gym.games.milligan import MilliganGame, MilliganState

#: Rows of the move list.
MOVE_SLOTS = 128
#: Features per move (after the action id).
MOVE_FEATURES = 25
#: Values per row of the move list.
ROW = 1 + MOVE_FEATURES
#: Features per move of the ``moves_search`` encoding: the ``moves`` ones, the lookahead's first move and gain.
SEARCH_FEATURES = MOVE_FEATURES + 2
#: Values per row of the ``moves_search`` move list.
SEARCH_ROW = 1 + SEARCH_FEATURES
#: Features per move of the ``moves_endgame`` encoding: the ``moves_search`` ones, the endgame replay's two.
ENDGAME_FEATURES = SEARCH_FEATURES + 2
#: Values per row of the ``moves_endgame`` move list.
ENDGAME_ROW = 1 + ENDGAME_FEATURES
#: Positions the lookahead may visit per depth, and its deepest line.
SEARCH_NODES = 3_000
SEARCH_DEPTH = 3
#: Position values after the planes: cards on the foundations, cover, breaks,
#: vacancies, legal moves, the best evaluation change, stock out, reserve held,
#: more legal moves than rows.
EXTRA = 9

#: The greedy baseline's weights (see :mod:`agents.baselines.greedy_milligan`).
W_FOUNDATION = 100
W_COVER = 1
W_BREAK = 3
W_VACANCY = 6
W_RESERVE = 4


def needed_cards(found: list[int]) -> dict[int, int]:
    """For each next needed card, how many foundation piles want it (1 or 2)."""
    needed: dict[int, int] = {}
    for s in range(0, 8, 2):
        base = (s >> 1) * 13
        for h in (found[s], found[s + 1]):
            if h < 13:
                needed[base + h] = needed.get(base + h, 0) + 1
    return needed


def position_terms(state: MilliganState) -> tuple[int, int, int]:
    """The cover, breaks and vacancies of ``state`` (see the module docstring)."""
    needed = needed_cards(state.found)
    breaks = 0
    vacancies = 0
    depths: dict[int, list[int]] = {}
    for col in state.columns:
        n = len(col)
        if not n:
            vacancies += 1
            continue
        prev = col[0]
        if prev in needed:
            depths.setdefault(prev, []).append(n - 1)
        for t in range(1, n):
            c = col[t]
            if not FITS[prev * 52 + c]:
                breaks += 1
            if c in needed:
                depths.setdefault(c, []).append(n - 1 - t)
            prev = c
    cover = 0
    for c, ds in depths.items():
        ds.sort()
        cover += sum(ds[: needed[c]])
    return cover, breaks, vacancies


def evaluation(state: MilliganState, terms: tuple[int, int, int] | None = None) -> int:
    """The greedy baseline's score of a position (higher is better); ``terms``: its :func:`position_terms`."""
    cover, breaks, vacancies = remembered_terms(state) if terms is None else terms
    return (
        W_FOUNDATION * state.total
        - W_COVER * cover
        - W_BREAK * breaks
        + (W_VACANCY * vacancies if state.pos >= len(state.stock) else 0)
        - (W_RESERVE if state.reserve else 0)
    )


def card_wait(card: int, found: list[int]) -> int:
    """How many ranks ``card``'s foundation must still climb before it fits (0: it fits now)."""
    r = RANK[card] - 1  # the height a pile needs for the card to go on it
    s = 2 * SUIT[card]
    a, b = found[s], found[s + 1]  # at least one is <= r while the card is in play
    if a > r:
        return r - b
    if b > r:
        return r - a
    return r - (a if a > b else b)


def fits_now(card: int, found: list[int]) -> bool:
    """Whether ``card`` fits on a foundation now (``card_wait(card, found) == 0``)."""
    r = RANK[card] - 1
    s = 2 * SUIT[card]
    return found[s] == r or found[s + 1] == r


def _playable(state: MilliganState) -> int:
    """Exposed cards (the reserve's included) that fit on a foundation."""
    found = state.found
    n = 0
    for col in state.columns:
        if col and fits_now(col[-1], found):
            n += 1
    if state.reserve and fits_now(state.reserve[-1], found):
        n += 1
    return n


def _dig(column: list[int], found: list[int]) -> float:
    """Cards lying on the nearest card of ``column`` that fits on a foundation (/10, capped at 1)."""
    n = len(column)
    for depth in range(min(n, 10)):
        if fits_now(column[n - 1 - depth], found):
            return depth / 10
    return 1.0


_TERMS: dict[int, int] = {}
"""Position terms already computed, by fingerprint, packed into one int each.

The lookahead's trees overlap from move to move (about four evaluations in
five repeat one already made). Ints, not tuples: a large dict of tuples makes
each of Python's full garbage collections walk it, which cost more than the
memo saved.
"""
TERMS_KEPT = 200_000


def remembered_terms(state: MilliganState) -> tuple[int, int, int]:
    """:func:`position_terms` of ``state``, memoised by its fingerprint.

    The fingerprint fixes every card's place, so it fixes the terms; the memo
    is emptied when it holds :data:`TERMS_KEPT` positions.
    """
    packed = _TERMS.get(state.hash)
    if packed is None:
        if len(_TERMS) >= TERMS_KEPT:
            _TERMS.clear()
        terms = position_terms(state)
        _TERMS[state.hash] = terms[0] | terms[1] << 16 | terms[2] << 32  # each term < 2**16
        return terms
    return packed & 0xFFFF, packed >> 16 & 0xFFFF, packed >> 32


def lookahead(game: MilliganGame, root: MilliganState, now: int) -> tuple[int, int] | None:
    """First move and end value of the best line (up to SEARCH_DEPTH moves, no deal) ending strictly above ``now``.

    Lines of two moves are searched first, then of three, each depth visiting at
    most :data:`SEARCH_NODES` positions; ``None`` when no line ends above ``now``.
    """
    budget = [SEARCH_NODES]
    best: list[Any] = [now, None]  # value, first move

    def dfs(state: MilliganState, depth: int, first: int) -> None:
        for a in game.legal_actions(state):
            if a == DEAL or budget[0] <= 0:
                continue
            budget[0] -= 1
            child = state.copy()
            game.apply(child, a)
            move = a if first < 0 else first
            v = evaluation(child)
            if v > best[0]:
                best[0], best[1] = v, move
            if depth > 1 and not game.is_over(child):
                dfs(child, depth - 1, move)

    for depth in range(2, SEARCH_DEPTH + 1):  # shallow lines first, then deeper ones
        budget[0] = SEARCH_NODES
        dfs(root, depth, -1)
        if best[1] is not None:
            return int(best[1]), int(best[0])
    return None


def move_rows(
    game: MilliganGame, state: MilliganState, acts: list[int], search: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """The move list of ``state`` (``acts``: its legal moves, in action order) and the extra position values.

    ``search``: rows of :data:`SEARCH_ROW` values, with the lookahead's two (module docstring).
    """
    rows = np.zeros((MOVE_SLOTS, SEARCH_ROW if search else ROW), dtype=np.float32)
    terms = remembered_terms(state)
    now = evaluation(state, terms)
    cover, breaks, vacancies = terms
    held = 1 if state.reserve else 0
    found = state.found
    best_gain = -1.0
    improves = False  # a new foundation high, or a move that raises the evaluation, is on offer
    for slot, a in enumerate(acts[:MOVE_SLOTS]):
        row = rows[slot]
        row[0] = (a + 1) / NUM_ACTIONS
        kind, src, dst, k = decode_action(a)
        f = row[1:]
        f[kind] = 1.0
        f[6] = k / 13
        f[7] = 1.0 if game.is_progress(state, a) else 0.0
        if kind == DEAL_MOVE:
            continue
        if f[7]:
            improves = True
        cols = state.columns
        if kind == FOUNDATION_TO_COLUMN:
            moved = (src >> 1) * 13 + found[src] - 1
        elif src >= 0:
            moved = cols[src][len(cols[src]) - k]
        else:
            moved = state.reserve[len(state.reserve) - k]
        dst_height = len(cols[dst]) if dst >= 0 else 0
        child = state.copy()
        game.apply(child, a)
        c_terms = remembered_terms(child)
        gain = evaluation(child, c_terms) - now
        best_gain = max(best_gain, gain / 200)
        if gain > 0:
            improves = True
        f[8] = child.total - state.total
        f[9] = _cap((c_terms[0] - cover) / 10)
        f[10] = _cap((c_terms[1] - breaks) / 3)
        f[11] = _cap((c_terms[2] - vacancies) / 2)
        f[12] = (1 if child.reserve else 0) - held
        f[13] = _cap(gain / 200)
        f[14] = 1.0 if gain > 0 else 0.0
        if src >= 0 and kind != FOUNDATION_TO_COLUMN:
            left = child.columns[src]
            f[15] = 0.0 if left else 1.0
            f[16] = min(len(left), 20) / 20
            if left:
                wait = card_wait(left[-1], child.found)
                f[17] = 1.0 if wait == 0 else 0.0
                f[18] = wait / 12
                f[19] = _dig(left, child.found)
        if dst >= 0:
            f[20] = 0.0 if dst_height else 1.0
            f[21] = min(dst_height, 20) / 20
        f[22] = min(_playable(child), 4) / 4
        f[23] = RANK[moved] / 13
        f[24] = 1.0 if kind == RESERVE_TO_COLUMN and k == len(state.reserve) and dst == state.origin else 0.0
    if search and not improves and len(acts) <= MOVE_SLOTS:
        _mark_lookahead(game, state, acts, now, rows)
    extra = np.array(
        [
            state.total / 104,
            min(cover, 50) / 50,
            min(breaks, 40) / 40,
            vacancies / NUM_COLUMNS,
            min(len(acts), 64) / 64,
            _cap(best_gain),
            1.0 if state.pos >= len(state.stock) else 0.0,
            float(held),
            1.0 if len(acts) > MOVE_SLOTS else 0.0,
        ],
        dtype=np.float32,
    )
    return rows, extra


def _mark_lookahead(game: MilliganGame, state: MilliganState, acts: list[int], now: int, rows: np.ndarray) -> None:
    """Set the lookahead's two values (module docstring) in ``rows``; every legal move has a row."""
    result = lookahead(game, state, now)
    if result is not None:
        first, value = result
        slot = acts.index(first)
        rows[slot, 1 + MOVE_FEATURES] = 1.0
        rows[slot, 2 + MOVE_FEATURES] = _cap((value - now) / 200)
    elif acts and acts[-1] == DEAL:
        rows[len(acts) - 1, 1 + MOVE_FEATURES] = 1.0


def write_endgame(rows: np.ndarray, acts: list[int], values: dict[int, int]) -> None:
    """Set the endgame replay's two values (module docstring) in ``rows`` (width :data:`ENDGAME_ROW`)."""
    if not values:
        return
    top = max(values.values())
    for slot, a in enumerate(acts[:MOVE_SLOTS]):
        value = values[a]
        rows[slot, 1 + SEARCH_FEATURES] = value / 104
        rows[slot, 2 + SEARCH_FEATURES] = max(-1.0, (value - top) / 10)


def _cap(x: float) -> float:
    return -1.0 if x < -1.0 else 1.0 if x > 1.0 else x
