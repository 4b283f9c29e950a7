"""What one seat may know, as a flat float32 vector with named slices.

Everything is relative to the observing seat: relative seat 0 is "me", 1 my lower seat
(who plays after me), and so on, so one policy serves every seat. The vector never holds
another seat's hidden cards or the identity of a hidden guard: a seat learns who the guard
is only from an open declaration, from the marked guard card being played, or by being the
guard itself.

The slices, their order and their scales belong to `baohuang_env.observation`
(`observation_layout(rules)`); `Encoder` writes vectors in that layout. Counts are scaled
into [0, 1] (`/ copies` of that card kind, or `/ CARDS_LEFT_SCALE` for hand sizes), flags
are 0/1, one-hots mark a seat or place.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain
from operator import getitem

import numpy as np

from .actions import FIRST_PLAY, PASS
from .cards import NUM_SEATS
from .game import PLAY, ROLE, Game
from .knowledge import guard_and_role
from .observation import CARDS_LEFT_SCALE, HISTORY_LENGTH, ObservationLayout, observation_layout
from .roles import ROLES as MY_ROLES  # what the observing seat knows of its own role: ROLES' order
from .rules import Rules

#: Entries kept in the cache of encoded "cards played" rows before it is cleared.
_CACHE_LIMIT = 200_000

#: Entries of `Encoder._scalar_facts`, one small integer fact of a row each (the seat
#: entries, absolute seats or -1, are contiguous so that they turn relative in one operation).
(_PHASE, _EMPEROR, _EMPEROR_CARD, _KNOWN_GUARD, _TOP_PLAYER, _ROLE, _HOLD, _OPEN_GUARD, _OPEN_SOLO, _DECLINES,
 _LEADING, _TRICK) = range(12)
_NUM_SCALARS = 12
_SEAT_COLUMNS = slice(_EMPEROR, _TOP_PLAYER + 1)
#: Columns of `_BatchFacts.sources`: cards left, passed and places per relative seat, the
#: scalar facts, the history's (seat, action) pairs, then the relative seats (the four
#: seat entries', then the history's).
_SRC_CARDS_LEFT, _SRC_PASSED, _SRC_PLACES, _SRC_SCALARS = 0, NUM_SEATS, 2 * NUM_SEATS, 3 * NUM_SEATS
_SRC_RELATIVE = _SRC_SCALARS + _NUM_SCALARS + 2 * HISTORY_LENGTH


class Encoder:
    """Encodes a `Game` from one seat's point of view into a preallocated float32 layout.

    Two forms write the same observation: `encode` (one game) joins precomputed float32
    byte pieces, the fastest way for a single vector; `encode_many` (a batch) gathers the
    batch's integer facts into arrays and writes every slice for all rows at once from
    float32 tables cut from those same pieces, which is cheaper per row once a batch has a
    few dozen games. tests/test_encode_many.py pins them together: every `encode_many` row
    is byte for byte `encode` over every preset, phase and seat.
    """

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        layout = observation_layout(rules)
        #: The slices this encoder writes (their one owner).
        self.layout: ObservationLayout = layout
        table = layout.table
        self.table = table
        K = table.kinds.num_kinds
        self.num_kinds = K
        copies = layout.copies
        self._inv_copies = 1.0 / copies
        # thermometer code of a count: row c has c leading ones
        levels = layout["my_hand"].shape[1]
        self._thermo = (np.arange(levels)[None, :] < np.arange(levels + 1)[:, None]).astype(np.float32)
        # cards of every play as scaled rows, for the trick and history slices
        self._play_rows = np.zeros((FIRST_PLAY + table.num_plays, K), dtype=np.float32)
        self._play_rows[FIRST_PLAY:] = table.counts * self._inv_copies
        #: Phases of the phase one-hot: the rules' role-phase steps, then the play phase.
        self.phases: tuple[str, ...] = layout.phases
        #: Every slice as (name, offset, length), from the layout.
        self.slices: list[tuple[str, int, int]] = list(layout.spans)
        self.size = layout.size
        self._phase_index = {name: i for i, name in enumerate(self.phases)}
        self._deck_list = copies.astype(np.int64).tolist()
        # relative seat of every absolute seat from each observer; index -1 (nobody) -> NUM_SEATS
        self._rot = [[(seat + i) % NUM_SEATS for i in range(NUM_SEATS)] for seat in range(NUM_SEATS)]
        self._rel = [{**{s: (s - seat) % NUM_SEATS for s in range(NUM_SEATS)}, -1: NUM_SEATS}
                     for seat in range(NUM_SEATS)]
        #: Most abdications a deal can have (the scale of the `declines` slice).
        self.declines_scale = layout.declines_scale
        self._pieces = _Pieces(self, copies, self._play_rows)
        self._has_extras = bool(layout.preset_slices)
        self._num_ranks = table.kinds.num_ranks
        self._played_cache: dict[tuple[int, ...], bytes] = {}
        self._tables = _Tables(self._pieces, self._play_rows)
        #: The float32 tables every observation's entries come from (`_Tables`), also read by
        #: the array engine's compiled encoder (`baohuang_env.batched.kernels`), so both write the
        #: very floats `encode` does.
        self.lookup_tables = self._tables
        self._deck = copies.astype(np.int64)
        self._role_index = {**{name: i for i, name in enumerate(MY_ROLES)}, None: len(MY_ROLES)}
        self._count_columns = self._relative_count_columns()
        self._lookups = _Lookups(self, self._tables)
        # the (seat, action) padding of a history with n < HISTORY_LENGTH entries
        self._history_pad = [[(-1, self._tables.history_pad)] * (HISTORY_LENGTH - n)
                             for n in range(HISTORY_LENGTH + 1)]

    def decode(self, vector: np.ndarray, unscale: bool = False) -> dict[str, np.ndarray]:
        """Split an observation vector into its named slices: views by default, the integer
        facts with `unscale` (see `ObservationLayout.decode`, whose default is to unscale)."""
        return self.layout.decode(vector, unscale)

    def encode(self, game: Game, seat: int) -> np.ndarray:
        """The observation of `seat` (a new float32 array of `self.size`).

        Built by joining precomputed float32 byte pieces (one per count, flag or
        one-hot) and converting once: a handful of list lookups instead of dozens of
        small numpy calls, which keeps an observation at a few microseconds.
        """
        pieces: list[bytes] = []
        self._add_pieces(game, seat, pieces)
        return np.frombuffer(bytearray(b"".join(pieces)), dtype=np.float32)

    def encode_many(self, games: Sequence[Game], seats: Sequence[int], out: np.ndarray | None = None) -> np.ndarray:
        """The observations of `seats[b]` in `games[b]` as float32 rows (B, `self.size`): row b
        is byte for byte `encode(games[b], seats[b])`; written into `out` when given, else into
        a new array.

        The batch's integer facts are gathered into a few int arrays (`_BatchFacts`) and every
        slice is written for all rows at once by lookups into float32 tables cut from the same
        byte pieces `encode` joins (`_Tables`; the small slices in one gather, `_Lookups`);
        only the preset-only slices go row by row.
        """
        B = len(games)
        if out is None:
            out = np.empty((B, self.size), dtype=np.float32)
        if B == 0:
            return out
        f = _BatchFacts(self, games, seats)
        t, bounds = self._tables, self.layout.bounds

        def put(name: str, rows: np.ndarray) -> None:
            """Write `rows` (B rows, in any shape) into the columns of slice `name`."""
            a, b = bounds[name]
            out[:, a:b] = rows.reshape(B, b - a)

        scaled, offset, src, plan = t.scaled, t.scaled_offset, f.sources, self._lookups
        put("my_hand", self._thermo.take(f.hand, axis=0))
        put("unseen", scaled.take(offset + (self._deck - f.total_played - f.hand)))
        put("played", scaled.take(offset + f.played))
        out[:, plan.columns] = plan.values.take(plan.base + src[:, plan.source] * plan.stride)
        put("trick", t.history_cards.take(src[:, _SRC_SCALARS + _TRICK], axis=0))
        if self._has_extras:
            self._write_extras(games, f.seats, out)
        actions = src[:, _SRC_SCALARS + _NUM_SCALARS + 1:_SRC_RELATIVE:2]
        put("history", np.concatenate([t.history_cards.take(actions, axis=0),
                                       t.onehot.take(src[:, _SRC_RELATIVE + 4:], axis=0),
                                       (actions == PASS)[:, :, None].astype(np.float32)], axis=2))
        return out

    def _write_extras(self, games: Sequence[Game], seats: list[int], out: np.ndarray) -> None:
        """Write the preset-only slices (contiguous, before the history) row by row from the
        byte pieces of `encode`: they exist only in some presets and matter in the role phase."""
        first = self.layout[self.layout.preset_slices[0]].offset
        last = self.layout[self.layout.preset_slices[-1]].stop
        for b, (game, seat) in enumerate(zip(games, seats, strict=True)):
            pieces: list[bytes] = []
            self._encode_extras(game, seat, self._rel[seat], pieces.append)
            out[b, first:last] = np.frombuffer(b"".join(pieces), dtype=np.float32)

    def _relative_count_columns(self) -> np.ndarray:
        """(5, 7K + 15) columns of `_BatchFacts`' card counts row (hand, total played, then
        played, cards left, passed and places per absolute seat) that put it in observer
        `seat`'s relative order: column i of a per-seat block comes from seat (seat + i) % 5."""
        K = self.num_kinds
        blocks = [(2 * K, K), *((7 * K + i * NUM_SEATS, 1) for i in range(3))]  # (start, width per seat)
        columns = []
        for seat in range(NUM_SEATS):
            cols = list(range(2 * K))
            for start, width in blocks:
                cols += [start + r * width + j for r in self._rot[seat] for j in range(width)]
            columns.append(cols)
        return np.array(columns, dtype=np.intp)

    def _scalar_facts(self, game: Game, seat: int) -> tuple[int, ...]:
        """The small integer facts of `seat`'s observation of `game`, in the order of the
        `_PHASE` ... `_TRICK` constants: indices into `_Tables` rows (the phase: len(phases)
        once the game is over), flags, and absolute seats (-1: nobody), each what
        `_add_pieces` looks its piece up by."""
        in_role = game.phase == ROLE
        in_play = game.phase == PLAY
        if in_role:
            phase = self._phase_index[game.rules.role_steps[game.step_index]]
        else:
            phase = self._phase_index["play"] if in_play else len(self.phases)
        known_guard, my_role = guard_and_role(game, seat)
        top = game.top
        if in_play and top >= 0:
            leading, trick, top_player = 0, top + FIRST_PLAY, game.top_player
        else:
            leading, trick, top_player = int(in_play and game.current_player == seat), PASS, -1
        return (phase, game.emperor, game.emperor_card_seat if in_role else -1, known_guard, top_player,
                self._role_index[my_role], int(game.guard_card_seat == seat), int(game.open_guard),
                int(game.solo == "open"), game.abdications if in_role and game.emperor < 0 else 0,
                leading, trick)

    def _add_pieces(self, game: Game, seat: int, pieces: list[bytes]) -> None:
        """Append the byte pieces of `seat`'s observation of `game` to `pieces`, in layout order."""
        t = self._pieces
        rot = self._rot[seat]
        rel = self._rel[seat]
        hand = game.hands[seat]
        add, extend = pieces.append, pieces.extend
        in_role = game.phase == ROLE
        if in_role:
            add(t.phase[self._phase_index[game.rules.role_steps[game.step_index]]])
        else:
            add(t.phase[self._phase_index["play"] if game.phase == PLAY else -1])
        extend(map(t.thermo.__getitem__, hand))
        unseen = [d - p - h for d, p, h in zip(self._deck_list, game.total_played, hand, strict=True)]
        extend(map(getitem, t.scaled, unseen))
        cards_left = game.cards_left
        extend([t.left[cards_left[s]] for s in rot])
        played = game.played
        cache = self._played_cache
        for s in rot:
            key = tuple(played[s])
            piece = cache.get(key)
            if piece is None:
                if len(cache) > _CACHE_LIMIT:
                    cache.clear()
                piece = cache[key] = b"".join(map(getitem, t.scaled, key))
            add(piece)
        passed = game.passed
        extend([t.flag[passed[s]] for s in rot])
        places = game.places
        extend([t.place[places[s]] for s in rot])
        add(t.onehot[rel[game.emperor]])
        add(t.onehot[rel[game.emperor_card_seat] if in_role else -1])
        known_guard, my_role = guard_and_role(game, seat)
        add(t.onehot[rel[known_guard]])
        add(t.role[my_role])
        add(t.flag[game.guard_card_seat == seat])
        add(t.flag[game.open_guard])
        add(t.flag[game.solo == "open"])
        add(t.declines[game.abdications if in_role and game.emperor < 0 else 0])
        top = game.top
        if game.phase == PLAY and top >= 0:
            add(t.flag[False])
            add(t.play[top + FIRST_PLAY])
            add(t.onehot[rel[game.top_player]])
        else:
            add(t.flag[game.phase == PLAY and game.current_player == seat])
            add(t.play[PASS])
            add(t.onehot[-1])
        if self._has_extras:
            self._encode_extras(game, seat, rel, add)
        history = game.history
        recent = history[-HISTORY_LENGTH:]
        entries = t.history_entry
        for s, action in reversed(recent):
            add(entries[rel[s]][action])
        if len(recent) < HISTORY_LENGTH:
            add(t.history_pad[HISTORY_LENGTH - len(recent)])

    def _encode_extras(self, game: Game, seat: int, rel: dict[int, int], add) -> None:
        rules, t = self.rules, self._pieces
        if rules.suits_matter:
            if game.suits is None:  # after the call nobody's suits matter any more
                add(t.no_groups)
            else:
                suits, hand, group = game.suits[seat], game.hands[seat], t.group
                add(b"".join([group[suits[kind][suit] if kind < self._num_ranks else hand[kind]]
                              for kind, suit in self.table.calls]))
            add(t.called[game.called - self.table.first_call if game.called >= 0 else -1])
        if rules.tribute:
            pile = game.pile
            add(b"".join(map(getitem, t.scaled, pile)) if any(pile) else t.no_pile)
        if rules.grab_solo:
            add(t.flag[game.grabbed])
        if rules.rebellion != "none":
            add(t.rebels[sum(1 << rel[s] for s in game.rebels)])
            add(t.flag[game.rebellion == "succeeded"])
        if rules.kick:
            add(t.flag[game.kicked])


class _BatchFacts:
    """The integer facts of a batch of observations as int arrays, per-seat rows already in
    the observer's relative order (row b is `seats[b]`'s view of `games[b]`):

    * `hand`, `total_played` (B, K) and `played` (B, 5, K): card counts;
    * `sources` (B, `_SRC_RELATIVE` + 4 + HISTORY_LENGTH): what the lookups read: cards
      left, passed and places per relative seat, `Encoder._scalar_facts` of the row, the
      (seat, action) pairs of its recent plays (most recent first, padded with (-1, the zero
      row of `_Tables.history_cards`)), then the seats of the facts' seat entries and of
      the history relative to the observer (NUM_SEATS, a zero one-hot row, for nobody).

    The games' lists are read in three flat conversions, which is what keeps a batch cheap:
    the card counts (all in 0..255) as one `bytes`, the scalar facts and the history by
    one `np.fromiter` each.
    """

    def __init__(self, enc: Encoder, games: Sequence[Game], seats: Sequence[int]) -> None:
        self.seats = seat_list = seats.tolist() if isinstance(seats, np.ndarray) else [int(s) for s in seats]
        pairs = list(zip(games, seat_list, strict=True))
        B, K = len(pairs), enc.num_kinds
        flat = chain.from_iterable
        counts = np.frombuffer(bytes(flat(flat(
            [g.hands[s], g.total_played, *g.played, g.cards_left, g.passed, g.places] for g, s in pairs))),
            dtype=np.uint8).reshape(B, 7 * K + 3 * NUM_SEATS)
        observer = np.array(seat_list, dtype=np.int64)
        counts = counts[np.arange(B)[:, None], enc._count_columns[observer]]  # per-seat blocks made relative
        self.hand, self.total_played = counts[:, :K], counts[:, K:2 * K]
        self.played = counts[:, 2 * K:7 * K].reshape(B, NUM_SEATS, K)
        facts = enc._scalar_facts
        scalars = np.fromiter(flat(facts(g, s) for g, s in pairs), dtype=np.int64,
                              count=B * _NUM_SCALARS).reshape(B, _NUM_SCALARS)
        pad = enc._history_pad
        history = np.fromiter(flat(flat([(h := g.history[-HISTORY_LENGTH:])[::-1] + pad[len(h)] for g in games])),
                              dtype=np.int64, count=B * 2 * HISTORY_LENGTH).reshape(B, 2 * HISTORY_LENGTH)
        absolute = np.concatenate([scalars[:, _SEAT_COLUMNS], history[:, ::2]], axis=1)
        relative = np.where(absolute >= 0, (absolute - observer[:, None]) % NUM_SEATS, NUM_SEATS)
        self.sources = np.concatenate([counts[:, 7 * K:], scalars, history, relative], axis=1)


class _Lookups:
    """The columns `Encoder.encode_many` writes in one gather: the small slices (phase,
    cards left, passed, place, the seat one-hots, my_role, the flags and declines), which as
    separate lookups would cost a dozen numpy calls each batch. Column `columns[i]` of row b
    is `values[base[i] + sources[b, source[i]] * stride[i]]`: entry `base[i]` of row
    `sources[b, source[i]]` of one table (`stride[i]` wide) laid flat into `values`."""

    def __init__(self, enc: Encoder, t: _Tables) -> None:
        layout = enc.layout
        flag = np.array([[0.0], [1.0]], dtype=np.float32)
        tables: list[np.ndarray] = []
        columns: list[int] = []
        source: list[int] = []
        base: list[int] = []
        stride: list[int] = []
        table_start: dict[int, int] = {}  # id of a table -> where it starts in `values`

        def add(column: int, table: np.ndarray, src: int) -> None:
            """Columns `column`, ... (one per entry of a table row) from `table[sources[:, src]]`."""
            if id(table) not in table_start:
                table_start[id(table)] = sum(x.size for x in tables)
                tables.append(table)
            width = table.shape[1]
            columns.extend(range(column, column + width))
            source.extend([src] * width)
            base.extend(range(table_start[id(table)], table_start[id(table)] + width))
            stride.extend([width] * width)

        def add_slice(name: str, table: np.ndarray, sources: Sequence[int]) -> None:
            offset, width = layout[name].offset, table.shape[1]
            for i, src in enumerate(sources):
                add(offset + i * width, table, src)

        seats = range(NUM_SEATS)
        add_slice("phase", t.phase, [_SRC_SCALARS + _PHASE])
        add_slice("cards_left", t.left[:, None], [_SRC_CARDS_LEFT + i for i in seats])
        add_slice("passed", flag, [_SRC_PASSED + i for i in seats])
        add_slice("place", t.place, [_SRC_PLACES + i for i in seats])
        for i, name in enumerate(("emperor", "emperor_card", "known_guard", "trick_player")):
            add_slice(name, t.onehot, [_SRC_RELATIVE + i])
        add_slice("my_role", t.role, [_SRC_SCALARS + _ROLE])
        for name, col in (("hold_guard_card", _HOLD), ("open_guard", _OPEN_GUARD), ("open_solo", _OPEN_SOLO),
                          ("leading", _LEADING)):
            add_slice(name, flag, [_SRC_SCALARS + col])
        add_slice("declines", t.declines[:, None], [_SRC_SCALARS + _DECLINES])
        self.values = np.concatenate([x.ravel() for x in tables])
        self.columns = np.array(columns, dtype=np.intp)
        self.source = np.array(source, dtype=np.intp)
        self.base = np.array(base, dtype=np.int64)
        self.stride = np.array(stride, dtype=np.int64)


class _Tables:
    """`_Pieces` as float32 arrays, one row per piece, for `Encoder.encode_many`'s batched
    lookups: cut from the very bytes `encode` joins, so both forms write the same floats."""

    def __init__(self, t: _Pieces, play_rows: np.ndarray) -> None:
        def rows(pieces) -> np.ndarray:
            return np.array([np.frombuffer(p, dtype=np.float32) for p in pieces])

        self.onehot = rows(t.onehot)  # row NUM_SEATS: nobody (zeros)
        self.phase = rows(t.phase)  # last row: the game is over (zeros)
        scaled = np.array([rows(kind)[:, 0] for kind in t.scaled])  # (K, counts)
        #: count c of kind k scaled is `scaled_rows[k, c]`; `thermo[c]` the thermometer of count c
        self.scaled_rows = scaled
        self.thermo = rows(t.thermo)
        #: count c of kind k scaled is `scaled[scaled_offset[k] + c]` (one flat `take`)
        self.scaled, self.scaled_offset = scaled.ravel(), np.arange(len(scaled)) * scaled.shape[1]
        self.left = rows(t.left)[:, 0]
        self.place = rows(t.place)
        self.role = rows([t.role[name] for name in (*MY_ROLES, None)])
        self.declines = rows(t.declines)[:, 0]
        #: The history's cards per action, plus a zero row (its index) for padding.
        self.history_cards = np.concatenate([play_rows, np.zeros((1, play_rows.shape[1]), dtype=np.float32)])
        self.history_pad = len(play_rows)


class _Pieces:
    """Precomputed float32 byte strings that `Encoder.encode` joins into a vector; every
    count is divided by its slice's scale in the layout."""

    def __init__(self, enc: Encoder, copies: np.ndarray, play_rows: np.ndarray) -> None:
        f32 = np.float32
        layout = enc.layout

        def scale_of(name: str) -> float:  # the one scale of a slice whose entries share it
            return float(layout[name].scale[0])

        def b(values) -> bytes:
            return np.asarray(values, dtype=f32).tobytes()

        eye = np.eye(NUM_SEATS, dtype=f32)
        self.onehot = [b(eye[i]) for i in range(NUM_SEATS)] + [b(np.zeros(NUM_SEATS))]  # index -1 = nobody
        n = len(enc.phases)
        self.phase = [b(np.eye(n)[i]) for i in range(n)] + [b(np.zeros(n))]
        self.thermo = [b(row) for row in enc._thermo]
        max_count = layout["my_hand"].shape[1] + 1  # counts 0..16 of one card kind
        self.scaled = [[b([c / copies[k]]) for c in range(max_count)] for k in range(enc.num_kinds)]
        left_scale = scale_of("cards_left")
        self.left = [b([c / left_scale]) for c in range(int(left_scale) + 1)]
        self.flag = {False: b([0.0]), True: b([1.0])}
        self.place = [b(np.zeros(NUM_SEATS))] + [b(eye[p]) for p in range(NUM_SEATS)]
        self.role = {name: b(np.eye(len(MY_ROLES))[i]) for i, name in enumerate(MY_ROLES)}
        self.role[None] = b(np.zeros(len(MY_ROLES)))
        declines_scale = scale_of("declines")
        self.declines = [b([d / declines_scale]) for d in range(int(declines_scale) + 1)]
        self.play = [row.tobytes() for row in play_rows]  # PASS and decisions: zeros
        # preset-only slices: copies of a callable suit-rank, the called one-hot, rebels by bit set
        calls = enc.table.num_calls
        if "my_groups" in layout:
            groups_scale = scale_of("my_groups")
            self.group = [b([c / groups_scale]) for c in range(int(groups_scale) + 1)]
        self.no_groups = b(np.zeros(calls))
        self.called = [b(np.eye(calls)[i]) for i in range(calls)] + [self.no_groups]
        self.rebels = [b([(bits >> r) & 1 for r in range(NUM_SEATS)]) for bits in range(1 << NUM_SEATS)]
        self.no_pile = b(np.zeros(enc.num_kinds))
        width = enc.num_kinds + NUM_SEATS + 1
        self.history_pad = [bytes(4 * width * n) for n in range(HISTORY_LENGTH + 1)]
        # one history entry per (relative seat, action): the cards, the seat, a pass flag
        self.history_entry = [
            [self.play[a] + self.onehot[r] + self.flag[a == PASS] for a in range(len(self.play))]
            for r in range(NUM_SEATS)
        ]


__all__ = ["CARDS_LEFT_SCALE", "HISTORY_LENGTH", "MY_ROLES", "Encoder"]
