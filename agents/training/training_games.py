"""Training games: K games in lockstep on the batched engine, each at its own table of learner
and opponent seats. Both trainers play through it (DMC's actors, PPO's rollouts), so the
opponent logic of a training game has this one owner.

A game's table (`Table`) comes from the trainer's `opponent_mix`: self-play (the learner at all
five seats) or one opponent (a pool snapshot or an agent spec). A bot spec gets agents of its own
per game and seat (`seat_bots`), chosen here one decision at a time; a pool snapshot, and a
spec the trainer plays as a frozen network (`shared`), is one agent for every game, whose
decisions of a turn the trainer makes in one call (`Turn.snapshots`). The learner plays the role
phase at every seat; once the roles are fixed (`opponent_seats`: the emperor's side or the
rebels', 50/50, as in the team evaluation) the opponent takes one side and the learner keeps
the other. Only the learner's decisions on its side are trained on: the role-phase records of
the seats the opponent takes are dropped.

Every turn moves every game once:

    games = TrainingGames(rules, 32, OpponentMix(mix), rng)
    while ...:
        turn = games.turn()                 # forced moves and the bots' moves already chosen
        obs = games.observe(turn.learner)   # the learner's decisions with a choice
        ids, counts = turn.legal_ids(turn.learner)
        turn.actions[turn.learner] = ...    # one network call for all of them
        for agent, rows in turn.snapshots: ...      # the same for each snapshot or frozen network
        for row, table, result in games.advance(turn):   # every game steps; the ended ones
            ...                             # table.records[seat]: what the trainer kept per seat

Deals are drawn from the trainer's `rng` in the training seed range (`TRAIN_SEED_START` up),
so no evaluation deal is ever trained on; an ended game's row restarts within the same turn
(the batched engine's "same_step" autoreset) with a new table. The games run on the array
engine (`BatchedGames(engine="arrays")`, the play phase on compiled kernels): a trainer reads a
row's roles through `roles(row)`, not its `Game` (which `games` rebuilds on each access).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from baohuang_env.agent import Agent, act_each
from baohuang_env.batched.games import BatchedGames, RowRoles
from baohuang_env.batched.kernels import legal_counts
from baohuang_env.cards import NUM_SEATS
from baohuang_env.game import PLAY, Game, GameResult
from baohuang_env.rules import Rules
from baohuang_env.seeds import TRAIN_SEED_START

from .opponents import SELF, SNAPSHOTS, OpponentMix, opponent_seats, seat_bots

#: Where the training deals' seeds lie (`baohuang_env.seeds`): above every evaluation seed.
TRAIN_SEEDS = (TRAIN_SEED_START, 2**63 - 1)


@dataclass
class Table:
    """Who plays each seat of one training game, and what the trainer keeps per seat.

    `mode`: SELF, SNAPSHOTS or an agent spec; `opponent`: one agent for every game whose
    decisions the trainer makes in one call a turn (`shared`: a pool snapshot, or a spec's frozen
    network), or the spec's per-seat agents; `controllers[seat]`: None for the learner,
    else the snapshot or the agent; `records[seat]`: the trainer's records of the learner's
    decisions at that seat."""

    mode: str
    opponent: Any = None
    shared: bool = False
    sides_pending: bool = False
    controllers: list[Any] = field(default_factory=lambda: [None] * NUM_SEATS)
    records: list[list[Any]] = field(default_factory=lambda: [[] for _ in range(NUM_SEATS)])

    @property
    def learner_seats(self) -> list[int]:
        return [s for s in range(NUM_SEATS) if self.controllers[s] is None]


@dataclass
class Turn:
    """One move of every game: `seats` (K,) the acting seats, `masks` (K, N) int8 their legal
    actions (read-only), `actions` (K,) int64, already chosen for the forced moves and the
    bots; the caller fills in `learner` (rows at a learner seat with a choice) and the rows of
    each `snapshots` entry: (agent, rows) of every opponent that chooses for many games in one
    call, a pool snapshot or a frozen network (`TrainingGames`'s `shared`)."""

    seats: np.ndarray
    masks: np.ndarray
    counts: np.ndarray
    actions: np.ndarray
    learner: np.ndarray
    snapshots: list[tuple[Any, np.ndarray]]

    def legal_ids(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The legal action ids of `rows`, row after row (ascending within a row), and how
        many each row has: the ragged layout `ActionScorer.score_segments` reads."""
        N = self.masks.shape[1]
        flat = np.flatnonzero(self.masks[rows].view(bool).reshape(-1))
        return flat % N, self.counts[rows]


class TrainingGames:
    """K training games stepped together; see the module docstring.

    `snapshot`: draws the opponent of a SNAPSHOTS game from the pool, `rng` -> the snapshot (PPO's
    rollouts: a `pool.Snapshot`; DMC's actors: a snapshot's greedy agent).
    """

    def __init__(self, rules: Rules, num_games: int, mix: OpponentMix, rng: np.random.Generator,
                 snapshot: Callable[[np.random.Generator], Any] | None = None,
                 shared: Callable[[str], Any | None] | None = None) -> None:
        """`snapshot(rng)`: a pool snapshot for a new SNAPSHOTS game. `shared(spec)`: the one
        agent that plays an agent spec of the mix at every game and seat, its decisions made by
        the trainer in one call a turn (`Turn.snapshots`), or None for a bot played per seat."""
        self.rules = rules
        self.mix, self.rng, self._snapshot = mix, rng, snapshot
        self._shared = shared or (lambda spec: None)
        self.bots: dict[Hashable, list[Agent]] = {}  # (row, spec) -> that row's per-seat agents
        self.batch = BatchedGames(rules, num_games, autoreset="same_step", observe=False,
                                  next_seed=self._deal, records=False, engine="arrays")
        self.tables: list[Table] = []
        step = self.batch.reset([self._deal(b) for b in range(num_games)])
        self.tables = [self._new_table(b) for b in range(num_games)]
        self._seat, self._mask = step.seat, step.mask

    @property
    def num_games(self) -> int:
        return self.batch.num_games

    @property
    def games(self) -> Sequence[Game]:
        """Row b's current game (rebuilt from its actions on each access: for tests and
        inspection; the trainers read `roles`)."""
        return self.batch.games

    def roles(self, row: int) -> RowRoles:
        """Row `row`'s phase, emperor and guard (hidden facts: for labels and sides only)."""
        return self.batch.roles(row)

    def _deal(self, row: int) -> int:
        return int(self.rng.integers(*TRAIN_SEEDS))

    def _new_table(self, row: int) -> Table:
        mode = self.mix.draw(self.rng)
        table = Table(mode)
        if mode == SELF:
            return table
        table.sides_pending = True
        if mode == SNAPSHOTS:
            if self._snapshot is None:
                raise ValueError(f"opponent_mix: {SNAPSHOTS!r} needs a snapshot pool")
            table.opponent, table.shared = self._snapshot(self.rng), True
        elif (agent := self._shared(mode)) is not None:
            table.opponent, table.shared = agent, True
        else:
            table.opponent = seat_bots(self.bots, (row, mode), mode, self.rules, self.rng)
        self._assign_sides(row, table)
        return table

    def _assign_sides(self, row: int, table: Table) -> None:
        """Once the roles are fixed, the learner keeps one side and the opponent takes the other."""
        roles = self.batch.roles(row)
        if roles.phase != PLAY:
            return
        for seat in opponent_seats(roles, self.rng):
            table.controllers[seat] = table.opponent if table.shared else table.opponent[seat]
            table.records[seat] = []  # its role-phase decisions were the learner's, its game is not
        table.sides_pending = False

    def turn(self) -> Turn:
        """The next move of every game, with the forced moves and the bots' moves chosen."""
        seats, masks = self._seat, self._mask
        counts = legal_counts(masks.view(np.uint8))  # a compiled pass: np.count_nonzero is 20x slower here
        actions = np.full(self.num_games, -1, dtype=np.int64)
        forced = np.flatnonzero(counts == 1)
        actions[forced] = masks[forced].argmax(axis=1)
        learner: list[int] = []
        groups: dict[int, tuple[Any, list[int]]] = {}
        bots: list[tuple[int, Agent]] = []
        tables = self.tables
        for b in np.flatnonzero(counts > 1).tolist():
            ctrl = tables[b].controllers[seats[b]]
            if ctrl is None:
                learner.append(b)
            elif tables[b].shared:
                groups.setdefault(id(ctrl), (ctrl, []))[1].append(b)
            else:
                bots.append((b, ctrl))
        if bots:
            rows = [b for b, _bot in bots]
            actions[rows] = act_each([bot for _b, bot in bots], masks[rows],
                                     lambda js: self.batch.observe([rows[j] for j in js]))
        return Turn(seats, masks, counts, actions, np.array(learner, dtype=np.int64),
                    [(ctrl, np.array(rows, dtype=np.int64)) for ctrl, rows in groups.values()])

    def observe(self, rows: np.ndarray) -> np.ndarray:
        """The acting seats' observations (len(rows), D) float32 of `rows`."""
        return self.batch.observe(rows)

    def advance(self, turn: Turn) -> list[tuple[int, Table, GameResult]]:
        """Step every game with `turn.actions`; returns (row, its table, result) of each game
        that ended, whose row already holds its next game at a new table."""
        step = self.batch.step(turn.actions)
        self._seat, self._mask = step.seat, step.mask
        ended = []
        for b, result, _record in step.ended:
            ended.append((b, self.tables[b], result))
            self.tables[b] = self._new_table(b)
        for b, table in enumerate(self.tables):
            if table.sides_pending:
                self._assign_sides(b, table)
        return ended


__all__ = ["TRAIN_SEEDS", "Table", "TrainingGames", "Turn"]
