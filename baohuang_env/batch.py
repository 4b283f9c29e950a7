"""The engine's batch entry point: the legal actions of many games at once.

Vectorised trainers (PPO's rollouts keep 128 games running) ask for every game's legal
actions each step. `legal_masks` gives exactly `game.legal_mask()` for every game, computing
the play-phase masks of a rule set in one `ActionTable.legal_masks_batch` call; whatever the
engine adds to a play-phase mask beyond the cards (qingdao's APPLY_WIND) and every role-phase
mask come from the game itself, so callers need not know about either.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .game import PLAY, Game


def legal_masks(games: Sequence[Game], out: np.ndarray | None = None) -> np.ndarray:
    """Legal actions of each game's `current_player` as int8 rows (B, N): row b equals
    `games[b].legal_mask()`. All games must have action tables of one size (one rule set's,
    typically); a finished game's row is all zero. Written into `out` (B, N) when given,
    which saves an allocation per call."""
    if out is None:
        out = np.empty((len(games), games[0].num_actions if games else 0), dtype=np.int8)
    batched: dict[int, tuple[Game, list[int]]] = {}  # id(rules) -> (a game, rows) for the batch path
    for b, game in enumerate(games):
        if game.phase == PLAY and game.rules.catch_wind != "apply":  # the cards alone decide
            batched.setdefault(id(game.rules), (game, []))[1].append(b)
        else:  # the role phase, a finished game (all zero), or a mask the engine adds to
            out[b] = game.legal_mask()
    for first, rows in batched.values():
        hands = np.array([games[b].hands[games[b].current_player] for b in rows], dtype=np.int8)
        tops = np.array([games[b].top for b in rows], dtype=np.int64)
        if len(rows) == len(games):  # the common case: every game follows a trick
            first.table.legal_masks_batch(hands, tops, first.rules, out=out)
        else:
            out[rows] = first.table.legal_masks_batch(hands, tops, first.rules)
    return out


def legal_actions(games: Sequence[Game], out: np.ndarray | None = None) -> list[np.ndarray]:
    """Ids of the legal actions of each game's `current_player` (int64, ascending): entry b
    equals `games[b].legal_actions()`. `out` as for `legal_masks`."""
    if not games:
        return []
    masks = legal_masks(games, out)
    rows, cols = np.nonzero(masks)
    return np.split(cols, np.cumsum(np.bincount(rows, minlength=len(games)))[:-1])


__all__ = ["legal_actions", "legal_masks"]
