"""Resampling a game from one seat's information (OpenSpiel's `ResampleFromInfostate`): a game
that seat cannot tell apart from the true one, for the leak audit and for search.

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

import functools
from collections.abc import Sequence

import numpy as np

from .cards import NUM_SEATS
from .encoding import Encoder
from .game import Game, IllegalActionError
from .knowledge import known_guard


#: One encoder per rule set (building one costs about a third of a sample; `encode` keeps no state).
_encoder = functools.cache(Encoder)


class ResampleError(RuntimeError):
    """No draw consistent with the viewer's information was found in the tries allowed."""


def guard_seats(game: Game, viewer: int) -> list[int]:
    """Seats that may hold the guard card as `viewer` knows the game: [the holder] when the
    viewer knows him (or there is no guard card to move), else every other seat with cards
    that has not declared rebel (not the caller in a calling preset: his guard is the 4th
    copy's holder)."""
    holder = game.guard_card_seat
    if holder < 0 or holder == viewer or known_guard(game, viewer) >= 0 or game.solo == "open":
        return [holder]
    calling = game.rules.suits_matter
    return [s for s in range(NUM_SEATS) if s != viewer and game.cards_left[s] > 0 and s not in game.rebels
            and not (calling and s == game.emperor)]


def _units(game: Game) -> np.ndarray:
    """Each seat's cards as (5, U) unit counts: per kind, or per kind and suit when suits are dealt."""
    if game.cards.suits is None:
        return np.array(game.cards.hands, dtype=np.int64)
    return np.array(game.cards.suits, dtype=np.int64).reshape(NUM_SEATS, -1)


class _Truth:
    """What the draw keeps from the true game: the dealt units, the units each seat gave away
    over the game, who acted at each step, the viewer's observation and mask."""

    def __init__(self, game: Game, viewer: int) -> None:
        g = game.copy()
        g.reset(game.seed)  # the same deal (custom or seeded), before any action
        self.rules, self.viewer, self.actions = game.rules, viewer, list(game.actions)
        self.suited = g.cards.suits is not None
        self.dealt = _units(g)
        self.first_emperor_card_seat = g.roles.first_emperor_card_seat
        self.guard_card_seat = g.roles.guard_card_seat
        self.others = [s for s in range(NUM_SEATS) if s != viewer]
        # the marked cards still in their dealt seats (never played nor passed on)
        self.emperor_card_kept = game.emperor_card_seat == self.first_emperor_card_seat
        self.guard_card_kept = self.guard_card_seat >= 0 and game.guard_card_seat == self.guard_card_seat
        k = g.kinds.num_kinds
        gave = np.zeros((NUM_SEATS, k), dtype=np.int64)  # per kind: the engine may forget suits
        self.actors = []
        self.called = np.zeros_like(self.dealt)  # per unit: the copies a caller must hold of his call
        for a in self.actions:
            if g.table.is_call(a):
                kind, suit = g.table.call_of(a)
                unit = kind * 4 + suit
                self.called[g.current_player, unit] = min(3, self.dealt[g.current_player, unit])
            before = np.array(g.cards.hands, dtype=np.int64)
            self.actors.append(g.current_player)
            g.step(a)
            gave += np.maximum(before - np.array(g.cards.hands, dtype=np.int64), 0)
        self.gave = gave
        self.kinds = g.kinds
        enc = _encoder(game.rules)
        self.encode = enc.encode
        self.obs = enc.encode(game, viewer).tobytes()
        self.turn = game.current_player == viewer and not game.is_over
        self.mask = game.legal_mask().tobytes() if self.turn else b""
        self.phase, self.current = game.phase, game.current_player


def _pins(t: _Truth, rng: np.random.Generator) -> np.ndarray:
    """The units each other seat must have been dealt: what it gave away (its own suited copies
    of each kind), a caller's triple, the marked BJ with its first holder (module docstring)."""
    per = 4 if t.suited else 1
    kept = np.zeros_like(t.dealt)
    for s in t.others:
        for kind in np.flatnonzero(t.gave[s]):
            copies = np.repeat(np.arange(kind * per, kind * per + per), t.dealt[s, kind * per:kind * per + per])
            take = rng.choice(copies, size=min(int(t.gave[s, kind]), copies.size), replace=False)
            np.add.at(kept[s], take, 1)
    kept = np.maximum(kept, t.called)
    _pin_marked(t, kept, t.first_emperor_card_seat, t.kinds.bj * per, t.emperor_card_kept)
    return kept


def _pin_marked(t: _Truth, kept: np.ndarray, seat: int, unit: int, still_there: bool) -> None:
    """Pin a marked joker to `seat` (not the viewer's: his hand is the true one): one copy beyond
    those it gave away while the card is still in its dealt seat (when the other seats were
    dealt a copy more than is pinned), else among them; the replay's check has the last word."""
    if seat < 0 or seat == t.viewer:
        return
    spare = kept[t.others, unit].sum() < t.dealt[t.others, unit].sum()  # (else the count already holds it)
    kept[seat, unit] = kept[seat, unit] + 1 if still_there and spare else max(kept[seat, unit], 1)


def _deal(t: _Truth, kept: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Dealt units for all seats: the pinned ones, and the other seats' remaining dealt cards
    pooled and dealt again at random, each seat keeping its dealt count."""
    dealt = t.dealt.copy()
    free = dealt[t.others].sum(axis=0) - kept[t.others].sum(axis=0)
    if (free < 0).any():
        raise ResampleError("the pinned cards need more copies than the other seats were dealt")
    pool = rng.permutation(np.repeat(np.arange(free.size), free))
    at = 0
    for s in t.others:
        n = int(dealt[s].sum() - kept[s].sum())
        if n < 0:
            raise ResampleError(f"seat {s} gave away more cards than it was dealt")
        dealt[s] = kept[s] + np.bincount(pool[at:at + n], minlength=free.size)
        at += n
    return dealt


def _build(t: _Truth, units: np.ndarray, guard_seat: int) -> Game | None:
    """The drawn deal replayed, or None when the viewer could tell it from the true game."""
    if t.suited:
        g = Game.from_deal(None, t.first_emperor_card_seat, -1, t.rules,
                           suits=units.reshape(NUM_SEATS, t.kinds.num_kinds, 4))
    else:
        g = Game.from_deal(units, t.first_emperor_card_seat, guard_seat, t.rules)
    for actor, a in zip(t.actors, t.actions, strict=True):
        if g.current_player != actor:
            return None
        try:
            g.step(a)
        except IllegalActionError:
            return None
    if g.phase != t.phase or g.current_player != t.current or t.encode(g, t.viewer).tobytes() != t.obs:
        return None
    if t.turn and g.legal_mask().tobytes() != t.mask:
        return None
    return g


def resample(game: Game, viewer: int, rng: np.random.Generator, guard_weights: Sequence[float] | None = None,
             tries: int = 100) -> Game:
    """A game `viewer` cannot tell apart from `game`, its hidden parts drawn consistently with
    what `viewer` saw (module docstring). A hidden guard card's seat is drawn among `guard_seats`
    in proportion to `guard_weights` (one per seat, e.g. a belief), by default to each seat's
    unseen dealt cards (the deal's own prior), before the replay's check. `game` is not changed. ResampleError
    when none of `tries` draws is consistent."""
    t = _Truth(game, viewer)
    # the dealt guard card's seat: redrawn while it is still there and hidden from the viewer
    # (a played guard card is public; calling presets have none: -1)
    seats = guard_seats(game, viewer) if t.guard_card_kept else [t.guard_card_seat]
    if guard_weights is not None and len(seats) > 1 and sum(guard_weights[s] for s in seats) <= 0:
        raise ValueError(f"guard_weights give no weight to the candidate seats {seats}")
    sj = t.kinds.sj * (4 if t.suited else 1)
    for _ in range(tries):
        kept = _pins(t, rng)
        guard_seat = seats[0]
        if len(seats) > 1:
            if guard_weights is None:  # the deal's own prior: in proportion to the unseen cards
                w = np.array([t.dealt[s].sum() - kept[s].sum() for s in seats], dtype=float)
            else:
                w = np.array([guard_weights[s] for s in seats], dtype=float)
            guard_seat = seats[int(rng.choice(len(seats), p=w / w.sum()))]
        _pin_marked(t, kept, guard_seat, sj, t.guard_card_kept)
        g = _build(t, _deal(t, kept, rng), guard_seat)
        if g is not None:
            return g
    raise ResampleError(f"no consistent draw for seat {viewer} in {tries} tries "
                        f"(preset {game.rules.preset}, step {len(game.actions)})")


__all__ = ["ResampleError", "guard_seats", "resample"]
