"""The pure Baohuang engine: deal, role phase, play phase, end and scoring.

No PettingZoo, Gymnasium or torch here (STYLE.md §1). A `Game` is a small state machine:

    game = Game(get_rules("jj"), seed=7)
    while not game.is_over:
        mask = game.legal_mask()              # int8 over the whole action table
        game.step(my_policy(game, mask))      # raises IllegalActionError, state unchanged
    game.result.scores

Seats are 0..4 in play order. Randomness is used only to shuffle, from a seed, so a game
replays exactly from (rules, seed, actions) (`to_replay` / `from_replay`).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from functools import cache
from typing import Any

import numpy as np

from .cards import NUM_SEATS, NUM_SUITS, Deal, deal, dealt_counts
from .actions import DECISION_ID, FIRST_PLAY, PASS, Play, action_table
from .role_phase import STEPS
from .rules import Rules, get_rules
from .scoring import score_deal

APPLY_WIND = DECISION_ID["APPLY_WIND"]

ROLE, PLAY, OVER = "role", "play", "over"
REPLAY_FORMAT = "baohuang-replay"
REPLAY_VERSION = 1


@cache
def _decision_mask(num_actions: int, options: tuple[int, ...]) -> np.ndarray:
    """The (shared, read-only) mask allowing exactly `options`."""
    mask = np.zeros(num_actions, dtype=np.int8)
    mask[list(options)] = 1
    mask.flags.writeable = False
    return mask


class IllegalActionError(ValueError):
    """An action that is not legal now. The game state is unchanged."""

    def __init__(self, seat: int, phase: str, action: Any, reason: str, description: str = "") -> None:
        self.seat, self.phase, self.action, self.reason = seat, phase, action, reason
        what = f"{action} ({description})" if description else f"{action}"
        super().__init__(f"seat {seat} cannot take action {what} in the {phase} phase: {reason}")


@dataclass(frozen=True)
class GameResult:
    """How a deal ended. Lists are indexed by seat."""

    places: list[int]  # finishing place 1..5 (all 0 when the deal ended before play)
    roles: list[str]  # "emperor", "guard", "rebel", or "solo" (an emperor playing alone); "none" if void
    scores: list[int]  # the preset's rewards (zero-sum except qingdao's team scores)
    emperor: int  # -1 in a void deal
    guard: int  # == emperor in a solo
    solo: str  # "none", "hidden" or "open"
    open_guard: bool
    end: str = "played"  # "played", "void" (流局, re-deal) or "surrender" (投降, qingdao)
    grabbed: bool = False  # the emperor grabbed the solo (抢独)
    rebellion: str = "none"  # "none", "failed", "succeeded" or "declared" (qingdao)
    kicked: bool = False  # a successful kick (踢, weihai)
    points: list[int] | None = None  # individual points where they differ from scores (qingdao)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class Game:
    """One deal of Baohuang under a rule set."""

    def __init__(self, rules: Rules | None = None, seed: int | None = None) -> None:
        self.rules = rules if rules is not None else get_rules()
        self.table = action_table(self.rules)
        self.kinds = self.table.kinds
        self.custom_deal: dict[str, Any] | None = None
        self.reset(seed)

    @classmethod
    def from_deal(
        cls, hands: Any, emperor_card_seat: int, guard_card_seat: int, rules: Rules | None = None,
        suits: Any = None,
    ) -> Game:
        """A game from a hand-built deal (scenario tests, puzzles): `hands` is (5, K) card
        counts; the marked emperor card (a BJ) and guard card (an SJ) are in the given seats.
        Hands need not use the whole deck, but no seat may be empty.

        Calling presets (`rules.suits_matter`) take the deal per suit instead: `suits` is
        (5, K, 4) counts (jokers in suit 0), `hands` is None and `guard_card_seat` -1 (the
        guard is whoever holds the called card's 4th copy)."""
        game = cls(rules, seed=0)
        if game.rules.suits_matter:
            sa = np.asarray(suits, dtype=np.int64) if suits is not None else None
            if sa is None or sa.shape != (NUM_SEATS, game.kinds.num_kinds, NUM_SUITS) or (sa < 0).any():
                raise ValueError(f"preset {game.rules.preset!r} deals suits (calling a triple): give suits as "
                                 f"(5, {game.kinds.num_kinds}, 4) counts and hands=None")
            if guard_card_seat != -1 or (sa.sum(axis=0) > 4).any():
                raise ValueError("a calling deal has no guard card (guard_card_seat=-1) and at most 4 copies "
                                 "of each suit-rank")
            hands = sa.sum(axis=2)
        elif suits is not None:
            raise ValueError(f"preset {game.rules.preset!r} does not track suits; give hands only")
        arr = np.asarray(hands, dtype=np.int64)
        K = game.kinds.num_kinds
        if arr.shape != (NUM_SEATS, K) or (arr < 0).any():
            raise ValueError(f"hands must be non-negative counts of shape (5, {K}) over {list(game.kinds.names)}")
        if (arr.sum(axis=0) > dealt_counts(game.rules)).any() or (arr.sum(axis=1) == 0).any():
            raise ValueError("hands use more copies of a card than the deck has, or a seat has no cards")
        if arr[emperor_card_seat, game.kinds.bj] < 1 or (
                not game.rules.suits_matter and arr[guard_card_seat, game.kinds.sj] < 1):
            raise ValueError("the emperor card seat needs a BJ and the guard card seat an SJ")
        game.custom_deal = {"hands": arr.tolist(), "emperor_card_seat": int(emperor_card_seat),
                            "guard_card_seat": int(guard_card_seat)}
        if suits is not None:
            game.custom_deal["suits"] = np.asarray(suits, dtype=np.int64).tolist()
        game.reset(0)
        return game

    # ------------------------------------------------------------------ setup
    def reset(self, seed: int | None = None) -> None:
        """Shuffle and deal a new game. With seed None a fresh seed is drawn (and kept,
        so the game can still be replayed)."""
        if seed is None:
            seed = int(np.random.SeedSequence().generate_state(1, np.uint64)[0] >> np.uint64(1))
        self.seed = int(seed)
        if self.custom_deal is not None:
            cd = self.custom_deal
            suits = np.array(cd["suits"], dtype=np.int8) if "suits" in cd else None
            d = Deal(np.array(cd["hands"], dtype=np.int8), cd["emperor_card_seat"], cd["guard_card_seat"], suits)
        else:
            d = deal(self.rules, np.random.default_rng(self.seed))
        K = self.kinds.num_kinds
        self.hands: list[list[int]] = d.hands.tolist()
        self.cards_left = [sum(h) for h in self.hands]
        self.played = [[0] * K for _ in range(NUM_SEATS)]
        self.total_played = [0] * K
        self.first_emperor_card_seat = d.emperor_card_seat  # h0
        self.emperor_card_seat = d.emperor_card_seat  # -1 once played
        self.guard_card_seat = d.guard_card_seat  # holder of the card that marks the guard; -1 once played
        self.guard_card_kind = self.kinds.sj if d.guard_card_seat >= 0 else -1  # a called kind, or SP
        # calling presets: (suit, rank) counts per seat during the call round, then None
        self.suits: list[list[list[int]]] | None = None if d.suits is None else d.suits.tolist()
        self.pile = [0] * K  # tribute pile travelling with the emperor card (贴牌)
        self.pile_suits = [[0] * NUM_SUITS for _ in range(K)]
        self.called = -1  # the CALL action made, if any (public)
        self.emperor = -1
        self.guard = -1
        self.solo = "none"
        self.open_guard = False
        self.declined = False  # weihai: h0 declined the throne (which tells he is the guard)
        self.grabbed = False
        self.rebels: list[int] = []  # seats that declared REBEL, in order (public)
        self.rebellion = "none"
        self.kick_askers: list[int] = []
        self.kicked = False
        self.public_guard = -1  # the guard (or solo emperor) as known to every seat, else -1
        self.phase = ROLE
        self.step_index = 0
        self.role_state: dict[str, int] = {}
        self.leader = -1
        self.top = -1  # play index to beat; -1 when leading
        self.top_player = -1
        self.passes = 0
        self.passed = [False] * NUM_SEATS
        self.places = [0] * NUM_SEATS
        self.finish_order: list[int] = []
        self.actions: list[int] = []
        self.history: list[tuple[int, int]] = []  # play phase only: (seat, action id)
        self.log: list[tuple] = [("deal", self.seed, self.first_emperor_card_seat)]
        self.result: GameResult | None = None
        self._mask: np.ndarray | None = None
        self._begin_role_step()

    # ------------------------------------------------------------------ queries
    @property
    def is_over(self) -> bool:
        return self.phase == OVER

    @property
    def num_actions(self) -> int:
        return self.table.num_actions

    def hand(self, seat: int) -> np.ndarray:
        """Card counts of a seat, per card kind (int8, K)."""
        return np.array(self.hands[seat], dtype=np.int8)

    @property
    def trick(self) -> tuple[Play, int] | None:
        """The play to beat and the seat that made it, or None when the next play leads."""
        if self.phase != PLAY or self.top < 0:
            return None
        return self.table.play(self.top + FIRST_PLAY), self.top_player

    def legal_mask(self) -> np.ndarray:
        """Legal actions of `current_player` as int8 over the action table (read-only)."""
        if self._mask is None:
            if self.phase == PLAY:
                mask = self.table.legal_mask(self.hands[self.current_player], self.top, self.rules)
                if self.rules.catch_wind == "apply" and self._wind_open():
                    mask[APPLY_WIND] = 1
                mask.flags.writeable = False
            else:
                mask = _decision_mask(self.table.num_actions, self._options)
            self._mask = mask
        return self._mask

    def legal_actions(self) -> np.ndarray:
        """Ids of the legal actions of `current_player` (int64 array, ascending)."""
        return self.legal_mask().view(bool).nonzero()[0]

    def describe(self, action: int) -> str:
        """An action id in words: "pass", a role decision's name, or a play in card notation."""
        return self.table.describe(int(action))

    def action_to_play(self, action: int) -> Play | str:
        """A play action as its `Play` (rank, n, small, big); other actions by name."""
        action = int(action)
        return self.table.play(action) if action >= FIRST_PLAY else self.table.describe(action)

    # ------------------------------------------------------------------ stepping
    def step(self, action: int) -> None:
        """Apply `current_player`'s action. Raises IllegalActionError and changes nothing
        when it is not legal now."""
        action = int(action)
        seat = self.current_player
        if self.phase == OVER:
            raise IllegalActionError(seat, self.phase, action, "the game is over")
        if self.phase == ROLE:
            if action not in self._options:
                allowed = ", ".join(f"{a} ({self.describe(a)})" for a in self._options)
                raise IllegalActionError(
                    seat, self.phase, action, f"allowed now: {allowed}", self._safe_describe(action))
            self.actions.append(action)
            self.log.append(("decide", seat, action))
            step = STEPS[self.rules.role_steps[self.step_index]]
            if step.apply(self, action):
                if self.phase != OVER:  # a void deal or a surrender ends the deal here
                    self.step_index += 1
                    self._begin_role_step()
            else:
                self.current_player, self._options = step.prompt(self)
        else:
            self._play(seat, action)
        self._mask = None

    def _safe_describe(self, action: int) -> str:
        return self.describe(action) if 0 <= action < self.table.num_actions else "not an action id"

    def _begin_role_step(self) -> None:
        steps = self.rules.role_steps
        while self.step_index < len(steps):
            step = STEPS[steps[self.step_index]]
            if step.begin(self):
                self.current_player, self._options = step.prompt(self)
                return
            self.step_index += 1  # the step does not apply to this deal (public facts)
        self.log.append(("roles", self.emperor, self.solo if self.solo == "open" else None, self.public_guard))
        self.phase = PLAY
        self._options = ()
        self._new_trick(self.emperor)

    def move_card(self, src: int, dst: int, kind: int) -> None:
        """Move one card of `kind` between hands (abdication hands over the emperor card)."""
        self.hands[src][kind] -= 1
        self.hands[dst][kind] += 1
        self.cards_left[src] -= 1
        self.cards_left[dst] += 1
        if self.suits is not None:  # jokers are one suit-rank (suit 0)
            self.suits[src][kind][0] -= 1
            self.suits[dst][kind][0] += 1

    # ------------------------------------------------------------------ role-phase helpers
    def pay_tribute(self, seat: int) -> None:
        """`seat` adds his highest non-joker card (a 2 if he has one) to the pile (§3.4, §3.7);
        with suits, the lowest suit of that rank. Nothing if he holds only jokers."""
        hand = self.hands[seat]
        for kind in range(self.kinds.num_ranks - 1, -1, -1):
            if hand[kind]:
                hand[kind] -= 1
                self.cards_left[seat] -= 1
                self.pile[kind] += 1
                if self.suits is not None:
                    suit = next(i for i, c in enumerate(self.suits[seat][kind]) if c)
                    self.suits[seat][kind][suit] -= 1
                    self.pile_suits[kind][suit] += 1
                self.log.append(("tribute", seat, kind))
                return

    def take_pile(self, seat: int) -> None:
        """The new emperor takes the tribute pile into his hand."""
        if not any(self.pile):
            return
        hand = self.hands[seat]
        for kind, c in enumerate(self.pile):
            hand[kind] += c
            if self.suits is not None:
                for suit in range(NUM_SUITS):
                    self.suits[seat][kind][suit] += self.pile_suits[kind][suit]
        self.cards_left[seat] += sum(self.pile)
        self.log.append(("pile", seat, tuple(self.pile)))
        self.pile = [0] * self.kinds.num_kinds
        self.pile_suits = [[0] * NUM_SUITS for _ in range(self.kinds.num_kinds)]

    def _groups(self, seat: int):
        """(call action id, count) of every callable suit-rank the seat holds."""
        t, kinds, suits = self.table, self.kinds, self.suits[seat]
        for kind in range(kinds.num_ranks):
            for suit, c in enumerate(suits[kind]):
                if c >= 3:
                    yield t.call_id(kind, suit), c
        if self.rules.jokers_callable:
            for kind in (kinds.sj, kinds.bj):
                if self.hands[seat][kind] >= 3:
                    yield t.call_id(kind, 0), self.hands[seat][kind]

    def call_options(self, seat: int, quads: bool) -> list[int]:
        """CALL actions open to `seat`: his triples, and his quads when `quads`."""
        return [a for a, c in self._groups(seat) if c == 3 or (quads and c == 4)]

    def forced_caller(self, h0: int) -> int:
        """The forced round (逼位): the first seat from h0 in upper order holding a triple
        (and, for "triple_no_quad", no quad); -1 when nobody qualifies (void deal)."""
        holder, bj = self.emperor_card_seat, self.kinds.bj
        for k in range(NUM_SEATS):
            seat = (h0 - k) % NUM_SEATS
            if seat != holder:  # judge his hand with the emperor card he would receive (a BJ)
                self.move_card(holder, seat, bj)
            counts = [c for _, c in self._groups(seat)]
            if seat != holder:
                self.move_card(seat, holder, bj)
            if 3 in counts and (self.rules.forced_call == "triple" or 4 not in counts):
                return seat
        return -1

    def call(self, seat: int, action: int) -> None:
        """`seat` calls a suit-rank: he is emperor and takes the pile. A quad (or a triple
        whose 4th copy came to him in the pile) makes a hidden solo; otherwise the holder of
        the 4th copy is the guard, and in generic216 that copy becomes SP (§3.5, §3.7)."""
        kind, suit = self.table.call_of(action)
        self.called = action
        self.take_pile(seat)
        if self.suits[seat][kind][suit] == 4:  # a quad, or the 4th copy was in the pile
            self.guard, self.solo = seat, "hidden"
            return
        holder = next((s for s in range(NUM_SEATS) if s != seat and self.suits[s][kind][suit]), -1)
        if holder < 0:  # only in a hand-built deal that left the 4th copy out: nobody can guard
            self.guard, self.solo = seat, "hidden"
            return
        self.guard = self.guard_card_seat = holder
        self.guard_card_kind = kind
        if self.kinds.special:
            self.hands[holder][kind] -= 1
            self.hands[holder][self.kinds.sp] += 1
            self.guard_card_kind = self.kinds.sp

    def grab(self, seat: int) -> None:
        """`seat` grabs the solo (§3.1 R2): he is an open-solo emperor without guard. The
        marks lose their meaning; in generic216 the marked BJ moves to him and SP reverts."""
        if self.rules.grab_moves_emperor_card and self.emperor_card_seat not in (-1, seat):
            self.move_card(self.emperor_card_seat, seat, self.kinds.bj)
            self.emperor_card_seat = seat
        elif not self.rules.grab_moves_emperor_card:
            self.emperor_card_seat = -1
        if self.guard_card_kind == self.kinds.sp >= 0 and self.guard_card_seat >= 0:
            kind, _ = self.table.call_of(self.called)
            self.hands[self.guard_card_seat][self.kinds.sp] -= 1
            self.hands[self.guard_card_seat][kind] += 1
        self.guard_card_seat = self.guard_card_kind = -1
        self.emperor = self.guard = self.public_guard = seat
        self.solo, self.grabbed, self.open_guard = "open", True, False
        self.log.append(("grab", seat))

    def end_before_play(self, how: str) -> None:
        """End the deal in the role phase: "void" (流局: no score, re-deal) or "surrender"
        (投降: the solo emperor pays 4, each other seat gets 1)."""
        if how == "void":
            result = GameResult([0] * NUM_SEATS, ["none"] * NUM_SEATS, [0] * NUM_SEATS, -1, -1, "none", False,
                                end="void")
        else:
            e = self.emperor
            roles = ["rebel"] * NUM_SEATS
            roles[e] = "solo"
            scores = score_deal(self.rules.scoring, [0] * NUM_SEATS, e, e, self.solo, surrendered=True).scores
            result = GameResult([0] * NUM_SEATS, roles, scores, e, e, self.solo, False, end="surrender")
        self.result = result
        self.phase = OVER
        self.current_player = -1
        self._options = ()
        self.log.append((how,))
        self.log.append(("over", tuple(result.scores)))

    def _wind_open(self) -> bool:
        """qingdao (§4.6 "apply"): the first answer to a finisher's final play may be APPLY_WIND."""
        return self.top >= 0 and self.passes == 0 and not self.cards_left[self.top_player]

    def _check_play(self, seat: int, action: int) -> None:
        t, rules = self.table, self.rules
        if action == APPLY_WIND and rules.catch_wind == "apply":
            if not self._wind_open():
                raise IllegalActionError(seat, PLAY, action, "APPLY_WIND answers only a finisher's final play, as "
                                         "its first answer", "APPLY_WIND")
            return
        if action == PASS:
            if self.top < 0:
                raise IllegalActionError(seat, PLAY, action, "the leader must play; pass only when following", "pass")
            return
        p = action - FIRST_PLAY
        if not 0 <= p < t.num_plays:
            what = self._safe_describe(action)
            raise IllegalActionError(seat, PLAY, action, "only pass or a play is allowed in the play phase", what)
        hand, kinds = self.hands[seat], self.kinds
        r, n, s, b = int(t.rank[p]), int(t.n[p]), int(t.small[p]), int(t.big[p])
        if (n and hand[r] < n) or hand[kinds.sj] < s or hand[kinds.bj] < b or (
                kinds.special and hand[kinds.sp] < t.special[p]):
            raise IllegalActionError(seat, PLAY, action, "those cards are not in the hand", t.describe(action))
        if n == 0 and not rules.jokers_only_plays:
            raise IllegalActionError(
                seat, PLAY, action, "plays of jokers only are not allowed by these rules", t.describe(action))
        if rules.hold_sixes and n and r == 0:
            if rules.six_no_jokers:  # the 6s alone, and no jokers left to play
                jokers_ok = s == b == 0 == hand[kinds.sj] + hand[kinds.bj]
            else:  # the 6s with every joker still held
                jokers_ok = s == hand[kinds.sj] and b == hand[kinds.bj]
            whole = sum(hand[: kinds.num_ranks]) == n and jokers_ok
            if not whole:
                raise IllegalActionError(
                    seat, PLAY, action, "hold-the-sixes: 6s may only be played as the whole remaining hand"
                    + (" and never with jokers" if rules.six_no_jokers else ""), t.describe(action))
        if self.top >= 0 and not t.play_beats(self.top, p, rules):
            how = ("the roasting rule (烤牌, §4.7) or, without jokers to beat, the same number of cards each "
                   "strictly higher" if rules.roasting else "same number of cards, each card strictly higher")
            raise IllegalActionError(
                seat, PLAY, action, f"it does not beat {t.describe(self.top + FIRST_PLAY)} ({how})",
                t.describe(action))

    def _play(self, seat: int, action: int) -> None:
        self._check_play(seat, action)
        self.actions.append(action)
        self.history.append((seat, action))
        if action == PASS or action == APPLY_WIND:  # applying for the wind is a logged pass (§9 #30)
            self.log.append(("pass", seat) if action == PASS else ("apply_wind", seat))
            self.passes += 1
            self.passed[seat] = True
        else:
            self._apply_play(seat, action - FIRST_PLAY)
            if self.phase == OVER:
                return
        self._advance(seat)

    def _apply_play(self, seat: int, p: int) -> None:
        t, kinds = self.table, self.kinds
        n, s, b = int(t.n[p]), int(t.small[p]), int(t.big[p])
        hand, played = self.hands[seat], self.played[seat]
        total = self.total_played
        if n:
            r = int(t.rank[p])
            hand[r] -= n
            played[r] += n
            total[r] += n
        hand[kinds.sj] -= s
        hand[kinds.bj] -= b
        played[kinds.sj] += s
        played[kinds.bj] += b
        total[kinds.sj] += s
        total[kinds.bj] += b
        if kinds.special:
            sp = int(t.special[p])
            hand[kinds.sp] -= sp
            played[kinds.sp] += sp
            total[kinds.sp] += sp
            s += sp  # counted with the jokers below
        self.cards_left[seat] -= n + s + b
        self.log.append(("play", seat, p + FIRST_PLAY))
        # marked cards go last among equal cards (§4.9); once played everyone sees the mark
        if seat == self.guard_card_seat and hand[self.guard_card_kind] == 0:
            self.guard_card_seat = -1
            self.public_guard = seat
            self.log.append(("guard_card", seat))
        if b and seat == self.emperor_card_seat and hand[kinds.bj] == 0:
            self.emperor_card_seat = -1
            self.log.append(("emperor_card", seat))
        self.top, self.top_player, self.passes = p, seat, 0
        self.passed = [False] * NUM_SEATS
        if self.cards_left[seat] == 0:
            self.finish_order.append(seat)
            self.places[seat] = len(self.finish_order)
            self.log.append(("out", seat, len(self.finish_order)))
            if self._deal_over():
                self._end()

    def _advance(self, seat: int) -> None:
        active = NUM_SEATS - len(self.finish_order)
        if self.cards_left[self.top_player]:
            if self.passes == active - 1:
                self._new_trick(self.top_player)
                return
        elif self.passes == active:  # the finisher's play stood: catch the wind (接风)
            self._new_trick(self._next_active(self.top_player))
            return
        self.current_player = self._next_active(seat)

    def _next_active(self, seat: int) -> int:
        for k in range(1, NUM_SEATS + 1):
            nxt = (seat + k) % NUM_SEATS
            if self.cards_left[nxt]:
                return nxt
        raise RuntimeError("no active seat left")  # unreachable: the deal ends first

    def _new_trick(self, leader: int) -> None:
        if self.top >= 0:
            self.log.append(("trick", self.top_player, leader))
        self.leader = self.current_player = leader
        self.top, self.top_player, self.passes = -1, -1, 0
        self.passed = [False] * NUM_SEATS

    def _deal_over(self) -> bool:
        """RULES.md §5.2, checked right after a player goes out."""
        out = self.finish_order
        e = self.emperor
        if self.rules.end_rule == "four_out":
            return len(out) >= NUM_SEATS - 1
        if self.solo == "open":
            return True  # the first player out decides an open solo
        if self.solo == "hidden":
            return self.places[e] > 0 or sum(1 for s in out if s != e) >= 2
        side = (e, self.guard)
        royals_out = sum(1 for s in out if s in side)
        return royals_out == 2 or len(out) - royals_out == 3

    def _end(self) -> None:
        # remaining players take the last places by cards held, ties in play order (§5.3)
        start = self.finish_order[-1]
        rest = [(start + k) % NUM_SEATS for k in range(1, NUM_SEATS + 1)]
        rest = sorted((s for s in rest if self.cards_left[s]), key=lambda s: self.cards_left[s])
        for s in rest:
            self.finish_order.append(s)
            self.places[s] = len(self.finish_order)
        rules = self.rules
        effect = {"open_guard": "open_guard", "double": "double"}.get(rules.rebellion, "none")
        deal_score = score_deal(rules.scoring, self.places, self.emperor, self.guard, self.solo,
                                open_guard=self.open_guard, rebellion=self.rebellion, rebellion_effect=effect,
                                kicked=self.kicked, open_guard_multiplier=rules.open_guard_multiplier)
        scores = deal_score.scores
        roles = ["rebel"] * NUM_SEATS
        if self.guard != self.emperor:
            roles[self.guard] = "guard"
        roles[self.emperor] = "solo" if self.solo != "none" else "emperor"
        points = deal_score.points if deal_score.points != scores else None
        self.result = GameResult(list(self.places), roles, scores, self.emperor, self.guard, self.solo,
                                 self.open_guard, grabbed=self.grabbed, rebellion=self.rebellion,
                                 kicked=self.kicked, points=points)
        self.phase = OVER
        self.current_player = -1
        self.log.append(("over", tuple(scores)))

    # ------------------------------------------------------------------ copies and replays
    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        del state["table"], state["kinds"]  # rebuilt from the rules (cached, with its lookup tables)
        state["_mask"] = None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.table = action_table(self.rules)
        self.kinds = self.table.kinds

    def copy(self) -> Game:
        """An independent copy (cheap: plain lists, shared immutable tables)."""
        g = Game.__new__(Game)
        g.__dict__.update(self.__dict__)
        g.hands = [h[:] for h in self.hands]
        g.played = [h[:] for h in self.played]
        g.total_played = self.total_played[:]
        g.cards_left = self.cards_left[:]
        g.passed = self.passed[:]
        g.places = self.places[:]
        g.finish_order = self.finish_order[:]
        g.actions = self.actions[:]
        g.history = self.history[:]
        g.log = self.log[:]
        g.role_state = dict(self.role_state)
        g.rebels = self.rebels[:]
        if self.suits is not None:
            g.suits = [[row[:] for row in seat] for seat in self.suits]
        if any(self.pile):
            g.pile = self.pile[:]
            g.pile_suits = [row[:] for row in self.pile_suits]
        return g

    def to_replay(self) -> dict[str, Any]:
        """A JSON-serializable record from which `from_replay` rebuilds this exact game."""
        rec: dict[str, Any] = {
            "format": REPLAY_FORMAT, "version": REPLAY_VERSION, "rules": self.rules.to_dict(),
            "seed": self.seed, "actions": list(self.actions),
        }
        if self.custom_deal is not None:
            rec["deal"] = self.custom_deal
        if self.result is not None:
            rec["result"] = self.result.to_dict()
        return rec

    @classmethod
    def from_replay(cls, record: dict[str, Any] | str) -> Game:
        """Replay a record (dict or JSON text). Raises ValueError if it does not reproduce
        its recorded result."""
        if isinstance(record, str):
            record = json.loads(record)
        if record.get("format") != REPLAY_FORMAT:
            raise ValueError(f"not a Baohuang replay (format {record.get('format')!r}, expected {REPLAY_FORMAT!r})")
        if record.get("version") != REPLAY_VERSION:
            raise ValueError(f"replay version {record.get('version')!r} is not supported (expected {REPLAY_VERSION})")
        rules = Rules.from_dict(record["rules"])
        if "deal" in record:
            d = record["deal"]
            game = cls.from_deal(None if "suits" in d else d["hands"], d["emperor_card_seat"],
                                 d["guard_card_seat"], rules, suits=d.get("suits"))
        else:
            game = cls(rules, seed=record["seed"])
        for a in record["actions"]:
            game.step(a)
        if "result" in record:  # compare the fields the record has (older records have fewer)
            got = game.result.to_dict() if game.result is not None else {}
            if any(got.get(k) != v for k, v in record["result"].items()):
                raise ValueError("replay does not reproduce its recorded result")
        return game
