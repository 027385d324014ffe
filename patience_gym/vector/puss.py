"""Puss in the Corner as a batched engine: N games in numpy arrays, stepped by numba kernels.

The reference is :class:`patience_gym.games.puss.PussInTheCorner` (the single env);
every kernel here mirrors one of its methods, and ``tests/test_vector_puss.py``
replays thousands of trajectories through both, bit for bit.

State of env ``i`` (all arrays indexed by ``i`` first):

* ``s[i]`` (int32): ``POS`` cards dealt from the current pack, ``PACK_LEN`` its length,
  ``HAND`` the dealt card awaiting placement (-1: none), ``PASS`` 1 or 2, ``SEVEN``
  the 7's privilege open, ``RLEN`` cards taken up so far at the redeal, ``SCORE``
  cards on the foundations, ``LEN + k`` packet ``k``'s length, ``NEED + f`` the rank
  foundation ``f`` takes next (14: complete);
* ``corners[i, k]`` packet ``k`` bottom first; ``pack[i]`` the current pack in dealing
  order; ``redeal[i]`` the cards taken up so far (the next pack's order);
* ``obs[i]`` the "ids" observation, kept up to date by every change as the single
  env's ``PussState.obs`` is;
* ``bits[i]`` the legal actions as bits (0 once the game is over), ``over[i]``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from patience_gym.cards import RANK, RED
from patience_gym.games.puss import (
    ACES,
    CORNER_TO_FOUNDATION,
    FOUNDATION_RED,
    FOUNDATION_SLOTS,
    MERGE,
    MERGES,
    NON_ACES,
    NUM_ACTIONS,
    OBS_CORNERS,
    OBS_HAND,
    OBS_PACK,
    OBS_PASS,
    OBS_PHASE,
    OBS_SEVEN,
    OBS_SIZE,
    PACK_SIZE,
    PLACE,
    PLANE_WIDTH,
    PLANES_SIZE,
    REDEAL,
    TAKE,
    TO_CORNER,
    TO_FOUNDATION,
)
from patience_gym.vector import rng as vrng
from patience_gym.vector.base import BatchedGame, make_vector_env

# --- state columns of ``s`` ---------------------------------------------------
POS, PACK_LEN, HAND, PASS, SEVEN, RLEN, SCORE, LEN, NEED = 0, 1, 2, 3, 4, 5, 6, 7, 11
NUM_COLUMNS = 15

# --- tables (frozen into the kernels as constants) ----------------------------
_RANK = np.array(RANK, dtype=np.int64)
_RED = np.array(RED, dtype=np.bool_)
_FOUNDATION_RED = np.array(FOUNDATION_RED, dtype=np.bool_)
_ACES = np.array(ACES, dtype=np.int64)
_NON_ACES = np.array(NON_ACES, dtype=np.int8)
#: ``_MERGE_PAIRS[m, j]`` = (upper, lower) of merge ``m``'s ``j``-th pair; ``_MERGE_COUNT[m]`` pairs.
_MERGE_PAIRS = np.zeros((len(MERGES), 2, 2), dtype=np.int64)
_MERGE_COUNT = np.array([len(pairs) for pairs in MERGES], dtype=np.int64)
for _m, _pairs in enumerate(MERGES):
    _MERGE_PAIRS[_m, : len(_pairs)] = _pairs
#: ``_MERGE_BITS[nonempty]``: the merge actions allowed when the packets in ``nonempty`` (bit k) hold cards.
_MERGE_BITS = np.array(
    [
        sum(
            1 << (MERGE + m)
            for m, pairs in enumerate(MERGES)
            if all(nonempty >> x & 1 and nonempty >> y & 1 for x, y in pairs)
        )
        for nonempty in range(16)
    ],
    dtype=np.int64,
)
#: The planes' position value of the ``i``-th card of a packet (float32 as the single env rounds it).
_POSITION = np.array([i / (PACK_SIZE - 1) for i in range(PACK_SIZE)], dtype=np.float32)
_P_PACK, _P_HAND, _P_FOUND, _P_CORNER, _P_TOP, _P_POS = 0, 1, 2, 6, 10, 11
_PLANES_TAIL = 52 * PLANE_WIDTH


# --- kernels ------------------------------------------------------------------
@njit(cache=True, inline="always")
def _fit(s: np.ndarray, i: int, card: int) -> int:
    """Bit ``f`` set where ``card`` fits foundation ``f`` now (f2, f3 red; f1, f4 black)."""
    rank = _RANK[card]
    if _RED[card]:
        return (s[i, NEED + 1] == rank) << 1 | (s[i, NEED + 2] == rank) << 2
    return (s[i, NEED] == rank) | (s[i, NEED + 3] == rank) << 3


@njit(cache=True, inline="always")
def _refresh(s: np.ndarray, corners: np.ndarray, bits: np.ndarray, over: np.ndarray, i: int, forced: bool) -> None:
    """The single env's ``_refresh``: ``PussInTheCorner.is_over``, else its ``_bits`` (the legal actions)."""
    over[i] = False
    if s[i, SCORE] == 52:
        over[i] = True
        bits[i] = 0
        return
    nonempty = 0
    plays = 0  # packet tops onto the foundations
    for k in range(4):
        n = s[i, LEN + k]
        if n > 0:
            nonempty |= 1 << k
            plays |= _fit(s, i, corners[i, k, n - 1]) << (CORNER_TO_FOUNDATION + 4 * k)
    hand = s[i, HAND]
    if hand >= 0:
        fits = _fit(s, i, hand)
        b = fits << TO_FOUNDATION
        if not (fits != 0 and forced):
            b |= 0b1111 << TO_CORNER
    elif s[i, RLEN] > 0:
        bits[i] = nonempty << TAKE
        return
    else:
        b = plays
        if s[i, POS] < s[i, PACK_LEN]:
            b |= 1
        elif s[i, PASS] == 1:
            b |= nonempty << TAKE
        elif plays == 0:  # the second pass is out and nothing plays: the game is over
            over[i] = True
            bits[i] = 0
            return
    if s[i, SEVEN]:
        b |= _MERGE_BITS[nonempty]
    bits[i] = b


@njit(cache=True, inline="always")
def _to_foundation(s: np.ndarray, obs: np.ndarray, i: int, f: int, card: int) -> None:
    rank = _RANK[card]
    obs[i, f * FOUNDATION_SLOTS + rank - 1] = card + 1
    s[i, SCORE] += 1
    s[i, NEED + f] = rank + 1


@njit(cache=True, inline="always")
def _hand_placed(s: np.ndarray, obs: np.ndarray, i: int, sevens_after: bool) -> None:
    s[i, HAND] = -1
    obs[i, OBS_HAND] = 0
    obs[i, OBS_PHASE] = 0
    if s[i, SEVEN] and not sevens_after:
        s[i, SEVEN] = 0
        obs[i, OBS_SEVEN] = 0


@njit(cache=True, inline="always")
def _merge(s: np.ndarray, corners: np.ndarray, obs: np.ndarray, i: int, upper: int, lower: int) -> None:
    """Put packet ``upper`` on packet ``lower``, keeping both in order."""
    n = s[i, LEN + upper]
    start = s[i, LEN + lower]
    for j in range(n):
        card = corners[i, upper, j]
        corners[i, lower, start + j] = card
        obs[i, OBS_CORNERS + lower * PACK_SIZE + start + j] = card + 1
        obs[i, OBS_CORNERS + upper * PACK_SIZE + j] = 0
    s[i, LEN + lower] = start + n
    s[i, LEN + upper] = 0


@njit(cache=True, inline="always")
def _take_up(s: np.ndarray, corners: np.ndarray, pack: np.ndarray, redeal: np.ndarray, obs: np.ndarray, i: int, k: int):
    """Take packet ``k`` up next; the last packet left follows at once, and the second pass starts."""
    s[i, SEVEN] = 0
    obs[i, OBS_SEVEN] = 0
    for _ in range(2):
        r = s[i, RLEN]
        n = s[i, LEN + k]
        for j in range(n):
            redeal[i, r + j] = corners[i, k, j]
            obs[i, OBS_CORNERS + k * PACK_SIZE + j] = 0
        s[i, RLEN] = r + n
        s[i, LEN + k] = 0
        left = 0
        last = -1
        for c in range(4):
            if s[i, LEN + c] > 0:
                left += 1
                last = c
        if left != 1:
            break
        k = last
    for c in range(4):
        if s[i, LEN + c] > 0:
            obs[i, OBS_PHASE] = REDEAL
            obs[i, OBS_PACK] = s[i, RLEN]
            return
    n = s[i, RLEN]
    for j in range(n):
        pack[i, j] = redeal[i, j]
    s[i, PACK_LEN] = n
    s[i, POS] = 0
    s[i, RLEN] = 0
    s[i, PASS] = 2
    obs[i, OBS_PASS] = 2
    obs[i, OBS_PHASE] = 0
    obs[i, OBS_PACK] = n


@njit(cache=True, inline="always")
def _apply(
    s: np.ndarray,
    corners: np.ndarray,
    pack: np.ndarray,
    redeal: np.ndarray,
    obs: np.ndarray,
    i: int,
    action: int,
    sevens_after: bool,
) -> float:
    """``PussInTheCorner.apply`` of a legal ``action`` in env ``i``."""
    if action == 0:
        card = pack[i, s[i, POS]]
        s[i, POS] += 1
        s[i, HAND] = card
        obs[i, OBS_HAND] = card + 1
        obs[i, OBS_PACK] = s[i, PACK_LEN] - s[i, POS]
        obs[i, OBS_PHASE] = PLACE
        seven = 1 if _RANK[card] == 7 else 0
        s[i, SEVEN] = seven
        obs[i, OBS_SEVEN] = seven
        return 0.0
    if action < TO_FOUNDATION:
        k = action - TO_CORNER
        n = s[i, LEN + k]
        corners[i, k, n] = s[i, HAND]
        obs[i, OBS_CORNERS + k * PACK_SIZE + n] = s[i, HAND] + 1
        s[i, LEN + k] = n + 1
        _hand_placed(s, obs, i, sevens_after)
        return 0.0
    if action < CORNER_TO_FOUNDATION:
        _to_foundation(s, obs, i, action - TO_FOUNDATION, s[i, HAND])
        _hand_placed(s, obs, i, sevens_after)
        return 1.0
    if action < MERGE:
        k = (action - CORNER_TO_FOUNDATION) // 4
        f = (action - CORNER_TO_FOUNDATION) % 4
        n = s[i, LEN + k] - 1
        obs[i, OBS_CORNERS + k * PACK_SIZE + n] = 0
        s[i, LEN + k] = n
        _to_foundation(s, obs, i, f, corners[i, k, n])
        return 1.0
    if action < TAKE:
        m = action - MERGE
        for j in range(_MERGE_COUNT[m]):
            _merge(s, corners, obs, i, _MERGE_PAIRS[m, j, 0], _MERGE_PAIRS[m, j, 1])
        s[i, SEVEN] = 0
        obs[i, OBS_SEVEN] = 0
        return 0.0
    _take_up(s, corners, pack, redeal, obs, i, action - TAKE)
    return 0.0


@njit(cache=True)
def _reset_kernel(
    s: np.ndarray,
    corners: np.ndarray,
    pack: np.ndarray,
    obs: np.ndarray,
    bits: np.ndarray,
    over: np.ndarray,
    rows: np.ndarray,
    packs: np.ndarray,
    forced: bool,
) -> None:
    """``PussInTheCorner._start``: env ``rows[r]`` gets the pack ``packs[r]`` (top first)."""
    for r in range(rows.shape[0]):
        i = rows[r]
        for j in range(PACK_SIZE):
            pack[i, j] = packs[r, j]
        _start(s, corners, obs, bits, over, i, forced)


@njit(cache=True)
def _deal_kernel(
    s: np.ndarray,
    corners: np.ndarray,
    pack: np.ndarray,
    obs: np.ndarray,
    bits: np.ndarray,
    over: np.ndarray,
    rng_states: np.ndarray,
    which: np.ndarray,
    forced: bool,
) -> None:
    """``PussInTheCorner.init(rng)`` in every env with ``which``: the pack ``NON_ACES[rng.permutation(48)]``."""
    order = np.empty(PACK_SIZE, dtype=np.int64)
    for i in range(which.shape[0]):
        if which[i]:
            vrng.permute(rng_states, i, order)
            for j in range(PACK_SIZE):
                pack[i, j] = _NON_ACES[order[j]]
            _start(s, corners, obs, bits, over, i, forced)


@njit(cache=True, inline="always")
def _start(
    s: np.ndarray, corners: np.ndarray, obs: np.ndarray, bits: np.ndarray, over: np.ndarray, i: int, forced: bool
) -> None:
    """Env ``i``'s first position for the pack in ``pack[i]``: the Aces out, the packets empty."""
    s[i, :] = 0
    obs[i, :] = 0
    for f in range(4):
        s[i, NEED + f] = 2
        obs[i, f * FOUNDATION_SLOTS] = _ACES[f] + 1
    s[i, PACK_LEN] = PACK_SIZE
    s[i, HAND] = -1
    s[i, PASS] = 1
    s[i, SCORE] = 4
    obs[i, OBS_PACK] = PACK_SIZE
    obs[i, OBS_PASS] = 1
    _refresh(s, corners, bits, over, i, forced)


@njit(cache=True)
def _step_kernel(
    s: np.ndarray,
    corners: np.ndarray,
    pack: np.ndarray,
    redeal: np.ndarray,
    obs: np.ndarray,
    bits: np.ndarray,
    over: np.ndarray,
    actions: np.ndarray,
    forced: bool,
    sevens_after: bool,
    reward: np.ndarray,
    terminated: np.ndarray,
    illegal: np.ndarray,
) -> None:
    """The single env's ``step`` in every env; an illegal action changes nothing and costs -1."""
    for i in range(actions.shape[0]):
        a = actions[i]
        if a < 0 or a >= NUM_ACTIONS or (bits[i] >> a) & 1 == 0:
            reward[i] = -1.0
            illegal[i] = True
        else:
            reward[i] = _apply(s, corners, pack, redeal, obs, i, a, sevens_after)
            illegal[i] = False
            _refresh(s, corners, bits, over, i, forced)
        terminated[i] = over[i]


@njit(cache=True)
def _masks_kernel(bits: np.ndarray, out: np.ndarray) -> None:
    for i in range(bits.shape[0]):
        b = bits[i]
        for a in range(NUM_ACTIONS):
            out[i, a] = (b >> a) & 1


@njit(cache=True)
def _planes_kernel(s: np.ndarray, corners: np.ndarray, obs: np.ndarray, out: np.ndarray) -> None:
    """``PussInTheCorner._observe_planes`` of every env."""
    for i in range(s.shape[0]):
        p = out[i]
        p[:] = 0.0
        for c in range(52):
            p[c * PLANE_WIDTH + _P_PACK] = 1.0
        for f in range(4):
            for r in range(s[i, NEED + f] - 1):
                card = obs[i, f * FOUNDATION_SLOTS + r] - 1
                p[card * PLANE_WIDTH + _P_FOUND + f] = 1.0
                p[card * PLANE_WIDTH + _P_PACK] = 0.0
        for k in range(4):
            n = s[i, LEN + k]
            for j in range(n):
                base = corners[i, k, j] * PLANE_WIDTH
                p[base + _P_CORNER + k] = 1.0
                p[base + _P_POS] = _POSITION[j]
                p[base + _P_PACK] = 0.0
            if n > 0:
                p[corners[i, k, n - 1] * PLANE_WIDTH + _P_TOP] = 1.0
        hand = s[i, HAND]
        if hand >= 0:
            p[hand * PLANE_WIDTH + _P_PACK] = 0.0
            p[hand * PLANE_WIDTH + _P_HAND] = 1.0
        p[_PLANES_TAIL] = obs[i, OBS_PACK] / PACK_SIZE
        p[_PLANES_TAIL + 1] = 1.0 if s[i, PASS] == 2 else 0.0
        p[_PLANES_TAIL + 2 + obs[i, OBS_PHASE]] = 1.0
        p[_PLANES_TAIL + 5] = 1.0 if s[i, SEVEN] else 0.0


# --- the batched game ---------------------------------------------------------
class BatchedPuss(BatchedGame):
    """``patience_gym/PussInTheCorner-v0`` for ``num_envs`` games at once (``ids`` and ``planes``)."""

    env_id = "patience_gym/PussInTheCorner-v0"
    game_name = "puss_in_the_corner"
    encodings = ("ids", "planes")

    def __init__(self, num_envs: int, obs_encoding: str | None = None, **rule_options: Any) -> None:
        super().__init__(num_envs, obs_encoding, **rule_options)
        n = self.num_envs
        self._forced = bool(self.options.forced_foundation)
        self._sevens_after = bool(self.options.sevens_after_placing)
        self._s = np.zeros((n, NUM_COLUMNS), dtype=np.int32)
        self._corners = np.zeros((n, 4, PACK_SIZE), dtype=np.int8)
        self._pack = np.zeros((n, PACK_SIZE), dtype=np.int8)
        self._redeal = np.zeros((n, PACK_SIZE), dtype=np.int8)
        self._obs = np.zeros((n, OBS_SIZE), dtype=np.int8)
        self._bits = np.zeros(n, dtype=np.int64)
        self._over = np.ones(n, dtype=np.bool_)
        self._dealt = np.zeros(n, dtype=np.bool_)

    def reset(self, which: np.ndarray) -> None:
        which = self._check_vector(which, "which", np.bool_)
        _deal_kernel(
            self._s, self._corners, self._pack, self._obs, self._bits, self._over, self.rng_states, which, self._forced
        )
        self._dealt |= which

    def deal(self, which: np.ndarray, packs: np.ndarray) -> None:
        """Deal ``packs[r]`` (the 48 non-Ace card ids, top first) in the ``r``-th env with ``which``,
        as the single env's ``reset(options={"deal": ...})`` does; the envs' RNGs are untouched."""
        which = self._check_vector(which, "which", np.bool_)
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
        _reset_kernel(
            self._s,
            self._corners,
            self._pack,
            self._obs,
            self._bits,
            self._over,
            rows,
            packs.astype(np.int8),
            self._forced,
        )
        self._dealt |= which

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        actions = self._check_vector(actions, "actions", np.int64)
        if not self._dealt.all():
            missing = np.flatnonzero(~self._dealt)[:5].tolist()
            raise RuntimeError(f"call reset() on every env before step(); envs {missing} have no game yet")
        n = self.num_envs
        reward = np.empty(n, dtype=np.float64)
        terminated = np.empty(n, dtype=np.bool_)
        illegal = np.empty(n, dtype=np.bool_)
        _step_kernel(
            self._s, self._corners, self._pack, self._redeal, self._obs, self._bits, self._over, actions,
            self._forced, self._sevens_after, reward, terminated, illegal,
        )  # fmt: skip
        return reward, terminated, illegal

    def masks(self) -> np.ndarray:
        out = np.empty((self.num_envs, NUM_ACTIONS), dtype=np.bool_)
        _masks_kernel(self._bits, out)
        return out

    def observe(self) -> np.ndarray:
        if self.obs_encoding == "ids":
            return self._obs.copy()
        out = np.empty((self.num_envs, PLANES_SIZE), dtype=np.float32)
        _planes_kernel(self._s, self._corners, self._obs, out)
        return out

    def scores(self) -> np.ndarray:
        return self._s[:, SCORE].astype(np.float64)

    def won(self) -> np.ndarray:
        return self._s[:, SCORE] == 52

    def _check_vector(self, value: Any, name: str, dtype: type) -> np.ndarray:
        """``value`` as a [num_envs] array of ``dtype``; a clear error naming a wrong shape or dtype."""
        arr = np.asarray(value)
        if arr.shape != (self.num_envs,):
            raise ValueError(f"{name} must have shape ({self.num_envs},), got {arr.shape}")
        if dtype is np.bool_ and arr.dtype != np.bool_:
            raise TypeError(f"{name} must be bool, got dtype {arr.dtype}")
        if dtype is not np.bool_ and (arr.dtype == np.bool_ or arr.dtype.kind not in "iu"):
            raise TypeError(f"{name} must be integers, got dtype {arr.dtype}")
        return np.ascontiguousarray(arr, dtype=dtype)


def PussInTheCornerEnv(num_envs: int = 1, **kwargs: Any) -> Any:
    """``vector_entry_point`` of ``patience_gym/PussInTheCorner-v0``: a ``BatchedVectorEnv`` over ``BatchedPuss``."""
    return make_vector_env(BatchedPuss, num_envs, **kwargs)
