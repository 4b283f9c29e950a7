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


class Encoder:
    """Encodes a `Game` from one seat's point of view into a preallocated float32 layout."""

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
        is byte for byte `encode(games[b], seats[b])`. Every row's pieces are joined once and
        copied into `out` (written when given, else a new array) in one go, which saves the
        per-row bytearray, array and row copy of B separate `encode` calls."""
        pieces: list[bytes] = []
        add_pieces = self._add_pieces
        for game, seat in zip(games, seats, strict=True):
            add_pieces(game, int(seat), pieces)
        if out is None:
            out = np.empty((len(games), self.size), dtype=np.float32)
        out.reshape(-1)[:] = np.frombuffer(b"".join(pieces), dtype=np.float32)
        return out

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
