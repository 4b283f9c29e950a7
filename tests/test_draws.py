"""`draws.integers_below` is numpy's `Generator.integers(count)`, draw for draw, on each generator's own stream."""

from __future__ import annotations

import numpy as np
import pytest

from baohuang_env.batched.draws import NEXT_UINT32, drawable, integers_below, state_addresses


def test_compiled_draws_equal_numpys_and_share_the_stream():
    mine, numpys = [np.random.default_rng(s) for s in range(200)], [np.random.default_rng(s) for s in range(200)]
    states = state_addresses(mine)
    counts_rng = np.random.default_rng(3)
    for t in range(60):
        # counts of 1 draw nothing; large ones reject more often (the threshold loop)
        high = [2, 30, 5000, 2**31, 2**32 - 1][t % 5]
        counts = counts_rng.integers(1, high, size=200, endpoint=True)
        counts[t % 7::7] = 1
        expected = [rng.integers(c) for rng, c in zip(numpys, counts.tolist(), strict=True)]
        if t % 3 == 2:  # numpy draws on the same generators: the streams go on from where the kernel left them
            got = [rng.integers(c) for rng, c in zip(mine, counts.tolist(), strict=True)]
        else:
            got = integers_below(NEXT_UINT32, states, counts).tolist()
        assert got == expected
    assert [g.bit_generator.state for g in mine] == [g.bit_generator.state for g in numpys]


def test_only_pcg64_generators_are_drawable():
    assert drawable(np.random.default_rng(0))
    assert not drawable(np.random.Generator(np.random.MT19937(0)))
    assert not drawable(np.random.RandomState(0))


@pytest.mark.parametrize("count", [1, 2, 3, 7, 1000, 2**32 - 1])
def test_each_count_draws_in_range_and_as_numpy(count):
    mine, ref = np.random.default_rng(9), np.random.default_rng(9)
    got = [integers_below(NEXT_UINT32, state_addresses([mine]), np.array([count]))[0] for _ in range(50)]
    assert got == [ref.integers(count) for _ in range(50)]
    assert all(0 <= k < count for k in got)
