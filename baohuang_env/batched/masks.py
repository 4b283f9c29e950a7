"""The engine's batch entry point: the legal actions of many games at once.

Vectorised trainers (PPO's rollouts keep 128 games running) ask for every game's legal
actions each step. `legal_masks` gives exactly `game.legal_mask()` for every game and
`legal_actions` exactly `game.legal_actions()`; the play-phase masks of a rule set come from
one `ActionTable.legal_masks_batch` call. Whatever the engine adds to a play-phase mask beyond
the cards (qingdao's APPLY_WIND) and every role-phase mask come from the game itself, so
callers need not know about either.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

from ..game import PLAY, Game


#: A batch size from which one batch call beats the games' own masks: a batch call costs ~50 µs
#: however few its hands, one game's mask ~4 µs, so the two cross at about 16 games.
MIN_BATCH = 16


def _card_groups(games: Sequence[Game], min_batch: int = 1) -> Iterator[tuple[Game, list[int]]]:
    """(a game, the indices of its group): the play-phase games whose masks their cards alone
    decide, grouped by rule set; groups of fewer than `min_batch` games are left out (their
    games' own masks serve them)."""
    groups: dict[int, tuple[Game, list[int]]] = {}
    for b, game in enumerate(games):
        if game.phase == PLAY and game.rules.catch_wind != "apply":
            groups.setdefault(id(game.rules), (game, []))[1].append(b)
    return (group for group in groups.values() if len(group[1]) >= min_batch)


def _card_masks(games: Sequence[Game], first: Game, rows: list[int], out: np.ndarray | None) -> np.ndarray:
    """The play-phase masks of `games[rows]` (all of `first`'s rule set), in one batch call."""
    hands = np.array([games[b].hands[games[b].current_player] for b in rows], dtype=np.int8)
    tops = np.array([games[b].top for b in rows], dtype=np.int64)
    return first.table.legal_masks_batch(hands, tops, first.rules, out=out)


def legal_masks(games: Sequence[Game], out: np.ndarray | None = None, min_batch: int = 1) -> np.ndarray:
    """Legal actions of each game's `current_player` as int8 rows (B, N): row b equals
    `games[b].legal_mask()` (all zero for a finished game). The games' action tables must
    have one size (one rule set's, typically). Written into `out` (B, N) when given, which
    saves an allocation per call. Play-phase games of a rule set with fewer than `min_batch`
    games in the batch are masked one by one (`MIN_BATCH` is where batching starts to pay)."""
    if out is None:
        out = np.empty((len(games), games[0].num_actions if games else 0), dtype=np.int8)
    done = np.zeros(len(games), dtype=bool)
    for first, rows in _card_groups(games, min_batch):
        if len(rows) == len(games):  # the common case: every game is in its play phase
            _card_masks(games, first, rows, out)
        else:
            out[rows] = _card_masks(games, first, rows, None)
        done[rows] = True
    for b in np.flatnonzero(~done):
        out[b] = games[b].legal_mask()
    return out


def legal_actions(games: Sequence[Game], out: np.ndarray | None = None) -> list[np.ndarray]:
    """Ids of the legal actions of each game's `current_player` (int64, ascending): entry b
    equals `games[b].legal_actions()`. `out`: scratch space of at least (B, N) int8 for the
    batched masks, which saves an allocation per call."""
    legal: list[np.ndarray | None] = [None] * len(games)
    for first, rows in _card_groups(games):
        masks = _card_masks(games, first, rows, None if out is None else out[:len(rows)])
        for b, row in zip(rows, masks, strict=True):
            legal[b] = row.view(bool).nonzero()[0]  # row by row: far faster than a 2-D np.nonzero
    return [games[b].legal_actions() if ids is None else ids for b, ids in enumerate(legal)]


__all__ = ["MIN_BATCH", "legal_actions", "legal_masks"]
