"""baohuang_eval.stats: the Wilson and Student-t intervals against hand-computed values and
tables (the paired and duplicate statistics are pinned with their protocols)."""

from __future__ import annotations

import math

import pytest

from baohuang_eval.stats import mean_interval, t_quantile, wilson_interval


def test_wilson_interval_hand_computed():
    # p = 0.7, n = 10, z = 1.959964: center = (0.7 + 0.19208) / 1.384146 = 0.644498,
    # half = 1.959964 / 1.384146 * sqrt(0.021 + 0.00960366) = 0.247721
    lo, hi = wilson_interval(7, 10)
    assert lo == pytest.approx(0.396778, abs=1e-6)
    assert hi == pytest.approx(0.892209, abs=1e-6)
    assert wilson_interval(0, 10) == (0.0, pytest.approx(0.277533, abs=1e-6))
    assert wilson_interval(10, 10) == (pytest.approx(0.722467, abs=1e-6), 1.0)
    assert all(math.isnan(x) for x in wilson_interval(0, 0))


@pytest.mark.parametrize("df, expected", [(1, 12.7062), (2, 4.3027), (4, 2.7764), (10, 2.2281),
                                          (30, 2.0423), (1000, 1.9623)])
def test_t_quantile_matches_tables(df, expected):
    assert t_quantile(0.975, df) == pytest.approx(expected, abs=1e-4)


def test_mean_interval_hand_computed():
    # mean 3, sd sqrt(2.5) = 1.581139, half = 2.776445 * 1.581139 / sqrt(5) = 1.963243
    mean, lo, hi = mean_interval([1, 2, 3, 4, 5])
    assert mean == 3
    assert (lo, hi) == (pytest.approx(1.036757, abs=1e-5), pytest.approx(4.963243, abs=1e-5))
    m1, lo1, hi1 = mean_interval([4])
    assert m1 == 4 and math.isnan(lo1) and math.isnan(hi1)
