"""League ratings: openskill's Plackett-Luce model over every paired comparison of a report.

Each paired comparison (a (deal, seat) in the seat protocol, a deal in the team protocol) is
one 1-vs-1 match, won by A when its paired difference d > 0, by B when d < 0, a draw at 0;
matches are applied in a fixed order (pairs, then their comparisons in schedule order).
Ratings link agents that never met directly through a ladder; they are a summary, the paired
differences are the test.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .protocol import PairGames


@dataclass(frozen=True)
class Rating:
    mu: float
    sigma: float
    ordinal: float  # mu - 3 sigma, the conservative estimate used for ranking


def rate_league(pairs: Sequence[PairGames]) -> dict[str, Rating]:
    """openskill Plackett-Luce ratings (default mu 25, sigma 25/3) from the paired
    differences (`PairGames.differences`) of every pair, in order."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings: dict[str, Any] = {}
    for pair in pairs:
        if pair.a == pair.b:
            continue
        for name in (pair.a, pair.b):
            ratings.setdefault(name, model.rating(name=name))
        for d in pair.differences():
            ranks = [0, 0] if d == 0 else ([0, 1] if d > 0 else [1, 0])
            [[ra], [rb]] = model.rate([[ratings[pair.a]], [ratings[pair.b]]], ranks=ranks)
            ratings[pair.a], ratings[pair.b] = ra, rb
    return {name: Rating(r.mu, r.sigma, r.ordinal()) for name, r in ratings.items()}


__all__ = ["Rating", "rate_league"]
