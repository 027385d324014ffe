"""The Miss Milligan family's greedy player in numba, on the batched engine's arrays.

It mirrors :class:`patience_gym.heuristics.milligan_greedy.GreedyRules` (the greedy agent's rules, same
ties): a progress move to the foundations; else the best strictly improving move by
:func:`patience_gym.heuristics.milligan_moves.evaluation`; else the three-move lookahead
(:func:`~patience_gym.heuristics.milligan_moves.lookahead`: lines of two moves, then three, at most
``SEARCH_NODES`` positions each, no deal), once per progress event; else the deal; else the best move.
Moves are tried on copies of env ``e``'s rows in scratch rows (one per depth), played by the engine's own
``apply_one`` and ``legal_one``, so the progress rule's masking of repeated positions applies to every
line as in the single env. ``marks[e]`` is the agent's memory (rule 5's resignation mark; -1: none).
``tests/vector/test_rollouts.py`` checks every move against the single env's greedy agent.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from patience_gym.games.milligan_tables import CF, DEAL, MAX_STOCK, NUM_COLUMNS, RF
from patience_gym.heuristics.milligan_moves import (
    SEARCH_DEPTH,
    SEARCH_NODES,
    W_BREAK,
    W_COVER,
    W_FOUNDATION,
    W_RESERVE,
    W_VACANCY,
)
from patience_gym.vector.milligan_kernels import BEST, NLEGAL, NRES, POS, TOTAL, _fits, apply_one, legal_one

LEVELS = SEARCH_DEPTH + 1  #: scratch rows: the position searched, then one per move of a line
_NONE = 1 << 30


@njit(cache=True)
def _evaluation(cols, clen, found, sc, d):  # type: ignore[no-untyped-def]
    """``evaluation`` of row ``d``: foundations, cover of the next needed cards, breaks, vacancies, reserve."""
    needed = np.zeros(52, dtype=np.int64)
    for s in range(0, 8, 2):
        base = (s >> 1) * 13
        for h in (found[d, s], found[d, s + 1]):
            if h < 13:
                needed[base + h] += 1
    first = np.full(52, _NONE, dtype=np.int64)  # the two shallowest depths of each needed card
    second = np.full(52, _NONE, dtype=np.int64)
    breaks = 0
    vacancies = 0
    for j in range(NUM_COLUMNS):
        n = clen[d, j]
        if n == 0:
            vacancies += 1
            continue
        for t in range(n):
            c = cols[d, j, t]
            if t > 0 and not _fits(cols[d, j, t - 1], c):
                breaks += 1
            if needed[c]:
                depth = n - 1 - t
                if depth < first[c]:
                    second[c] = first[c]
                    first[c] = depth
                elif depth < second[c]:
                    second[c] = depth
    cover = 0
    for c in range(52):
        if needed[c]:
            if first[c] < _NONE:
                cover += first[c]
            if needed[c] == 2 and second[c] < _NONE:
                cover += second[c]
    value = W_FOUNDATION * sc[d, TOTAL] - W_COVER * cover - W_BREAK * breaks
    if sc[d, POS] >= MAX_STOCK:
        value += W_VACANCY * vacancies
    if sc[d, NRES] > 0:
        value -= W_RESERVE
    return value


@njit(cache=True)
def _copy(src, e, dst, d):  # type: ignore[no-untyped-def]
    """Row ``e`` of every state array in ``src`` into row ``d`` of the same array in ``dst``."""
    cols, clen, runs, tops, found, stock, res, sc, hsh, seen, ids, mask, acts = src
    cols2, clen2, runs2, tops2, found2, stock2, res2, sc2, hsh2, seen2, ids2, mask2, acts2 = dst
    cols2[d] = cols[e]
    clen2[d] = clen[e]
    runs2[d] = runs[e]
    tops2[d] = tops[e]
    found2[d] = found[e]
    stock2[d] = stock[e]
    res2[d] = res[e]
    hsh2[d] = hsh[e]
    seen2[d] = seen[e]
    # Not the "ids" observation (the moves write it, no rule reads it), nor the legal moves (3 KB a row):
    # row d's own are cleared, and legal_one lists them afresh.
    for t in range(sc2[d, NLEGAL]):
        mask2[d, acts2[d, t]] = False
    sc2[d] = sc[e]
    sc2[d, NLEGAL] = 0


def scratch_rows(state: tuple[np.ndarray, ...]) -> tuple[np.ndarray, ...]:
    """Arrays like ``state``'s with :data:`LEVELS` rows: the rows the searches copy positions into."""
    return tuple(np.zeros((LEVELS, *a.shape[1:]), dtype=a.dtype) for a in state)


@njit(cache=True)
def _sorted_legal(s, d, zc, zf, zo, params, out):  # type: ignore[no-untyped-def]
    """Fill row ``d``'s legal moves (``legal_one``) and write them in ``out`` in action order; how many."""
    cols, clen, runs, tops, found, stock, res, sc, hsh, seen, ids, mask, acts = s
    vacancy_any, rkind, maxres, down = params
    n = legal_one(
        d, cols, clen, runs, tops, found, res, sc, hsh, seen, mask, acts, zc, zf, zo, vacancy_any, rkind, maxres, down
    )
    out[:n] = np.sort(acts[d, :n])
    return n


@njit(cache=True)
def _play(s, d, a, zc, zf, zo, rkind):  # type: ignore[no-untyped-def]
    cols, clen, runs, tops, found, stock, res, sc, hsh, seen, ids, mask, acts = s
    apply_one(d, a, cols, clen, runs, tops, found, stock, res, sc, hsh, seen, ids, zc, zf, zo, rkind)


@njit(cache=True)
def _lookahead(s, now, zc, zf, zo, params, moves, count):  # type: ignore[no-untyped-def]
    """``lookahead`` from scratch row 0: the first move of the best line ending above ``now``, or -1."""
    rkind = params[1]
    cols, clen = s[0], s[1]
    found, sc = s[4], s[7]
    best_v, best_move = now, -1
    index = np.zeros(LEVELS, dtype=np.int64)
    first = np.zeros(LEVELS, dtype=np.int64)
    for depth in range(2, SEARCH_DEPTH + 1):
        budget = SEARCH_NODES
        level = np.int64(0)  # not a literal: a literal row compiles another copy of each callee
        count[0] = _sorted_legal(s, level, zc, zf, zo, params, moves[0])
        index[0] = 0
        first[0] = -1
        while level >= 0:
            if index[level] >= count[level]:
                level -= 1
                continue
            a = moves[level, index[level]]
            index[level] += 1
            if a == DEAL or budget <= 0:
                continue
            budget -= 1
            child = level + 1
            _copy(s, level, s, child)
            _play(s, child, a, zc, zf, zo, rkind)
            move = a if first[level] < 0 else first[level]
            v = _evaluation(cols, clen, found, sc, child)
            if v > best_v:
                best_v, best_move = v, move
            if child < depth:  # the line may go one move deeper: its moves (none where the game is over)
                count[child] = _sorted_legal(s, child, zc, zf, zo, params, moves[child])
                if count[child] > 0:
                    index[child] = 0
                    first[child] = move
                    level = child
        if best_move >= 0:
            return best_move
    return -1


@njit(cache=True)
def greedy_kernel(which, state, scratch, marks, zc, zf, zo, params, out):  # type: ignore[no-untyped-def]
    """``GreedyRules.choose`` in every game with ``which`` (0 where it is over, and elsewhere); ``marks[e]``
    is its resignation mark, ``scratch`` :func:`scratch_rows` of ``state``."""
    cols, clen, runs, tops, found, stock, res, sc, hsh, seen, ids, mask, acts = state
    moves = np.empty((LEVELS, mask.shape[1]), dtype=np.int64)
    count = np.zeros(LEVELS, dtype=np.int64)
    rkind = params[1]
    root, child = np.arange(2)  # run-time rows (see _lookahead)
    for e in range(out.shape[0]):
        n = sc[e, NLEGAL]
        if n == 0 or not which[e]:
            out[e] = 0
            continue
        legal = np.sort(acts[e, :n]).astype(np.int64)  # int64 moves, as the lookahead's
        choice = -1
        if sc[e, TOTAL] == sc[e, BEST]:  # 1. a new foundation high
            for a in legal:
                if CF <= a <= RF:
                    choice = a
                    break
        if choice >= 0:
            out[e] = choice
            continue
        now = _evaluation(cols, clen, found, sc, e)
        best_a, best_v, tried = -1, 0, False  # 2. the best strictly improving move
        deal = False
        for a in legal:
            if a == DEAL:
                deal = True
                continue
            _copy(state, e, scratch, child)
            _play(scratch, child, a, zc, zf, zo, rkind)
            v = _evaluation(scratch[0], scratch[1], scratch[4], scratch[7], child)
            if not tried or v > best_v:
                best_a, best_v, tried = a, v, True
        if tried and best_v > now:
            out[e] = best_a
            continue
        stock_left = MAX_STOCK - sc[e, POS]
        if not (marks[e, 0] == sc[e, BEST] and marks[e, 1] == stock_left):  # 3. the lookahead, once
            _copy(state, e, scratch, root)
            line = _lookahead(scratch, now, zc, zf, zo, params, moves, count)
            if line >= 0:
                out[e] = line
                continue
            marks[e, 0] = sc[e, BEST]
            marks[e, 1] = stock_left
        out[e] = DEAL if deal else best_a  # 4. deal; 5. resigned
