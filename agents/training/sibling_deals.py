"""Sibling deals: every training deal played by two games, so that a trainer can measure a
seat's return against the other game's return at that seat on the same cards (a per-deal
baseline: the luck of the deal cancels; DMC's `target_baseline: sibling`).

`SiblingDeals` hands out the deals as `TrainingGames` restarts its rows: a row that frees up
takes the deal whose second game has not started yet, if there is one, else a new deal, whose
second game the next row to free up plays. So at most one deal waits, and the two games of a
deal start about a game apart, each on its own row and independently played. The two
siblings play the same opponent-mix draw (both self-play, or both against the same opponent);
against an opponent, the sibling that fixes its roles first keeps the side `learner_side`
draws for the learner, and the other gives the learner the other side: the opponent plays in
one sibling the side the learner plays in the other (the team duplicate protocol of the
evaluation). Each sibling plays its own role phase, so the two may fix different roles (an
abdication in one, not the other): the baseline is then still the other game's return at the
seat, and still independent of the learner's actions in this one.

`SiblingResults` holds a trainer's ended games until their siblings have ended too: one held
game per deal at most, so no more than the rows in play. Games still held when training stops
are dropped with their siblings' unfinished games.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .opponents import learner_side

if TYPE_CHECKING:
    from .training_games import Table

#: A table's opponent-mix draw: its mode (`Table.mode`) and, for a pool game, the snapshot.
OpponentDraw = tuple[str, Any]


@dataclass(eq=False)  # a deal is itself: two deals of one seed are two pairs
class Deal:
    """One deal played by two sibling games: its `seed`, the opponent draw of the first of
    them to get a table (the second plays the same), and the side the learner keeps in the
    first of them to fix its roles (the second gets the other side)."""

    seed: int
    draw: OpponentDraw | None = None
    learner_emperor: bool | None = None

    def opponent(self, draw: Callable[[], OpponentDraw]) -> OpponentDraw:
        """The siblings' opponent draw: made by `draw` for the first table, kept for the second."""
        if self.draw is None:
            self.draw = draw()
        return self.draw

    def side(self, rng: np.random.Generator) -> bool:
        """Whether the learner keeps the emperor's side in the sibling fixing its roles now:
        drawn (`learner_side`) for the first, the other side for the second."""
        if self.learner_emperor is None:
            self.learner_emperor = learner_side(rng)
            return self.learner_emperor
        return not self.learner_emperor


class SiblingDeals:
    """The deals of rows restarting in sibling mode (module docstring); `new_seed`: a fresh
    deal's seed."""

    def __init__(self, new_seed: Callable[[], int]) -> None:
        self._new_seed = new_seed
        self._waiting: Deal | None = None  # a deal whose second game has not started
        self._dealt: dict[int, Deal] = {}  # row -> the deal it just started, until its table is made

    def deal(self, row: int) -> int:
        """The seed of row `row`'s next game: the waiting deal's, else a new deal's."""
        if self._waiting is None:
            deal = self._waiting = Deal(self._new_seed())
        else:
            deal, self._waiting = self._waiting, None
        self._dealt[row] = deal
        return deal.seed

    def dealt(self, row: int) -> Deal:
        """The deal row `row` started last (once: its table takes it)."""
        return self._dealt.pop(row)


class SiblingResults:
    """Ended sibling games held until the other game of their deal has ended too."""

    def __init__(self) -> None:
        self._held: dict[Deal, tuple[Table, Sequence[float]]] = {}

    def __len__(self) -> int:
        return len(self._held)

    def ended(self, table: Table, scores: Sequence[float]
              ) -> list[tuple[Table, Sequence[float], Sequence[float]]]:
        """Take an ended game (its table, with `deal`, and its five seats' scores); returns
        (table, scores, the sibling's scores) of both games once both have ended, in the
        order they ended, else nothing (the game is held)."""
        other = self._held.pop(table.deal, None)
        if other is None:
            self._held[table.deal] = (table, scores)
            return []
        return [(*other, scores), (table, scores, other[1])]


__all__ = ["Deal", "OpponentDraw", "SiblingDeals", "SiblingResults"]
