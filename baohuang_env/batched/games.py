"""B games of one rule set in lockstep, each at its own acting seat (self-play at batch speed).

`BatchedGames` steps B games together, pgx/EnvPool-style: one array of actions in, one
`BatchStep` of arrays out. Two engines sit behind that API (`engine`, `ENGINES`):

* "arrays" (the default): a row's deal and role phase run on its scalar `Game`; once its
  roles are fixed its play phase moves into arrays over the rows, stepped, masked and
  observed by compiled kernels (`baohuang_env.batched.kernels`, which says which play-phase
  rules exist there a second time and why, and tests/test_batched_kernels.py pins to `Game`).
  `games[b]` then rebuilds row b's `Game` from its seed and actions: exact, not cheap;
  `roles(b)` reads a row's phase and roles without it.
* "games": every row is a `Game` and every rule the `Game`'s; what is batched is the
  boundary: the masks from `masks.legal_masks`, the observations from `Encoder.encode_many`.

    games = BatchedGames(get_rules("jj"), 256)
    step = games.reset(seeds=range(256))
    while ...:
        step = games.step(policy(step.obs, step.mask))   # (B,) action ids

Autoreset (`autoreset`, Gymnasium's terms): "next_step" — a row whose game ends keeps its final
state for that step; at the next step its action is ignored and it restarts with its next
seed. "same_step" — it restarts within the step (the BatchStep shows the new game; the ended
one is in `ended`). "none" — it stays ended until `reset_rows`. A row whose `seat` is -1 has
ended and waits: its mask holds PASS alone (the one action a masked sampler can pick, which is
ignored), and its observation stays the final state seen by the seat that made the last move.

Seeds: a row's game k (k = 0 at `reset`/`reset_rows`, then 1, 2, ... at each autoreset) is
dealt from `game_seed(seed, k)`: the reset seed itself for k = 0 (so row b's first game is
`Game(rules, seed)`), and for k >= 1 the first 63 bits of `np.random.SeedSequence([seed, k])`.
A trainer that draws its deals from its own range instead gives `next_seed(row)`, called at
each autoreset for the row's next deal. Either way every ended game's replay record holds
its seed, from which `Game.from_replay` rebuilds it.

Observations: with `observe=False` a step shows no `obs` (None), and `observe(rows)` encodes
the acting seats of just the rows a caller needs (a trainer skips the forced moves and the
bots that read only the mask, which is most rows at most steps).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from ..actions import PASS
from .masks import MIN_BATCH, legal_masks
from ..cards import NUM_SEATS
from ..encoding import Encoder
from ..game import OVER as OVER_PHASE
from ..game import PLAY, Game, GameResult, IllegalActionError, replay_record
from .kernels import EMPEROR, GUARD, OVER, SEAT, PlayArrays, pick_legal
from ..rules import Rules, get_rules

AUTORESET_MODES = ("next_step", "same_step", "none")
#: How a batch keeps its rows (`BatchedGames(engine=...)`): "arrays" (the default), the play
#: phase of every row in arrays stepped by compiled kernels (`baohuang_env.batched.kernels`), or
#: "games", every row a scalar `Game`.
ENGINES = ("arrays", "games")


def game_seed(seed: int, k: int) -> int:
    """The deal seed of a row's k-th game after it was reset with `seed` (see the module)."""
    if k == 0:
        return int(seed)
    state = np.random.SeedSequence([int(seed), int(k)]).generate_state(1, np.uint64)[0]
    return int(state >> np.uint64(1))


@dataclass
class BatchStep:
    """What every row shows after a `reset` or `step`. `obs` and `mask` are the batch's own
    buffers, rewritten by its next call (copy them to keep them); the other arrays are new.

    `seat` (B,) int64: the acting seat, -1 on a row whose game has ended and waits.
    `obs` (B, D) float32: `Encoder.encode` of the acting seat (of the last mover on a waiting
    row); None when the batch was made with `observe=False` (see `BatchedGames.observe`).
    `mask` (B, N) int8 (read-only): `game.legal_mask()` of the acting seat; PASS alone on a waiting row.
    `rewards` (B, 5) float32: the five seats' deal scores on rows whose game ended at this step.
    `terminated` (B,) bool: the row's game ended at this step.
    `ended`: (row, result, replay record) of every game that ended at this step (the record is
    None in a batch made with `records=False`).
    """

    seat: np.ndarray
    obs: np.ndarray | None
    mask: np.ndarray
    rewards: np.ndarray
    terminated: np.ndarray
    ended: list[tuple[int, GameResult, dict[str, Any]]] = field(default_factory=list)


def random_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action of every mask row ((B, N) int8, no row empty): row b
    takes its k-th legal id (ascending) for k = floor(u_b * legal count), u_b the row's draw
    from `rng.random(B)`, one compiled pass over the batch (`kernels.pick_legal`)."""
    return pick_legal(masks.view(np.uint8), rng.random(masks.shape[0]))


class RowRoles(NamedTuple):
    """A row's phase and roles, hidden ones included (`BatchedGames.roles`): for a trainer's
    labels and the sides of a training game, never for a policy's input."""

    phase: str  # "role", "play" or "over"
    emperor: int  # -1 until chosen
    guard: int  # -1 until fixed; == emperor in a solo


class _GameRows:
    """Engine "games": every row's state lives in its own `Game` (no rule copied anywhere)."""

    def __init__(self, rules: Rules, num_games: int, encoder: Encoder) -> None:
        self.rules, self.encoder = rules, encoder
        self.games: list[Game] = [None] * num_games  # type: ignore[list-item]  # each filled in by start()

    def start(self, b: int, seed: int) -> None:
        self.games[b] = Game(self.rules, seed=seed)

    def load(self, b: int, game: Game) -> None:
        self.games[b] = game

    def game(self, b: int) -> Game:
        return self.games[b]

    def seats(self) -> np.ndarray:
        return np.array([g.current_player for g in self.games], dtype=np.int64)

    def roles(self, b: int) -> RowRoles:
        game = self.games[b]
        return RowRoles(game.phase, game.emperor, game.guard)

    def in_play_phase(self, rows: np.ndarray) -> np.ndarray:
        return np.array([self.games[b].phase == PLAY for b in rows.tolist()], dtype=bool)

    def step(self, live: np.ndarray, acts: np.ndarray, records: bool) -> list[tuple[int, GameResult, Any]]:
        ended = []
        games = self.games
        for b, a in zip(live.tolist(), acts[live].tolist(), strict=True):
            game = games[b]
            game.step(a)
            if game.is_over:
                ended.append((b, game.result, game.to_replay() if records else None))
        return ended

    def masks(self, out: np.ndarray, rows: np.ndarray) -> None:
        if rows.size == len(self.games):
            legal_masks(self.games, out, MIN_BATCH)
        elif rows.size:
            out[rows] = legal_masks([self.games[b] for b in rows.tolist()], None, MIN_BATCH)

    def observe(self, rows: np.ndarray, seats: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        return self.encoder.encode_many([self.games[b] for b in rows.tolist()], seats, out)


class _ArrayRows:
    """Engine "arrays": a row's deal and role phase run on its `Game`, its play phase on the
    compiled kernels of `baohuang_env.batched.kernels` (its `PlayArrays` own the row from then on)."""

    def __init__(self, rules: Rules, num_games: int, encoder: Encoder) -> None:
        self.rules, self.encoder = rules, encoder
        self.arrays = PlayArrays(rules, num_games, encoder)
        self.role_games: dict[int, Game] = {}  # rows in their role phase (or whose deal ended there)
        self.in_arrays = np.zeros(num_games, dtype=bool)

    def start(self, b: int, seed: int) -> None:
        game = self.role_games[b] = Game(self.rules, seed=seed)
        self.in_arrays[b] = False
        if game.phase == PLAY:
            self._load([b])

    def load(self, b: int, game: Game) -> None:
        self.role_games[b] = game
        self.in_arrays[b] = False
        if game.phase == PLAY:
            self._load([b])

    def _load(self, rows: list[int]) -> None:
        """Rows whose games have just entered their play phase move to the arrays."""
        self.arrays.load(rows, [self.role_games.pop(b) for b in rows])
        self.in_arrays[rows] = True

    def game(self, b: int) -> Game:
        return self.arrays.game(b) if self.in_arrays[b] else self.role_games[b]

    def roles(self, b: int) -> RowRoles:
        if not self.in_arrays[b]:
            game = self.role_games[b]
            return RowRoles(game.phase, game.emperor, game.guard)
        f = self.arrays.facts[b]
        return RowRoles(OVER_PHASE if f[OVER] else PLAY, int(f[EMPEROR]), int(f[GUARD]))

    def in_play_phase(self, rows: np.ndarray) -> np.ndarray:
        return self.in_arrays[rows] & (self.arrays.facts[rows, OVER] == 0)

    def seats(self) -> np.ndarray:
        seats = self.arrays.facts[:, SEAT].astype(np.int64)
        for b, game in self.role_games.items():
            seats[b] = game.current_player
        return seats

    def step(self, live: np.ndarray, acts: np.ndarray, records: bool) -> list[tuple[int, GameResult, Any]]:
        rows = live[self.in_arrays[live]]
        ended = self._with_records(self.arrays.step(rows, acts[rows].astype(np.int32)), records)
        to_play = []
        if self.role_games:
            stepped = np.zeros(self.in_arrays.size, dtype=bool)
            stepped[live] = True
        for b, game in [(b, g) for b, g in self.role_games.items() if stepped[b]]:
            game.step(int(acts[b]))
            if game.is_over:  # a void deal or a surrender
                ended.append((b, game.result, game.to_replay() if records else None))
            elif game.phase == PLAY:
                to_play.append(b)
        if to_play:
            self._load(to_play)
        return sorted(ended, key=lambda e: e[0])  # in row order, as the games engine gives them

    def play_random(self, rows: np.ndarray, until: np.ndarray, states: np.ndarray, records: bool
                    ) -> tuple[list[tuple[int, GameResult, Any]], np.ndarray]:
        ended, last = self.arrays.play_random(rows, until, states)
        return self._with_records(sorted(ended, key=lambda e: e[0]), records), last

    def play_greedy(self, rows: np.ndarray, until: np.ndarray, records: bool
                    ) -> tuple[list[tuple[int, GameResult, Any]], np.ndarray]:
        ended, last = self.arrays.play_greedy(rows, until)
        return self._with_records(sorted(ended, key=lambda e: e[0]), records), last

    def _with_records(self, ended: list[tuple[int, GameResult]], records: bool) -> list[tuple[int, GameResult, Any]]:
        """(row, result, replay record or None) of the array rows whose deals just ended."""
        arrays = self.arrays
        return [(b, result, replay_record(self.rules, arrays.seed[b], arrays.actions_of(b), result,
                                          arrays.custom_deal[b]) if records else None) for b, result in ended]

    def masks(self, out: np.ndarray, rows: np.ndarray) -> None:
        live = rows[self.in_play_phase(rows)]
        self.arrays.masks(live, live, out)
        if self.role_games:
            for b in rows[~self.in_arrays[rows]].tolist():
                game = self.role_games[b]
                if not game.is_over:
                    out[b] = game.legal_mask()

    def observe(self, rows: np.ndarray, seats: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        if out is None:
            out = np.empty((rows.size, self.encoder.size), dtype=np.float32)
        in_arrays = self.in_arrays[rows]
        dest = np.flatnonzero(in_arrays)
        self.arrays.observe(rows[dest], dest, seats[dest].astype(np.int32), out)
        if dest.size < rows.size:
            others = np.flatnonzero(~in_arrays)
            out[others] = self.encoder.encode_many([self.role_games[b] for b in rows[others].tolist()], seats[others])
        return out


class _RowGames(Sequence):
    """`BatchedGames.games`: row b's current `Game` (under engine "arrays" a play-phase row's
    Game is rebuilt from its seed and actions on each access: exact, but slow)."""

    def __init__(self, rows: _GameRows | _ArrayRows, num_games: int) -> None:
        self._rows, self._n = rows, num_games

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, b):  # type: ignore[override]
        if isinstance(b, slice):
            return [self._rows.game(i) for i in range(*b.indices(self._n))]
        if not -self._n <= b < self._n:
            raise IndexError(f"row {b} out of range for {self._n} games")
        return self._rows.game(b % self._n)


class BatchedGames:
    """B games of one rule set stepped together; see the module docstring."""

    def __init__(self, rules: Rules | str, num_games: int, autoreset: str = "next_step", observe: bool = True,
                 next_seed: Callable[[int], int] | None = None, records: bool = True,
                 engine: str = "arrays") -> None:
        if autoreset not in AUTORESET_MODES:
            raise ValueError(f"autoreset {autoreset!r} is not supported; use one of {AUTORESET_MODES}")
        if engine not in ENGINES:
            raise ValueError(f"engine {engine!r} is not supported; use one of {ENGINES}")
        if num_games < 1:
            raise ValueError(f"num_games must be at least 1, got {num_games}")
        self.rules = get_rules(rules) if isinstance(rules, str) else rules
        #: "next_step", "same_step" or "none" (see the module docstring).
        self.autoreset = autoreset
        #: "arrays" (the play phase on compiled kernels, the default) or "games" (every row a `Game`).
        self.engine = engine
        self.num_games = num_games
        #: Whether every step shows the acting seats' observations (else `observe(rows)`).
        self.observe_all = observe
        self._next_seed = next_seed
        #: Whether `ended` holds each ended game's replay record (else None: a trainer that
        #: never replays its games saves the record's cost, about 50 µs a game).
        self.records = records
        self.encoder = Encoder(self.rules)
        self._rows = (_ArrayRows if engine == "arrays" else _GameRows)(self.rules, num_games, self.encoder)
        #: Row b's current game: `Game.from_replay(games[b].to_replay())` rebuilds it exactly.
        self.games: Sequence[Game] = _RowGames(self._rows, num_games)
        self._started = False
        self._reset_seeds = [0] * num_games
        self._game_index = [0] * num_games  # k of each row's current game
        self._seat = np.full(num_games, -1, dtype=np.int64)  # the acting seats last shown
        self._last_mover = np.zeros(num_games, dtype=np.int64)  # whose view a waiting row's observation shows
        self._rows_index = np.arange(num_games)
        self._masks = np.empty((num_games, self.num_actions), dtype=np.int8)
        # the observations' buffer, only when every step shows them
        self._obs = np.empty((num_games, self.observation_size), dtype=np.float32) if observe else None
        self._mask: np.ndarray | None = None  # a read-only view of the masks last shown: what step() checks

    @property
    def num_actions(self) -> int:
        return self.encoder.table.num_actions

    @property
    def observation_size(self) -> int:
        return self.encoder.size

    def reset(self, seeds: Sequence[int]) -> BatchStep:
        """Deal a new game in every row, row b from `seeds[b]` (its game 0)."""
        if len(seeds) != self.num_games:
            raise ValueError(f"give one seed per row: {self.num_games} seeds, got {len(seeds)}")
        for b, s in enumerate(seeds):
            self._rows.start(b, int(s))
        self._started = True
        self._reset_seeds = [int(s) for s in seeds]
        self._game_index = [0] * self.num_games
        return self._show([])

    def reset_rows(self, rows: Sequence[int], seeds: Sequence[int]) -> BatchStep:
        """Deal a new game (game 0 of `seeds[i]`) in each of `rows`; the other rows are
        untouched. Returns what every row shows now."""
        if len(rows) != len(seeds):
            raise ValueError(f"give one seed per row: {len(rows)} rows, got {len(seeds)} seeds")
        if not self._started:
            raise RuntimeError("reset() the batch before resetting rows")
        for b, s in zip(rows, seeds, strict=True):
            self._rows.start(int(b), int(s))
            self._reset_seeds[b], self._game_index[b] = int(s), 0
        return self._show([], np.unique(np.asarray(rows, dtype=np.int64)))

    def load_rows(self, rows: Sequence[int], games: Sequence[Game]) -> BatchStep:
        """Each of `rows` takes over a copy of `games[i]` as it stands (any phase, a hand-built
        deal too: a search's rollouts from a sampled world); the other rows are untouched.
        An autoreset deals such a row's next game from the game's seed. Returns what every
        row shows now."""
        if len(rows) != len(games):
            raise ValueError(f"give one game per row: {len(rows)} rows, got {len(games)} games")
        if not self._started:
            raise RuntimeError("reset() the batch before loading rows")
        for b, game in zip(rows, games, strict=True):
            if game.rules != self.rules:
                raise ValueError(f"row {b}: the game is of preset {game.rules.preset!r}, the batch of "
                                 f"{self.rules.preset!r}")
            if game.is_over:
                raise ValueError(f"row {b}: the game is over; load a game still in play")
            self._rows.load(int(b), game.copy())
            self._reset_seeds[b], self._game_index[b] = game.seed, 0
        return self._show([], np.unique(np.asarray(rows, dtype=np.int64)))

    def step(self, actions: np.ndarray | Sequence[int], rows: Sequence[int] | np.ndarray | None = None) -> BatchStep:
        """Apply `actions[b]` in every live row (ignored on a waiting row, see the module); with
        `rows`, in just those rows (the others keep their state, their actions are ignored:
        an env that steps only the games waiting on an opponent).

        Every stepped row's action is checked before any is applied: an illegal one raises
        `IllegalActionError` naming its row (its `row` attribute) and changes nothing."""
        if self._mask is None:
            raise RuntimeError("reset() the batch before stepping it")
        acts = np.asarray(actions)
        if acts.shape != (self.num_games,) or not np.issubdtype(acts.dtype, np.integer):
            raise TypeError(f"actions must be {self.num_games} integer action ids, got {acts.dtype} {acts.shape}")
        waiting = self._seat < 0
        if rows is None:
            skipped = np.zeros(self.num_games, dtype=bool)
        else:
            skipped = np.ones(self.num_games, dtype=bool)
            skipped[np.asarray(rows, dtype=np.int64)] = False
        self._check(acts, waiting | skipped)
        live = np.flatnonzero(~(waiting | skipped))
        self._last_mover[live] = self._seat[live]
        ended = self._rows.step(live, acts, self.records)
        changed = live
        if self.autoreset == "next_step":
            restart = np.flatnonzero(waiting & ~skipped)
            for b in restart.tolist():
                self._restart(b)
            if restart.size:
                changed = np.sort(np.concatenate([live, restart]))
        elif self.autoreset == "same_step":
            for b, _result, _record in ended:
                self._restart(b)
        return self._show(ended, None if rows is None else changed)

    def in_play_phase(self, rows: Sequence[int] | np.ndarray) -> np.ndarray:
        """(len(rows),) bool: whether each row's game is in its play phase (roles fixed, not
        over), cheap on both engines."""
        rows = np.asarray(rows, dtype=np.int64).reshape(-1)
        return self._rows.in_play_phase(rows)

    def play_random(self, rows: Sequence[int] | np.ndarray, until: Sequence[int] | np.ndarray,
                    states: np.ndarray) -> BatchStep:
        """Play on in the play-phase rows of `rows` by `RandomAgent`'s rule, many moves in one
        compiled call, until in each the seat `until[i]` is to act or the deal is over: the
        acting seat s of `rows[i]` takes its k-th legal action (ascending) for k =
        `rng.integers(legal count)` of the generator whose bit generator state is at
        `states[i, s]` (`draws.state_addresses` of PCG64 generators, which the caller keeps
        alive; `states[i, until[i]]` is never read). The moves, the generators' draws and the
        results are those of `RandomAgent.act` called at every one of those turns: this is
        how a batch of random opponents moves without a Python call per move.

        Rows in their role phase, or whose game has ended, are left as they are (a caller
        steps those one move at a time). Engine "arrays" only."""
        rows = np.asarray(rows, dtype=np.int64).reshape(-1)
        until = np.asarray(until, dtype=np.int64).reshape(-1)
        states = np.asarray(states, dtype=np.uint64)
        if until.shape != rows.shape or states.shape != (rows.size, NUM_SEATS):
            raise ValueError(f"give a seat and {NUM_SEATS} generator states per row: {rows.size} rows, "
                             f"until {until.shape}, states {states.shape}")
        return self._play_on("play_random", rows, until, lambda playing, rows, until: self._rows.play_random(
            rows, until, states[playing], self.records))

    def play_greedy(self, rows: Sequence[int] | np.ndarray, until: Sequence[int] | np.ndarray | None = None
                    ) -> BatchStep:
        """Play on in the play-phase rows of `rows` by the greedy bot's play-phase rule
        (`GreedyAgent.act`, compiled: `kernels._greedy_move`), many moves in one compiled
        call, until in each the seat `until[i]` is to act or the deal is over (`until` None or
        -1: to the end of the deal). The moves and results are those of `GreedyAgent.act`
        called at every one of those turns: a search's play-outs with greedy rollouts
        (rollout=greedy) without a Python call per move.

        Rows in their role phase, or whose game has ended, are left as they are (a caller
        steps those one move at a time: the greedy bot's role answers are the auto-play
        defaults). Engine "arrays" only."""
        rows = np.asarray(rows, dtype=np.int64).reshape(-1)
        until = np.full(rows.size, -1, dtype=np.int64) if until is None else np.asarray(
            until, dtype=np.int64).reshape(-1)
        if until.shape != rows.shape:
            raise ValueError(f"give a seat per row: {rows.size} rows, until {until.shape}")
        return self._play_on("play_greedy", rows, until, lambda _playing, rows, until: self._rows.play_greedy(
            rows, until, self.records))

    def _play_on(self, name: str, rows: np.ndarray, until: np.ndarray,
                 play: Callable[[np.ndarray, np.ndarray, np.ndarray], tuple[list, np.ndarray]]) -> BatchStep:
        """Run a compiled player `play(playing, rows, until)` over the play-phase rows of
        `rows` (`playing`: which of them), then show what every row shows now."""
        if self.engine != "arrays":
            raise ValueError(f"{name} needs engine 'arrays', not {self.engine!r}")
        if self._mask is None:
            raise RuntimeError("reset() the batch before stepping it")
        playing = self._rows.in_play_phase(rows)
        rows = rows[playing]
        ended, last = play(playing, rows, until[playing])
        moved = last >= 0
        self._last_mover[rows[moved]] = last[moved]
        if self.autoreset == "same_step":
            for b, _result, _record in ended:
                self._restart(b)
        return self._show(ended, np.sort(rows[moved]))

    def _check(self, acts: np.ndarray, exempt: np.ndarray) -> None:
        """Raise IllegalActionError for the first row, not `exempt`, whose action its mask
        does not allow."""
        clipped = np.clip(acts, 0, self.num_actions - 1)
        ok = self._mask[self._rows_index, clipped].view(bool) & (clipped == acts)
        ok |= exempt
        if ok.all():
            return
        b = int(np.flatnonzero(~ok)[0])
        try:  # the game's own check says why (on a copy: no row changes)
            self.games[b].copy().step(int(acts[b]))
        except IllegalActionError as err:
            err.row = b
            err.args = (f"row {b}: {err}",)
            raise
        raise AssertionError(f"row {b}: its mask refused an action its game accepts")  # the masks are the game's

    def roles(self, row: int) -> RowRoles:
        """Row `row`'s phase, emperor and guard (hidden ones too: for a trainer's labels and
        sides, never a policy's input), cheap on both engines (no `Game` rebuilt)."""
        return self._rows.roles(row)

    def observe(self, rows: Sequence[int] | np.ndarray, seats: Sequence[int] | np.ndarray | None = None) -> np.ndarray:
        """The observations (len(rows), D) float32 of the acting seats of `rows` (live rows:
        a waiting row has no acting seat), or of `seats[i]` in `rows[i]` (any seat, any row),
        row i byte for byte `Encoder.encode(games[rows[i]], seat)`; a new array."""
        rows = np.asarray(rows, dtype=np.int64).reshape(-1)
        if seats is None:
            seats = self._seat[rows]
            if (seats < 0).any():
                raise ValueError("observe() without seats is for live rows; a waiting row has no acting seat")
        else:
            seats = np.asarray(seats, dtype=np.int64).reshape(-1)
            if seats.shape != rows.shape or ((seats < 0) | (seats >= NUM_SEATS)).any():
                raise ValueError(f"give one seat in 0..4 per row: {rows.size} rows, seats {seats.tolist()}")
        return self._rows.observe(rows, seats)

    def _restart(self, b: int) -> None:
        """Deal row b's next game: from `next_seed(b)` when given, else from its reset seed."""
        k = self._game_index[b] = self._game_index[b] + 1
        seed = self._next_seed(b) if self._next_seed is not None else game_seed(self._reset_seeds[b], k)
        self._rows.start(b, int(seed))

    def _show(self, ended: list[tuple[int, GameResult, dict[str, Any]]], rows: np.ndarray | None = None
              ) -> BatchStep:
        """The BatchStep of every row's current state, with the games that just ended: the
        masks and observations of `rows` (every row when None) made anew, the others' kept
        (their games did not move)."""
        B = self.num_games
        rows = self._rows_index if rows is None else rows
        seat = self._seat = self._rows.seats()
        masks = self._masks
        self._rows.masks(masks, rows)
        shown = seat[rows]
        waiting = rows[shown < 0]
        if waiting.size:
            masks[waiting] = 0
            masks[waiting, PASS] = 1
            view_seats = np.where(shown < 0, self._last_mover[rows], shown)
        else:
            view_seats = shown
        if self.observe_all:
            if rows.size == B:
                self._rows.observe(rows, view_seats, self._obs)
            elif rows.size:
                self._obs[rows] = self._rows.observe(rows, view_seats)
        mask = self._mask = masks.view()
        mask.flags.writeable = False
        rewards = np.zeros((B, NUM_SEATS), dtype=np.float32)
        terminated = np.zeros(B, dtype=bool)
        for b, result, _record in ended:
            rewards[b] = result.scores
            terminated[b] = True
        return BatchStep(seat.copy(), self._obs, mask, rewards, terminated, ended)


__all__ = ["AUTORESET_MODES", "ENGINES", "BatchStep", "BatchedGames", "RowRoles", "game_seed", "random_legal"]
