"""DMC's regression targets: λ-returns over one seat's decisions in a game.

DMC regresses Q(s, a) of every learner decision on its seat's Monte-Carlo return (the reward
comes only when the game ends), which carries the noise of every later move and card of the
game. `DMCConfig.target_lambda` < 1 mixes in the network's own value of the seat's later
decisions (SARSA(λ) over that seat's decisions: Q of the move the seat took next, a value
the actor computed when it chose that move, so a few updates old): less variance, some bias
while Q is wrong. λ = 1 is the Monte-Carlo return.
"""

from __future__ import annotations

from collections.abc import Sequence


def lambda_returns(values: Sequence[float], ret: float, lam: float) -> list[float]:
    """The λ-return target of each of one seat's decisions in a game, in the order played:
    G_t = (1 − λ)·values[t+1] + λ·G_{t+1}, backwards from the last decision's G = `ret`
    (the seat's Monte-Carlo return). `values[t]`: Q of the move taken at decision t, as
    computed when acting (`values[0]` is never read: no target bootstraps from the first
    decision). λ = 1 gives `ret` at every decision without reading `values` (which may
    then be NaN); λ = 0 gives the next decision's Q (one-step SARSA)."""
    if lam == 1:
        return [ret] * len(values)
    targets = [0.0] * len(values)
    g = ret
    for t in range(len(values) - 1, -1, -1):
        targets[t] = g
        g = (1 - lam) * float(values[t]) + lam * g
    return targets


__all__ = ["lambda_returns"]
