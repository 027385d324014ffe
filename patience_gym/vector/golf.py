"""Batched Golf and GolfRound: N holes (or rounds) in arrays, stepped by numba kernels.

The readable reference is :mod:`patience_gym.games.golf`; every kernel here
reproduces it bit for bit (deals, masks, rewards, termination, scores, the
``ids``, ``planes`` and ``runs`` observations), which ``tests/vector/test_vector_agreement.py``
checks against ``gym.make``. State per env: the links (``cols`` [7, 5] and
``heights`` [7]), the stock in turning order with ``pos`` cards turned, the
waste top card and which cards lie in the waste; a round adds its nine deals,
the hole in play and the finished holes' scores.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

from patience_gym.cards import RANK
from patience_gym.features.rules import layout as R
from patience_gym.games.golf import (
    BOGEY,
    DEAL,
    NUM_COLUMNS,
    NUM_HOLES,
    NUM_LINKS,
    NUM_ROWS,
    PLANE_WIDTH,
    PLANES_SIZE,
    STOCK_SIZE,
    GolfOptions,
    GolfRound,
    GolfRoundState,
    GolfState,
    _fits_table,
)
from patience_gym.heuristics.golf_runs import MAX_NODES
from patience_gym.vector import rng as vrng
from patience_gym.vector.base import BatchedGame, read_only

_ENCODING_CODES = {"ids": 0, "planes": 1, "runs": 2, "rules_moves": 3}  # ids: kept up to date by the moves
#: Memo of the runs search: an open-addressing table (MAX_NODES entries at most, load below 0.4).
_MEMO_BITS = 17
_MEMO_SIZE = 1 << _MEMO_BITS
_STACK = NUM_LINKS + 2


# --- rules ------------------------------------------------------------------
@numba.njit(cache=True)
def _deal(cols, heights, stock, pos, in_waste, top, i, deal, ids):  # type: ignore[no-untyped-def]
    """Env ``i``'s hole from 52 cards: links row by row (last row exposed), then the stock; its ``ids`` too."""
    for col in range(NUM_COLUMNS):
        for row in range(NUM_ROWS):
            cols[i, col, row] = deal[row * NUM_COLUMNS + col]
            ids[i, row * NUM_COLUMNS + col] = deal[row * NUM_COLUMNS + col] + 1
        heights[i, col] = NUM_ROWS
    for k in range(STOCK_SIZE):
        stock[i, k] = deal[NUM_LINKS + k]
    in_waste[i, :] = False
    in_waste[i, stock[i, 0]] = True
    top[i] = stock[i, 0]
    pos[i] = 1
    ids[i, NUM_LINKS] = stock[i, 0] + 1
    ids[i, NUM_LINKS + 1] = STOCK_SIZE - 1


#: Rank (1..13) of each card.
_RANK = np.array(RANK, dtype=np.int64)


@numba.njit(cache=True, inline="always")
def _scan(cols, heights, pos, top, fits, masks, i):  # type: ignore[no-untyped-def]
    """Write env ``i``'s hole mask; return (hole over, links left)."""
    waste_rank = _RANK[top[i]]
    left = 0
    any_play = False
    for col in range(NUM_COLUMNS):  # branch-free: the moves are random data
        h = np.int64(heights[i, col])
        left += h
        play = fits[waste_rank, _RANK[cols[i, col, max(h - 1, 0)]]] & (h > 0)
        masks[i, col] = play
        any_play |= play
    masks[i, DEAL] = pos[i] < STOCK_SIZE
    return left == 0 or (pos[i] >= STOCK_SIZE and not any_play), left


@numba.njit(cache=True, inline="always")
def _settle_hole(cols, heights, pos, top, fits, masks, over, score, won, i):  # type: ignore[no-untyped-def]
    """After a move or a deal of one Golf hole: env ``i``'s mask, over, score and won."""
    ended, left = _scan(cols, heights, pos, top, fits, masks, i)
    over[i] = ended
    score[i] = left if left else -(STOCK_SIZE - pos[i])
    won[i] = left == 0
    if ended:
        masks[i, :] = False


@numba.njit(cache=True, inline="always")
def _settle_round(cols, heights, pos, top, fits, masks, over, done, hole_scores, totals, score, won, i):  # type: ignore[no-untyped-def]
    """After a move of a round: mask, end of the hole, over, score, won; True when the next hole must be dealt."""
    ended, left = _scan(cols, heights, pos, top, fits, masks, i)
    hole_score = left if left else -(STOCK_SIZE - pos[i])
    if not ended:  # the common case: only the running score changes
        score[i] = totals[i] + hole_score
        return False
    hole_scores[i, done[i]] = hole_score
    totals[i] += hole_score
    done[i] += 1
    finished = done[i] == NUM_HOLES
    over[i] = finished
    won[i] = finished and totals[i] <= BOGEY
    score[i] = totals[i]
    masks[i, :] = False
    return not finished


@numba.njit(cache=True)
def _next_holes(cols, heights, stock, pos, in_waste, top, deals, hole, totals, fits, masks, score, ids, which):  # type: ignore[no-untyped-def]
    """Deal the next hole of every round in ``which`` (a bool array), as the single env does at once."""
    for i in range(which.shape[0]):
        if which[i]:
            hole[i] += 1
            _deal(cols, heights, stock, pos, in_waste, top, i, deals[i, hole[i]], ids)
            ids[i, NUM_LINKS + 2] = hole[i]
            _, left = _scan(cols, heights, pos, top, fits, masks, i)
            score[i] = totals[i] + left


@numba.njit(cache=True)
def _reset_kernel(rng_states, which, is_round, cols, heights, stock, pos, in_waste, top, over, deals, hole, done,
                  hole_scores, totals, fits, masks, score, won, ids):  # type: ignore[no-untyped-def]  # fmt: skip
    deal = np.empty(52, dtype=np.int64)
    for i in range(which.shape[0]):
        if not which[i]:
            continue
        if is_round:
            for h in range(NUM_HOLES):
                vrng.permute(rng_states, i, deal)
                for k in range(52):
                    deals[i, h, k] = deal[k]
            deal[:] = deals[i, 0]
            hole[i] = 0
            done[i] = 0
            totals[i] = 0
            hole_scores[i, :] = 0
            over[i] = False
            won[i] = False
            ids[i, NUM_LINKS + 2] = 0
        else:
            vrng.permute(rng_states, i, deal)
        _deal(cols, heights, stock, pos, in_waste, top, i, deal, ids)
        if is_round:
            _settle_round(cols, heights, pos, top, fits, masks, over, done, hole_scores, totals, score, won, i)
        else:
            _settle_hole(cols, heights, pos, top, fits, masks, over, score, won, i)


@numba.njit(cache=True, inline="always")
def _move(cols, heights, stock, pos, in_waste, top, ids, i, a):  # type: ignore[no-untyped-def]
    """Play the legal action ``a`` in env ``i``; its reward."""
    reward = 0.0
    if a == DEAL:
        card = stock[i, pos[i]]
        pos[i] += 1
        ids[i, NUM_LINKS + 1] = STOCK_SIZE - pos[i]
    else:
        heights[i, a] -= 1
        card = cols[i, a, heights[i, a]]
        ids[i, heights[i, a] * NUM_COLUMNS + a] = 0
        left = 0
        for col in range(NUM_COLUMNS):
            left += heights[i, col]
        reward = 1.0 if left else 1.0 + (STOCK_SIZE - pos[i])  # links cleared: the unturned stock counts
    in_waste[i, card] = True
    top[i] = card
    ids[i, NUM_LINKS] = card + 1
    return reward


@numba.njit(cache=True)
def _step_kernel(actions, resetting, rng_states, is_round, cols, heights, stock, pos, in_waste, top, over, deals,
                 hole, done, hole_scores, totals, fits, masks, score, won, ids):  # type: ignore[no-untyped-def]  # fmt: skip
    """One move per env, or a new game where ``resetting``: fresh (reward, terminated, illegal) arrays.

    An illegal action changes nothing; a resetting env reports 0, False, False. New games,
    and a round's next hole, are dealt in a second pass (the same result, a tighter main loop).
    """
    n = actions.shape[0]
    reward = np.empty(n, dtype=np.float64)
    terminated = np.empty(n, dtype=np.bool_)
    illegal = np.empty(n, dtype=np.bool_)
    next_hole = np.zeros(n, dtype=np.bool_)
    any_reset = False
    for i in range(n):
        if resetting[i]:
            reward[i] = 0.0
            illegal[i] = False
            terminated[i] = False
            any_reset = True
            continue
        a = actions[i]
        bad = a < 0 or a > DEAL or not masks[i, a]
        illegal[i] = bad
        if bad:
            reward[i] = -1.0
        else:
            reward[i] = _move(cols, heights, stock, pos, in_waste, top, ids, i, a)
            if is_round:
                next_hole[i] = _settle_round(
                    cols, heights, pos, top, fits, masks, over, done, hole_scores, totals, score, won, i
                )
            else:
                _settle_hole(cols, heights, pos, top, fits, masks, over, score, won, i)
        terminated[i] = over[i]
    if is_round:
        _next_holes(cols, heights, stock, pos, in_waste, top, deals, hole, totals, fits, masks, score, ids, next_hole)
    if any_reset:
        _reset_kernel(rng_states, resetting, is_round, cols, heights, stock, pos, in_waste, top, over, deals, hole,
                      done, hole_scores, totals, fits, masks, score, won, ids)  # fmt: skip
    return reward, terminated, illegal


@numba.njit(cache=True)
def _planes_row(cols, heights, pos, in_waste, top, i, out):  # type: ignore[no-untyped-def]
    out[:] = 0.0
    for col in range(NUM_COLUMNS):
        last = heights[i, col] - 1
        for row in range(heights[i, col]):
            base = cols[i, col, row] * PLANE_WIDTH
            out[base + col] = 1.0
            out[base + NUM_COLUMNS + row] = 1.0
            if row == last:
                out[base + NUM_COLUMNS + NUM_ROWS] = 1.0
    waste_at = NUM_COLUMNS + NUM_ROWS + 2
    for card in range(52):
        if in_waste[i, card]:
            out[card * PLANE_WIDTH + waste_at] = 1.0
    out[top[i] * PLANE_WIDTH + waste_at - 1] = 1.0
    out[52 * PLANE_WIDTH] = (STOCK_SIZE - pos[i]) / (STOCK_SIZE - 1)


@numba.njit(cache=True, inline="always")
def _memo_find(memo_keys, memo_stamp, stamp, key):  # type: ignore[no-untyped-def]
    """Slot of ``key`` in this observation's memo, or the free slot where it would go."""
    slot = (key * 0x9E3779B1) & (_MEMO_SIZE - 1)
    while memo_stamp[slot] == stamp and memo_keys[slot] != key:
        slot = (slot + 1) & (_MEMO_SIZE - 1)
    return slot


@numba.njit(cache=True, inline="always")
def _openness(ranks, hts, unseen, fit_bits):  # type: ignore[no-untyped-def]
    exposed = 0
    for col in range(NUM_COLUMNS):
        if hts[col]:
            exposed |= 1 << ranks[col, hts[col] - 1]
    total = 0
    for r in range(1, 14):
        if fit_bits[r] & exposed:
            total += unseen[r]
    return total


@numba.njit(cache=True)
def _column_runs(ranks, hts, unseen, waste_rank, fits, fit_bits, memo, out):  # type: ignore[no-untyped-def]
    """``golf_runs.column_runs`` for one position: out[col] = (length, openness), memo shared by the columns.

    An explicit-stack replay of the recursive search, in the same order and with the same
    node cap, so that a capped search gives the same answer.
    """
    memo_keys, memo_stamp, memo_value, counters = memo
    counters[0] += 1
    stamp = counters[0]
    nodes = 0
    f_key = np.empty(_STACK, dtype=np.int64)
    f_rank = np.empty(_STACK, dtype=np.int64)
    f_next = np.empty(_STACK, dtype=np.int64)
    f_len = np.empty(_STACK, dtype=np.int64)
    f_open = np.empty(_STACK, dtype=np.int64)
    f_col = np.empty(_STACK, dtype=np.int64)
    for start in range(NUM_COLUMNS):
        h0 = hts[start]
        if not (h0 and fits[waste_rank, ranks[start, h0 - 1]]):
            out[start, 0] = 0
            out[start, 1] = 0
            continue
        # after_playing(start): play it, search best(rank), restore.
        hts[start] = h0 - 1
        sp = 0
        call_rank = ranks[start, h0 - 1]
        calling = True
        ret_len = 0
        ret_open = 0
        while True:
            if calling:
                key = call_rank
                for col in range(NUM_COLUMNS):
                    key = key * 6 + hts[col]
                slot = _memo_find(memo_keys, memo_stamp, stamp, key)
                calling = False
                if memo_stamp[slot] == stamp:
                    ret_len = memo_value[slot] >> 8
                    ret_open = memo_value[slot] & 255
                else:
                    nodes += 1
                    f_key[sp] = key
                    f_rank[sp] = call_rank
                    f_next[sp] = 0 if nodes <= MAX_NODES else NUM_COLUMNS
                    f_len[sp] = 0
                    f_open[sp] = _openness(ranks, hts, unseen, fit_bits)
                    sp += 1
                    ret_len = -1  # advance the new frame
            else:
                # a value came back to the frame below (if any)
                if sp == 0:
                    break
                d = sp - 1
                hts[f_col[d]] += 1
                cand_len = ret_len + 1
                if cand_len > f_len[d] or (cand_len == f_len[d] and ret_open > f_open[d]):
                    f_len[d] = cand_len
                    f_open[d] = ret_open
                ret_len = -1
            if ret_len >= 0:
                continue  # memo hit: return it to the frame below
            # advance the top frame: play its next playable column, or return its best
            d = sp - 1
            wr = f_rank[d]
            col = f_next[d]
            while col < NUM_COLUMNS and not (hts[col] and fits[wr, ranks[col, hts[col] - 1]]):
                col += 1
            if col < NUM_COLUMNS:
                f_next[d] = col + 1
                f_col[d] = col
                hts[col] -= 1
                call_rank = ranks[col, hts[col]]
                calling = True
                continue
            slot = _memo_find(memo_keys, memo_stamp, stamp, f_key[d])
            memo_stamp[slot] = stamp
            memo_keys[slot] = f_key[d]
            memo_value[slot] = (f_len[d] << 8) | f_open[d]
            ret_len = f_len[d]
            ret_open = f_open[d]
            sp -= 1
        hts[start] = h0
        out[start, 0] = ret_len + 1
        out[start, 1] = ret_open


@numba.njit(cache=True)
def _env_runs(cols, heights, stock, pos, top, fits, fit_bits, memo, i, runs):  # type: ignore[no-untyped-def]
    """``golf_runs.column_runs`` of env ``i``: runs[col] = (length, openness)."""
    ranks = np.empty((NUM_COLUMNS, NUM_ROWS), dtype=np.int64)
    hts = np.empty(NUM_COLUMNS, dtype=np.int64)
    for col in range(NUM_COLUMNS):
        hts[col] = heights[i, col]
        for row in range(NUM_ROWS):
            ranks[col, row] = cols[i, col, row] % 13 + 1
    unseen = np.zeros(14, dtype=np.int64)
    for k in range(pos[i], STOCK_SIZE):  # not on the links, not in the waste: the unturned stock
        unseen[stock[i, k] % 13 + 1] += 1
    _column_runs(ranks, hts, unseen, top[i] % 13 + 1, fits, fit_bits, memo, runs)


@numba.njit(cache=True)
def _runs_tail(cols, heights, stock, pos, top, fits, fit_bits, memo, i, out):  # type: ignore[no-untyped-def]
    """The 21 per-column run features after the planes."""
    runs = np.empty((NUM_COLUMNS, 2), dtype=np.int64)
    _env_runs(cols, heights, stock, pos, top, fits, fit_bits, memo, i, runs)
    at = PLANES_SIZE
    for col in range(NUM_COLUMNS):
        out[at + 3 * col] = runs[col, 0] / NUM_LINKS
        out[at + 3 * col + 1] = runs[col, 1] / 52
        out[at + 3 * col + 2] = heights[i, col] / NUM_ROWS


@numba.njit(cache=True)
def _rules_moves_tail(cols, heights, stock, pos, in_waste, top, fits, i, out, at):  # type: ignore[no-untyped-def]
    """The ``rules_moves`` position values and move rows from ``out[at]`` on, as
    :func:`patience_gym.features.rules.golf.golf_row` writes them."""
    unseen = np.zeros(14, dtype=np.int64)
    for k in range(pos[i], STOCK_SIZE):
        unseen[stock[i, k] % 13 + 1] += 1
    stock_left = STOCK_SIZE - pos[i]
    waste_size = 0
    links = 0
    for card in range(52):
        waste_size += in_waste[i, card]
    for col in range(NUM_COLUMNS):
        links += heights[i, col]
    waste_rank = top[i] % 13 + 1
    rows = at + R.POSITION_VALUES
    n = 0
    for action in range(NUM_COLUMNS + 1):
        if action < NUM_COLUMNS:
            h = heights[i, action]
            if h == 0 or not fits[waste_rank, cols[i, action, h - 1] % 13 + 1]:
                continue
        elif stock_left == 0:
            continue
        row = rows + n * R.ROW
        out[row + R.ACTION] = (action + 1) / (NUM_COLUMNS + 1)
        out[row + R.DEST_KIND] = 2
        out[row + R.ONTO] = top[i] + 1
        out[row + R.COUNT] = 1 / 52
        out[row + R.WAIT] = 1.0
        out[row + R.DEST_AFTER] = (waste_size + 1) / 52
        if action == NUM_COLUMNS:
            left = stock_left - 1
            out[row + R.MOVED] = R.HIDDEN_CARD
            out[row + R.MOVED_TOP] = R.HIDDEN_CARD
            if left > 0:
                out[row + R.UNCOVERS] = R.HIDDEN_CARD
                for k in range(min(left - 1, R.NEXT_CARDS)):
                    out[row + R.SOURCE_NEXT + k] = R.HIDDEN_CARD
            out[row + R.SOURCE_LEFT] = left / 52
            out[row + R.REVEALS] = 1.0
        else:
            h = heights[i, action]
            card = cols[i, action, h - 1]
            rank = card % 13 + 1
            out[row + R.SOURCE_KIND] = 1
            out[row + R.SOURCE_INDEX] = action
            out[row + R.MOVED] = card + 1
            out[row + R.MOVED_TOP] = card + 1
            for k in range(min(h - 1, 1 + R.NEXT_CARDS)):
                out[row + R.UNCOVERS + k] = cols[i, action, h - 2 - k] + 1
            out[row + R.SOURCE_LEFT] = (h - 1) / 52
            playable = 0
            for col in range(NUM_COLUMNS):
                hc = heights[i, col] - (col == action)
                if hc > 0 and fits[rank, cols[i, col, hc - 1] % 13 + 1]:
                    playable += 1
            if stock_left > 0:
                playable += 1
            if links == 1:
                playable = 0
            out[row + R.AFTER_LEGAL] = min(1.0, playable / (NUM_COLUMNS + 1))
            chances = 0
            for r in range(1, 14):
                if fits[rank, r]:
                    chances += unseen[r]
            out[row + R.GAME_VALUE] = chances / 8
        n += 1
    out[at + 1] = n / (NUM_COLUMNS + 1)


@numba.njit(cache=True)
def _greedy_kernel(which, cols, heights, stock, pos, top, fits, fit_bits, masks, memo, out):  # type: ignore[no-untyped-def]
    """``golf_greedy.choose_move`` in every env: the only play, or the play whose run is longest, then
    leaves the most unseen cards fitting an exposed card, then comes from the taller column (ties: the
    lowest column); the deal when nothing plays; 0 where the game is over or ``which`` is False."""
    runs = np.empty((NUM_COLUMNS, 2), dtype=np.int64)
    for i in range(out.shape[0]):
        if not which[i]:
            out[i] = 0
            continue
        plays = 0
        only = 0
        for col in range(NUM_COLUMNS):
            if masks[i, col]:
                plays += 1
                only = col
        if plays == 0:
            out[i] = DEAL if masks[i, DEAL] else 0
            continue
        if plays == 1:
            out[i] = only
            continue
        _env_runs(cols, heights, stock, pos, top, fits, fit_bits, memo, i, runs)
        best = -1
        for col in range(NUM_COLUMNS):
            if not masks[i, col]:
                continue
            key = (runs[col, 0], runs[col, 1], heights[i, col])
            if best < 0 or key > (runs[best, 0], runs[best, 1], heights[i, best]):
                best = col
        out[i] = best


@numba.njit(cache=True)
def _observe_kernel(  # type: ignore[no-untyped-def]
    encoding, is_round, cols, heights, stock, pos, in_waste, top, hole, fits, fit_bits, memo, out
):
    width = out.shape[1]
    for i in range(out.shape[0]):
        row = out[i]
        _planes_row(cols, heights, pos, in_waste, top, i, row)
        if encoding == 2:
            _runs_tail(cols, heights, stock, pos, top, fits, fit_bits, memo, i, row)
        if encoding == 3:  # the hole (a round) closes the planes, then the moves
            planes = PLANES_SIZE
            if is_round:
                row[planes] = hole[i] / (NUM_HOLES - 1)
                planes += 1
            row[planes:] = 0.0
            _rules_moves_tail(cols, heights, stock, pos, in_waste, top, fits, i, row, planes)
        elif is_round:
            row[width - 1] = hole[i] / (NUM_HOLES - 1)


# --- the batched games --------------------------------------------------------
class BatchedGolf(BatchedGame):
    """N holes of Golf (``patience_gym/Golf-v0``)."""

    env_id = "patience_gym/Golf-v0"
    encodings = ("ids", "planes", "runs", "rules_moves")
    is_round = False

    def __init__(self, num_envs: int, obs_encoding: str | None = None, **rule_options: Any) -> None:
        super().__init__(num_envs, obs_encoding, **rule_options)
        n = self.num_envs
        options: GolfOptions = self.options
        self.fits = np.array(_fits_table(options), dtype=np.bool_)
        self.fit_bits = np.array([sum(1 << e for e in range(14) if self.fits[r, e]) for r in range(14)], np.int64)
        self.cols = np.zeros((n, NUM_COLUMNS, NUM_ROWS), dtype=np.int8)
        self.heights = np.zeros((n, NUM_COLUMNS), dtype=np.int8)
        self.stock = np.zeros((n, STOCK_SIZE), dtype=np.int8)
        self.pos = np.zeros(n, dtype=np.int64)
        self.in_waste = np.zeros((n, 52), dtype=np.bool_)
        self.top = np.zeros(n, dtype=np.int64)
        self.over = np.ones(n, dtype=np.bool_)
        self.deals = np.zeros((n, NUM_HOLES if self.is_round else 1, 52), dtype=np.int8)
        self.hole = np.zeros(n, dtype=np.int64)
        self.done = np.zeros(n, dtype=np.int64)
        self.hole_scores = np.zeros((n, NUM_HOLES), dtype=np.int8)  # -16..35
        self.totals = np.zeros(n, dtype=np.int64)
        self._score = np.zeros(n, dtype=np.float64)
        self._won = np.zeros(n, dtype=np.bool_)
        #: The ``ids`` observation, kept up to date move by move.
        self._ids = np.zeros((n, NUM_LINKS + 2 + self.is_round), dtype=np.int8)
        self._masks = np.zeros((n, self.num_actions), dtype=np.bool_)
        self._masks_view = read_only(self._masks)
        self._encoding = _ENCODING_CODES[self.obs_encoding]
        self._memo = (
            np.zeros(_MEMO_SIZE, dtype=np.int64),
            np.zeros(_MEMO_SIZE, dtype=np.int64),
            np.zeros(_MEMO_SIZE, dtype=np.int64),
            np.zeros(1, dtype=np.int64),
        )

    def _state(self) -> tuple[np.ndarray, ...]:
        return (
            self.cols, self.heights, self.stock, self.pos, self.in_waste, self.top, self.over, self.deals, self.hole,
            self.done, self.hole_scores, self.totals, self.fits, self._masks, self._score, self._won, self._ids,
        )  # fmt: skip

    def reset(self, which: np.ndarray) -> None:
        which = self.check_vector(which, "which", np.bool_)
        _reset_kernel(self.rng_states, which, self.is_round, *self._state())

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return BatchedGolf.step_reset(self, actions, self._no_reset)

    def step_reset(self, actions: np.ndarray, resetting: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        actions = self.check_vector(actions, "actions", np.int64)
        resetting = self.check_vector(resetting, "resetting", np.bool_)
        result: tuple[np.ndarray, np.ndarray, np.ndarray] = _step_kernel(
            actions, resetting, self.rng_states, self.is_round, *self._state()
        )
        return result

    def legal(self) -> np.ndarray:
        return self._masks_view

    def observe(self) -> np.ndarray:
        if self._encoding == 0:
            return self._ids.copy()
        space = self.single_observation_space
        out = np.empty((self.num_envs, *space.shape), dtype=space.dtype)
        _observe_kernel(
            self._encoding, self.is_round, self.cols, self.heights, self.stock, self.pos, self.in_waste, self.top,
            self.hole, self.fits, self.fit_bits, self._memo, out,
        )  # fmt: skip
        return out

    has_greedy = True

    def greedy_moves(self, which: np.ndarray | None = None) -> np.ndarray:
        rows = self._greedy_rows(which)
        out = np.zeros(self.num_envs, dtype=np.int64)
        _greedy_kernel(
            rows, self.cols, self.heights, self.stock, self.pos, self.top, self.fits, self.fit_bits, self._masks,
            self._memo, out,
        )  # fmt: skip
        return out

    def scores(self) -> np.ndarray:
        return self._score.copy()

    def won(self) -> np.ndarray:
        return self._won.copy()

    def rules_state(self, i: int) -> Any:
        """Env ``i``'s hole (or round). The engine keeps the waste as a set and its top card (the order
        beneath the top matters to no rule or observation): the waste lists the others in card order."""
        top = int(self.top[i])
        waste = [c for c in np.flatnonzero(self.in_waste[i]).tolist() if c != top] + [top]
        columns = [self.cols[i, c, : self.heights[i, c]].tolist() for c in range(NUM_COLUMNS)]
        hole_rules = self.game.hole_game.rules if isinstance(self.game, GolfRound) else self.game.rules
        hole = GolfState(columns, waste, tuple(self.stock[i].tolist()), int(self.pos[i]), hole_rules)
        if not self.is_round:
            return hole
        deals = tuple(tuple(d) for d in self.deals[i].tolist())
        scores = self.hole_scores[i, : self.done[i]].tolist()
        return GolfRoundState(hole, int(self.hole[i]), scores, deals, self.game.rules)

    def load_state(self, i: int, state: Any) -> None:
        self.game.check_state(state)
        hole: GolfState = state.hole_state if self.is_round else state
        left = hole.stock[hole.pos :]
        if len(left) > STOCK_SIZE:
            raise ValueError(f"a Golf stock holds at most {STOCK_SIZE} cards, got {len(left)} in env {i}'s state")
        self.cols[i] = 0
        for c, col in enumerate(hole.columns):
            self.cols[i, c, : len(col)] = col
        self.heights[i] = [len(col) for col in hole.columns]
        self.pos[i] = STOCK_SIZE - len(left)
        self.stock[i] = 0
        self.stock[i, self.pos[i] :] = left
        self.in_waste[i] = False
        self.in_waste[i, hole.waste] = True
        self.top[i] = hole.waste[-1]
        if self.is_round:
            self.hole[i], self.done[i] = state.hole, len(state.hole_scores)
            self.hole_scores[i] = 0
            self.hole_scores[i, : self.done[i]] = state.hole_scores
            self.totals[i] = sum(state.hole_scores)
            self.deals[i] = 0
            for h in range(state.hole + 1, NUM_HOLES):
                self.deals[i, h] = state.deals[h]
        game = self.game
        self.over[i] = game.is_over(state)
        self._masks[i] = False if self.over[i] else game.legal_mask(state)
        self._score[i], self._won[i] = game.score(state), game.is_won(state)
        self._ids[i] = game.observe(state, "ids")


class BatchedGolfRound(BatchedGolf):
    """N nine-hole rounds of Golf (``patience_gym/GolfRound-v0``).

    ``infos()`` gives ``hole`` (1..9) and ``hole_scores`` as int8 [N, 9]: the
    finished holes' scores first (as many as the single env's list holds),
    zeros after them.
    """

    env_id = "patience_gym/GolfRound-v0"
    is_round = True

    def infos(self) -> dict[str, np.ndarray]:
        return {"hole": self.hole + 1, "hole_scores": self.hole_scores.copy()}
