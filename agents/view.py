"""What one seat knows, decoded from its observation vector alone.

`SeatView(observation, rules)` reads the named slices of `baohuang_env.encoding.Encoder`
back into integers, flags and relative seats. It never touches a `Game`: scripted bots built
on it see exactly what their seat may see (their own hand, public counts and plays, public
roles, and their own role).

Seats are relative, as in the observation: 0 is me, 1 my lower seat (who plays right after
me), 2, 3, and 4 my upper seat (who plays right before me). "No seat" is -1.

The teams (`team`) are derived from my role, the emperor and the guard as I know them by
`baohuang_env.knowledge.teams`, the one statement of the information model that the encoder
and the text views also use.
"""

from __future__ import annotations

import numpy as np

from baohuang_env.cards import COPIES_PER_RANK, NUM_SEATS, deck_counts
from baohuang_env.encoding import CARDS_LEFT_SCALE, HISTORY_LENGTH, MY_ROLES, Encoder
from baohuang_env.actions import FIRST_PLAY, ActionTable, action_table
from baohuang_env.knowledge import OPPONENT, PARTNER, UNKNOWN, teams
from baohuang_env.rules import Rules


class _Layout:
    """Offsets and scales of one rule set's observation (built once per rule set)."""

    def __init__(self, rules: Rules) -> None:
        enc = Encoder(rules)
        self.table: ActionTable = action_table(rules)
        self.K = K = enc.num_kinds
        self.R = self.table.kinds.num_ranks
        self.size = enc.size
        self.phases = enc.phases
        self.off = off = {name: (o, o + n) for name, o, n in enc.slices}
        copies = deck_counts(rules).astype(np.float32)
        # one scale for the whole vector turns every scaled count back into an integer
        scale = np.ones(enc.size, dtype=np.float32)
        for name in ("unseen", "played", "trick"):
            a, b = off[name]
            scale[a:b] = np.tile(copies, (b - a) // K)
        a, b = off["cards_left"]
        scale[a:b] = CARDS_LEFT_SCALE
        a, b = off["declines"]
        scale[a:b] = enc.declines_scale
        if "pile" in off:  # tribute pile (贴牌) / copies
            a, b = off["pile"]
            scale[a:b] = copies
        if "my_groups" in off:  # copies of each callable suit-rank / 4
            a, b = off["my_groups"]
            scale[a:b] = 4
        hist_scale = np.ones(K + NUM_SEATS + 1, dtype=np.float32)
        hist_scale[:K] = copies
        a, b = off["history"]
        scale[a:b] = np.tile(hist_scale, HISTORY_LENGTH)
        self.scale = scale
        self.shape = (enc.size,)
        self.hand_at = off["my_hand"][0]
        self.unseen_at = off["unseen"][0]
        self.left_at = off["cards_left"][0]
        self.played_at = off["played"][0]
        self.passed_at = off["passed"][0]
        self.flags_at = off["hold_guard_card"][0]
        self.trick_at = off["trick"][0]
        self.history_at = off["history"][0]
        order = [name for name, _, _ in enc.slices]
        # the decoder reads these slices as contiguous runs
        runs_ok = (order[:6] == ["phase", "my_hand", "unseen", "cards_left", "played", "passed"]
                   and order[order.index("hold_guard_card"):order.index("leading") + 1]
                   == ["hold_guard_card", "open_guard", "open_solo", "declines", "leading"]
                   and order[-1] == "history")
        if not runs_ok:
            raise RuntimeError(f"SeatView does not know this observation layout: {order}")
        self.sj, self.bj = self.table.kinds.sj, self.table.kinds.bj


_LAYOUTS: dict[Rules, _Layout] = {}


def _layout(rules: Rules) -> _Layout:
    layout = _LAYOUTS.get(rules)
    if layout is None:
        layout = _LAYOUTS[rules] = _Layout(rules)
    return layout


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

    def __init__(self, observation: np.ndarray, rules: Rules) -> None:
        L = _layout(rules)
        obs = np.asarray(observation, dtype=np.float32)
        if obs.shape != L.shape:
            raise ValueError(f"observation has shape {obs.shape}, expected {L.shape} for these rules")
        K = L.K
        self.K, self.R, self.table, self._layout = K, L.R, L.table, L
        ints = np.rint(obs * L.scale).astype(np.int64)
        self._ints = ints
        ph = ints[:L.hand_at].tolist()
        self.phase = L.phases[ph.index(1)] if 1 in ph else None
        self.hand = ints[L.hand_at:L.unseen_at].reshape(K, COPIES_PER_RANK).sum(axis=1)
        self.unseen = ints[L.unseen_at:L.left_at]
        self.cards_left = left = ints[L.left_at:L.played_at]
        self.active = left > 0
        # passed .. trick_player: small flags and one-hots, read as one Python list
        small = ints[L.passed_at:L.history_at].tolist()
        o = L.passed_at

        def take(name: str) -> list[int]:
            x, y = L.off[name]
            return small[x - o:y - o]

        self.passed = np.array(small[:NUM_SEATS], dtype=bool)
        pl = take("place")
        self.places = np.array([pl[5 * s:5 * s + 5].index(1) + 1 if 1 in pl[5 * s:5 * s + 5] else 0
                                for s in range(NUM_SEATS)])
        self.emperor = _seat(take("emperor"))
        self.emperor_card = _seat(take("emperor_card"))
        self.guard = _seat(take("known_guard"))
        role = take("my_role")
        self.role = MY_ROLES[role.index(1)] if 1 in role else None
        flags = small[L.flags_at - o:L.flags_at - o + 5]  # hold_guard_card .. leading
        self.hold_guard_card = flags[0] == 1
        self.open_guard = flags[1] == 1
        self.open_solo = flags[2] == 1
        self.declines = flags[3]
        self.leading = flags[4] == 1
        trick = take("trick")
        self.trick = ints[L.trick_at:L.trick_at + K]
        self.trick_seat = _seat(take("trick_player"))
        self.trick_play = self._play_index(trick) if self.trick_seat >= 0 else -1
        self.team = self._teams()

    # ------------------------------------------------------------------ lazily decoded parts
    @property
    def played(self) -> np.ndarray:
        """(5, K) cards played so far by each relative seat."""
        a, b = self._layout.off["played"]
        return self._ints[a:b].reshape(NUM_SEATS, self.K)

    def _history(self) -> np.ndarray:
        a, b = self._layout.off["history"]
        return self._ints[a:b].reshape(HISTORY_LENGTH, self.K + NUM_SEATS + 1)

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
