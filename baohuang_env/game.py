"""The pure Baohuang engine: deal, role phase, play phase, end and scoring.

No PettingZoo, Gymnasium or torch here. A `Game` is a small state machine:

    game = Game(get_rules("jj"), seed=7)
    while not game.is_over:
        mask = game.legal_mask()              # int8 over the whole action table
        game.step(my_policy(game, mask))      # raises IllegalActionError, state unchanged
    game.result.scores

Seats are 0..4 in play order. Randomness is used only to shuffle, from a seed, so a game
replays exactly from (rules, seed, actions) (`to_replay` / `from_replay`).

Layers: `hands` keeps the cards (`Hands`), `role_phase` decides the roles (`RoleFacts`, the
role steps); this module runs the turns, the play phase and the end of the deal, and reads
the other two. A role step answers with an `Outcome`, which `Game.step` acts on.
"""

from __future__ import annotations

import json
import operator
from dataclasses import dataclass
from functools import cache
from typing import Any, NamedTuple

import numpy as np

from .actions import DECISION_ID, FIRST_PLAY, PASS, ActionTable, Play, action_table
from .cards import NUM_SEATS, NUM_SUITS, CardKinds, Deal, deal, dealt_counts
from .hands import Hands
from .role_phase import STEPS, Outcome, RoleFacts
from .rules import RULES_REVISION, Rules, check_revision, get_rules
from .scoring import score_finished_deal

APPLY_WIND = DECISION_ID["APPLY_WIND"]

ROLE, PLAY, OVER = "role", "play", "over"
REPLAY_FORMAT = "baohuang-replay"
REPLAY_VERSION = 1


def _describe(table: ActionTable, action: int) -> str:
    """An action id in words, or that it is none."""
    return table.describe(action) if 0 <= action < table.num_actions else "not an action id"


def action_index(action: Any) -> int:
    """`action` as a plain int action id: a Python int, a numpy (or torch) integer or a 0-d
    integer array. Anything else raises TypeError saying what was given: `int(1.5)` and
    `int("1")` would silently read as action 1, and a bool is a flag, not an action id."""
    if not isinstance(action, bool):
        try:
            return operator.index(action)
        except TypeError:
            pass
    raise TypeError(f"an action is an integer action id (a Python or numpy int), got {action!r} "
                    f"({type(action).__name__})")


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
        self.seat, self.phase, self.action, self.reason, self.description = seat, phase, action, reason, description
        what = f"{action} ({description})" if description else f"{action}"
        super().__init__(f"seat {seat} cannot take action {what} in the {phase} phase: {reason}")

    def __reduce__(self):
        """Pickled with its arguments, so that an evaluation worker's error reaches the parent
        process as itself (a worker pool sends errors back pickled)."""
        return type(self), (self.seat, self.phase, self.action, self.reason, self.description), self.__dict__


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
        """The fields as a plain dict (lists copied): what a replay record keeps."""
        return {k: v[:] if isinstance(v, list) else v for k, v in self.__dict__.items()}


def _custom_deal(rules: Rules, kinds: CardKinds, hands: Any, emperor_card_seat: int, guard_card_seat: int,
                 suits: Any) -> dict[str, Any]:
    """The checked record of a hand-built deal (`Game.from_deal`); ValueError when it is not
    a deal these rules could play."""
    if rules.suits_matter:
        sa = np.asarray(suits, dtype=np.int64) if suits is not None else None
        if sa is None or sa.shape != (NUM_SEATS, kinds.num_kinds, NUM_SUITS) or (sa < 0).any():
            raise ValueError(f"preset {rules.preset!r} deals suits (calling a triple): give suits as "
                             f"(5, {kinds.num_kinds}, 4) counts and hands=None")
        if guard_card_seat != -1 or (sa.sum(axis=0) > 4).any():
            raise ValueError("a calling deal has no guard card (guard_card_seat=-1) and at most 4 copies "
                             "of each suit-rank")
        hands = sa.sum(axis=2)
    elif suits is not None:
        raise ValueError(f"preset {rules.preset!r} does not track suits; give hands only")
    arr = np.asarray(hands, dtype=np.int64)
    K = kinds.num_kinds
    if arr.shape != (NUM_SEATS, K) or (arr < 0).any():
        raise ValueError(f"hands must be non-negative counts of shape (5, {K}) over {list(kinds.names)}")
    if (arr.sum(axis=0) > dealt_counts(rules)).any() or (arr.sum(axis=1) == 0).any():
        raise ValueError("hands use more copies of a card than the deck has, or a seat has no cards")
    if arr[emperor_card_seat, kinds.bj] < 1 or (not rules.suits_matter and arr[guard_card_seat, kinds.sj] < 1):
        raise ValueError("the emperor card seat needs a BJ and the guard card seat an SJ")
    record = {"hands": arr.tolist(), "emperor_card_seat": int(emperor_card_seat),
              "guard_card_seat": int(guard_card_seat)}
    if suits is not None:
        record["suits"] = np.asarray(suits, dtype=np.int64).tolist()
    return record


def check_play(table: ActionTable, rules: Rules, hand: list[int], top: int, seat: int, action: int) -> None:
    """Raise IllegalActionError unless `seat`, holding `hand`, may pass or make the play
    `action`; `top` is the play index to beat (-1 when leading)."""
    t, kinds = table, table.kinds
    if action == PASS:
        if top < 0:
            raise IllegalActionError(seat, PLAY, action, "the leader must play; pass only when following", "pass")
        return
    p = action - FIRST_PLAY
    if not 0 <= p < t.num_plays:
        what = _describe(t, action)
        raise IllegalActionError(seat, PLAY, action, "only pass or a play is allowed in the play phase", what)
    r, n, s, b = int(t.rank[p]), int(t.n[p]), int(t.small[p]), int(t.big[p])
    if (n and hand[r] < n) or hand[kinds.sj] < s or hand[kinds.bj] < b or (
            kinds.special and hand[kinds.sp] < t.special[p]):
        raise IllegalActionError(seat, PLAY, action, "those cards are not in the hand", t.describe(action))
    if n == 0 and not rules.jokers_only_plays and any(hand[:kinds.num_ranks]):
        raise IllegalActionError(
            seat, PLAY, action, "plays of jokers only are allowed by these rules only to a hand without rank "
            "cards (a play is one or more cards of one rank, plus any jokers)", t.describe(action))
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
    if top >= 0 and not t.play_beats(top, p, rules):
        how = ("the roasting rule (烤牌, §4.7) or, without jokers to beat, the same number of cards each "
               "strictly higher" if rules.roasting else "same number of cards, each card strictly higher")
        raise IllegalActionError(
            seat, PLAY, action, f"it does not beat {t.describe(top + FIRST_PLAY)} ({how})",
            t.describe(action))


#: Card bookkeeping (`Hands`) shown on `Game` under the same names.
CARD_FIELDS = ("hands", "cards_left", "played", "total_played", "suits", "pile")
#: Role facts (`RoleFacts`) shown on `Game` under the same names.
ROLE_FIELDS = ("first_emperor_card_seat", "emperor_card_seat", "guard_card_seat", "guard_card_kind", "emperor",
               "guard", "solo", "open_guard", "public_guard", "abdications", "declined", "called", "grabbed",
               "rebels", "rebellion", "kick_askers", "kicked")


class Game:
    """One deal of Baohuang under a rule set.

    Where the cards are is `cards` (`Hands`); who has which role is `roles` (`RoleFacts`,
    written only by the role phase, `role_phase.py`); `Game` runs the turns, the play phase
    and the end of the deal. For readers, and fast (the encoder reads them for every
    observation), the cards' lists and the role facts are also plain attributes of the game
    under their own names (`CARD_FIELDS`, `ROLE_FIELDS`: `game.hands`, `game.emperor`, ...),
    plus `role_state` (the running role step's counters). They are read-only views: the
    lists are the same objects, and `_expose` refreshes them whenever the role phase has run
    or a marked card was played.
    """

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
        game.custom_deal = _custom_deal(game.rules, game.kinds, hands, emperor_card_seat, guard_card_seat, suits)
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
        self.cards = Hands.from_deal(self.kinds, d)
        self.roles = RoleFacts(self.kinds, d)
        self.phase = ROLE
        self.step_index = 0
        self.leader = -1
        self.top = -1  # play index to beat; -1 when leading
        self.top_player = -1
        self.passes = 0
        self.passed = [False] * NUM_SEATS
        self.places = [0] * NUM_SEATS
        self.finish_order: list[int] = []
        self.actions: list[int] = []
        self.history: list[tuple[int, int]] = []  # play phase only: (seat, action id)
        self.log: list[tuple] = [("deal", self.seed, d.emperor_card_seat)]
        self.result: GameResult | None = None
        self._mask: np.ndarray | None = None
        self._begin_role_step()
        self._expose()

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
        when it is not legal now; TypeError when `action` is not an integer id (`action_index`)."""
        if type(action) is not int:  # the one check on the hot path
            action = action_index(action)
        seat = self.current_player
        if self.phase == OVER:
            raise IllegalActionError(seat, self.phase, action, "the game is over")
        if self.phase == ROLE:
            if action not in self._options:
                allowed = ", ".join(f"{a} ({self.describe(a)})" for a in self._options)
                raise IllegalActionError(
                    seat, self.phase, action, f"allowed now: {allowed}", _describe(self.table, action))
            self.actions.append(action)
            self.log.append(("decide", seat, action))
            step = STEPS[self.rules.role_steps[self.step_index]]
            outcome = step.apply(self, action)
            if outcome is Outcome.GO_ON:
                self.current_player, self._options = step.prompt(self)
            elif outcome is Outcome.DONE:
                self.step_index += 1
                self._begin_role_step()
            else:  # a void deal or a surrender ends the deal here
                self._end_before_play(outcome)
            self._expose()
        else:
            self._play(seat, action)
        self._mask = None

    def _expose(self) -> None:
        """Show the cards' lists and the role facts as plain attributes (see the class)."""
        d, cards, facts = self.__dict__, self.cards.__dict__, self.roles.__dict__
        for name in CARD_FIELDS:
            d[name] = cards[name]
        for name in ROLE_FIELDS:
            d[name] = facts[name]
        d["role_state"] = facts["progress"]


    def _begin_role_step(self) -> None:
        steps = self.rules.role_steps
        while self.step_index < len(steps):
            step = STEPS[steps[self.step_index]]
            if step.begin(self):
                self.current_player, self._options = step.prompt(self)
                return
            self.step_index += 1  # the step does not apply to this deal (public facts)
        facts = self.roles
        self.log.append(("roles", facts.emperor, facts.solo if facts.solo == "open" else None, facts.public_guard))
        self.phase = PLAY
        self._options = ()
        self._new_trick(facts.emperor)

    def _end_before_play(self, outcome: Outcome) -> None:
        """End the deal in the role phase: `Outcome.VOID` (流局: no score, re-deal) or
        `Outcome.SURRENDER` (投降: the solo emperor pays 4, each other seat gets 1)."""
        if outcome is Outcome.VOID:
            result = GameResult([0] * NUM_SEATS, ["none"] * NUM_SEATS, [0] * NUM_SEATS, -1, -1, "none", False,
                                end="void")
        else:
            facts = self.roles
            e = facts.emperor
            roles = ["rebel"] * NUM_SEATS
            roles[e] = "solo"
            scores = score_finished_deal(self.rules, [0] * NUM_SEATS, e, e, facts.solo, surrendered=True).scores
            result = GameResult([0] * NUM_SEATS, roles, scores, e, e, facts.solo, False, end="surrender")
        self.result = result
        self.phase = OVER
        self.current_player = -1
        self._options = ()
        self.log.append((outcome.value,))
        self.log.append(("over", tuple(result.scores)))

    def _wind_open(self) -> bool:
        """qingdao (§4.6 "apply"): the first answer to a finisher's final play may be APPLY_WIND."""
        return self.top >= 0 and self.passes == 0 and not self.cards_left[self.top_player]

    def _play(self, seat: int, action: int) -> None:
        if action == APPLY_WIND and self.rules.catch_wind == "apply":
            if not self._wind_open():
                raise IllegalActionError(seat, PLAY, action, "APPLY_WIND answers only a finisher's final play, as "
                                         "its first answer", "APPLY_WIND")
        else:
            check_play(self.table, self.rules, self.hands[seat], self.top, seat, action)
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
        t, cards, roles = self.table, self.cards, self.roles
        b, sp = int(t.big[p]), int(t.special[p]) if self.kinds.special else 0
        cards.play(seat, int(t.rank[p]), int(t.n[p]), int(t.small[p]), b, sp)
        self.log.append(("play", seat, p + FIRST_PLAY))
        if seat == roles.guard_card_seat or (b and seat == roles.emperor_card_seat):
            self.log += roles.marked_card_played(seat, cards.hands[seat], self.kinds)
            self._expose()
        self.top, self.top_player, self.passes = p, seat, 0
        self.passed = [False] * NUM_SEATS
        if cards.cards_left[seat] == 0:
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
        f = self.roles
        return deal_over(self.rules, self.finish_order, self.places, f.emperor, f.guard, f.solo)

    def _end(self) -> None:
        self.finish_order[:] = final_order(self.finish_order, self.cards_left)
        for place, s in enumerate(self.finish_order, 1):
            self.places[s] = place
        self.result = finished_result(self.rules, self.places, self.roles)
        self.phase = OVER
        self.current_player = -1
        self.log.append(("over", tuple(self.result.scores)))

    # ------------------------------------------------------------------ copies and replays
    def __getstate__(self) -> dict[str, Any]:
        shown = {*CARD_FIELDS, *ROLE_FIELDS, "role_state", "table", "kinds"}
        state = {k: v for k, v in self.__dict__.items() if k not in shown}
        state["_mask"] = None  # the table and kinds are rebuilt from the rules (cached), the rest shown again
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.table = action_table(self.rules)
        self.kinds = self.table.kinds
        self._expose()

    def copy(self) -> Game:
        """An independent copy (cheap: plain lists, shared immutable tables)."""
        g = Game.__new__(Game)
        g.__dict__.update(self.__dict__)
        g.cards = cards = self.cards.copy()
        g.roles = roles = self.roles.copy()
        # the shown scalars are already right; point the shown lists at the copies (`_expose`)
        g.hands, g.cards_left, g.played = cards.hands, cards.cards_left, cards.played
        g.total_played, g.suits, g.pile = cards.total_played, cards.suits, cards.pile
        g.rebels, g.role_state = roles.rebels, roles.progress
        g.passed = self.passed[:]
        g.places = self.places[:]
        g.finish_order = self.finish_order[:]
        g.actions = self.actions[:]
        g.history = self.history[:]
        g.log = self.log[:]
        return g

    def restarted(self) -> Game:
        """The same deal at its start, no action taken (from its seed or its hand-built deal)."""
        game = self.copy()
        game.reset(self.seed)
        return game

    def to_replay(self) -> dict[str, Any]:
        """A JSON-serializable record from which `from_replay` rebuilds this exact game."""
        return replay_record(self.rules, self.seed, self.actions, self.result, self.custom_deal)

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
        check_revision(rules.preset, record.get("rules_revision", 0))
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


# ---------------------------------------------------------------------- the end of a deal
# Pure functions of the deal's facts: `Game` calls them, and so does the batched array engine
# (`baohuang_env.batched.kernels`), so each end-of-deal rule has one owner.

def deal_over(rules: Rules, finish_order: list[int], places: list[int], emperor: int, guard: int,
              solo: str) -> bool:
    """docs/rules.md §5.2, checked right after a player goes out: `finish_order` the seats out
    so far, `places[seat]` their places (0 while playing)."""
    if rules.end_rule == "four_out":
        return len(finish_order) >= NUM_SEATS - 1
    if solo == "open":
        return True  # the first player out decides an open solo
    if solo == "hidden":
        return places[emperor] > 0 or sum(1 for s in finish_order if s != emperor) >= 2
    royals_out = sum(1 for s in finish_order if s == emperor or s == guard)
    return royals_out == 2 or len(finish_order) - royals_out == 3


def final_order(finish_order: list[int], cards_left: list[int]) -> list[int]:
    """Every seat in finishing order once the deal is over: those out, then the remaining
    players by cards held, ties in play order from the last one out (§5.3)."""
    start = finish_order[-1]
    rest = [(start + k) % NUM_SEATS for k in range(1, NUM_SEATS + 1)]
    return [*finish_order, *sorted((s for s in rest if cards_left[s]), key=lambda s: cards_left[s])]


class SettledRoles(NamedTuple):
    """The role facts that stay fixed through the play phase and decide the score (what
    `finished_result` reads; the marked cards' seats and the public guard still change)."""

    emperor: int
    guard: int
    solo: str
    open_guard: bool
    grabbed: bool
    rebellion: str
    kicked: bool

    @classmethod
    def of(cls, facts: RoleFacts) -> SettledRoles:
        return cls(facts.emperor, facts.guard, facts.solo, facts.open_guard, facts.grabbed, facts.rebellion,
                   facts.kicked)


def finished_result(rules: Rules, places: list[int], roles: RoleFacts | SettledRoles) -> GameResult:
    """The `GameResult` of a deal played to its end, from every seat's place and the role
    facts (`SettledRoles`: the play phase changes none of them)."""
    f = roles
    deal_score = score_finished_deal(rules, places, f.emperor, f.guard, f.solo, open_guard=f.open_guard,
                                     rebellion=f.rebellion, kicked=f.kicked)
    scores = deal_score.scores
    names = ["rebel"] * NUM_SEATS
    if f.guard != f.emperor:
        names[f.guard] = "guard"
    names[f.emperor] = "solo" if f.solo != "none" else "emperor"
    points = deal_score.points if deal_score.points != scores else None
    return GameResult(list(places), names, scores, f.emperor, f.guard, f.solo, f.open_guard, grabbed=f.grabbed,
                      rebellion=f.rebellion, kicked=f.kicked, points=points)


def replay_record(rules: Rules, seed: int, actions: list[int], result: GameResult | None,
                  custom_deal: dict[str, Any] | None = None) -> dict[str, Any]:
    """The JSON-serializable replay record of a game: its rules, seed (or hand-built deal),
    actions and result, from which `Game.from_replay` rebuilds it."""
    rec: dict[str, Any] = {
        "format": REPLAY_FORMAT, "version": REPLAY_VERSION, "rules": rules.to_dict(),
        "rules_revision": RULES_REVISION, "seed": int(seed), "actions": list(actions),
    }
    if custom_deal is not None:
        rec["deal"] = custom_deal
    if result is not None:
        rec["result"] = result.to_dict()
    return rec
