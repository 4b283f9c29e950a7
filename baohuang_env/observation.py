"""The observation layout: every slice of the observation vector, with its scale.

One owner for what the observation holds and where: `observation_layout(rules)` lists every
slice (name, offset, length, shape and scale) for one rule set, built once and cached.
`baohuang_env.encoding.Encoder` writes vectors in this layout; everything that reads a
vector (the bots' `SeatView`, the auto-play bot's card groups, the DMC agent's role, the
table in docs/observation.md) reads it through this layout, so no reader re-derives an
offset or a scale.

Every entry of the vector is an integer fact divided by its scale, which maps it into
[0, 1]: a card count by the copies of its card kind in the deck, a hand size by
`CARDS_LEFT_SCALE`, the abdications by `declines_scale`, a callable suit-rank's copies by
`COPIES_PER_SUIT_RANK`; flags, one-hots and thermometer levels have scale 1. So
`vector * layout.scale` rounds back to the integers, which is what `decode` does.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache

import numpy as np

from .actions import ActionTable, action_table
from .cards import COPIES_PER_RANK, NUM_SEATS, NUM_SUITS, deck_counts
from .game import PLAY
from .roles import ROLES
from .rules import Rules

#: Scale of "cards left in a hand": no hand ever holds more than this many cards.
CARDS_LEFT_SCALE = 64
#: Plays remembered in the history slice (most recent first), for models without memory.
HISTORY_LENGTH = 8
#: Scale of the calling presets' card groups: copies of one suit-rank (one per deck), which
#: is also `COPIES_PER_JOKER`, the copies of a joker kind (the other thing that may be called).
COPIES_PER_SUIT_RANK = COPIES_PER_RANK // NUM_SUITS


@dataclass(frozen=True, eq=False)
class Slice:
    """One named slice of the observation vector.

    `shape` is how its `length` entries are laid out (row-major), e.g. (5, K) for the cards
    each relative seat played; `scale` (read-only float32, `length` entries) is the divisor
    that maps each entry's integer fact into [0, 1].
    """

    name: str
    offset: int
    length: int
    shape: tuple[int, ...]
    scale: np.ndarray = field(repr=False)

    @property
    def stop(self) -> int:
        return self.offset + self.length

    @property
    def span(self) -> slice:
        """`vector[slice.span]` is this slice of `vector`."""
        return slice(self.offset, self.stop)


class ObservationLayout:
    """The slices of one rule set's observation, in order (see the module docstring).

    * `slices`: every `Slice`, in vector order; `layout[name]` is one, `name in layout` tests
      for one (the preset-only slices exist only under some rules: `preset_slices`);
    * `spans`: the same as (name, offset, length) triples; `bounds[name]`: (start, stop);
    * `size`: the vector's length; `scale`: (size,) float32, every entry's divisor;
    * `phases`: the phase one-hot's phases (the rules' role-phase steps, then "play");
    * `copies`: (K,) copies of each card kind in the deck, the scale of every card count;
    * `declines_scale`: the most abdications a deal can have; `table`: the action table.
    """

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.table: ActionTable = action_table(rules)
        K = self.num_kinds = self.table.kinds.num_kinds
        self.copies: np.ndarray = _readonly(deck_counts(rules).astype(np.float32))
        self.phases: tuple[str, ...] = (*rules.role_steps, PLAY)
        #: Most abdications a deal can have: one circle, or two where they may end void.
        self.declines_scale = 2 * NUM_SEATS if rules.void_deal else NUM_SEATS
        copies = self.copies
        history_entry = np.concatenate([copies, np.ones(NUM_SEATS + 1, dtype=np.float32)])
        extras = _preset_spec(rules, self.table, copies)
        spec: list[tuple[str, tuple[int, ...], float | np.ndarray]] = [
            ("phase", (len(self.phases),), 1),  # one-hot: the role-phase step, or play
            ("my_hand", (K, COPIES_PER_RANK), 1),  # thermometer per card kind: count >= 1..16
            ("unseen", (K,), copies),  # cards neither in my hand nor played yet
            ("cards_left", (NUM_SEATS,), CARDS_LEFT_SCALE),  # per relative seat
            ("played", (NUM_SEATS, K), copies),  # per relative seat: cards it has played
            ("passed", (NUM_SEATS,), 1),  # passed since the play to beat
            ("place", (NUM_SEATS, NUM_SEATS), 1),  # per relative seat: one-hot finishing place
            ("emperor", (NUM_SEATS,), 1),  # one-hot emperor (once chosen)
            ("emperor_card", (NUM_SEATS,), 1),  # one-hot holder of the marked emperor card
            ("known_guard", (NUM_SEATS,), 1),  # one-hot guard, if known to me (public, or I am it)
            ("my_role", (len(ROLES),), 1),  # my role as I know it, one-hot over ROLES
            ("hold_guard_card", (1,), 1),  # I hold the marked guard card
            ("open_guard", (1,), 1),  # the guard declared himself (明保)
            ("open_solo", (1,), 1),  # the emperor declared an open solo (明独)
            ("declines", (1,), self.declines_scale),  # abdications so far (abdication step)
            ("leading", (1,), 1),  # it is my turn and I lead a new trick
            ("trick", (K,), copies),  # the play to beat (zeros when leading)
            ("trick_player", (NUM_SEATS,), 1),  # one-hot relative seat of the play to beat
            *extras,
            ("history", (HISTORY_LENGTH, K + NUM_SEATS + 1), history_entry),  # cards, seat, pass
        ]
        slices, off = [], 0
        for name, shape, scale in spec:
            length = int(np.prod(shape))
            entries = np.array(np.broadcast_to(scale, shape), dtype=np.float32).ravel()
            slices.append(Slice(name, off, length, shape, _readonly(entries)))
            off += length
        self.slices: tuple[Slice, ...] = tuple(slices)
        self.size = off
        self.scale: np.ndarray = _readonly(np.concatenate([s.scale for s in slices]))
        #: Names of the slices only some rule sets have (none for jj).
        self.preset_slices: tuple[str, ...] = tuple(name for name, _, _ in extras)
        self.spans: tuple[tuple[str, int, int], ...] = tuple((s.name, s.offset, s.length) for s in slices)
        self.bounds: dict[str, tuple[int, int]] = {s.name: (s.offset, s.stop) for s in slices}
        self._by_name = {s.name: s for s in slices}

    def __getitem__(self, name: str) -> Slice:
        try:
            return self._by_name[name]
        except KeyError:
            raise KeyError(f"no slice {name!r} in the {self.rules.preset} observation; "
                           f"slices: {', '.join(self._by_name)}") from None

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    def decode(self, vector: np.ndarray, unscale: bool = True) -> dict[str, np.ndarray]:
        """Split an observation vector into its named slices (flat; `layout[name].shape`
        reshapes one). With `unscale` every entry is multiplied by its scale and rounded:
        int64 arrays of the integer facts (card counts, hand sizes, abdications, 0/1 flags);
        without it, float views of `vector` itself."""
        vector = np.asarray(vector)
        if vector.shape != (self.size,):
            raise ValueError(f"observation has shape {vector.shape}, expected ({self.size},) for these rules")
        if unscale:
            vector = np.rint(vector * self.scale).astype(np.int64)
        return {name: vector[a:b] for name, (a, b) in self.bounds.items()}

    def read(self, vector: np.ndarray, name: str, unscale: bool = True) -> np.ndarray:
        """One slice of `vector`, as `decode(vector, unscale)[name]` (without the others)."""
        s = self[name]
        part = np.asarray(vector)[s.span]
        return np.rint(part * s.scale).astype(np.int64) if unscale else part


def _preset_spec(rules: Rules, table: ActionTable,
                 copies: np.ndarray) -> list[tuple[str, tuple[int, ...], float | np.ndarray]]:
    """The public role-phase facts that only some presets have (none for jj, whose layout is
    therefore the same as before they existed), as (name, shape, scale)."""
    extra: list[tuple[str, tuple[int, ...], float | np.ndarray]] = []
    if rules.suits_matter:
        extra += [("my_groups", (table.num_calls,), COPIES_PER_SUIT_RANK),  # my copies of each callable suit-rank
                  ("called", (table.num_calls,), 1)]  # one-hot of the called suit-rank (public)
    if rules.tribute:
        extra.append(("pile", (table.kinds.num_kinds,), copies))  # tribute pile travelling with the emperor card
    if rules.grab_solo:
        extra.append(("grabbed", (1,), 1))  # the emperor grabbed the solo (抢独)
    if rules.rebellion != "none":
        extra += [("rebels", (NUM_SEATS,), 1),  # relative seats that declared REBEL
                  ("rebellion_succeeded", (1,), 1)]
    if rules.kick:
        extra.append(("kicked", (1,), 1))
    return extra


def _readonly(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False
    return a


@cache
def observation_layout(rules: Rules) -> ObservationLayout:
    """The observation layout of a rule set (built once per rule set, then shared)."""
    return ObservationLayout(rules)


__all__ = ["CARDS_LEFT_SCALE", "COPIES_PER_SUIT_RANK", "HISTORY_LENGTH", "ObservationLayout", "Slice",
           "observation_layout"]
