"""Puss in the Corner as a batched engine: N games in numpy arrays, stepped by numba kernels.

The reference is :class:`patience_gym.games.puss.PussInTheCorner` (the single env);
every kernel here mirrors one of its methods, and ``tests/vector/test_vector_agreement.py``
replays thousands of games through both, bit for bit.

Env ``i``'s whole position is the int8 row ``g[i]`` (one array, so that the kernels'
helpers pass one reference): the scalars ``POS`` (cards dealt from the current pack),
``PACK_LEN``, ``HAND`` (the dealt card awaiting placement, -1: none), ``PASS`` (1 or 2),
``SEVEN`` (a 7's privilege open), ``RLEN`` (cards taken up so far at the redeal),
``SCORE`` (cards on the foundations), ``LEN + k`` (packet ``k``'s length) and
``NEED + f`` (the rank foundation ``f`` takes next, 14: complete); then the current pack
in dealing order (``PACK``; at the redeal, once it is dealt out, the cards taken up so far)
and the "ids" observation (``OBS``), kept up to date by every change as the single env's
``PussState.obs`` is; its packet slots (``CORNERS + 48 k + j``: card + 1) are the packets.
``bits[i]`` holds the legal actions as bits, or -1 once the game is over.

The row layout and the move kernels are :mod:`patience_gym.vector.puss_kernels`, which the
batched greedy (:mod:`patience_gym.vector.puss_greedy`) shares; this module adds the batch kernels,
the observations and :class:`BatchedPuss`, and imports both (never the other way round).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from patience_gym.features.rules import layout as rl
from patience_gym.features.rules.puss import (
    FOUNDATION_KIND,
    HAND_KIND,
    ORDER_END,
    PACK_KIND,
    PACKET_KIND,
    PAIRS_KIND,
    SLOTS,
)
from patience_gym.games.puss import (
    _P_CORNER,
    _P_FOUND,
    _P_HAND,
    _P_PACK,
    _P_POS,
    _P_TOP,
    CORNER_TO_FOUNDATION,
    DEAL,
    FOUNDATION_SLOTS,
    FREE,
    MERGE,
    NON_ACES,
    NUM_ACTIONS,
    OBS_PACK,
    OBS_PHASE,
    OBS_SIZE,
    PACK_SIZE,
    PLACE,
    PLANE_WIDTH,
    PLANES_SIZE,
    REDEAL,
    TAKE,
    TO_CORNER,
    TO_FOUNDATION,
    PussState,
)
from patience_gym.vector import rng as vrng
from patience_gym.vector.base import BatchedGame, read_only
from patience_gym.vector.puss_greedy import greedy_kernel
from patience_gym.vector.puss_kernels import (
    _MERGE_COUNT,
    _MERGE_PAIRS,
    _PILE_A,
    _PILE_B,
    _RANK,
    CORNERS,
    HAND,
    LEN,
    NEED,
    OBS,
    OVER,
    PACK,
    PACK_LEN,
    PASS,
    POS,
    RLEN,
    SCORE,
    SEVEN,
    WIDTH,
    _apply,
    _legal_bits,
    _start,
)

# --- tables of the deal and the observations ---------------------------------
_NON_ACES = np.array(NON_ACES, dtype=np.int8)
#: ``_SPREAD[b]``: byte ``b``'s eight bits as the eight bytes of a uint64 (0 or 1 each, low bit first).
_SPREAD = np.array([sum((b >> j & 1) << (8 * j) for j in range(8)) for b in range(256)], dtype=np.uint64)
_PLANES_TAIL = 52 * PLANE_WIDTH
#: Planes of a position with every card in the pack (each card's "in pack" flag set).
_PLANES_PACK = np.zeros(_PLANES_TAIL, dtype=np.float32)
_PLANES_PACK[_P_PACK::PLANE_WIDTH] = 1.0
#: The planes' position value of the ``j``-th card of a packet (float32 as the single env rounds it).
_POSITION = np.array([j / (PACK_SIZE - 1) for j in range(PACK_SIZE)], dtype=np.float32)


# --- kernels --------------------------------------------------------------------
@njit(cache=True)
def _deal_kernel(g: np.ndarray, bits: np.ndarray, rng_states: np.ndarray, which: np.ndarray, forced: bool) -> None:
    """``PussInTheCorner.init(rng)`` in every env with ``which``: the pack ``NON_ACES[rng.permutation(48)]``."""
    order = np.empty(PACK_SIZE, dtype=np.int64)
    for i in range(which.shape[0]):
        if which[i]:
            vrng.permute(rng_states, i, order)
            for j in range(PACK_SIZE):
                g[i, PACK + j] = _NON_ACES[order[j]]
            _start(g, i)
            bits[i] = _legal_bits(g, i, forced)


@njit(cache=True)
def _given_deal_kernel(g: np.ndarray, bits: np.ndarray, rows: np.ndarray, packs: np.ndarray, forced: bool) -> None:
    """``PussInTheCorner.from_deal``: env ``rows[r]`` gets the pack ``packs[r]`` (top first)."""
    for r in range(rows.shape[0]):
        i = rows[r]
        for j in range(PACK_SIZE):
            g[i, PACK + j] = packs[r, j]
        _start(g, i)
        bits[i] = _legal_bits(g, i, forced)


@njit(cache=True)
def _step_kernel(
    g: np.ndarray, bits: np.ndarray, actions: np.ndarray, forced: bool, sevens_after: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The single env's ``step`` in every env: (reward, terminated, illegal).

    A masked-out or out-of-range action changes nothing and costs -1, as ``illegal_action="penalize"``.
    """
    n = actions.shape[0]
    reward = np.empty(n, dtype=np.float64)
    terminated = np.empty(n, dtype=np.bool_)
    illegal = np.empty(n, dtype=np.bool_)
    for i in range(n):
        a = actions[i]
        b = bits[i]
        if a < 0 or a >= NUM_ACTIONS or b == OVER or (b >> a) & 1 == 0:
            reward[i] = -1.0
            illegal[i] = True
        else:
            reward[i] = _apply(g, i, a, sevens_after)
            illegal[i] = False
            b = _legal_bits(g, i, forced)
            bits[i] = b
        terminated[i] = b == OVER
    return reward, terminated, illegal


@njit(cache=True)
def _masks_kernel(bits: np.ndarray) -> np.ndarray:
    """The masks as uint8 [N * NUM_ACTIONS] (0 where ``OVER``), eight actions per table look-up."""
    n = bits.shape[0]
    out = np.empty(n * NUM_ACTIONS, dtype=np.uint8)
    for i in range(n):
        b = bits[i] if bits[i] != OVER else 0
        base = i * NUM_ACTIONS
        for q in range(NUM_ACTIONS // 8):
            bytes8 = _SPREAD[(b >> (8 * q)) & 255]
            for j in range(8):
                out[base + 8 * q + j] = (bytes8 >> np.uint64(8 * j)) & np.uint64(255)
        for a in range(NUM_ACTIONS // 8 * 8, NUM_ACTIONS):
            out[base + a] = (b >> a) & 1
    return out


@njit(cache=True)
def _ids_kernel(g: np.ndarray) -> np.ndarray:
    """The "ids" observations, int8 [N, OBS_SIZE] (a plain loop copies faster than numpy's strided copy)."""
    out = np.empty((g.shape[0], OBS_SIZE), dtype=np.int8)
    for i in range(g.shape[0]):
        for j in range(OBS_SIZE):
            out[i, j] = g[i, OBS + j]
    return out


@njit(cache=True)
def _planes_kernel(g: np.ndarray, out: np.ndarray) -> None:
    """``PussInTheCorner._observe_planes`` of every env, every value written."""
    for i in range(g.shape[0]):
        for j in range(_PLANES_TAIL):
            out[i, j] = _PLANES_PACK[j]
        for f in range(4):
            for r in range(g[i, NEED + f] - 1):
                base = (g[i, OBS + f * FOUNDATION_SLOTS + r] - 1) * PLANE_WIDTH
                out[i, base + _P_PACK] = 0.0
                out[i, base + _P_FOUND + f] = 1.0
        for k in range(4):
            n = g[i, LEN + k]
            for j in range(n):
                base = (g[i, CORNERS + PACK_SIZE * k + j] - 1) * PLANE_WIDTH
                out[i, base + _P_PACK] = 0.0
                out[i, base + _P_CORNER + k] = 1.0
                out[i, base + _P_POS] = _POSITION[j]
            if n > 0:
                out[i, (g[i, CORNERS + PACK_SIZE * k + n - 1] - 1) * PLANE_WIDTH + _P_TOP] = 1.0
        hand = g[i, HAND]
        if hand >= 0:
            out[i, hand * PLANE_WIDTH + _P_PACK] = 0.0
            out[i, hand * PLANE_WIDTH + _P_HAND] = 1.0
        phase = g[i, OBS + OBS_PHASE]
        out[i, _PLANES_TAIL] = g[i, OBS + OBS_PACK] / PACK_SIZE
        out[i, _PLANES_TAIL + 1] = g[i, PASS] == 2
        out[i, _PLANES_TAIL + 2] = phase == FREE
        out[i, _PLANES_TAIL + 3] = phase == PLACE
        out[i, _PLANES_TAIL + 4] = phase == REDEAL
        out[i, _PLANES_TAIL + 5] = g[i, SEVEN] != 0


@njit(cache=True, inline="always")
def _popcount(bits: int) -> int:
    n = 0
    while bits:
        bits &= bits - 1
        n += 1
    return n


@njit(cache=True, inline="always")
def _wait(g: np.ndarray, i: int, card: int) -> float:
    """``rules.puss.wait``: the cards the foundations of ``card``'s colour need before it, / 13."""
    rank = _RANK[card]
    best = 13
    for f in (_PILE_A[card], _PILE_B[card]):
        need = int(g[i, NEED + f])
        if need <= rank:
            best = min(best, rank - need)
    return best / 13


@njit(cache=True)
def _rules_row(
    g: np.ndarray,
    i: int,
    a: int,
    out: np.ndarray,
    o: int,
    scratch: np.ndarray,
    forced: bool,
    sevens_after: bool,
    slots: int,
) -> None:
    """``rules.puss.move_row`` of the legal action ``a`` of env ``i``, into ``out[i, o : o + ROW]`` (zeroed)."""
    out[i, o + rl.ACTION] = (a + 1) / NUM_ACTIONS
    if a == DEAL and g[i, PASS] == 1:
        left = int(g[i, PACK_LEN]) - int(g[i, POS]) - 1
        out[i, o + rl.SOURCE_KIND] = PACK_KIND
        out[i, o + rl.DEST_KIND] = HAND_KIND
        out[i, o + rl.MOVED] = rl.HIDDEN_CARD
        out[i, o + rl.MOVED_TOP] = rl.HIDDEN_CARD
        out[i, o + rl.UNCOVERS] = rl.HIDDEN_CARD if left > 0 else rl.NO_CARD
        for j in range(min(rl.NEXT_CARDS, max(left - 1, 0))):
            out[i, o + rl.SOURCE_NEXT + j] = rl.HIDDEN_CARD
        out[i, o + rl.COUNT] = 1 / 52
        out[i, o + rl.SOURCE_LEFT] = left / 52
        out[i, o + rl.DEST_AFTER] = 1 / 52
        out[i, o + rl.REVEALS] = 1.0
        out[i, o + rl.GAME_VALUE] = left / PACK_SIZE
        return
    for j in range(WIDTH):  # (a loop: numba's slice copy allocates)
        scratch[0, j] = g[i, j]
    _apply(scratch, 0, a, sevens_after)
    after = _legal_bits(scratch, 0, forced)
    stock = int(scratch[0, OBS + OBS_PACK])
    out[i, o + rl.AFTER_LEGAL] = min(1.0, (0 if after == OVER else _popcount(after)) / slots)
    out[i, o + rl.GAME_VALUE] = stock / PACK_SIZE
    count = 1
    f = -1
    moved = -1
    if a == DEAL:  # the second pass: the pack's order is remembered
        pos = int(g[i, POS])
        left = int(g[i, PACK_LEN]) - pos - 1
        moved = int(g[i, PACK + pos])
        out[i, o + rl.SOURCE_KIND] = PACK_KIND
        out[i, o + rl.DEST_KIND] = HAND_KIND
        out[i, o + rl.UNCOVERS] = g[i, PACK + pos + 1] + 1 if left > 0 else rl.NO_CARD
        for j in range(min(rl.NEXT_CARDS, max(left - 1, 0))):
            out[i, o + rl.SOURCE_NEXT + j] = g[i, PACK + pos + 2 + j] + 1
        out[i, o + rl.SOURCE_LEFT] = left / 52
        out[i, o + rl.DEST_AFTER] = 1 / 52
    elif a < CORNER_TO_FOUNDATION:
        moved = int(g[i, HAND])
        out[i, o + rl.SOURCE_KIND] = HAND_KIND
        if a < TO_FOUNDATION:
            k = a - TO_CORNER
            n = int(g[i, LEN + k])
            out[i, o + rl.DEST_KIND] = PACKET_KIND
            out[i, o + rl.DEST_INDEX] = k
            out[i, o + rl.ONTO] = g[i, CORNERS + PACK_SIZE * k + n - 1] if n > 0 else rl.NO_CARD
            out[i, o + rl.DEST_AFTER] = (n + 1) / 52
        else:
            f = a - TO_FOUNDATION
    elif a < MERGE:
        k = (a - CORNER_TO_FOUNDATION) // 4
        f = (a - CORNER_TO_FOUNDATION) % 4
        n = int(g[i, LEN + k])
        base = CORNERS + PACK_SIZE * k
        moved = int(g[i, base + n - 1]) - 1
        out[i, o + rl.SOURCE_KIND] = PACKET_KIND
        out[i, o + rl.SOURCE_INDEX] = k
        out[i, o + rl.UNCOVERS] = g[i, base + n - 2] if n > 1 else rl.NO_CARD
        for j in range(min(rl.NEXT_CARDS, max(n - 2, 0))):
            out[i, o + rl.SOURCE_NEXT + j] = g[i, base + n - 3 - j]
        out[i, o + rl.SOURCE_LEFT] = (n - 1) / 52
    elif a < TAKE:
        m = a - MERGE
        upper = _MERGE_PAIRS[m, 0, 0]
        lower = _MERGE_PAIRS[m, 0, 1]
        nu = int(g[i, LEN + upper])
        nl = int(g[i, LEN + lower])
        moved = int(g[i, CORNERS + PACK_SIZE * upper]) - 1
        kind = PACKET_KIND if _MERGE_COUNT[m] == 1 else PAIRS_KIND
        out[i, o + rl.SOURCE_KIND] = kind
        out[i, o + rl.DEST_KIND] = kind
        out[i, o + rl.SOURCE_INDEX] = upper
        out[i, o + rl.DEST_INDEX] = lower
        out[i, o + rl.MOVED_TOP] = g[i, CORNERS + PACK_SIZE * upper + nu - 1]
        out[i, o + rl.ONTO] = g[i, CORNERS + PACK_SIZE * lower + nl - 1]
        count = 0
        for j in range(_MERGE_COUNT[m]):
            count += int(g[i, LEN + _MERGE_PAIRS[m, j, 0]])
        out[i, o + rl.DEST_AFTER] = (nl + nu) / 52
    else:
        k = a - TAKE
        n = int(g[i, LEN + k])
        base = CORNERS + PACK_SIZE * k
        moved = int(g[i, base]) - 1
        out[i, o + rl.SOURCE_KIND] = PACKET_KIND
        out[i, o + rl.SOURCE_INDEX] = k
        out[i, o + rl.DEST_KIND] = PACK_KIND
        out[i, o + rl.MOVED_TOP] = g[i, base + n - 1]
        r = int(g[i, RLEN])
        out[i, o + rl.ONTO] = g[i, PACK + r - 1] + 1 if r > 0 else rl.NO_CARD
        for j in range(min(rl.NEXT_CARDS, n)):
            out[i, o + rl.SOURCE_NEXT + j] = g[i, base + j]
        count = 0
        for c in range(4):
            count += int(g[i, LEN + c]) - int(scratch[0, LEN + c])
        out[i, o + rl.DEST_AFTER] = stock / 52
    if f >= 0:
        height = int(g[i, NEED + f])  # the pile's height after the move
        out[i, o + rl.DEST_KIND] = FOUNDATION_KIND
        out[i, o + rl.DEST_INDEX] = f
        out[i, o + rl.ONTO] = g[i, OBS + f * FOUNDATION_SLOTS + height - 2]
        out[i, o + rl.FOUNDATION] = height / 13
        out[i, o + rl.DEST_AFTER] = height / 52
    out[i, o + rl.MOVED] = moved + 1
    if a < MERGE:
        out[i, o + rl.MOVED_TOP] = moved + 1
    out[i, o + rl.COUNT] = count / 52
    out[i, o + rl.WAIT] = _wait(g, i, moved)


@njit(cache=True)
def _rules_kernel(g: np.ndarray, bits: np.ndarray, out: np.ndarray, forced: bool, sevens_after: bool) -> None:
    """``RulesMovesObserver.observe`` after the planes (``_planes_kernel``) of every env, every value written."""
    slots = (out.shape[1] - ORDER_END - rl.POSITION_VALUES) // rl.ROW
    scratch = np.empty((1, WIDTH), dtype=np.int8)
    for i in range(g.shape[0]):
        out[i, PLANES_SIZE:] = 0.0  # (a slice: numba vectorizes it, not the loop)
        # ``write_pack_order``: the second pass's pack from POS, or the cards taken up so far
        start = int(g[i, POS]) if g[i, PASS] == 2 else 0
        end = int(g[i, PACK_LEN]) if g[i, PASS] == 2 else int(g[i, RLEN])
        for j in range(end - start):
            out[i, PLANES_SIZE + g[i, PACK + start + j]] = (PACK_SIZE - j) / PACK_SIZE
        b = bits[i]
        if b == OVER:
            b = 0
        n = _popcount(b)
        out[i, ORDER_END] = 1.0 if n > slots else 0.0
        out[i, ORDER_END + 1] = min(1.0, n / slots)
        o = ORDER_END + rl.POSITION_VALUES
        for a in range(NUM_ACTIONS):
            if b >> a == 0 or o == out.shape[1]:
                break
            if (b >> a) & 1:
                _rules_row(g, i, a, out, o, scratch, forced, sevens_after, slots)
                o += rl.ROW


# --- the batched game ---------------------------------------------------------
class BatchedPuss(BatchedGame):
    """``patience_gym/PussInTheCorner-v0`` for ``num_envs`` games at once (``ids``, ``planes``, ``rules_moves``)."""

    env_id = "patience_gym/PussInTheCorner-v0"
    game_name = "puss_in_the_corner"
    encodings = ("ids", "planes", rl.ENCODING)

    def __init__(self, num_envs: int, obs_encoding: str | None = None, **rule_options: Any) -> None:
        super().__init__(num_envs, obs_encoding, **rule_options)
        self._forced = bool(self.options.forced_foundation)
        self._sevens_after = bool(self.options.sevens_after_placing)
        self._g = np.zeros((self.num_envs, WIDTH), dtype=np.int8)
        self._bits = np.full(self.num_envs, OVER, dtype=np.int64)
        self._dealt = np.zeros(self.num_envs, dtype=np.bool_)
        self._all_dealt = False
        self._masks: np.ndarray | None = None  # made on demand, dropped by every change

    def reset(self, which: np.ndarray) -> None:
        which = self.check_vector(which, "which", np.bool_)
        _deal_kernel(self._g, self._bits, self.rng_states, which, self._forced)
        self._changed(which)

    def deal(self, which: np.ndarray, packs: np.ndarray) -> None:
        """Deal ``packs[r]`` (the 48 non-Ace card ids, top first) in the ``r``-th env with ``which``,
        as the single env's ``reset(options={"deal": ...})`` does; the envs' RNGs are untouched."""
        which = self.check_vector(which, "which", np.bool_)
        rows = np.flatnonzero(which)
        packs = np.asarray(packs)
        if packs.shape != (len(rows), PACK_SIZE) or packs.dtype.kind not in "iu":
            raise ValueError(
                f"packs must be an integer array of shape ({len(rows)}, {PACK_SIZE}), one pack per env dealt; "
                f"got {packs.dtype} {packs.shape}"
            )
        for r, row in enumerate(packs):
            if not np.array_equal(np.sort(row), _NON_ACES):
                raise ValueError(f"packs[{r}] must hold the 48 cards other than the Aces once each (card ids 0..51)")
        _given_deal_kernel(self._g, self._bits, rows, packs.astype(np.int8), self._forced)
        self._changed(which)

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        actions = self.check_vector(actions, "actions", np.int64)
        if not self._all_dealt:
            missing = np.flatnonzero(~self._dealt)[:5].tolist()
            raise RuntimeError(f"call reset() on every env before step(); envs {missing} have no game yet")
        result: tuple[np.ndarray, np.ndarray, np.ndarray] = _step_kernel(
            self._g, self._bits, actions, self._forced, self._sevens_after
        )
        self._masks = None
        return result

    def legal(self) -> np.ndarray:
        """The engine's legal actions, bool [N, 53], read-only; the same array until the next step or reset."""
        if self._masks is None:
            self._masks = read_only(_masks_kernel(self._bits).reshape(self.num_envs, NUM_ACTIONS).view(np.bool_))
        return self._masks

    def observe(self) -> np.ndarray:
        if self.obs_encoding == "ids":
            ids: np.ndarray = _ids_kernel(self._g)
            return ids
        if self.obs_encoding == "planes":
            out = np.empty((self.num_envs, PLANES_SIZE), dtype=np.float32)
            _planes_kernel(self._g, out)
            return out
        out = np.empty((self.num_envs, rl.size(ORDER_END, SLOTS)), dtype=np.float32)
        _planes_kernel(self._g, out)
        _rules_kernel(self._g, self._bits, out, self._forced, self._sevens_after)
        return out

    has_greedy = True

    def greedy_moves(self, which: np.ndarray | None = None) -> np.ndarray:
        rows = self._greedy_rows(which)
        out = np.zeros(self.num_envs, dtype=np.int64)
        greedy_kernel(rows, self._g, self._bits, self._forced, self._sevens_after, out)
        return out

    def scores(self) -> np.ndarray:
        return self._g[:, SCORE].astype(np.float64)

    def won(self) -> np.ndarray:
        return self._g[:, SCORE] == 52

    def rules_state(self, i: int) -> PussState:
        g = self._g[i].tolist()
        obs = g[OBS : OBS + OBS_SIZE]
        need = g[NEED : NEED + 4]
        foundations = [[obs[f * FOUNDATION_SLOTS + r] - 1 for r in range(need[f] - 1)] for f in range(4)]
        corners = [[c - 1 for c in g[CORNERS + PACK_SIZE * k : CORNERS + PACK_SIZE * k + g[LEN + k]]] for k in range(4)]
        redeal = g[PACK : PACK + g[RLEN]]  # at the redeal, the pack's place holds the cards taken up
        pack = () if redeal else tuple(g[PACK + g[POS] : PACK + g[PACK_LEN]])
        return PussState(foundations, corners, pack, 0, g[HAND], g[PASS], bool(g[SEVEN]), redeal, self.game.rules)

    def load_state(self, i: int, state: PussState) -> None:
        self.game.check_state(state)
        g = self._g[i]
        g[:] = 0
        g[OBS : OBS + OBS_SIZE] = state.obs  # its packet slots are the packets
        pack = state.redeal or state.pack[state.pos :]
        g[PACK : PACK + len(pack)] = pack
        g[RLEN] = len(state.redeal)
        g[PACK_LEN] = 0 if state.redeal else len(pack)
        g[HAND], g[PASS], g[SEVEN], g[SCORE] = state.hand, state.pass_no, state.seven, state.score
        g[LEN : LEN + 4] = [len(c) for c in state.corners]
        g[NEED : NEED + 4] = state.need
        self._bits[i] = _legal_bits(self._g, i, self._forced)
        self._changed(np.arange(self.num_envs) == i)

    def _changed(self, which: np.ndarray) -> None:
        self._masks = None
        if not self._all_dealt:
            self._dealt |= which
            self._all_dealt = bool(self._dealt.all())
