"""Role-phase steps (RULES.md §3): who becomes emperor and guard, and what gets declared.

The role phase is the sequence of steps `Rules.role_steps`, which follows from the rule
flags. Each step is a small class with no state of its own: its progress lives in
`game.role_state` (plain ints, so `Game.copy()` and pickling stay cheap). A step answers:

* `begin(game) -> bool`: set up its counters; False when the step does not apply this deal
  (decided by public facts only, e.g. no rebellion after an open guard), so it is skipped;
* `prompt(game)`: which seat decides now, and which decision ids it may choose;
* `apply(game, decision) -> bool`: record the decision; True when the step is over. A step
  may also end the deal (void deal, surrender) through `game.end_before_play`.

Every decision that only a secret role-holder could make is asked of every seat that could
hold the role, in a public order, with the extra options only in that seat's mask (§3.8).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING

from .cards import NUM_SEATS
from .actions import DECISION_ID

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


def upper(seat: int) -> int:
    """The seat that plays just before `seat` (上家)."""
    return (seat - 1) % NUM_SEATS


def lower(seat: int) -> int:
    """The seat that plays just after `seat` (下家)."""
    return (seat + 1) % NUM_SEATS


def fix_fixed_card_roles(game: Game) -> None:
    """Fixed-guard-card presets: once E is known, the guard-card holder is G (a solo if E)."""
    if game.emperor < 0:  # qingdao: no emperor selection, h0 is emperor (§3.6)
        game.emperor = game.emperor_card_seat
    if game.guard < 0:
        game.guard = game.guard_card_seat
        game.solo = "hidden" if game.guard == game.emperor else "none"


class Abdication:
    """R1 of `jj` and `lianzhong_simple` (§3.2, §3.4): the emperor-card holder accepts, or
    abdicates to his upper seat, the card moving with him. With tribute, every abdicator but
    the first adds his highest non-joker card to a pile that travels with the card and goes
    to whoever accepts. Without a void deal, after one circle h0 is emperor by default;
    with it, after two circles (ten declines) the deal is void."""

    name = "abdication"

    def begin(self, game: Game) -> bool:
        game.role_state = {"cur": game.emperor_card_seat, "declines": 0}
        return True

    def prompt(self, game: Game) -> tuple[int, tuple[int, ...]]:
        return game.role_state["cur"], (ACCEPT, ABDICATE)

    def apply(self, game: Game, decision: int) -> bool:
        st = game.role_state
        cur = st["cur"]
        if decision == ACCEPT:
            game.emperor = cur
            game.take_pile(cur)
            fix_fixed_card_roles(game)
            return True
        if game.rules.tribute and st["declines"] >= 1:
            game.pay_tribute(cur)
        nxt = upper(cur)
        game.move_card(cur, nxt, game.kinds.bj)
        game.emperor_card_seat = nxt
        st["declines"] += 1
        st["cur"] = nxt
        if game.rules.void_deal:
            if st["declines"] == 2 * NUM_SEATS:  # two full circles: 流局
                game.end_before_play("void")
                return True
        elif st["declines"] == NUM_SEATS:  # one full circle: the card is back at h0
            game.emperor = nxt
            fix_fixed_card_roles(game)
            return True
        return False


class Decline:
    """R1 of `weihai` (§3.3): h0 is emperor; only if he also holds the guard card may he
    decline, and then the emperor card goes to `lower(lower(h0))`, who must accept. h0 is
    asked either way (ACCEPT being his only answer without the guard card), so being asked
    reveals nothing."""

    name = "decline"

    def begin(self, game: Game) -> bool:
        return True

    def prompt(self, game: Game) -> tuple[int, tuple[int, ...]]:
        h0 = game.emperor_card_seat
        return h0, (ACCEPT, DECLINE) if game.guard_card_seat == h0 else (ACCEPT,)

    def apply(self, game: Game, decision: int) -> bool:
        h0 = game.emperor_card_seat
        if decision == DECLINE:
            e = lower(lower(h0))
            game.move_card(h0, e, game.kinds.bj)
            game.emperor_card_seat = e
            game.emperor = e
            game.declined = True
            game.public_guard = h0  # only a holder of both cards may decline: public, not open guard
        else:
            game.emperor = h0
        fix_fixed_card_roles(game)
        return True


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
        game.role_state = {"cur": game.emperor_card_seat, "declines": 0, "forced": 0}
        return True

    def prompt(self, game: Game) -> tuple[int, tuple[int, ...]]:
        st = game.role_state
        cur = st["cur"]
        rules = game.rules
        if st["forced"]:
            options = tuple(game.call_options(cur, quads=False))
            if rules.call_declares_solo:
                options = (OPEN_SOLO, *options)
            return cur, options
        options = [*game.call_options(cur, quads=True)]
        if rules.call_declares_solo:
            options.insert(0, OPEN_SOLO)
        return cur, (ABDICATE, *options)

    def apply(self, game: Game, decision: int) -> bool:
        st = game.role_state
        cur = st["cur"]
        if decision == ABDICATE:
            if game.rules.tribute and st["declines"] >= 1:
                game.pay_tribute(cur)
            nxt = upper(cur)
            game.move_card(cur, nxt, game.kinds.bj)
            game.emperor_card_seat = nxt
            st["declines"] += 1
            st["cur"] = nxt
            if st["declines"] == NUM_SEATS:
                forced = game.forced_caller(nxt)
                if forced < 0:
                    game.end_before_play("void")
                    return True
                if forced != nxt:
                    game.move_card(nxt, forced, game.kinds.bj)
                    game.emperor_card_seat = forced
                st["cur"] = forced
                st["forced"] = 1
                game.log.append(("forced", forced))
            return False
        game.emperor = cur
        if decision == OPEN_SOLO:
            game.take_pile(cur)
            game.guard = cur
            game.solo = "open"
            game.public_guard = cur
        else:
            game.call(cur, decision)
        game.suits = None  # suits matter only for calling
        return True


class Declaration:
    """R2 + R3 as one round asked of all five seats from the emperor (§3.8): the emperor
    may declare an open solo (or, in qingdao, surrender) if he holds the guard card, the
    guard may declare himself; every other answer is NO, so the order of turns never shows
    who the guard is."""

    name = "declaration"

    def begin(self, game: Game) -> bool:
        fix_fixed_card_roles(game)
        game.role_state = {"asked": 0}
        return True

    def prompt(self, game: Game) -> tuple[int, tuple[int, ...]]:
        seat = (game.emperor + game.role_state["asked"]) % NUM_SEATS
        if seat == game.guard:
            if seat == game.emperor:
                return seat, (NO, OPEN_SOLO, SURRENDER) if game.rules.surrender else (NO, OPEN_SOLO)
            return seat, (NO, OPEN_GUARD)
        return seat, (NO,)

    def apply(self, game: Game, decision: int) -> bool:
        seat = (game.emperor + game.role_state["asked"]) % NUM_SEATS
        if decision == SURRENDER:
            game.public_guard = seat
            game.end_before_play("surrender")
            return True
        if decision == OPEN_SOLO:
            game.solo = "open"
            game.public_guard = seat
        elif decision == OPEN_GUARD:
            game.open_guard = True
            game.public_guard = seat
        game.role_state["asked"] += 1
        return game.role_state["asked"] == NUM_SEATS


class Solo:
    """R2's first half when grab-solo follows (§3.1): only the emperor is asked; a solo
    emperor may declare an open solo (pre-empting grabs) or answer NO (hidden solo)."""

    name = "solo"

    def begin(self, game: Game) -> bool:
        if game.rules.guard_selection == "fixed_card":
            fix_fixed_card_roles(game)
        return True

    def prompt(self, game: Game) -> tuple[int, tuple[int, ...]]:
        return game.emperor, (NO, OPEN_SOLO) if game.guard == game.emperor else (NO,)

    def apply(self, game: Game, decision: int) -> bool:
        if decision == OPEN_SOLO:
            game.solo = "open"
            game.public_guard = game.emperor
        return True


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
        game.role_state = {"asked": 0}
        return True

    def seat(self, game: Game) -> int:
        return (game.emperor + self.step * (1 + game.role_state["asked"])) % NUM_SEATS

    def apply(self, game: Game, decision: int) -> bool:
        if self.answer(game, self.seat(game), decision):
            return True
        game.role_state["asked"] += 1
        return game.role_state["asked"] == NUM_SEATS - 1

    @abstractmethod
    def answer(self, game: Game, seat: int, decision: int) -> bool:
        """Record `seat`'s answer; True when it ends the round early."""


class Grab(_RoundOfOthers):
    """Grab-solo (抢独, §3.1 R2): unless the emperor declared an open solo, the other seats
    are asked in upper order from the emperor (the priority rule); the first GRAB makes
    that seat an open-solo emperor with no guard, the old emperor one of his opponents."""

    name = "grab"
    step = -1

    def applies(self, game: Game) -> bool:
        return game.solo != "open"

    def prompt(self, game: Game) -> tuple[int, tuple[int, ...]]:
        return self.seat(game), (NO, GRAB)

    def answer(self, game: Game, seat: int, decision: int) -> bool:
        if decision == GRAB:
            game.grab(seat)
            return True
        return False


class Guard(_RoundOfOthers):
    """R3 when it is a step of its own (§3.1): the four non-emperor seats are asked from
    `lower(E)`; only the guard may answer OPEN_GUARD. Skipped after an open solo or a grab
    (public facts: there is no guard to declare)."""

    name = "guard"

    def applies(self, game: Game) -> bool:
        return game.solo != "open"

    def prompt(self, game: Game) -> tuple[int, tuple[int, ...]]:
        seat = self.seat(game)
        return seat, (NO, OPEN_GUARD) if seat == game.guard else (NO,)

    def answer(self, game: Game, seat: int, decision: int) -> bool:
        if decision == OPEN_GUARD:
            game.open_guard = True
            game.public_guard = seat
        return False


class Rebellion(_RoundOfOthers):
    """R5 (造反, §3.1, §3.6): the non-emperor seats from `lower(E)` answer REBEL or NO (the
    guard only NO). In weihai and lianzhong_simple it is asked only while the guard is
    hidden (or the emperor is a hidden solo): one rebel fails and is marked, two or more
    succeed and reveal the guard. In qingdao it is always asked and only shows identities."""

    name = "rebellion"

    def applies(self, game: Game) -> bool:
        return game.rules.rebellion == "declaration" or not (game.open_guard or game.solo == "open")

    def prompt(self, game: Game) -> tuple[int, tuple[int, ...]]:
        seat = self.seat(game)
        return seat, (NO,) if seat == game.guard else (NO, REBEL)

    def answer(self, game: Game, seat: int, decision: int) -> bool:
        if decision == REBEL:
            game.rebels.append(seat)
        if game.role_state["asked"] < NUM_SEATS - 2:
            return False
        k = len(game.rebels)  # the last seat has answered: settle the rebellion
        if game.rules.rebellion == "declaration":
            game.rebellion = "declared" if k else "none"
        elif k == 1:
            game.rebellion = "failed"
        elif k >= 2:
            game.rebellion = "succeeded"
            game.public_guard = game.guard  # the guard (or the hidden solo) is revealed
        return True


class Kick:
    """R6 (踢, weihai, §3.1): after a successful rebellion the emperor, then the guard, may
    kick (one is enough); after an open guard or an open solo every opponent of the
    emperor's side may, from `lower(E)`, and two kicks succeed. Otherwise no kick round."""

    name = "kick"

    def begin(self, game: Game) -> bool:
        e, g = game.emperor, game.guard
        if game.rebellion == "succeeded":
            askers, need = [e] + ([g] if g != e else []), 1
        elif game.open_guard or game.solo == "open":
            askers = [(e + k) % NUM_SEATS for k in range(1, NUM_SEATS) if (e + k) % NUM_SEATS != g]
            need = 2
        else:
            return False
        game.kick_askers = askers
        game.role_state = {"asked": 0, "kicks": 0, "need": need}
        return True

    def prompt(self, game: Game) -> tuple[int, tuple[int, ...]]:
        return game.kick_askers[game.role_state["asked"]], (NO, KICK)

    def apply(self, game: Game, decision: int) -> bool:
        st = game.role_state
        st["kicks"] += decision == KICK
        st["asked"] += 1
        if st["kicks"] >= st["need"]:
            game.kicked = True
            return True
        return st["asked"] == len(game.kick_askers)


STEPS = {cls.name: cls() for cls in (Abdication, Decline, Call, Declaration, Solo, Grab, Guard, Rebellion, Kick)}
