"""Who knows what about the roles: the one statement of the information model (docs/rules.md
§3.3), read by the observation encoder, the text views, `baohuang play` / `replay` and the
bots' `SeatView`.

* The emperor is public once chosen.
* A seat knows its own role once the roles are fixed: the holder of the guard card (or of
  the fourth copy of a called card) knows he is the guard, an emperor holding it that he is
  a (hidden) solo.
* The guard (or a solo emperor) becomes public by an open declaration (明保, 明独, a grab),
  by declining the throne (weihai), by a successful rebellion, or by playing the marked
  guard card (`Game.public_guard`). Once the emperor's side is known, so is everyone's:
  the others are rebels.
* Seats that declared REBEL are public rebels.
* At the end of a deal (`Game.result`) every role is public.

Roles are the names of `baohuang_env.roles.ROLES`; None means "not known" (or, for a seat's
own role, "not fixed yet"). A hidden solo emperor is "emperor" to those who do not know that
he plays alone. A viewer is a seat, or None for a spectator who sees everything.
Everything here is a small pure function of the game's public role facts (`emperor`,
`guard`, `public_guard`, `rebels`, `result`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .cards import NUM_SEATS
from .roles import ROLES

if TYPE_CHECKING:
    from .game import Game

EMPEROR, GUARD, SOLO, REBEL = ROLES

#: `teams` values per seat: on my side, not known, against me.
PARTNER, UNKNOWN, OPPONENT = 1, 0, -1


def guard_and_role(game: Game, seat: int) -> tuple[int, str | None]:
    """What `seat` knows of the emperor's side, in one call (the observation encoder's fast
    path): the guard as it knows it (`known_guard`) and its own role (`own_role`)."""
    emperor, guard = game.emperor, game.guard
    if guard == seat:
        return seat, (None if emperor < 0 else SOLO if seat == emperor else GUARD)
    if emperor < 0 or guard < 0:
        return game.public_guard, None
    return game.public_guard, (EMPEROR if seat == emperor else REBEL)


def known_guard(game: Game, seat: int) -> int:
    """The guard as `seat` knows it: itself when it is the guard (a hidden solo emperor is
    his own guard), else the public guard; -1 while hidden from it."""
    return guard_and_role(game, seat)[0]


def own_role(game: Game, seat: int) -> str | None:
    """The role of `seat`, which that seat knows; None until the roles are fixed (no
    emperor yet, or a void deal)."""
    return guard_and_role(game, seat)[1]


def _final_role(game: Game, seat: int) -> str | None:
    role = game.result.roles[seat]
    return role if role in ROLES else None  # "none": a void deal


def public_role(game: Game, seat: int) -> str | None:
    """The role of `seat` as every seat knows it now; None while it is not public."""
    if game.result is not None:
        return _final_role(game, seat)
    return _role_from(seat, game.emperor, game.public_guard, game.rebels)


def known_role(game: Game, seat: int, viewer: int | None) -> str | None:
    """The role of `seat` as `viewer` knows it now: its own role, what is public, and what
    follows from its own role (a hidden guard knows who the rebels are). A spectator
    (`viewer` None) knows every role."""
    if game.result is not None:
        return _final_role(game, seat)
    if viewer is None or seat == viewer:
        return own_role(game, seat)
    return _role_from(seat, game.emperor, known_guard(game, viewer), game.rebels)


def _role_from(seat: int, emperor: int, guard: int, rebels: list[int]) -> str | None:
    """A seat's role given the emperor, the guard as known (-1: not known) and the declared rebels."""
    if emperor < 0:
        return None
    if seat == emperor:
        return SOLO if guard == emperor else EMPEROR
    if guard >= 0:
        return GUARD if seat == guard else REBEL
    return REBEL if seat in rebels else None


def teams(me: int, role: str | None, emperor: int, guard: int) -> list[int]:
    """PARTNER, UNKNOWN or OPPONENT for every seat, as seen by seat `me` whose role is `role`
    (`own_role`), from the emperor (-1: not chosen) and the guard as `me` knows it
    (`known_guard`; -1: not known). Seats may be absolute or relative to anyone, as long
    as all three use the same numbering. Declared rebels are not used.

    The guard knows everyone's side; a rebel knows the emperor is an opponent, and once the
    guard is known, everyone's side; an emperor who does not know his guard knows nobody's
    side; a solo emperor (hidden or open) has four opponents."""
    team = [UNKNOWN] * NUM_SEATS
    team[me] = PARTNER
    if role is None or emperor < 0:
        return team
    if role == REBEL:
        if guard < 0:
            team[emperor] = OPPONENT
            return team
        return [OPPONENT if s in (emperor, guard) else PARTNER for s in range(NUM_SEATS)]
    partner = emperor if role == GUARD else guard  # a solo emperor is his own guard
    if partner < 0:  # an emperor who does not know his guard
        return team
    return [PARTNER if s in (me, partner) else OPPONENT for s in range(NUM_SEATS)]


def seat_teams(game: Game, seat: int) -> list[int]:
    """`teams` as `seat` sees them in `game` (absolute seats)."""
    guard, role = guard_and_role(game, seat)
    return teams(seat, role, game.emperor, guard)


__all__ = [
    "OPPONENT", "PARTNER", "UNKNOWN",
    "guard_and_role", "known_guard", "known_role", "own_role", "public_role", "seat_teams", "teams",
]
