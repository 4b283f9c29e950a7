"""Playing evaluation games: the agents that fill a side's seats, their seeds, and the one
driver that plays games, `play_games`.

Agents are built from spec strings (`make_agent(spec, rules, seed)`), one per seat and game
(`SpecSeats`): an agent with a `reset(seed)` of its own (`resets`) is built once per seat and
every game gets a copy of it reset with the game's seed, one without is rebuilt for every game.
`evaluate_against` instead lends one in-process agent object to every seat of its side
(`ObjectSeats`).

Games are played many at once: `play_games` takes the games of a chunk (`Table`: a deal, the
agents at its seats) and plays them as the rows of one `BatchedGames`, the batched engine the
trainers' games run on, with the bots' moves by `baohuang_env.agent.act_each` (the one rule:
an agent that sets `uses_observation = False` reads only the mask and gets no observation,
which saves over half the time of its games). A game's moves are exactly those it would make
played alone: every game has its own agents, every agent is asked for every move of its seat
(the forced ones too), and the masks and observations are those of the scalar `Game`. The
studies (`baohuang_study`) play their games through it as well.
"""

from __future__ import annotations

import contextlib
import copy
import itertools
import threading
import typing
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from baohuang_env.actions import PASS
from baohuang_env.agent import AGENT_KINDS, Agent, act_each, make_agent, resets
from baohuang_env.game import Game, GameResult, IllegalActionError
from baohuang_env.infostate import info_state
from baohuang_env.records import PLAYERS_FIELD
from baohuang_env.rules import Rules

if typing.TYPE_CHECKING:
    from baohuang_env.batched.games import BatchedGames

#: Composition tags that enter the agent seeds: "A" / "B" in the seat protocol, and tags of
#: their own for team games, so team games never reuse the seeds of seat games.
SEED_TAGS = {"A": 0, "B": 1, "team-A": 2, "team-B": 3}
#: Games played at once by `play_games` (the rows of its batch): the cheapest bots still gain
#: up to a few hundred rows, bots that cost more a move little past a few dozen; a seat
#: protocol chunk (20 deals, 200 games) fits in one batch.
MAX_ROWS = 256


def agent_seed(deal: int, focal_seat: int, composition: str, seat: int) -> int:
    """Seed of the agent at `seat` in the game (deal, focal seat, composition). Team games
    pass the emperor's seat as `focal_seat` and "team-A" / "team-B" as `composition`."""
    ss = np.random.SeedSequence([deal, focal_seat, SEED_TAGS[composition], seat, 0xBA0])
    return int(ss.generate_state(1, np.uint32)[0])


class Seats(typing.Protocol):
    """The agents of one side of a pair: `get(seat, seed)` is the agent that plays `seat` in
    a new game, already reset with `seed`. The games of a chunk are played at once
    (`play_games`), so an agent that keeps state during a game must not be handed to two games.
    A Seats object may also define `new_game()`, called before the agents of each game are
    asked for (in seat order)."""

    def get(self, seat: int, seed: int) -> Agent: ...


def game_agents(sides: Sequence[Seats], seeds: Sequence[int]) -> list[Agent]:
    """The agents of one game: seat q's from `sides[q].get(q, seeds[q])`, after `new_game()`
    on every side that has it."""
    for side in {id(s): s for s in sides}.values():
        if hasattr(side, "new_game"):
            side.new_game()
    return [side.get(q, seed) for q, (side, seed) in enumerate(zip(sides, seeds, strict=True))]


class SpecSeats:
    """Agents of one spec, one per seat and game. An agent with a `reset(seed)` of its own
    (`resets`: not `Agent`'s no-op) is built once per seat and every game gets a shallow copy
    of it, reset with its seed (so its per-game state must live in what `reset` sets anew, as
    the random bot's and the learned agents' RNG does); an agent without one is rebuilt for
    every game."""

    def __init__(self, spec: str, rules: Rules) -> None:
        self.spec, self.rules = spec, rules
        self.agents: dict[int, Agent] = {}

    def get(self, seat: int, seed: int) -> Agent:
        agent = self.agents.get(seat)
        if agent is None or not resets(agent):
            agent = self.agents[seat] = make_agent(self.spec, self.rules, seed)
        if not resets(agent):
            return agent
        mine = copy.copy(agent)
        mine.reset(seed)
        return mine


class ObjectSeats:
    """One in-process agent object for every seat of its side (it must not keep per-seat
    state between calls). An object with a `reset(seed)` of its own (`resets`) keeps state for
    a game (its RNG), so every game gets its own shallow copy, shared by that game's seats and
    reset for each of them in seat order, as one object played game after game; one without is
    shared by all."""

    def __init__(self, agent: Agent) -> None:
        self.agent = agent
        self._game_copy = agent

    def new_game(self) -> None:
        if resets(self.agent):
            self._game_copy = copy.copy(self.agent)

    def get(self, seat: int, seed: int) -> Agent:
        if resets(self._game_copy):
            self._game_copy.reset(seed)
        return self._game_copy


@dataclass
class Table:
    """One game for `play_games`: its deal, who plays each seat, and how it starts and stops.

    `agents[q]` plays seat q (`names[q]` in error messages, `where` naming the game); they move
    once the `opening` actions (a role phase already decided, say) have been replayed.
    `watch(game, seat, action)`, when given, sees every move the agents make, with the game
    as it stands before that move; `until(game)` (checked before every move) ends the table
    early: its game counts as played from then on. Either makes the table keep its own `Game`
    in step with its row (`Played.game`), which they read: asking the batch for a row's Game
    at every move would be slow (a batch on compiled kernels rebuilds it on each access)."""

    seed: int
    agents: Sequence[Agent]
    names: Sequence[str]
    where: str
    opening: Sequence[int] = ()
    watch: Callable[[Game, int, int], None] | None = None
    until: Callable[[Game], bool] | None = None

    @property
    def mirrored(self) -> bool:
        """The table keeps its own Game (it has a `watch` or an `until`)."""
        return self.watch is not None or self.until is not None


@dataclass
class Played:
    """How one table's game came out: `result` (None when `until` stopped it first), its
    replay `record` (when `play_games` was asked for records) and the table's own `game`
    (tables with `watch` or `until`) as it stood at the end."""

    result: GameResult | None
    record: dict[str, Any] | None
    game: Game | None


_IDLE_BATCHES = threading.local()  # per thread: (rules, rows, records) -> a batch no call is using


@contextlib.contextmanager
def _batch(rules: Rules, rows: int, records: bool) -> Iterator[BatchedGames]:
    """A batch of `rows` rows for `rules`, lent for one `play_games` call and kept for the
    next (building one builds its encoder, which costs milliseconds, up to tens in the
    calling presets); a call inside another (a watch that plays games) gets its own. On the
    "arrays" engine (the play phase on compiled kernels, the same games as "games" move for
    move): with "games", every row's mask is the scalar Game's and a batch of cheap bots plays
    slower than the games one at a time did (docs/evaluation.md, "How games are played")."""
    # imported here: the batched engine brings numba (0.2 s), which a pool's main process,
    # playing no game, does without
    from baohuang_env.batched.games import BatchedGames

    idle: dict[tuple, BatchedGames] = _IDLE_BATCHES.__dict__.setdefault("batches", {})
    key = (rules, rows, records)
    batch = idle.pop(key, None)
    if batch is None:
        batch = BatchedGames(rules, rows, autoreset="none", observe=False, records=records, engine="arrays")
    yield batch
    idle[key] = batch
    while len(idle) > 4:
        idle.pop(next(iter(idle)))


def play_games(rules: Rules, tables: Iterable[Table], records: bool = False, rows: int = MAX_ROWS) -> list[Played]:
    """Play every table's game; returns how each came out, in table order.

    Up to `rows` games are the rows of one `BatchedGames` at a time. Every step, each row
    replays its next opening action or its agent moves: `act_each` over the agents of all
    rows, with the observations of just the agents that read them from one `observe` of the
    batch. Once a quarter of the rows are done, they take the next tables (read lazily, so
    their agents are built as rows free up; a refill shows every row's mask again, so it waits
    for several). An illegal move raises ValueError naming the agent and the game.
    """
    source = iter(tables)
    first = list(itertools.islice(source, rows))
    if not first:
        return []
    with _batch(rules, len(first), records) as batch:
        return _play(batch, rules, first, source)


def _play(batch: BatchedGames, rules: Rules, first: list[Table], source: Iterator[Table]) -> list[Played]:
    """`play_games` on `batch`, whose rows start with the tables `first`, then take `source`'s."""
    B = len(first)
    rows_of = _Rows(rules, first)
    step = batch.reset([t.seed for t in first])
    actions = np.zeros(B, dtype=np.int64)
    while True:
        seats = step.seat.tolist()
        for b, table in enumerate(rows_of.held):
            if table is not None and table.until is not None and seats[b] >= 0 and table.until(rows_of.mirrors[b]):
                rows_of.finish(b, None, None)
        if rows_of.free and (len(rows_of.free) * 4 >= B or rows_of.idle):
            refill = rows_of.refill(source)
            if refill:
                step = batch.reset_rows(refill, [rows_of.held[b].seed for b in refill])
                continue
        if rows_of.idle:
            return rows_of.out
        acting: list[int] = []
        for b, table in enumerate(rows_of.held):
            if table is None:  # done; a row stopped by `until` still moves (its first legal action)
                actions[b] = int(step.mask[b].argmax()) if seats[b] >= 0 else PASS
            elif rows_of.moved[b] < len(table.opening):
                actions[b] = table.opening[rows_of.moved[b]]
            else:
                acting.append(b)
        if acting:
            agents = [rows_of.held[b].agents[seats[b]] for b in acting]
            actions[acting] = act_each(agents, step.mask[acting],
                                       lambda js, acting=acting: batch.observe([acting[j] for j in js]),
                                       lambda js, acting=acting, seats=seats: [
                                           info_state(batch.games[acting[j]], seats[acting[j]]) for j in js])
            for b in acting:
                if rows_of.held[b].watch is not None:
                    rows_of.held[b].watch(rows_of.mirrors[b], seats[b], int(actions[b]))
        try:
            step = batch.step(actions)
        except IllegalActionError as err:
            raise rows_of.illegal(err, seats[err.row]) from None
        rows_of.advance(actions)
        for b, result, record in step.ended:
            rows_of.finish(b, result, record)


class _Rows:
    """`play_games`' bookkeeping: which table each row plays, how far it is, its results."""

    def __init__(self, rules: Rules, first: list[Table]) -> None:
        self.rules = rules
        self.out: list[Played] = [None] * len(first)  # type: ignore[list-item]  # each filled in by finish()
        self.held: list[Table | None] = list(first)  # each row's table; None once done
        self.index = list(range(len(first)))  # each row's table's place in `out`
        self.moved = [0] * len(first)  # moves made in each row's game
        self.mirrors = [self._mirror(t) for t in first]
        self.free: list[int] = []  # rows whose table is done, to refill
        self.exhausted = False  # no tables left to refill them with

    def _mirror(self, table: Table) -> Game | None:
        return Game(self.rules, seed=table.seed) if table.mirrored else None

    def finish(self, b: int, result: GameResult | None, record: dict[str, Any] | None) -> None:
        if record is not None:  # the replay names who played each seat, as the table does
            record[PLAYERS_FIELD] = list(self.held[b].names)
        self.out[self.index[b]] = Played(result, record, self.mirrors[b])
        self.held[b] = None
        self.free.append(b)

    @property
    def idle(self) -> bool:
        """No row holds a table."""
        return len(self.free) == len(self.held)

    def refill(self, source: Iterator[Table]) -> list[int]:
        """Give the free rows the next tables; the rows that got one."""
        got: list[int] = []
        for b in self.free:
            table = None if self.exhausted else next(source, None)
            if table is None:
                self.exhausted = True
                break
            self.held[b], self.index[b], self.moved[b] = table, len(self.out), 0
            self.mirrors[b] = self._mirror(table)
            self.out.append(None)  # type: ignore[arg-type]
            got.append(b)
        self.free = self.free[len(got):]
        return got

    def advance(self, actions: np.ndarray) -> None:
        """Count the move every row with a table just made (and make it in its mirror)."""
        for b, table in enumerate(self.held):
            if table is not None:
                self.moved[b] += 1
                if self.mirrors[b] is not None:
                    self.mirrors[b].step(int(actions[b]))

    def illegal(self, err: IllegalActionError, seat: int) -> ValueError:
        """The error of row `err.row`'s illegal move, naming its agent and its game."""
        table = self.held[err.row]
        reason = str(err).removeprefix(f"row {err.row}: ")
        who = "an opening action" if self.moved[err.row] < len(table.opening) else f"agent {table.names[seat]!r}"
        return ValueError(f"{who} chose an illegal action ({table.where}): {reason}")


def file_slug(text: str) -> str:
    """`text` (an agent spec) made safe for a file or folder name."""
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in text)[:60]


def validate_specs(specs: Sequence[str], rules: Rules) -> None:
    """Build every spec once, so a typo or a missing checkpoint fails before any game."""
    for spec in specs:
        if not isinstance(spec, str) or not spec:
            raise ValueError(f"agent specs are strings such as 'random'; got {spec!r}")
        try:
            make_agent(spec, rules, 0)
        except ValueError as err:
            if spec.partition(":")[0] not in AGENT_KINDS:
                raise  # an unknown kind: make_agent's message lists the known ones
            raise ValueError(f"cannot build agent {spec!r}: {err}") from None
        except OSError as err:  # the kind is known: what failed is its file, said alone
            raise ValueError(f"cannot build agent {spec!r}: {err}") from None


__all__ = [
    "MAX_ROWS", "SEED_TAGS", "ObjectSeats", "Played", "Seats", "SpecSeats", "Table", "agent_seed", "file_slug",
    "game_agents", "play_games", "validate_specs",
]
