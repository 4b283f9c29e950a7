"""Card kinds, the deck and the deal (RULES.md §1).

A hand is a count vector over card kinds: the ordinary ranks from lowest to highest, then
the small joker (SJ), then the big joker (BJ), as `np.int8`. Suits never matter for play in
the presets implemented here, so they are not tracked. The two marked cards (the emperor
card, a BJ, and the guard card, an SJ) are tracked as "which seat holds it" beside the counts.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .rules import Rules

NUM_SEATS = 5
#: Copies of each ordinary rank (four decks x four suits) and of each joker kind.
COPIES_PER_RANK = 16
COPIES_PER_JOKER = 4

_RANKS_168 = ("6", "7", "8", "9", "10", "J", "Q", "K", "A", "2")


@dataclass(frozen=True)
class CardKinds:
    """The ordered card kinds of a deck: `names[i]` is kind i, lowest first."""

    ranks: tuple[str, ...]

    @property
    def names(self) -> tuple[str, ...]:
        return (*self.ranks, "SJ", "BJ")

    @property
    def num_ranks(self) -> int:
        return len(self.ranks)

    @property
    def num_kinds(self) -> int:
        return len(self.ranks) + 2

    @property
    def sj(self) -> int:
        """Index of the small joker kind."""
        return len(self.ranks)

    @property
    def bj(self) -> int:
        """Index of the big joker kind."""
        return len(self.ranks) + 1

    def index(self, name: str) -> int:
        try:
            return self.names.index(name)
        except ValueError:
            raise ValueError(f"unknown card {name!r}; cards are {list(self.names)}") from None


def card_kinds(rules: Rules) -> CardKinds:
    """Card kinds of the rule set's deck."""
    return CardKinds(_RANKS_168)


def deck_counts(rules: Rules) -> np.ndarray:
    """Copies of each card kind in the full deck, shape (K,)."""
    kinds = card_kinds(rules)
    counts = np.full(kinds.num_kinds, COPIES_PER_RANK, dtype=np.int8)
    counts[kinds.sj] = counts[kinds.bj] = COPIES_PER_JOKER
    return counts


def hand_sizes(deck_size: int, start_seat: int) -> list[int]:
    """Cards dealt to each seat 0..4 when dealing one at a time from `start_seat` (§1.3)."""
    q, r = divmod(deck_size, NUM_SEATS)
    sizes = [0] * NUM_SEATS
    for k in range(NUM_SEATS):
        sizes[(start_seat + k) % NUM_SEATS] = q + (1 if k < r else 0)
    return sizes


@dataclass
class Deal:
    """The outcome of a shuffle and deal."""

    hands: np.ndarray  # (5, K) int8 counts
    emperor_card_seat: int  # who was dealt the marked BJ (h0 in RULES.md)
    guard_card_seat: int  # who was dealt the marked SJ


def deal(rules: Rules, rng: np.random.Generator) -> Deal:
    """Shuffle the deck uniformly with `rng` and deal it round-robin from the start seat."""
    kinds = card_kinds(rules)
    counts = deck_counts(rules)
    deck = np.repeat(np.arange(kinds.num_kinds, dtype=np.int64), counts)
    # The marked cards are one particular BJ and one particular SJ: the first of each kind.
    emperor_pos = int(np.searchsorted(deck, kinds.bj))
    guard_pos = int(np.searchsorted(deck, kinds.sj))
    order = rng.permutation(deck.size)  # order[i] = deck position dealt i-th
    seats = (rules.start_seat + np.arange(deck.size)) % NUM_SEATS
    hands = np.zeros((NUM_SEATS, kinds.num_kinds), dtype=np.int8)
    np.add.at(hands, (seats, deck[order]), 1)
    dealt_at = np.empty(deck.size, dtype=np.int64)
    dealt_at[order] = np.arange(deck.size)
    return Deal(
        hands=hands,
        emperor_card_seat=int(seats[dealt_at[emperor_pos]]),
        guard_card_seat=int(seats[dealt_at[guard_pos]]),
    )
