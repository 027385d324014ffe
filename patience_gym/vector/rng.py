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
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

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


@intrinsic
def _lcg128(typingctx, hi, lo, mult_hi, mult_lo, inc_hi, inc_lo):  # type: ignore[no-untyped-def]
    """``(hi, lo) * (mult_hi, mult_lo) + (inc_hi, inc_lo)`` mod 2**128 as (hi, lo), in LLVM's 128-bit integers."""
    u64 = types.uint64
    sig = types.UniTuple(u64, 2)(u64, u64, u64, u64, u64, u64)

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        i128 = ir.IntType(128)

        def join(high, low):  # type: ignore[no-untyped-def]
            return builder.or_(builder.shl(builder.zext(high, i128), ir.Constant(i128, 64)), builder.zext(low, i128))

        result = builder.add(builder.mul(join(args[0], args[1]), join(args[2], args[3])), join(args[4], args[5]))
        high = builder.trunc(builder.lshr(result, ir.Constant(i128, 64)), ir.IntType(64))
        low = builder.trunc(result, ir.IntType(64))
        return context.make_tuple(builder, signature.return_type, (high, low))

    return sig, codegen


@numba.njit(cache=True, inline="always")
def next_uint64(states: np.ndarray, i: int) -> np.uint64:
    """PCG64's next 64-bit output for row ``i`` (advances the state)."""
    high, low = _step_state(states[i, _HI], states[i, _LO], states[i, _INC_HI], states[i, _INC_LO])
    states[i, _HI] = high
    states[i, _LO] = low
    x = high ^ low
    r = high >> _U58
    return (x >> r) | (x << ((_U64 - r) & _U63))


@numba.njit(cache=True, inline="always")
def next_uint32(states: np.ndarray, i: int) -> np.uint64:
    """PCG64's next 32-bit output (each 64-bit draw serves two), as a uint64."""
    if states[i, _HAS32] != _U0:
        states[i, _HAS32] = _U0
        return states[i, _UINT]
    value = next_uint64(states, i)
    states[i, _HAS32] = _U1
    states[i, _UINT] = value >> _U32
    return value & _M32


@numba.njit(cache=True, inline="always")
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


@numba.njit(cache=True, inline="always")
def _step_state(hi: np.uint64, lo: np.uint64, inc_hi: np.uint64, inc_lo: np.uint64) -> tuple[np.uint64, np.uint64]:
    """The LCG step: (hi, lo) * multiplier + increment, mod 2**128."""
    return _lcg128(hi, lo, _MULT_HI, _MULT_LO, inc_hi, inc_lo)  # type: ignore[call-arg,no-any-return]


@numba.njit(cache=True)
def permute(states: np.ndarray, i: int, out: np.ndarray) -> None:
    """Fill ``out`` with row ``i``'s ``Generator.permutation(len(out))``.

    The same draws as :func:`random_interval` over :func:`next_uint32` (for ``len(out) <= 2**32``),
    with the state held in registers and the rejections taken without a branch (they are random,
    so a branch would mispredict).
    """
    n = out.shape[0]
    for k in range(n):
        out[k] = k
    hi, lo = states[i, _HI], states[i, _LO]
    inc_hi, inc_lo = states[i, _INC_HI], states[i, _INC_LO]
    has32, buffered = states[i, _HAS32], states[i, _UINT]
    k = n - 1
    mask = np.uint64(0xFFFFFFFF)
    while mask >> _U1 >= np.uint64(max(k, 1)):
        mask >>= _U1
    while k > 0:  # one 32-bit draw per turn; a rejected draw swaps out[k] with itself and keeps k
        if has32 != _U0:
            has32 = _U0
            draw = buffered
        else:
            hi, lo = _step_state(hi, lo, inc_hi, inc_lo)
            x = hi ^ lo
            r = hi >> _U58
            raw = (x >> r) | (x << ((_U64 - r) & _U63))
            has32 = _U1
            buffered = raw >> _U32
            draw = raw & _M32
        maximum = np.uint64(k)
        if maximum <= mask >> _U1:  # the smallest all-ones mask covering k, as numpy's
            mask >>= _U1
        value = draw & mask
        accept = value <= maximum
        j = np.int64(value) if accept else k
        tmp = out[j]
        out[j] = out[k]
        out[k] = tmp
        k -= np.int64(accept)
    states[i, _HI], states[i, _LO] = hi, lo
    states[i, _HAS32], states[i, _UINT] = has32, buffered


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
