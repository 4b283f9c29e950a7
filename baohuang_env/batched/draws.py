"""`Generator.integers(count)` of many numpy generators in one compiled pass.

`RandomAgent` moves by `rng.integers(count)` on its own generator: one draw costs about a
microsecond of numpy's call overhead, which at a batch of random opponents is most of their
move. Here the same draw is made inside a Numba kernel for many generators at once, through
each generator's own bit generator (numpy's documented ctypes interface: `next_uint32` of the
state at `bit_generator.ctypes.state_address`), with numpy's algorithm for a bounded integer
below 2**32 (Lemire's multiply-and-reject, `buffered_bounded_lemire_uint32` in numpy's
`distributions.c`; a count of 1 draws nothing). So a generator advances exactly as numpy's own
`integers` would advance it, and a draw made here and one made by numpy can follow each other
on the same stream. tests/test_draws.py pins it to `Generator.integers`.

Only PCG64 generators (`np.random.default_rng`'s) are drawn here (`drawable`). The kernels
take PCG64's `next_uint32` as an argument (`NEXT_UINT32`, a ctypes function: its address
differs from process to process, so it is passed at each call, never compiled in, and the
kernels can be cached on disk).
"""

from __future__ import annotations

from collections.abc import Sequence

import numba
import numpy as np

#: PCG64's `next_uint32` (one C function for every PCG64 generator; each call passes the
#: state): the first argument of the kernels here.
NEXT_UINT32 = np.random.PCG64(0).ctypes.next_uint32
_LOW32 = np.uint64(0xFFFFFFFF)


def drawable(rng: object) -> bool:
    """Whether `integers_below` can draw from `rng`: a numpy Generator on PCG64."""
    return isinstance(rng, np.random.Generator) and type(rng.bit_generator) is np.random.PCG64


def state_addresses(rngs: Sequence[np.random.Generator]) -> np.ndarray:
    """The bit generator state addresses (uint64) of `rngs`, all `drawable`: what `integers_below`
    draws from. The caller keeps the generators alive while it uses the addresses."""
    return np.array([rng.bit_generator.ctypes.state_address for rng in rngs], dtype=np.uint64)


@numba.njit(cache=True, inline="always")
def integer_below(next_uint32, state, count):
    """`Generator.integers(count)` (1 <= count < 2**32) of the generator whose bit generator
    state is at address `state` (`next_uint32`: `NEXT_UINT32`)."""
    if count <= 1:
        return 0
    excl = np.uint64(count)
    threshold = np.uint64((np.uint32(0xFFFFFFFF) - np.uint32(count - 1)) % np.uint32(count))
    m = np.uint64(next_uint32(state)) * excl
    if (m & _LOW32) < excl:
        while (m & _LOW32) < threshold:
            m = np.uint64(next_uint32(state)) * excl
    return np.int64(m >> np.uint64(32))


@numba.njit(cache=True)
def integers_below(next_uint32, states, counts):
    """`integer_below(next_uint32, states[i], counts[i])` for every i, in order."""
    out = np.empty(counts.size, dtype=np.int64)
    for i in range(counts.size):
        out[i] = integer_below(next_uint32, states[i], counts[i])
    return out


__all__ = ["NEXT_UINT32", "drawable", "integer_below", "integers_below", "state_addresses"]
