"""One seat's information state: everything that seat has seen of a game, and nothing else.

OpenSpiel's information state, for Baohuang: the seat's own dealt hand and the public record
of the deal (who was dealt how many cards, who held the marked emperor card first, every
action with the seat that took it, every card that left a hand), its own observation and
mask, and the role facts as far as it knows them. `info_state(game, seat)` is the one place
that reads a true `Game` to build one; an agent that searches (`uses_info_state`, see
`baohuang_env.agent`) gets this instead of the game, and draws the worlds it searches with
`baohuang_env.resample.resample_info`.

What is public is the engine's information model (docs/rules.md §3.3, `knowledge.py`): plays
and passes, the role-phase answers, the marked cards' moves, tribute cards (everyone sees
them, §9 #56). A card leaves a hand only by one of those, so the cards each seat gave away
are public. Two games that one seat cannot tell apart give it equal information states
(`InfoState.key`), which is what tests/test_search.py checks.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from .actions import action_table
from .cards import NUM_SEATS
from .encoding import Encoder
from .game import Game
from .knowledge import known_guard
from .rules import Rules

#: One encoder per rule set (building one costs milliseconds; `encode` keeps no state).
encoder_of = functools.cache(Encoder)


def units(game: Game) -> np.ndarray:
    """Each seat's cards as (5, U) unit counts: per kind, or per kind and suit when suits are dealt."""
    if game.cards.suits is None:
        return np.array(game.cards.hands, dtype=np.int64)
    return np.array(game.cards.suits, dtype=np.int64).reshape(NUM_SEATS, -1)


@dataclass(frozen=True, eq=False)
class InfoState:
    """What `viewer` has seen of one game (module docstring). Arrays are per seat (absolute
    seats) and per unit (a card kind, or kind and suit where suits are dealt)."""

    rules: Rules
    viewer: int
    hand: np.ndarray  # (U,) the viewer's dealt units
    deck: np.ndarray  # (U,) the whole deck's units (a constant of the rules)
    dealt_counts: np.ndarray  # (5,) cards dealt to each seat
    first_emperor_card_seat: int  # public: that seat is asked first
    emperor_card_seat: int  # who holds the marked BJ now (public: its moves are, and playing it shows it); -1: played
    guard_card_kept: bool  # the marked SJ is still in its dealt seat (playing it reveals it)
    guard_seats: tuple[int, ...]  # seats that may hold a hidden guard card, as the viewer knows the game
    marks: tuple[tuple, ...]  # the marked cards' plays everyone saw (`MARK_EVENTS` of the game's log)
    actions: tuple[int, ...]  # every action so far
    actors: tuple[int, ...]  # the seat that took each
    dealt_at_least: np.ndarray  # (5, K) per kind: cards each seat gave away (played, paid, passed on) beyond
    # those it got
    called: np.ndarray  # (5, U) the copies of a called suit-rank its caller must hold (calling presets)
    observation: np.ndarray  # the viewer's observation now (float32)
    mask: np.ndarray | None  # the viewer's legal mask when it is to act, else None
    phase: str
    current_player: int

    @property
    def suited(self) -> bool:
        return bool(self.rules.suits_matter)

    @property
    def kinds(self):
        """The card kinds of the rules (`CardKinds`)."""
        return action_table(self.rules).kinds

    @property
    def emperor_card_kept(self) -> bool:
        """The marked BJ is still in its first holder's hand."""
        return self.emperor_card_seat == self.first_emperor_card_seat

    @property
    def to_act(self) -> bool:
        return self.mask is not None

    def key(self) -> bytes:
        """The whole state as bytes: equal for two games the viewer cannot tell apart."""
        parts = [repr((self.rules, self.viewer, self.first_emperor_card_seat, self.emperor_card_seat,
                       self.guard_card_kept, self.guard_seats, self.marks, self.actions, self.actors, self.phase,
                       self.current_player)).encode()]
        for a in (self.hand, self.deck, self.dealt_counts, self.dealt_at_least, self.called, self.observation):
            parts.append(np.ascontiguousarray(a).tobytes())
        parts.append(b"-" if self.mask is None else self.mask.tobytes())
        return b"|".join(parts)


#: Log events of a marked card played: everyone sees its mark (docs/rules.md §4.9), though the
#: observation shows it only when it reveals someone (a guard card played by a hidden guard).
MARK_EVENTS = ("emperor_card", "guard_card")


def marks(game: Game) -> tuple[tuple, ...]:
    """The marked cards' plays so far, in order (public events)."""
    return tuple(e for e in game.log if e[0] in MARK_EVENTS)


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


def info_state(game: Game, viewer: int) -> InfoState:
    """`viewer`'s information state in `game` (module docstring); `game` is not changed."""
    g = game.restarted()
    dealt = units(g)
    kinds = g.kinds
    first_emperor_seat, first_guard_seat = g.roles.first_emperor_card_seat, g.roles.guard_card_seat
    gave = np.zeros((NUM_SEATS, kinds.num_kinds), dtype=np.int64)  # per kind: the engine may forget suits
    got = np.zeros_like(gave)
    called = np.zeros_like(dealt)
    actors = []
    for a in game.actions:
        if g.table.is_call(a):  # a call names a triple the caller holds: dealt, or got from the public pile
            kind, suit = g.table.call_of(a)
            seat, unit = g.current_player, kind * 4 + suit
            from_pile = max(int(units(g)[seat, unit] - dealt[seat, unit]), 0)
            called[seat, unit] = max(3 - from_pile, 0)
        before = np.array(g.cards.hands, dtype=np.int64)
        actors.append(g.current_player)
        g.step(a)
        moved = np.array(g.cards.hands, dtype=np.int64) - before
        if kinds.special and g.roles.called >= 0:  # SP is the called 4th copy, dealt as its rank:
            moved[:, g.table.call_of(g.roles.called)[0]] += moved[:, kinds.sp]  # its secret relabelling
            moved[:, kinds.sp] = 0  # moves nothing, and playing SP gives away a card of that rank
        gave -= np.minimum(moved, 0)
        got += np.maximum(moved, 0)
    guard_card_kept = first_guard_seat >= 0 and game.guard_card_seat == first_guard_seat
    seats = tuple(guard_seats(game, viewer)) if guard_card_kept else (first_guard_seat,)
    turn = game.current_player == viewer and not game.is_over
    return InfoState(
        rules=game.rules, viewer=viewer, hand=dealt[viewer].copy(), deck=dealt.sum(axis=0),
        dealt_counts=dealt.sum(axis=1), first_emperor_card_seat=first_emperor_seat,
        emperor_card_seat=game.emperor_card_seat,
        guard_card_kept=guard_card_kept, guard_seats=seats, marks=marks(game), actions=tuple(game.actions),
        actors=tuple(actors),
        dealt_at_least=np.maximum(gave - got, 0), called=called,
        observation=encoder_of(game.rules).encode(game, viewer),
        mask=game.legal_mask().copy() if turn else None, phase=game.phase, current_player=game.current_player)


__all__ = ["MARK_EVENTS", "InfoState", "guard_seats", "info_state", "marks", "units"]
