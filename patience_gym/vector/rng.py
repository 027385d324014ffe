"""numpy-exact deck shuffles inside numba kernels.

Every env's deal RNG is a ``numpy.random.Generator(PCG64)`` as gymnasium's
``seeding.np_random`` makes it. Here its whole state lives in one row of a
``uint64`` array (:data:`STATE_WIDTH` columns: the 128-bit LCG state and
increment as high/low halves, then PCG64's buffered 32-bit half), and
:func:`permute` reimplements ``Generator.permutation(n)`` bit for bit: PCG64's
XSL-RR output, its ``next_uint32`` buffering, and numpy's ``shuffle`` (a
Fisher-Yates pass drawing with ``random_interval``'s masked rejection).
"""

from __future__ import annotations

from collections.abc import Sequence

import numba
import numpy as np
from gymnasium.utils import seeding

#: Columns of a state row: LCG state (hi, lo), increment (hi, lo), has_uint32, uinteger.
STATE_WIDTH = 6
_HI, _LO, _INC_HI, _INC_LO, _HAS32, _UINT = range(STATE_WIDTH)

_MULT_HI = np.uint64(2549297995355413924)
_MULT_LO = np.uint64(4865540595714422341)
_M32 = np.uint64(0xFFFFFFFF)
_M64 = (1 << 64) - 1
_U0 = np.uint64(0)
_U1 = np.uint64(1)
_U2 = np.uint64(2)
_U4 = np.uint64(4)
_U8 = np.uint64(8)
_U16 = np.uint64(16)
_U32 = np.uint64(32)
_U58 = np.uint64(58)
_U63 = np.uint64(63)
_U64 = np.uint64(64)


@numba.njit(cache=True, inline="always")
def _mulhi(a: np.uint64, b: np.uint64) -> np.uint64:
    """High 64 bits of the 128-bit product ``a * b``."""
    a0 = a & _M32
    a1 = a >> _U32
    b0 = b & _M32
    b1 = b >> _U32
    p00 = a0 * b0
    p01 = a0 * b1
    p10 = a1 * b0
    p11 = a1 * b1
    mid = (p00 >> _U32) + (p01 & _M32) + (p10 & _M32)
    return p11 + (p01 >> _U32) + (p10 >> _U32) + (mid >> _U32)


@numba.njit(cache=True)
def next_uint64(states: np.ndarray, i: int) -> np.uint64:
    """PCG64's next 64-bit output for row ``i`` (advances the state)."""
    hi = states[i, _HI]
    lo = states[i, _LO]
    new_lo = lo * _MULT_LO
    new_hi = hi * _MULT_LO + lo * _MULT_HI + _mulhi(lo, _MULT_LO)
    inc_lo = states[i, _INC_LO]
    low = new_lo + inc_lo
    carry = _U1 if low < new_lo else _U0
    high = new_hi + states[i, _INC_HI] + carry
    states[i, _HI] = high
    states[i, _LO] = low
    x = high ^ low
    r = high >> _U58
    return (x >> r) | (x << ((_U64 - r) & _U63))


@numba.njit(cache=True)
def next_uint32(states: np.ndarray, i: int) -> np.uint64:
    """PCG64's next 32-bit output (each 64-bit draw serves two), as a uint64."""
    if states[i, _HAS32] != _U0:
        states[i, _HAS32] = _U0
        return states[i, _UINT]
    value = next_uint64(states, i)
    states[i, _HAS32] = _U1
    states[i, _UINT] = value >> _U32
    return value & _M32


@numba.njit(cache=True)
def random_interval(states: np.ndarray, i: int, maximum: np.uint64) -> np.uint64:
    """numpy's ``random_interval``: uniform in ``0..maximum`` by masked rejection."""
    if maximum == _U0:
        return _U0
    mask = maximum
    mask |= mask >> _U1
    mask |= mask >> _U2
    mask |= mask >> _U4
    mask |= mask >> _U8
    mask |= mask >> _U16
    mask |= mask >> _U32
    if maximum <= _M32:
        value = next_uint32(states, i) & mask
        while value > maximum:
            value = next_uint32(states, i) & mask
    else:
        value = next_uint64(states, i) & mask
        while value > maximum:
            value = next_uint64(states, i) & mask
    return value


@numba.njit(cache=True)
def permute(states: np.ndarray, i: int, out: np.ndarray) -> None:
    """Fill ``out`` with row ``i``'s ``Generator.permutation(len(out))``."""
    n = out.shape[0]
    for k in range(n):
        out[k] = k
    for k in range(n - 1, 0, -1):
        j = np.int64(random_interval(states, i, np.uint64(k)))
        tmp = out[j]
        out[j] = out[k]
        out[k] = tmp


@numba.njit(cache=True)
def draw_permutations(states: np.ndarray, which: np.ndarray, n: int) -> np.ndarray:
    """One permutation of ``n`` per env ``i`` with ``which[i]``: int64 ``[which.sum(), n]``, in env order."""
    count = 0
    for i in range(which.shape[0]):
        if which[i]:
            count += 1
    out = np.empty((count, n), dtype=np.int64)
    row = 0
    for i in range(which.shape[0]):
        if which[i]:
            permute(states, i, out[row])
            row += 1
    return out


def state_row(rng: np.random.Generator) -> np.ndarray:
    """The :data:`STATE_WIDTH` row holding a PCG64 Generator's state."""
    state = rng.bit_generator.state
    if state.get("bit_generator") != "PCG64":
        raise TypeError(f"expected a PCG64 Generator, got {state.get('bit_generator')!r}")
    s, inc = state["state"]["state"], state["state"]["inc"]
    return np.array([s >> 64, s & _M64, inc >> 64, inc & _M64, state["has_uint32"], state["uinteger"]], dtype=np.uint64)


def set_generator_state(rng: np.random.Generator, row: np.ndarray) -> None:
    """Put a state row back into a PCG64 Generator (the inverse of :func:`state_row`)."""
    hi, lo, inc_hi, inc_lo, has32, uinteger = (int(v) for v in row)
    rng.bit_generator.state = {
        "bit_generator": "PCG64",
        "state": {"state": (hi << 64) | lo, "inc": (inc_hi << 64) | inc_lo},
        "has_uint32": has32,
        "uinteger": uinteger,
    }


def seeded_states(seeds: Sequence[int | None]) -> np.ndarray:
    """State rows ``[len(seeds), STATE_WIDTH]`` of ``gymnasium.utils.seeding.np_random(seed)`` per seed."""
    states = np.empty((len(seeds), STATE_WIDTH), dtype=np.uint64)
    for i, seed in enumerate(seeds):
        rng, _ = seeding.np_random(seed)
        states[i] = state_row(rng)
    return states
