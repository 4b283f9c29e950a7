"""What the public record says about the hidden deal: bounds on each seat's dealt cards, and a
random deal within them (the proposal of `baohuang_env.resample`).

From a seat's information state (`baohuang_env.infostate.InfoState`) alone, `deal_bounds`
derives, for every other seat, lower and upper bounds on the cards it was dealt, per kind and
per unit (a kind, or kind and suit where suits are dealt). Each bound is a fact every world
consistent with the record satisfies, so drawing within them discards no consistent world:

* cards that left the seat beyond those it got (plays, tribute, the marked emperor card
  passed on: `InfoState.dealt_at_least`), and a caller's triple (`InfoState.called`);
* the marked emperor card (a BJ): its holder now still holds a BJ; whoever played it had
  none left (marked cards go last among equal cards, docs/rules.md §4.9), and gets none later;
  the card's path ends at that seat, which received it once more than it passed it on, unless
  it is the first holder. The same for a fixed guard card (an SJ, which never moves) and, in
  the calling presets, for the guard's called kind;
* in the calling presets, a guard the viewer knows (an open guard, or the guard card played)
  holds the called suit-rank's 4th copy;
* a play of jokers alone where the rules allow it only to a hand without rank cards: the
  seat held no rank card beyond those it played later (`game.check_play` says which kinds an
  extra card of would have made the play illegal);
* tribute (贴牌): an abdicator who paid kind t held no non-joker card that the engine's rule
  (`Hands.pay_tribute`) would have paid before t;
* the forced round (逼位): the seats it passed over held no triple.

`draw_deal` then deals the unseen cards within the bounds: the lower bounds first (a kind-level
bound in a suited deal on suits drawn at random among the copies left), then every unit whose
copies some seat may not take, one copy at a time, to an allowed seat in proportion to its
free places, keeping the rest of the deal feasible (a cut test over the seats), then the other
units dealt at random to the places left, as a random deal does. It finds a deal whenever the
bounds admit one, after the lower bounds' suits.
"""

from __future__ import annotations

import itertools
import weakref
from dataclasses import dataclass

import numpy as np

from .actions import DECISION_ID, FIRST_PLAY, action_table
from .cards import NUM_SEATS
from .game import IllegalActionError, check_play
from .hands import Hands
from .infostate import InfoState
from .role_phase import upper

ABDICATE = DECISION_ID["ABDICATE"]
OPEN_GUARD = DECISION_ID["OPEN_GUARD"]
#: No bound on a unit (more copies than any deck has).
NO_BOUND = 1 << 20


@dataclass(frozen=True)
class DealBounds:
    """Bounds on the dealt cards of the seats other than the viewer (module docstring); rows
    are absolute seats (the viewer's row is unused). `exact[s, k]`: seat s was dealt exactly
    `lo_kind[s, k]` cards of kind k. `played[s, k]`: the cards of kind k seat s has played."""

    lo_kind: np.ndarray  # (5, K)
    exact: np.ndarray  # (5, K) bool
    lo_unit: np.ndarray  # (5, U)
    hi_unit: np.ndarray  # (5, U)
    played: np.ndarray  # (5, K)


_cache: weakref.WeakKeyDictionary[InfoState, DealBounds] = weakref.WeakKeyDictionary()


def deal_bounds(info: InfoState) -> DealBounds:
    """The bounds of `info` (module docstring), computed once per information state."""
    b = _cache.get(info)
    if b is None:
        b = _cache[info] = _bounds(info)
    return b


def _played(info: InfoState) -> np.ndarray:
    """(5, K): the cards of each kind each seat has played, read from the actions."""
    t = action_table(info.rules)
    played = np.zeros((NUM_SEATS, t.kinds.num_kinds), dtype=np.int64)
    for seat, a in zip(info.actors, info.actions, strict=True):
        if FIRST_PLAY <= a < t.first_call:
            played[seat] += t.counts[a - FIRST_PLAY]
    return played


def _bounds(info: InfoState) -> DealBounds:
    kinds, per, t = info.kinds, 4 if info.suited else 1, action_table(info.rules)
    played = _played(info)
    lo = info.dealt_at_least.copy()
    exact = np.zeros(lo.shape, dtype=bool)
    lo_unit = info.called.copy()
    hi_unit = np.full(lo_unit.shape, NO_BOUND, dtype=np.int64)
    first = info.first_emperor_card_seat

    sp_rank, sp_seats = -1, ()  # generic216: the called kind, and who may hold its 4th copy as unplayed SP

    def none_left(seat: int, kind: int, received: int | None = None) -> None:
        """`seat` holds no card of `kind` now and gets none later: dealt exactly what left it
        beyond what it got (`dealt_at_least`, then not clipped at 0), or, given the cards it
        `received` (the marked BJ's path, which `dealt_at_least` clips), what it played less those.
        Not exactly where it may still hold SP, which it was dealt as a card of that kind."""
        if received is not None:
            lo[seat, kind] = max(lo[seat, kind], played[seat, kind] - received)
        if not (kind == sp_rank and seat in sp_seats):
            exact[seat, kind] = True

    bj, sj = kinds.bj, kinds.sj
    holder = info.emperor_card_seat
    lo[first, bj] = max(lo[first, bj], 1)  # dealt the marked BJ
    if holder >= 0:  # the end of the marked BJ's path: got it once more than passed it on, unless the first holder
        lo[holder, bj] = max(lo[holder, bj], played[holder, bj] + (holder == first))
    guard_kind = sj if not info.suited else -1
    called_unit = caller = guard = -1
    for seat, a in zip(info.actors, info.actions, strict=True):
        if t.is_call(a):
            kind, suit = t.call_of(a)
            called_unit, caller = kind * per + suit, seat
            guard_kind = kinds.sp if kinds.special else kind
        elif a == OPEN_GUARD:
            guard = seat
    sp_played = False
    for event, seat in info.marks:
        if event == "emperor_card":
            none_left(seat, bj, int(seat != first))
        elif guard_kind >= 0:
            if guard_kind != kinds.sp:  # (SP is not dealt: the 4th copy turned into it)
                none_left(seat, guard_kind)
            sp_played = guard_kind == kinds.sp
            guard = seat
    if guard_kind == kinds.sp >= 0 and not sp_played and not (info.viewer != caller and info.hand[called_unit]):
        sp_rank = called_unit // per  # the viewer does not hold it: any seat but the caller may
        sp_seats = tuple(s for s in range(NUM_SEATS) if s not in (caller, info.viewer))
    if called_unit >= 0 and guard >= 0 and guard != caller:  # a known guard holds the 4th copy
        lo_unit[guard, called_unit] = max(lo_unit[guard, called_unit], 1)
    _jokers_only_plays(info, played, none_left)
    _tribute(info, played, caller, hi_unit)
    _forced_round(info, hi_unit)
    lo[info.viewer] = 0
    lo_unit[info.viewer] = 0
    return DealBounds(lo, exact, lo_unit, hi_unit, played)


def _jokers_only_plays(info: InfoState, played: np.ndarray, none_left) -> None:
    """A play of jokers alone that an extra rank card would have made illegal (module
    docstring): the seat has no card of those kinds left."""
    rules, t = info.rules, action_table(info.rules)
    if rules.jokers_only_plays:
        return
    later = played.copy()  # each seat's cards from the current action on
    for seat, a in zip(info.actors, info.actions, strict=True):
        if not FIRST_PLAY <= a < t.first_call:
            continue
        counts = t.counts[a - FIRST_PLAY]
        if seat != info.viewer and t.rank[a - FIRST_PLAY] < 0:
            for kind in range(t.kinds.num_ranks):
                hand = later[seat].tolist()
                hand[kind] += 1
                try:
                    check_play(t, rules, hand, -1, seat, a)
                except IllegalActionError:
                    none_left(seat, kind)
        later[seat] -= counts


def _tribute(info: InfoState, played: np.ndarray, emperor: int, hi_unit: np.ndarray) -> None:
    """Tribute's highest-card rule (module docstring): a seat that abdicated after the first
    abdication and gave away rank cards it did not play paid them as tribute, so it was dealt no
    card the engine would have paid first. (The emperor, who took the pile, is left out: what he paid is not told
    apart from what he took.)"""
    kinds, per = info.kinds, 4 if info.suited else 1
    if not info.rules.tribute:
        return
    abdications = [s for s, a in zip(info.actors, info.actions, strict=True) if a == ABDICATE]
    payers = set(abdications[1:])  # from the second abdication on (`role_phase.abdicate`)
    emperor = emperor if emperor >= 0 else next(
        (s for s, a in zip(info.actors, info.actions, strict=True) if a == DECISION_ID["ACCEPT"]), -1)
    ranks = kinds.num_ranks
    for seat in payers - {info.viewer, emperor}:
        paid = np.flatnonzero(info.dealt_at_least[seat, :ranks] - played[seat, :ranks] > 0)
        if paid.size == 0:
            continue
        top = int(paid.max())
        for kind in np.flatnonzero(info.dealt_at_least[seat, :ranks] == 0):
            hand = [0] * kinds.num_kinds
            hand[top] += 1
            hand[kind] += 1
            if Hands(kinds, [hand], None).pay_tribute(0) != top:
                hi_unit[seat, kind * per:(kind + 1) * per] = 0


def _forced_round(info: InfoState, hi_unit: np.ndarray) -> None:
    """The forced round (逼位, `role_phase.forced_caller`): after five abdications the first seat
    in upper order from the card's holder with a triple is made to call, so the seats passed over
    held no suit-rank three times (a received emperor card counted; a tribute card paid may have
    made a fourth). Under "triple_no_quad" a passed seat may instead have held a quad; those
    worlds are not drawn (docs/resampling.md)."""
    if info.rules.forced_call == "none":
        return
    kinds, per = info.kinds, 4
    abdications = [i for i, a in enumerate(info.actions) if a == ABDICATE]
    if len(abdications) < NUM_SEATS or abdications[NUM_SEATS - 1] + 1 >= len(info.actions):
        return
    last = abdications[NUM_SEATS - 1]
    holder, forced = upper(info.actors[last]), info.actors[last + 1]
    paid = info.dealt_at_least - _played(info)
    seat = holder
    while seat != forced:
        if seat != info.viewer:
            for kind in range(kinds.num_ranks):
                units = slice(kind * per, (kind + 1) * per)
                hi_unit[seat, units] = np.minimum(hi_unit[seat, units], 2 + (paid[seat, kind] > 0))
            if info.rules.jokers_callable:
                hi_unit[seat, kinds.sj * per] = min(hi_unit[seat, kinds.sj * per], 2)
                hi_unit[seat, kinds.bj * per] = min(hi_unit[seat, kinds.bj * per], 2 if seat == holder else 1)
        seat = upper(seat)


#: Every non-empty subset of the four other seats, as rows of 0/1 (the cut test).
_SUBSETS = np.array([m for m in itertools.product((0, 1), repeat=NUM_SEATS - 1) if sum(m)], dtype=np.int64)


def _feasible(copies: np.ndarray, room: np.ndarray, cap: np.ndarray) -> bool:
    """Whether `copies` (U,) can be dealt to seats with `room` (S,) places, at most `cap`
    (S, U) of each unit per seat, filling every place (max-flow = min-cut over seat subsets)."""
    if copies.sum() != room.sum():
        return False
    reach = np.minimum(_SUBSETS @ cap, copies).sum(axis=1)
    return bool((reach >= _SUBSETS @ room).all())


def _fill(copies: np.ndarray, room: np.ndarray, cap: np.ndarray, rng: np.random.Generator) -> np.ndarray | None:
    """A random deal of `copies` within `room` and `cap` (`_feasible`), or None when there is
    none: the units some seat may not take in full first, copy by copy to an allowed seat in
    proportion to its places left (a unit's split checked to keep the rest feasible, and if it
    does not, dealt again with each copy checked); then the others dealt at random to the
    places left."""
    if not _feasible(copies, room, cap):
        return None
    copies, room, cap = copies.copy(), room.copy(), cap.copy()
    out = np.zeros(cap.shape, dtype=np.int64)
    for u in rng.permutation(np.flatnonzero((cap < copies).any(axis=0) & (copies > 0))):
        saved = copies[u], room.copy(), cap[:, u].copy(), out[:, u].copy()
        for checked in (False, True):
            while copies[u] and _deal_copy(u, copies, room, cap, out, rng, checked):
                pass
            if checked or _feasible(copies, room, cap):
                break
            copies[u], room[:], cap[:, u], out[:, u] = saved
    pool = rng.permutation(np.repeat(np.arange(copies.size), copies))
    at = 0
    for s in range(room.size):
        out[s] += np.bincount(pool[at:at + room[s]], minlength=copies.size)
        at += room[s]
    return out


def _deal_copy(u: int, copies: np.ndarray, room: np.ndarray, cap: np.ndarray, out: np.ndarray,
               rng: np.random.Generator, checked: bool) -> bool:
    """One copy of unit `u` to a seat that may take it, in proportion to its places left; with
    `checked`, only to a seat that leaves the rest feasible (one always does while it is).
    False when no seat may take it (unchecked only)."""
    w = np.where(cap[:, u] > 0, room, 0).astype(float)
    while True:
        if not w.any():
            return False
        s = int(rng.choice(w.size, p=w / w.sum()))
        copies[u] -= 1
        room[s] -= 1
        cap[s, u] -= 1
        if not checked or _feasible(copies, room, cap):
            out[s, u] += 1
            return True
        copies[u] += 1
        room[s] += 1
        cap[s, u] += 1
        w[s] = 0


def draw_deal(info: InfoState, bounds: DealBounds, guard_seat: int, rng: np.random.Generator) -> np.ndarray | None:
    """Dealt units (5, U) for every seat within `bounds`: the viewer's own hand, and in a
    fixed-guard-card preset the marked SJ with `guard_seat` while it is unplayed; None when
    the lower bounds' suits leave no deal (a draw to try again)."""
    kinds, per = info.kinds, 4 if info.suited else 1
    others = [s for s in range(NUM_SEATS) if s != info.viewer]
    lo_kind, lo = bounds.lo_kind.copy(), bounds.lo_unit.copy()
    if not info.suited and guard_seat >= 0 and guard_seat != info.viewer:  # dealt the marked SJ, still held if kept
        sj = kinds.sj
        held = bounds.played[guard_seat, sj] + 1 if info.guard_card_kept else 1
        lo_kind[guard_seat, sj] = max(lo_kind[guard_seat, sj], held)
    free = info.deck - info.hand
    hi = bounds.hi_unit
    if per == 1:
        lo = np.maximum(lo, lo_kind)
    else:
        for s, kind in zip(*np.nonzero(lo_kind), strict=True):
            if s == info.viewer:
                continue
            units = np.arange(kind * per, kind * per + per)
            need = int(lo_kind[s, kind] - lo[s, units].sum())
            if need <= 0:
                continue
            spare = np.minimum(free[units] - lo[:, units].sum(axis=0), hi[s, units] - lo[s, units])
            copies = np.repeat(units, np.maximum(spare, 0))
            if copies.size < need:
                return None
            np.add.at(lo[s], rng.choice(copies, size=need, replace=False), 1)
    hi = hi.copy()
    for s, kind in zip(*np.nonzero(bounds.exact), strict=True):
        hi[s, kind * per:(kind + 1) * per] = lo[s, kind * per:(kind + 1) * per]
    lo_o, hi_o = lo[others], hi[others]
    copies = free - lo_o.sum(axis=0)
    room = info.dealt_counts[others] - lo_o.sum(axis=1)
    if (copies < 0).any() or (room < 0).any() or (hi_o < lo_o).any():
        return None
    rest = _fill(copies, room, np.minimum(hi_o - lo_o, NO_BOUND), rng)
    if rest is None:
        return None
    dealt = np.zeros((NUM_SEATS, info.deck.size), dtype=np.int64)
    dealt[info.viewer] = info.hand
    dealt[others] = lo_o + rest
    return dealt


__all__ = ["DealBounds", "deal_bounds", "draw_deal"]
