"""Resampling a game from one seat's information (OpenSpiel's `ResampleFromInfostate`): a game
that seat cannot tell apart from the true one, for the leak audit and for search.

`resample_info(info, rng)` draws from an information state (`baohuang_env.infostate`) alone,
which is all a searching agent holds; `resample(game, viewer, rng)` is the same draw from the
viewer's information state in `game`.

Built by deal and replay, through the engine's own owners: the other seats' *dealt* hands are
drawn, the game is dealt with `Game.from_deal` and the true game's actions are replayed with
`Game.step`, so the role phase writes every role fact itself. The deal is drawn within the
bounds the record implies (`baohuang_env.deal_constraints`: what each seat gave away, the
marked cards' holders, a caller's triple and a known guard's 4th copy, jokers-only plays,
tribute's highest-card rule, the forced round), the viewer keeping his dealt hand and every
other seat its dealt count; in fixed-guard-card presets, when the guard is hidden from the
viewer, the guard card goes to one of `guard_seats` (in proportion to its unbounded cards, or
by `guard_weights`); in calling presets the guard follows from the deal (the called card's
4th copy).

A draw is accepted when every action replays legally, each was taken by the same seat, and the
viewer's observation (`Encoder.encode`) and, on his turn, mask are byte-identical to the true
game's; else it is drawn again, up to `tries` times (`ResampleError` after that).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from .cards import NUM_SEATS
from .deal_constraints import deal_bounds, draw_deal
from .game import Game, IllegalActionError
from .infostate import InfoState, encoder_of, guard_seats, info_state, marks


#: Draws put to the exact check before a resample gives up. The bounds make almost every draw
#: consistent (at most 37 draws in 10,000 resamples per preset, docs/resampling.md), so the
#: limit costs nothing until a draw meets a constraint they do not model.
TRIES = 1000


class ResampleError(RuntimeError):
    """No draw consistent with the viewer's information was found in the tries allowed."""


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


def advance(world: Game, info: InfoState, check: bool = True,
            visit: Callable[[Game, int, int], None] | None = None) -> Game | None:
    """`world` (a game that agreed with an earlier information state of the same seat and
    deal, or a fresh deal) stepped on by the actions of `info` it has not taken yet, in
    place; None when the viewer could tell it from `info` (an action illegal there, taken by
    another seat, another phase or seat to act at the end, other legal moves on the viewer's
    turn, another holder of the marked BJ, a marked card played or not where everyone saw
    otherwise, or a different observation; with `check` False, only the first four: what a
    search needs to play its candidates on in the world). A search keeps its worlds from one
    decision to the next this way, drawing anew only those that fall out. `visit(world, seat,
    action)`, where given, is called before each step (a search's belief reads the others'
    decisions there)."""
    done = len(world.actions)
    if world.actions != list(info.actions[:done]):
        return None
    for actor, a in zip(info.actors[done:], info.actions[done:], strict=True):
        if world.current_player != actor:
            return None
        if visit is not None:
            visit(world, actor, a)
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
                  tries: int = TRIES, uniform: bool = False) -> Game:
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
    bounds = deal_bounds(info)
    unseen = info.dealt_counts - bounds.lo_kind.sum(axis=1)
    for _ in range(tries):
        guard_seat = seats[0]
        if len(seats) > 1:
            if uniform:
                w = np.ones(len(seats))
            elif guard_weights is None:  # the deal's own prior: in proportion to the unseen cards
                w = np.array([unseen[s] for s in seats], dtype=float)
            else:
                w = np.array([guard_weights[s] for s in seats], dtype=float)
            guard_seat = seats[int(rng.choice(len(seats), p=w / w.sum()))]
        dealt = draw_deal(info, bounds, guard_seat, rng)
        g = None if dealt is None else _build(info, dealt, guard_seat, not uniform)
        if g is not None:
            return g
    raise ResampleError(f"no consistent draw for seat {info.viewer} in {tries} tries "
                        f"(preset {info.rules.preset}, step {len(info.actions)})")


def resample(game: Game, viewer: int, rng: np.random.Generator, guard_weights: Sequence[float] | None = None,
             tries: int = TRIES) -> Game:
    """`resample_info` from `viewer`'s information state in `game` (`game` is not changed)."""
    return resample_info(info_state(game, viewer), rng, guard_weights, tries)


__all__ = ["TRIES", "ResampleError", "advance", "guard_seats", "resample", "resample_info"]
