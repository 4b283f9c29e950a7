"""Role-phase steps (docs/rules.md §3): who becomes emperor and guard, and what gets declared.

The role phase is the sequence of steps `Rules.role_steps`, which follows from the rule
flags. It owns the deal's role facts (`RoleFacts`: emperor, guard, solo, the marked cards'
seats, declarations...), which nothing else writes; `Game` reads them. Cards move only
through the deal's `Hands`.

Each step is a small class with no state of its own: its progress lives in
`RoleFacts.progress` (plain ints, so `Game.copy()` and pickling stay cheap). A step answers:

* `begin(game) -> bool`: set up its counters; False when the step does not apply this deal
  (decided by public facts only, e.g. no rebellion after an open guard), so it is skipped;
* `prompt(game)`: which seat decides now, and which decision ids it may choose;
* `apply(game, decision) -> Outcome`: record the decision; say whether the step goes on, is
  done, or ends the deal before play (a void deal, a surrender). `Game.step` acts on it.

Every decision that only a secret role-holder could make is asked of every seat that could
hold the role, in a public order, with the extra options only in that seat's mask (§3.8).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator
from enum import Enum
from typing import TYPE_CHECKING, Any

from .actions import DECISION_ID
from .cards import NUM_SEATS, CardKinds, Deal

if TYPE_CHECKING:
    from .game import Game

ACCEPT = DECISION_ID["ACCEPT"]
ABDICATE = DECISION_ID["ABDICATE"]
DECLINE = DECISION_ID["DECLINE"]
NO = DECISION_ID["NO"]
OPEN_SOLO = DECISION_ID["OPEN_SOLO"]
OPEN_GUARD = DECISION_ID["OPEN_GUARD"]
GRAB = DECISION_ID["GRAB"]
REBEL = DECISION_ID["REBEL"]
KICK = DECISION_ID["KICK"]
SURRENDER = DECISION_ID["SURRENDER"]


class Outcome(Enum):
    """What a role step's decision leads to."""

    GO_ON = "go on"  # the step asks again
    DONE = "done"  # the step is over: on to the next step (or to play)
    VOID = "void"  # the deal ends before play: 流局, no score, re-deal
    SURRENDER = "surrender"  # the deal ends before play: 投降, the solo emperor gives up (qingdao)


class RoleFacts:
    """The role facts of one deal, written only by the role phase (and, for the marked
    cards, by `marked_card_played` when the play phase plays one). Seats are -1 while
    unknown or gone.

    Secret: `emperor_card_seat` / `guard_card_seat` (who holds the marked BJ / the card that
    marks the guard, whose kind is `guard_card_kind`: SJ, a called kind, or SP), `guard`.
    Public: everything else; `public_guard` is the guard (or solo emperor) as every seat
    knows him. `progress` holds the running step's own counters (private to the step)."""

    def __init__(self, kinds: CardKinds, d: Deal) -> None:
        self.first_emperor_card_seat = d.emperor_card_seat  # h0
        self.emperor_card_seat = d.emperor_card_seat  # -1 once played, or its mark lost in a grab
        self.guard_card_seat = d.guard_card_seat  # -1 once played; -1 until the call in calling presets
        self.guard_card_kind = kinds.sj if d.guard_card_seat >= 0 else -1
        self.emperor = -1
        self.guard = -1  # == emperor in a solo
        self.solo = "none"  # "none", "hidden" or "open"
        self.open_guard = False
        self.public_guard = -1
        self.abdications = 0  # the emperor card passed on to the upper seat (让位), public
        self.declined = False  # weihai: h0 declined the throne (which tells he is the guard)
        self.called = -1  # the CALL action made, if any
        self.grabbed = False
        self.rebels: list[int] = []  # seats that declared REBEL, in order
        self.rebellion = "none"  # "none", "failed", "succeeded" or "declared" (qingdao)
        self.kick_askers: list[int] = []
        self.kicked = False
        self.progress: dict[str, int] = {}

    def copy(self) -> RoleFacts:
        """An independent copy."""
        c = RoleFacts.__new__(RoleFacts)
        d = c.__dict__
        d.update(self.__dict__)
        d["rebels"] = self.rebels[:]  # (kick_askers is replaced, never changed: shared)
        d["progress"] = self.progress.copy()
        return c

    def marked_card_played(self, seat: int, hand: list[int], kinds: CardKinds) -> list[tuple[Any, ...]]:
        """Play phase: `seat` has just played cards and now holds `hand`. Marked cards go last
        among equal cards (§4.9), so a marked card is played when its holder has no card of
        its kind left; from then on everyone sees its mark (the guard card shows the guard).
        Returns the log events."""
        events: list[tuple[Any, ...]] = []
        if seat == self.guard_card_seat and hand[self.guard_card_kind] == 0:
            self.guard_card_seat = -1
            self.public_guard = seat
            events.append(("guard_card", seat))
        if seat == self.emperor_card_seat and hand[kinds.bj] == 0:
            self.emperor_card_seat = -1
            events.append(("emperor_card", seat))
        return events


def upper(seat: int) -> int:
    """The seat that plays just before `seat` (上家)."""
    return (seat - 1) % NUM_SEATS


def lower(seat: int) -> int:
    """The seat that plays just after `seat` (下家)."""
    return (seat + 1) % NUM_SEATS


def fix_fixed_card_roles(facts: RoleFacts) -> None:
    """Fixed-guard-card presets: once E is known, the guard-card holder is G (a solo if E)."""
    if facts.emperor < 0:  # qingdao: no emperor selection, h0 is emperor (§3.6)
        facts.emperor = facts.emperor_card_seat
    if facts.guard < 0:
        facts.guard = facts.guard_card_seat
        facts.solo = "hidden" if facts.guard == facts.emperor else "none"


def accept_throne(game: Game, seat: int) -> None:
    """`seat` becomes emperor and takes the tribute pile, if any."""
    game.roles.emperor = seat
    if any(game.cards.pile):
        game.log.append(("pile", seat, game.cards.take_pile(seat)))


def abdicate(game: Game, seat: int) -> int:
    """`seat` hands the emperor card to his upper seat, with tribute from the second
    abdicator on where the rules have it; returns the receiver."""
    facts, cards = game.roles, game.cards
    if game.rules.tribute and facts.abdications >= 1:
        kind = cards.pay_tribute(seat)
        if kind >= 0:
            game.log.append(("tribute", seat, kind))
    nxt = upper(seat)
    cards.move_card(seat, nxt, game.kinds.bj)
    facts.emperor_card_seat = nxt
    facts.abdications += 1
    return nxt


def groups(game: Game, seat: int) -> Iterator[tuple[int, int]]:
    """(call action id, count) of every callable suit-rank the seat holds."""
    t, kinds, cards = game.table, game.kinds, game.cards
    for kind, per_suit in enumerate(cards.suits[seat][: kinds.num_ranks]):
        for suit, c in enumerate(per_suit):
            if c >= 3:
                yield t.call_id(kind, suit), c
    if game.rules.jokers_callable:
        for kind in (kinds.sj, kinds.bj):
            if cards.hands[seat][kind] >= 3:
                yield t.call_id(kind, 0), cards.hands[seat][kind]


def call_options(game: Game, seat: int, quads: bool) -> list[int]:
    """CALL actions open to `seat`: his triples, and his quads when `quads`."""
    return [a for a, c in groups(game, seat) if c == 3 or (quads and c == 4)]


def forced_caller(game: Game, h0: int) -> int:
    """The forced round (逼位): the first seat from h0 in upper order holding a triple (and,
    for "triple_no_quad", no quad); -1 when nobody qualifies (void deal)."""
    cards, holder, bj = game.cards, game.roles.emperor_card_seat, game.kinds.bj
    for k in range(NUM_SEATS):
        seat = (h0 - k) % NUM_SEATS
        if seat != holder:  # judge his hand with the emperor card he would receive (a BJ)
            cards.move_card(holder, seat, bj)
        counts = [c for _, c in groups(game, seat)]
        if seat != holder:
            cards.move_card(seat, holder, bj)
        if 3 in counts and (game.rules.forced_call == "triple" or 4 not in counts):
            return seat
    return -1


def call(game: Game, seat: int, action: int) -> None:
    """The emperor `seat` (who has taken the pile) calls a suit-rank. A quad (or a triple
    whose 4th copy came to him in the pile) makes a hidden solo; otherwise the holder of the
    4th copy is the guard, and in generic216 that copy becomes SP (§3.5, §3.7)."""
    facts, cards, kinds = game.roles, game.cards, game.kinds
    kind, suit = game.table.call_of(action)
    facts.called = action
    holder = -1
    if cards.suits[seat][kind][suit] < 4:  # else a quad, or the 4th copy was in the pile
        # nobody (-1) only in a hand-built deal that left the 4th copy out
        holder = next((s for s in range(NUM_SEATS) if s != seat and cards.suits[s][kind][suit]), -1)
    if holder < 0:
        facts.guard, facts.solo = seat, "hidden"
        return
    facts.guard = facts.guard_card_seat = holder
    facts.guard_card_kind = kind
    if kinds.special:
        cards.relabel(holder, kind, kinds.sp)
        facts.guard_card_kind = kinds.sp


def grab(game: Game, seat: int) -> None:
    """`seat` grabs the solo (§3.1 R2): he is an open-solo emperor without guard. The marks
    lose their meaning; in generic216 the marked BJ moves to him and SP reverts."""
    facts, cards, kinds = game.roles, game.cards, game.kinds
    if game.rules.grab_moves_emperor_card and facts.emperor_card_seat not in (-1, seat):
        cards.move_card(facts.emperor_card_seat, seat, kinds.bj)
        facts.emperor_card_seat = seat
    elif not game.rules.grab_moves_emperor_card:
        facts.emperor_card_seat = -1
    if facts.guard_card_kind == kinds.sp >= 0 and facts.guard_card_seat >= 0:
        kind, _ = game.table.call_of(facts.called)
        cards.relabel(facts.guard_card_seat, kinds.sp, kind)
    facts.guard_card_seat = facts.guard_card_kind = -1
    facts.emperor = facts.guard = facts.public_guard = seat
    facts.solo, facts.grabbed, facts.open_guard = "open", True, False
    game.log.append(("grab", seat))


def grab_failed(game: Game, seat: int) -> None:
    """`seat` tried to grab from a hidden-solo emperor: the emperor's own solo comes first
    (the JJ and Lianzhong pages, §9 #15), so the grab fails and shows everyone that he plays
    alone. His solo keeps the hidden solo's end rule and score; nothing is left to reveal,
    so no guard round and no rebellion follow (§9 #71)."""
    facts = game.roles
    facts.public_guard = facts.emperor
    game.log.append(("grab_failed", seat, facts.emperor))


class Abdication:
    """R1 of `jj` and `lianzhong_simple` (§3.2, §3.4): the emperor-card holder accepts, or
    abdicates to his upper seat, the card moving with him. With tribute, every abdicator but
    the first adds his highest non-joker card to a pile that travels with the card and goes
    to whoever accepts. Without a void deal, after one circle h0 is emperor by default;
    with it, after two circles (ten declines) the deal is void."""

    name = "abdication"

    def begin(self, game: Game) -> bool:
        game.roles.progress = {"cur": game.roles.emperor_card_seat}
        return True

    def prompt(self, game: Game) -> tuple[int, tuple[int, ...]]:
        return game.roles.progress["cur"], (ACCEPT, ABDICATE)

    def apply(self, game: Game, decision: int) -> Outcome:
        facts = game.roles
        st = facts.progress
        if decision == ACCEPT:
            accept_throne(game, st["cur"])
            fix_fixed_card_roles(facts)
            return Outcome.DONE
        st["cur"] = abdicate(game, st["cur"])
        if game.rules.void_deal:
            if facts.abdications == 2 * NUM_SEATS:  # two full circles: 流局
                return Outcome.VOID
        elif facts.abdications == NUM_SEATS:  # one full circle: the card is back at h0
            facts.emperor = st["cur"]
            fix_fixed_card_roles(facts)
            return Outcome.DONE
        return Outcome.GO_ON


class Decline:
    """R1 of `weihai` (§3.3): h0 is emperor; only if he also holds the guard card may he
    decline, and then the emperor card goes to `lower(lower(h0))`, who must accept. h0 is
    asked either way (ACCEPT being his only answer without the guard card), so being asked
    reveals nothing."""

    name = "decline"

    def begin(self, game: Game) -> bool:
        return True

    def prompt(self, game: Game) -> tuple[int, tuple[int, ...]]:
        h0 = game.roles.emperor_card_seat
        return h0, (ACCEPT, DECLINE) if game.roles.guard_card_seat == h0 else (ACCEPT,)

    def apply(self, game: Game, decision: int) -> Outcome:
        facts = game.roles
        h0 = facts.emperor_card_seat
        if decision == DECLINE:
            e = lower(lower(h0))
            game.cards.move_card(h0, e, game.kinds.bj)
            facts.emperor_card_seat = e
            facts.emperor = e
            facts.declined = True
            facts.public_guard = h0  # only a holder of both cards may decline: public, not open guard
        else:
            facts.emperor = h0
        fix_fixed_card_roles(facts)
        return Outcome.DONE


class Call:
    """R1 of the calling presets (§3.5 `lianzhong_classic`, §3.7 `generic216`).

    The holder calls a suit-rank he holds three times (the holder of the 4th copy becomes
    the guard; in generic216 that copy becomes SP) or four times (a solo), may declare an
    open solo outright (classic), or abdicates to the upper seat (with tribute from the
    second abdicator where the preset has it). After five abdications the forced round
    (逼位) makes the first qualifying seat from h0 call; if none qualifies the deal is void.
    """

    name = "call"

    def begin(self, game: Game) -> bool:
        game.roles.progress = {"cur": game.roles.emperor_card_seat, "forced": 0}
        return True

    def prompt(self, game: Game) -> tuple[int, tuple[int, ...]]:
        st = game.roles.progress
        cur = st["cur"]
        solo = (OPEN_SOLO,) if game.rules.call_declares_solo else ()
        if st["forced"]:
            return cur, (*solo, *call_options(game, cur, quads=False))
        return cur, (ABDICATE, *solo, *call_options(game, cur, quads=True))

    def apply(self, game: Game, decision: int) -> Outcome:
        facts = game.roles
        st = facts.progress
        cur = st["cur"]
        if decision == ABDICATE:
            nxt = st["cur"] = abdicate(game, cur)
            if facts.abdications == NUM_SEATS:
                forced = forced_caller(game, nxt)
                if forced < 0:
                    return Outcome.VOID
                if forced != nxt:
                    game.cards.move_card(nxt, forced, game.kinds.bj)
                    facts.emperor_card_seat = forced
                st["cur"] = forced
                st["forced"] = 1
                game.log.append(("forced", forced))
            return Outcome.GO_ON
        accept_throne(game, cur)
        if decision == OPEN_SOLO:
            facts.guard = cur
            facts.solo = "open"
            facts.public_guard = cur
        else:
            call(game, cur, decision)
        game.cards.forget_suits()  # suits matter only for calling
        return Outcome.DONE


class Declaration:
    """R2 + R3 as one round asked of all five seats from the emperor (§3.8): the emperor
    may declare an open solo (or, in qingdao, surrender) if he holds the guard card, the
    guard may declare himself; every other answer is NO, so the order of turns never shows
    who the guard is."""

    name = "declaration"

    def begin(self, game: Game) -> bool:
        fix_fixed_card_roles(game.roles)
        game.roles.progress = {"asked": 0}
        return True

    def prompt(self, game: Game) -> tuple[int, tuple[int, ...]]:
        facts = game.roles
        seat = (facts.emperor + facts.progress["asked"]) % NUM_SEATS
        if seat == facts.guard:
            if seat == facts.emperor:
                return seat, (NO, OPEN_SOLO, SURRENDER) if game.rules.surrender else (NO, OPEN_SOLO)
            return seat, (NO, OPEN_GUARD)
        return seat, (NO,)

    def apply(self, game: Game, decision: int) -> Outcome:
        facts = game.roles
        seat = (facts.emperor + facts.progress["asked"]) % NUM_SEATS
        if decision == SURRENDER:
            facts.public_guard = seat
            return Outcome.SURRENDER
        if decision == OPEN_SOLO:
            facts.solo = "open"
            facts.public_guard = seat
        elif decision == OPEN_GUARD:
            facts.open_guard = True
            facts.public_guard = seat
        facts.progress["asked"] += 1
        return Outcome.DONE if facts.progress["asked"] == NUM_SEATS else Outcome.GO_ON


class Solo:
    """R2's first half when grab-solo follows (§3.1): only the emperor is asked; a solo
    emperor may declare an open solo (pre-empting grabs) or answer NO (hidden solo)."""

    name = "solo"

    def begin(self, game: Game) -> bool:
        if game.rules.guard_selection == "fixed_card":
            fix_fixed_card_roles(game.roles)
        return True

    def prompt(self, game: Game) -> tuple[int, tuple[int, ...]]:
        facts = game.roles
        return facts.emperor, (NO, OPEN_SOLO) if facts.guard == facts.emperor else (NO,)

    def apply(self, game: Game, decision: int) -> Outcome:
        if decision == OPEN_SOLO:
            game.roles.solo = "open"
            game.roles.public_guard = game.roles.emperor
        return Outcome.DONE


class _RoundOfOthers(ABC):
    """A round asking the four seats other than the emperor once each: in play order from
    `lower(E)` (`step = 1`) or in upper order from `upper(E)` (`step = -1`). Subclasses say
    when the round applies (`applies`) and what each answer does (`answer`)."""

    step = 1

    def applies(self, game: Game) -> bool:
        return True

    def begin(self, game: Game) -> bool:
        if not self.applies(game):
            return False
        game.roles.progress = {"asked": 0}
        return True

    def seat(self, game: Game) -> int:
        return (game.roles.emperor + self.step * (1 + game.roles.progress["asked"])) % NUM_SEATS

    def apply(self, game: Game, decision: int) -> Outcome:
        if self.answer(game, self.seat(game), decision):
            return Outcome.DONE
        st = game.roles.progress
        st["asked"] += 1
        return Outcome.DONE if st["asked"] == NUM_SEATS - 1 else Outcome.GO_ON

    @abstractmethod
    def answer(self, game: Game, seat: int, decision: int) -> bool:
        """Record `seat`'s answer; True when it ends the round early."""


class Grab(_RoundOfOthers):
    """Grab-solo (抢独, §3.1 R2): unless the emperor declared an open solo, the other seats
    are asked in upper order from the emperor (the priority rule); the first GRAB ends the
    round. Against a hidden-solo emperor it fails, his solo having priority, and reveals
    him (`grab_failed`); otherwise it makes that seat an open-solo emperor with no guard,
    the old emperor one of his opponents."""

    name = "grab"
    step = -1

    def applies(self, game: Game) -> bool:
        return game.roles.solo != "open"

    def prompt(self, game: Game) -> tuple[int, tuple[int, ...]]:
        return self.seat(game), (NO, GRAB)

    def answer(self, game: Game, seat: int, decision: int) -> bool:
        if decision != GRAB:
            return False
        if game.roles.solo == "hidden":
            grab_failed(game, seat)
        else:
            grab(game, seat)
        return True


class Guard(_RoundOfOthers):
    """R3 when it is a step of its own (§3.1): the four non-emperor seats are asked from
    `lower(E)`; only the guard may answer OPEN_GUARD. Skipped once the emperor is known to
    play alone (an open solo, a grab, a failed grab: public facts, no guard to declare)."""

    name = "guard"

    def applies(self, game: Game) -> bool:
        return game.roles.public_guard != game.roles.emperor

    def prompt(self, game: Game) -> tuple[int, tuple[int, ...]]:
        seat = self.seat(game)
        return seat, (NO, OPEN_GUARD) if seat == game.roles.guard else (NO,)

    def answer(self, game: Game, seat: int, decision: int) -> bool:
        if decision == OPEN_GUARD:
            game.roles.open_guard = True
            game.roles.public_guard = seat
        return False


class Rebellion(_RoundOfOthers):
    """R5 (造反, §3.1, §3.6): the non-emperor seats from `lower(E)` answer REBEL or NO (the
    guard only NO). In weihai and lianzhong_simple it is asked only while the guard is
    hidden (or the emperor is a hidden solo): one rebel fails and is marked, two or more
    succeed and reveal the guard. In qingdao it is always asked and only shows identities."""

    name = "rebellion"

    def applies(self, game: Game) -> bool:
        facts = game.roles  # (the guard known: open guard; E known to play alone: open solo, failed grab)
        return game.rules.rebellion == "declaration" or not (facts.open_guard or facts.public_guard == facts.emperor)

    def prompt(self, game: Game) -> tuple[int, tuple[int, ...]]:
        seat = self.seat(game)
        return seat, (NO,) if seat == game.roles.guard else (NO, REBEL)

    def answer(self, game: Game, seat: int, decision: int) -> bool:
        facts = game.roles
        if decision == REBEL:
            facts.rebels.append(seat)
        if facts.progress["asked"] < NUM_SEATS - 2:
            return False
        k = len(facts.rebels)  # the last seat has answered: settle the rebellion
        if game.rules.rebellion == "declaration":
            facts.rebellion = "declared" if k else "none"
        elif k == 1:
            facts.rebellion = "failed"
        elif k >= 2:
            facts.rebellion = "succeeded"
            facts.public_guard = facts.guard  # the guard (or the hidden solo) is revealed
        return True


class Kick:
    """R6 (踢, weihai, §3.1): after a successful rebellion the emperor, then the guard, may
    kick (one is enough); after an open guard or an open solo every opponent of the
    emperor's side may, from `lower(E)`, and two kicks succeed. Otherwise no kick round."""

    name = "kick"

    def begin(self, game: Game) -> bool:
        facts = game.roles
        e, g = facts.emperor, facts.guard
        if facts.rebellion == "succeeded":
            askers, need = [e] + ([g] if g != e else []), 1
        elif facts.open_guard or facts.solo == "open":
            askers = [(e + k) % NUM_SEATS for k in range(1, NUM_SEATS) if (e + k) % NUM_SEATS != g]
            need = 2
        else:
            return False
        facts.kick_askers = askers
        facts.progress = {"asked": 0, "kicks": 0, "need": need}
        return True

    def prompt(self, game: Game) -> tuple[int, tuple[int, ...]]:
        return game.roles.kick_askers[game.roles.progress["asked"]], (NO, KICK)

    def apply(self, game: Game, decision: int) -> Outcome:
        facts = game.roles
        st = facts.progress
        st["kicks"] += decision == KICK
        st["asked"] += 1
        if st["kicks"] >= st["need"]:
            facts.kicked = True
            return Outcome.DONE
        return Outcome.DONE if st["asked"] == len(facts.kick_askers) else Outcome.GO_ON


STEPS = {cls.name: cls() for cls in (Abdication, Decline, Call, Declaration, Solo, Grab, Guard, Rebellion, Kick)}
