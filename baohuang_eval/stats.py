"""The statistics of an evaluation, all at 95%: Wilson score intervals for win rates, Student-t
intervals for mean scores and paired differences, and the duplicate win rate.

These are plain numbers in, tables out; nothing here knows how the games were played.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from functools import lru_cache
from statistics import NormalDist
from typing import Any

import numpy as np

CONFIDENCE = 0.95
#: The normal quantile of `CONFIDENCE` (1.959964).
Z95 = NormalDist().inv_cdf(0.5 + CONFIDENCE / 2)


def wilson_interval(wins: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion (z = 1.96 for 95%)."""
    if n <= 0:
        return (math.nan, math.nan)
    p = wins / n
    denom = 1 + z * z / n
    center = (p + z * z / (2 * n)) / denom
    half = z / denom * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    low = 0.0 if wins == 0 else max(0.0, center - half)  # exact ends, not 1e-17 off
    high = 1.0 if wins == n else min(1.0, center + half)
    return (low, high)


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 100_000):
        m2 = 2 * m
        for aa in (m * (b - m) * x / ((a - 1 + m2) * (a + m2)),
                   -(a + m) * (a + b + m) * x / ((a + m2) * (a + 1 + m2))):
            d = 1.0 + aa * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + aa / c
            c = c if abs(c) > tiny else tiny
            delta = d * c
            h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return h


def _betainc(a: float, b: float, x: float) -> float:
    """Regularized incomplete beta function I_x(a, b)."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1) / (a + b + 2):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1 - x) / b


@lru_cache(maxsize=4096)
def t_quantile(p: float, df: int) -> float:
    """Quantile of Student's t distribution with `df` degrees of freedom (p > 0.5)."""
    if df < 1:
        raise ValueError("t_quantile needs df >= 1")
    tail = 2 * (1 - p)  # P(|T| > t) = I_{df/(df+t^2)}(df/2, 1/2)

    def two_sided(t: float) -> float:
        return _betainc(df / 2, 0.5, df / (df + t * t))

    lo, hi = 0.0, 1.0
    while two_sided(hi) > tail:
        hi *= 2
    for _ in range(200):
        mid = (lo + hi) / 2
        if two_sided(mid) > tail:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12 * max(1.0, hi):
            break
    return (lo + hi) / 2


def mean_interval(values: Sequence[float]) -> tuple[float, float, float]:
    """(mean, low, high): the mean with its Student-t interval (nan without enough data)."""
    n = len(values)
    if n == 0:
        return (math.nan, math.nan, math.nan)
    arr = np.asarray(values, dtype=np.float64)
    mean = float(arr.mean())
    if n < 2:
        return (mean, math.nan, math.nan)
    half = t_quantile(0.5 + CONFIDENCE / 2, n - 1) * float(arr.std(ddof=1)) / math.sqrt(n)
    return (mean, mean - half, mean + half)


def json_number(x: float | None) -> float | None:
    """JSON-safe float: nan becomes None."""
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else x


@dataclass(frozen=True)
class Stats:
    """One row of a results table: an agent's games (as focal seat, or as a side), its win
    rate with the Wilson interval and its mean score with the Student-t interval."""

    games: int
    wins: int
    draws: int
    win_rate: float
    win_low: float
    win_high: float
    mean_score: float
    score_low: float
    score_high: float

    @classmethod
    def of_scores(cls, scores: Sequence[float]) -> Stats:
        """From one score per game: win = score > 0, draw = score == 0."""
        n = len(scores)
        wins = sum(x > 0 for x in scores)
        draws = sum(x == 0 for x in scores)
        lo, hi = wilson_interval(wins, n)
        mean, s_lo, s_hi = mean_interval(scores)
        return cls(n, wins, draws, wins / n if n else math.nan, lo, hi, mean, s_lo, s_hi)

    @property
    def losses(self) -> int:
        return self.games - self.wins - self.draws

    def to_dict(self) -> dict[str, Any]:
        return {k: json_number(v) for k, v in asdict(self).items()}


@dataclass(frozen=True)
class PairedStats:
    """Paired differences d (A's result minus B's on the same deal, or deal and seat): their
    mean with the Student-t interval, and how many A won, tied and lost."""

    n: int
    mean: float
    low: float
    high: float
    sd: float
    a_better: int  # pairs with d > 0
    ties: int
    b_better: int

    @property
    def verdict(self) -> str:
        """'A', 'B', or '=' when the 95% interval contains 0."""
        if self.low > 0:
            return "A"
        if self.high < 0:
            return "B"
        return "="

    def reversed(self) -> PairedStats:
        """The same comparison seen from B."""
        return PairedStats(self.n, -self.mean, -self.high, -self.low, self.sd,
                           self.b_better, self.ties, self.a_better)

    def to_dict(self) -> dict[str, Any]:
        return {**{k: json_number(v) for k, v in asdict(self).items()}, "verdict": self.verdict}


def paired_stats(d: Sequence[float]) -> PairedStats:
    """Mean, t interval and sign counts of paired differences d (A's value minus B's)."""
    mean, lo, hi = mean_interval(d)
    sd = float(np.std(d, ddof=1)) if len(d) > 1 else math.nan
    return PairedStats(len(d), mean, lo, hi, sd, sum(x > 0 for x in d), sum(x == 0 for x in d),
                       sum(x < 0 for x in d))


@dataclass(frozen=True)
class DuplicateStats:
    """Duplicate win rate (wins + 0.5 draws) / games with the 95% Wilson score interval of
    wins + 0.5 draws successes in `games` trials.

    Wilson rather than the normal approximation on the per-game values 1 / 0.5 / 0, because
    that one collapses to a zero-width interval when one agent wins every game, which is
    common against weak baselines. It is conservative twice over: a draw gets the variance
    of a coin flip instead of none, and the two games of a duplicate deal count as
    independent although they are negatively correlated.
    """

    games: int
    wins: int
    draws: int
    rate: float
    low: float
    high: float

    @classmethod
    def of(cls, wins: int, draws: int, games: int, z: float = Z95) -> DuplicateStats:
        if games <= 0:
            return cls(games, wins, draws, math.nan, math.nan, math.nan)
        if wins < 0 or draws < 0 or wins + draws > games:
            raise ValueError(f"need 0 <= wins + draws <= games, got {wins} + {draws} of {games}")
        points = wins + 0.5 * draws
        low, high = wilson_interval(points, games, z)
        return cls(games, wins, draws, points / games, low, high)

    def reversed(self) -> DuplicateStats:
        """The same games seen from the other agent (the Wilson interval is symmetric)."""
        losses = self.games - self.wins - self.draws
        return DuplicateStats(self.games, losses, self.draws, 1 - self.rate, 1 - self.high, 1 - self.low)

    def to_dict(self) -> dict[str, Any]:
        return {k: json_number(v) for k, v in asdict(self).items()}


__all__ = [
    "CONFIDENCE", "Z95", "DuplicateStats", "PairedStats", "Stats", "json_number", "mean_interval", "paired_stats",
    "t_quantile", "wilson_interval",
]
