"""What one seat knows, decoded from its observation vector alone.

`SeatView(observation, rules)` reads the named slices of the observation layout
(`baohuang_env.observation.observation_layout`: offsets and the scale of every entry) back
into integers, flags and relative seats. It never touches a `Game`: scripted bots built on
it see exactly what their seat may see (their own hand, public counts and plays, public
roles, and their own role).

Seats are relative, as in the observation: 0 is me, 1 my lower seat (who plays right after
me), 2, 3, and 4 my upper seat (who plays right before me). "No seat" is -1.

The teams (`team`) are derived from my role, the emperor and the guard as I know them by
`baohuang_env.knowledge.teams`, the one statement of the information model that the encoder
and the text views also use.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from baohuang_env.actions import FIRST_PLAY
from baohuang_env.cards import NUM_SEATS
from baohuang_env.observation import ObservationLayout, observation_layout
from baohuang_env.roles import ROLES
from baohuang_env.knowledge import OPPONENT, PARTNER, UNKNOWN, teams
from baohuang_env.rules import Rules


def _seat(onehot: list[int]) -> int:
    """Index of the set entry of a one-hot, or -1 when none is set."""
    return onehot.index(1) if 1 in onehot else -1


class _Reader:
    """Where `SeatView` finds each fact in one layout's vectors, worked out once per layout:
    the vector slices it reads as arrays, and the positions of the small facts (flags,
    one-hots, counts) in the one Python list it reads them from (`passed` .. `trick_player`)."""

    def __init__(self, L: ObservationLayout) -> None:
        self.layout, self.table, self.size, self.scale = L, L.table, L.size, L.scale
        self.K, self.R, self.phases = L.num_kinds, L.table.kinds.num_ranks, L.phases
        at = L.bounds
        self.hand_at, self.unseen_at = at["my_hand"]
        self.left_at, self.played_at = at["cards_left"]
        self.levels = np.ones(L["my_hand"].shape[1], dtype=np.int64)  # a hand count is its thermometer's sum
        self.trick_at = at["trick"][0]
        o = self.small_at = at["passed"][0]
        self.small_end = at["history"][0]

        def part(name: str) -> slice:
            x, y = at[name]
            return slice(x - o, y - o)

        self.passed, self.place = part("passed"), part("place")
        self.emperor, self.emperor_card, self.guard = part("emperor"), part("emperor_card"), part("known_guard")
        self.role, self.trick, self.trick_player = part("my_role"), part("trick"), part("trick_player")
        self.hold_guard_card, self.open_guard, self.open_solo, self.declines, self.leading = (
            at[name][0] - o for name in ("hold_guard_card", "open_guard", "open_solo", "declines", "leading"))


@cache
def _team(role: str | None, emperor: int, guard: int) -> np.ndarray:
    """`SeatView.team` (read-only, shared by the views that know the same): my side's view of
    every seat from my role, the emperor and the guard as I know them (relative seats; I am 0)."""
    team = np.array(teams(0, role, emperor, guard), dtype=np.int64)
    team.flags.writeable = False
    return team


class SeatView:
    """One seat's knowledge at one decision, decoded from its observation vector.

    Attributes (relative seats; counts are ints in numpy arrays):

    * `phase`: a role-phase step of the rules ("abdication", "declaration", ...), "play", or
      None (game over);
    * `hand` (K,): my cards per kind; `unseen` (K,): cards in the other hands, per kind;
    * `cards_left` (5,), `played` (5, K): cards held / cards played so far, per seat;
    * `passed` (5,): passed since the play to beat; `places` (5,): 1..5, 0 while playing;
    * `emperor`, `emperor_card` (holder during the role phase), `guard` (known guard): seats;
    * `role`: "emperor", "guard", "solo", "rebel" or None (roles not fixed yet);
    * `hold_guard_card`, `open_guard`, `open_solo`, `leading`: flags; `declines`: abdications;
    * `trick` (K,): the play to beat (zeros when there is none), `trick_seat` its seat,
      `trick_play` its play index in the action table (-1 when none);
    * `history_cards` (H, K), `history_seat` (H,), `history_pass` (H,): the last H plays
      (most recent first; seat -1 pads an unfilled entry);
    * `team` (5,): PARTNER (1), UNKNOWN (0) or OPPONENT (-1) per seat (me: PARTNER); read-only,
      shared by every view with the same role, emperor and guard.

    Decoding takes about 8 µs: one vectorized rescale of the whole vector, then slices and
    one Python list of the small facts (positions worked out once per layout, `_Reader`);
    the played counts, the history, `passed`, `places` and `active` (`cards_left > 0`) are
    decoded only when asked for (the heuristic bot reads none of them).
    """

    __slots__ = (
        "K", "R", "_ints", "_reader", "_small", "cards_left", "declines", "emperor", "emperor_card", "guard",
        "hand", "hold_guard_card", "leading", "open_guard", "open_solo", "phase", "role", "table", "team",
        "trick", "trick_play", "trick_seat", "unseen",
    )

    #: The last rule set seen and its reader: an identity check is cheaper than hashing the
    #: `Rules` to find its cached layout, and a bot almost always sees one rule set.
    _last: tuple[Rules | None, _Reader | None] = (None, None)

    def __init__(self, observation: np.ndarray, rules: Rules) -> None:
        last_rules, d = SeatView._last
        if rules is not last_rules:
            d = _Reader(observation_layout(rules))
            SeatView._last = (rules, d)
        obs = np.asarray(observation, dtype=np.float32)
        if obs.shape != (d.size,):
            raise ValueError(f"observation has shape {obs.shape}, expected ({d.size},) for these rules")
        K = d.K
        self.K, self.R, self.table, self._reader = K, d.R, d.table, d
        # one rescale of the whole vector turns every entry back into its integer fact
        ints = np.rint(obs * d.scale).astype(np.int64)
        self._ints = ints
        ph = ints[:d.hand_at].tolist()
        self.phase = d.phases[ph.index(1)] if 1 in ph else None
        self.hand = ints[d.hand_at:d.unseen_at].reshape(K, -1) @ d.levels
        self.unseen = ints[d.unseen_at:d.left_at]
        self.cards_left = ints[d.left_at:d.played_at]
        # passed .. the last slice before the history: small flags, one-hots and counts, read
        # as one Python list
        self._small = small = ints[d.small_at:d.small_end].tolist()
        self.emperor = _seat(small[d.emperor])
        self.emperor_card = _seat(small[d.emperor_card])
        self.guard = _seat(small[d.guard])
        role = small[d.role]
        self.role = ROLES[role.index(1)] if 1 in role else None
        self.hold_guard_card = small[d.hold_guard_card] == 1
        self.open_guard = small[d.open_guard] == 1
        self.open_solo = small[d.open_solo] == 1
        self.declines = small[d.declines]
        self.leading = small[d.leading] == 1
        self.trick = ints[d.trick_at:d.trick_at + K]
        self.trick_seat = _seat(small[d.trick_player])
        self.trick_play = self._play_index(small[d.trick]) if self.trick_seat >= 0 else -1
        self.team = _team(self.role, self.emperor, self.guard)

    # ------------------------------------------------------------------ lazily decoded parts
    @property
    def active(self) -> np.ndarray:
        """(5,) whether each relative seat still holds cards."""
        return self.cards_left > 0

    @property
    def passed(self) -> np.ndarray:
        """(5,) whether each relative seat passed since the play to beat."""
        return np.array(self._small[self._reader.passed], dtype=bool)

    @property
    def places(self) -> np.ndarray:
        """(5,) each relative seat's finishing place, 1..5; 0 while playing."""
        pl, n = self._small[self._reader.place], NUM_SEATS
        return np.array([pl[n * s:n * s + n].index(1) + 1 if 1 in pl[n * s:n * s + n] else 0 for s in range(n)])

    @property
    def played(self) -> np.ndarray:
        """(5, K) cards played so far by each relative seat."""
        played = self._reader.layout["played"]
        return self._ints[played.span].reshape(played.shape)

    def _history(self) -> np.ndarray:
        history = self._reader.layout["history"]
        return self._ints[history.span].reshape(history.shape)

    @property
    def history_cards(self) -> np.ndarray:
        """(H, K) cards of the last H plays, most recent first (zeros for passes and padding)."""
        return self._history()[:, :self.K]

    @property
    def history_seat(self) -> np.ndarray:
        """(H,) relative seat of each of the last H plays or passes; -1 pads."""
        seats = self._history()[:, self.K:self.K + NUM_SEATS]
        return np.where(seats.max(axis=1) > 0, seats.argmax(axis=1), -1)

    @property
    def history_pass(self) -> np.ndarray:
        """(H,) whether each of the last H entries is a pass."""
        return self._history()[:, -1] > 0

    # ------------------------------------------------------------------ helpers
    def _play_index(self, c: list[int]) -> int:
        """Play index (action id - FIRST_PLAY) of a play given as a list of counts per kind."""
        R = self.R
        rank, n = -1, 0
        for k in range(R):
            if c[k]:
                rank, n = k, c[k]
                break
        special = c[R + 2] if self.table.kinds.special else 0  # SP (generic216)
        return self.table.play_index(rank, n, c[R], c[R + 1], special)

    # ------------------------------------------------------------------ queries
    @property
    def is_solo_game(self) -> bool:
        """The emperor plays alone, as far as I know (I am the solo, or it was declared)."""
        return self.role == "solo" or (self.guard >= 0 and self.guard == self.emperor)

    def partners(self) -> np.ndarray:
        """Relative seats (other than me) known to be on my side."""
        return np.flatnonzero(self.team[1:] == PARTNER) + 1

    def opponents(self) -> np.ndarray:
        """Relative seats known to be against me."""
        return np.flatnonzero(self.team == OPPONENT)

    def describe(self) -> str:
        """A short text summary (for debugging and test messages)."""
        names = self.table.kinds.names
        hand = " ".join(f"{names[k]}x{int(c)}" for k, c in enumerate(self.hand) if c)
        trick = self.table.describe(self.trick_play + FIRST_PLAY) if self.trick_play >= 0 else "-"
        return (f"phase={self.phase} role={self.role} emperor={self.emperor} guard={self.guard} "
                f"leading={self.leading} trick={trick}@{self.trick_seat} left={self.cards_left.tolist()} "
                f"hand=[{hand}]")


__all__ = ["OPPONENT", "PARTNER", "UNKNOWN", "SeatView"]
