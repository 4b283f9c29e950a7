"""Resampling a game from one seat's information (OpenSpiel's `ResampleFromInfostate`): a game
that seat cannot tell apart from the true one, for the leak audit and for search.

`resample_info(info, rng)` draws from an information state (`baohuang_env.infostate`) alone,
which is all a searching agent holds; `resample(game, viewer, rng)` is the same draw from the
viewer's information state in `game`.

Built by deal and replay, through the engine's own owners: the other seats' *dealt* hands are
drawn, the game is dealt with `Game.from_deal` and the true game's actions are replayed with
`Game.step`, so the role phase writes every role fact itself. The draw:

* the viewer keeps its dealt hand; every other seat keeps its dealt card count;
* every card that left a seat during the game (plays, tribute, any card move) is dealt to
  that seat again (its public use pins it there; in calling presets one of the seat's own
  suited copies), and a caller keeps three copies of the suit-rank he called;
* the marked emperor card (a BJ) stays with its first holder (public: he is asked first);
* the guard card (an SJ; fixed-guard-card presets), when the guard is hidden from the viewer,
  goes to one of `guard_seats` (in proportion to its unseen cards, or by `guard_weights`); in calling presets the guard
  follows from the deal (the called card's 4th copy);
* the rest of the other seats' dealt cards are pooled and dealt again at random.

A draw is accepted when every action replays legally, each was taken by the same seat, and the
viewer's observation (`Encoder.encode`) and, on his turn, mask are byte-identical to the true
game's; else it is drawn again, up to `tries` times (`ResampleError` after that).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .cards import NUM_SEATS
from .game import Game, IllegalActionError
from .infostate import InfoState, encoder_of, guard_seats, info_state, marks


class ResampleError(RuntimeError):
    """No draw consistent with the viewer's information was found in the tries allowed."""


def _others(info: InfoState) -> list[int]:
    return [s for s in range(NUM_SEATS) if s != info.viewer]


def _pins(info: InfoState, rng: np.random.Generator) -> np.ndarray:
    """The units each other seat must have been dealt: what it gave away beyond what it got
    (suited copies of each kind drawn among those not pinned elsewhere), a caller's triple, the
    marked BJ with its first holder (module docstring)."""
    per = 4 if info.suited else 1
    kept = info.called.copy()  # first: a call names the very copies
    kept[info.viewer] = 0  # (his hand is the true one)
    free = info.deck - info.hand  # the copies the other seats were dealt, between them
    for s in _others(info):
        for kind in np.flatnonzero(info.dealt_at_least[s]):
            units = np.arange(kind * per, kind * per + per)
            need = int(info.dealt_at_least[s, kind] - kept[s, units].sum())
            if need <= 0:
                continue
            copies = np.repeat(units, np.maximum(free[units] - kept[:, units].sum(axis=0), 0))
            take = rng.choice(copies, size=min(need, copies.size), replace=False)
            np.add.at(kept[s], take, 1)
    _pin_marked(info, kept, info.first_emperor_card_seat, info.kinds.bj * per, info.emperor_card_kept)
    return kept


def _pin_marked(info: InfoState, kept: np.ndarray, seat: int, unit: int, still_there: bool) -> None:
    """Pin a marked joker to `seat` (not the viewer's: his hand is the true one): one copy beyond
    those it gave away while the card is still in its dealt seat (when the other seats were
    dealt a copy more than is pinned), else among them; the replay's check has the last word."""
    if seat < 0 or seat == info.viewer:
        return
    spare = kept[_others(info), unit].sum() < info.deck[unit] - info.hand[unit]
    kept[seat, unit] = kept[seat, unit] + 1 if still_there and spare else max(kept[seat, unit], 1)


def _deal(info: InfoState, kept: np.ndarray, rng: np.random.Generator) -> np.ndarray | None:
    """Dealt units for all seats: the viewer's own, the pinned ones, and the rest of the deck
    dealt at random to the other seats, each keeping its dealt count; None when the pins
    cannot be dealt (a draw to try again)."""
    others = _others(info)
    dealt = np.zeros((NUM_SEATS, info.deck.size), dtype=np.int64)
    dealt[info.viewer] = info.hand
    free = info.deck - info.hand - kept[others].sum(axis=0)
    if (free < 0).any():
        return None
    pool = rng.permutation(np.repeat(np.arange(free.size), free))
    at = 0
    for s in others:
        n = int(info.dealt_counts[s] - kept[s].sum())
        if n < 0:
            return None
        dealt[s] = kept[s] + np.bincount(pool[at:at + n], minlength=free.size)
        at += n
    return dealt


def _build(info: InfoState, units: np.ndarray, guard_seat: int, check: bool) -> Game | None:
    """The drawn deal replayed, or None when the viewer could tell it from his information
    (with `check` False: only when the replay is not legal)."""
    rules = info.rules
    if info.suited:
        g = Game.from_deal(None, info.first_emperor_card_seat, -1, rules,
                           suits=units.reshape(NUM_SEATS, info.kinds.num_kinds, 4))
    else:
        g = Game.from_deal(units, info.first_emperor_card_seat, guard_seat, rules)
    return advance(g, info, check)


def advance(world: Game, info: InfoState, check: bool = True) -> Game | None:
    """`world` (a game that agreed with an earlier information state of the same seat and
    deal, or a fresh deal) stepped on by the actions of `info` it has not taken yet, in
    place; None when the viewer could tell it from `info` (an action illegal there, taken by
    another seat, another phase or seat to act at the end, other legal moves on the viewer's
    turn, another holder of the marked BJ, a marked card played or not where everyone saw
    otherwise, or a different observation; with `check` False, only the first four: what a
    search needs to play its candidates on in the world). A search keeps its worlds from one
    decision to the next this way, drawing anew only those that fall out."""
    done = len(world.actions)
    if world.actions != list(info.actions[:done]):
        return None
    for actor, a in zip(info.actors[done:], info.actions[done:], strict=True):
        if world.current_player != actor:
            return None
        try:
            world.step(a)
        except IllegalActionError:
            return None
    if (world.phase, world.current_player) != (info.phase, info.current_player):
        return None  # e.g. a uniform world whose sides are all out already: the deal is over there
    if info.to_act and not np.array_equal(world.legal_mask(), info.mask):
        return None
    if not check:
        return world
    if world.emperor_card_seat != info.emperor_card_seat or marks(world) != info.marks:
        return None
    if not np.array_equal(encoder_of(info.rules).encode(world, info.viewer), info.observation):
        return None
    return world


def resample_info(info: InfoState, rng: np.random.Generator, guard_weights: Sequence[float] | None = None,
                  tries: int = 100, uniform: bool = False) -> Game:
    """A game the viewer of `info` cannot tell apart from the one `info` was read from, its
    hidden parts drawn consistently with `info` alone (module docstring). A hidden guard
    card's seat is drawn among `info.guard_seats` in proportion to `guard_weights` (one per
    absolute seat, e.g. a belief), by default to each seat's unseen dealt cards (the deal's own
    prior), before the replay's check. ResampleError when none of `tries` draws is consistent.

    `uniform`: the baseline a search compares its sampler with. The guard card goes to any
    other seat alike, whatever the roles say (unless the viewer holds it), and a draw is kept
    whenever the actions replay legally (by the same seats) to the same seat to act with the
    same legal moves, the viewer's observation unchecked: the roles and hands are ignored
    beyond the hand sizes and what the replay and the search need (a seat holds what it
    played, a caller his triple, a declared guard the guard card, the deal is not over)."""
    seats = info.guard_seats
    if uniform and info.guard_card_kept and info.viewer not in seats:  # (his own hand is the true one)
        seats = tuple(s for s in range(NUM_SEATS) if s != info.viewer and info.dealt_counts[s])
    if guard_weights is not None and len(seats) > 1 and sum(guard_weights[s] for s in seats) <= 0:
        raise ValueError(f"guard_weights give no weight to the candidate seats {list(seats)}")
    sj = info.kinds.sj * (4 if info.suited else 1)
    for _ in range(tries):
        kept = _pins(info, rng)
        guard_seat = seats[0]
        if len(seats) > 1:
            if uniform:
                w = np.ones(len(seats))
            elif guard_weights is None:  # the deal's own prior: in proportion to the unseen cards
                w = np.array([info.dealt_counts[s] - kept[s].sum() for s in seats], dtype=float)
            else:
                w = np.array([guard_weights[s] for s in seats], dtype=float)
            guard_seat = seats[int(rng.choice(len(seats), p=w / w.sum()))]
        _pin_marked(info, kept, guard_seat, sj, info.guard_card_kept)
        dealt = _deal(info, kept, rng)
        g = None if dealt is None else _build(info, dealt, guard_seat, not uniform)
        if g is not None:
            return g
    raise ResampleError(f"no consistent draw for seat {info.viewer} in {tries} tries "
                        f"(preset {info.rules.preset}, step {len(info.actions)})")


def resample(game: Game, viewer: int, rng: np.random.Generator, guard_weights: Sequence[float] | None = None,
             tries: int = 100) -> Game:
    """`resample_info` from `viewer`'s information state in `game` (`game` is not changed)."""
    return resample_info(info_state(game, viewer), rng, guard_weights, tries)


__all__ = ["ResampleError", "advance", "guard_seats", "resample", "resample_info"]
