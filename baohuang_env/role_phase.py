"""Role-phase steps (RULES.md §3): who becomes emperor, and what the guard declares.

The role phase is a sequence of steps named in `Rules.role_steps`. Each step is a small
class with no state of its own: its progress lives in `game.role_state` (plain ints, so
`Game.copy()` and pickling stay cheap). A step answers three questions:

* `begin(game)`: set up its counters when the previous step ends;
* `prompt(game)`: which seat decides now, and which decision ids it may choose;
* `apply(game, decision)`: record the decision; return True when the step is over.

Presets with other role phases add steps here and list them in their rules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .cards import NUM_SEATS
from .melds import DECISION_ID

if TYPE_CHECKING:
    from .game import Game

ACCEPT = DECISION_ID["ACCEPT"]
ABDICATE = DECISION_ID["ABDICATE"]
NO = DECISION_ID["NO"]
OPEN_SOLO = DECISION_ID["OPEN_SOLO"]
OPEN_GUARD = DECISION_ID["OPEN_GUARD"]


def upper(seat: int) -> int:
    """The seat that plays just before `seat` (上家)."""
    return (seat - 1) % NUM_SEATS


class Abdication:
    """R1 of `jj` (§3.2): the emperor-card holder accepts, or abdicates to his upper seat,
    the card moving with him; after five declines the card is back at h0, who is emperor."""

    name = "abdication"

    def begin(self, game: Game) -> None:
        game.role_state = {"cur": game.emperor_card_seat, "declines": 0}

    def prompt(self, game: Game) -> tuple[int, tuple[int, ...]]:
        return game.role_state["cur"], (ACCEPT, ABDICATE)

    def apply(self, game: Game, decision: int) -> bool:
        st = game.role_state
        cur = st["cur"]
        if decision == ACCEPT:
            game.emperor = cur
            return True
        nxt = upper(cur)
        game.move_card(cur, nxt, game.kinds.bj)
        game.emperor_card_seat = nxt
        st["declines"] += 1
        st["cur"] = nxt
        if st["declines"] == NUM_SEATS:  # one full circle: the card is back at h0
            game.emperor = nxt
            return True
        return False


class Declaration:
    """R2 + R3 as one round asked of all five seats from the emperor (§3.8): the emperor
    may declare an open solo if he holds the guard card, the guard may declare himself;
    every other answer is NO, so the order of turns never shows who the guard is."""

    name = "declaration"

    def begin(self, game: Game) -> None:
        game.guard = game.guard_card_seat
        game.solo = "hidden" if game.guard == game.emperor else "none"
        game.role_state = {"asked": 0}

    def prompt(self, game: Game) -> tuple[int, tuple[int, ...]]:
        seat = (game.emperor + game.role_state["asked"]) % NUM_SEATS
        if seat == game.guard:
            return seat, (NO, OPEN_SOLO) if seat == game.emperor else (NO, OPEN_GUARD)
        return seat, (NO,)

    def apply(self, game: Game, decision: int) -> bool:
        seat = (game.emperor + game.role_state["asked"]) % NUM_SEATS
        if decision == OPEN_SOLO:
            game.solo = "open"
            game.public_guard = seat
        elif decision == OPEN_GUARD:
            game.open_guard = True
            game.public_guard = seat
        game.role_state["asked"] += 1
        return game.role_state["asked"] == NUM_SEATS


STEPS = {cls.name: cls() for cls in (Abdication, Declaration)}
