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
    * `team` (5,): PARTNER (1), UNKNOWN (0) or OPPONENT (-1) per seat (me: PARTNER).

    Decoding takes about 15 µs: one vectorized rescale of the whole vector, then slices; the
    played counts and the history are decoded only when asked for.
    """

    __slots__ = (
        "K", "R", "_ints", "_layout", "active", "cards_left", "declines", "emperor", "emperor_card",
        "guard", "hand", "hold_guard_card", "leading", "open_guard", "open_solo", "passed", "phase",
        "places", "role", "table", "team", "trick", "trick_play", "trick_seat", "unseen",
    )

    #: The last rule set seen and its layout: an identity check is cheaper than hashing the
    #: `Rules` to find its cached layout, and a bot almost always sees one rule set.
    _last: tuple[Rules | None, ObservationLayout | None] = (None, None)

    def __init__(self, observation: np.ndarray, rules: Rules) -> None:
        last_rules, L = SeatView._last
        if rules is not last_rules:
            L = observation_layout(rules)
            SeatView._last = (rules, L)
        obs = np.asarray(observation, dtype=np.float32)
        if obs.shape != (L.size,):
            raise ValueError(f"observation has shape {obs.shape}, expected ({L.size},) for these rules")
        K = L.num_kinds
        self.K, self.R, self.table, self._layout = K, L.table.kinds.num_ranks, L.table, L
        # one rescale of the whole vector turns every entry back into its integer fact
        ints = np.rint(obs * L.scale).astype(np.int64)
        self._ints = ints
        at = L.bounds
        hand_at, unseen_at = at["my_hand"]
        left_at, played_at = at["cards_left"]
        ph = ints[:hand_at].tolist()
        self.phase = L.phases[ph.index(1)] if 1 in ph else None
        self.hand = ints[hand_at:unseen_at].reshape(K, -1).sum(axis=1)  # a thermometer per kind
        self.unseen = ints[unseen_at:left_at]
        self.cards_left = left = ints[left_at:played_at]
        self.active = left > 0
        # passed .. the last slice before the history: small flags, one-hots and counts, read
        # as one Python list
        o, end = at["passed"][0], at["history"][0]
        small = ints[o:end].tolist()

        def take(name: str) -> list[int]:
            x, y = at[name]
            return small[x - o:y - o]

        self.passed = np.array(take("passed"), dtype=bool)
        pl = take("place")
        n = NUM_SEATS
        self.places = np.array([pl[n * s:n * s + n].index(1) + 1 if 1 in pl[n * s:n * s + n] else 0
                                for s in range(n)])
        self.emperor = _seat(take("emperor"))
        self.emperor_card = _seat(take("emperor_card"))
        self.guard = _seat(take("known_guard"))
        role = take("my_role")
        self.role = ROLES[role.index(1)] if 1 in role else None
        self.hold_guard_card = small[at["hold_guard_card"][0] - o] == 1
        self.open_guard = small[at["open_guard"][0] - o] == 1
        self.open_solo = small[at["open_solo"][0] - o] == 1
        self.declines = small[at["declines"][0] - o]
        self.leading = small[at["leading"][0] - o] == 1
        trick_at = at["trick"][0]
        trick = small[trick_at - o:trick_at - o + K]
        self.trick = ints[trick_at:trick_at + K]
        self.trick_seat = _seat(take("trick_player"))
        self.trick_play = self._play_index(trick) if self.trick_seat >= 0 else -1
        self.team = self._teams()

    # ------------------------------------------------------------------ lazily decoded parts
    @property
    def played(self) -> np.ndarray:
        """(5, K) cards played so far by each relative seat."""
        played = self._layout["played"]
        return self._ints[played.span].reshape(played.shape)

    def _history(self) -> np.ndarray:
        history = self._layout["history"]
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

    def _teams(self) -> np.ndarray:
        """`team` from my role, the emperor and the guard as I know them (relative seats; I am 0)."""
        return np.array(teams(0, self.role, self.emperor, self.guard), dtype=np.int64)

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
