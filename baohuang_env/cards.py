"""Card kinds, the deck and the deal (docs/rules.md §1).

A hand is a count vector over card kinds: the ordinary ranks from lowest to highest, then
the small joker (SJ), then the big joker (BJ), then in generic216 the special card SP, as
`np.int8`. Suits never matter for play; the calling presets (`Rules.suits_matter`) also get
the deal per (kind, suit) for the call round, and every other preset skips that work. The
marked cards (the emperor card, a BJ, and the guard card, an SJ) are tracked as "which seat
holds it" beside the counts.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .rules import Rules

NUM_SEATS = 5
#: Copies of each ordinary rank (four decks x four suits) and of each joker kind.
COPIES_PER_RANK = 16
COPIES_PER_JOKER = 4

#: Suits, in the order the auto-play bot breaks ties between calls (docs/rules.md §7).
SUITS = ("♣", "♦", "♥", "♠")
NUM_SUITS = len(SUITS)

_RANKS_168 = ("6", "7", "8", "9", "10", "J", "Q", "K", "A", "2")
_RANKS_216 = ("3", "4", "5", *_RANKS_168)


@dataclass(frozen=True)
class CardKinds:
    """The ordered card kinds of a deck: `names[i]` is kind i, lowest first."""

    ranks: tuple[str, ...]
    #: The deck has the special card SP (特画, generic216), a kind above BJ.
    special: bool = False

    @property
    def names(self) -> tuple[str, ...]:
        return (*self.ranks, "SJ", "BJ", "SP") if self.special else (*self.ranks, "SJ", "BJ")

    @property
    def num_ranks(self) -> int:
        return len(self.ranks)

    @property
    def num_kinds(self) -> int:
        return len(self.ranks) + 2 + self.special

    @property
    def sp(self) -> int:
        """Index of the special card kind, -1 when the deck has none."""
        return len(self.ranks) + 2 if self.special else -1

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
    if rules.deck_size == 216:
        return CardKinds(_RANKS_216, special=rules.special_card)
    return CardKinds(_RANKS_168)


def deck_counts(rules: Rules) -> np.ndarray:
    """Copies of each card kind in the full deck, shape (K,). SP is never dealt: a call
    turns one dealt card into it, so it counts 1 here (the most that can exist)."""
    kinds = card_kinds(rules)
    counts = np.full(kinds.num_kinds, COPIES_PER_RANK, dtype=np.int8)
    counts[kinds.sj] = counts[kinds.bj] = COPIES_PER_JOKER
    if rules.deck_size == 165:
        counts[0] = COPIES_PER_RANK - 3  # three 6s removed (§1.2)
    if kinds.special:
        counts[kinds.sp] = 1
    return counts


def dealt_counts(rules: Rules) -> np.ndarray:
    """Copies of each card kind that the shuffle deals (SP: none)."""
    counts = deck_counts(rules)
    kinds = card_kinds(rules)
    if kinds.special:
        counts[kinds.sp] = 0
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
    emperor_card_seat: int  # who was dealt the marked BJ (h0 in docs/rules.md)
    guard_card_seat: int  # who was dealt the marked SJ (-1 in the calling presets: no guard card)
    suits: np.ndarray | None = None  # (5, K, 4) counts per suit, calling presets only (jokers: suit 0)


def deal(rules: Rules, rng: np.random.Generator) -> Deal:
    """Shuffle the deck uniformly with `rng` and deal it round-robin from the start seat."""
    kinds = card_kinds(rules)
    counts = dealt_counts(rules)
    deck = np.repeat(np.arange(kinds.num_kinds, dtype=np.int64), counts)
    # The marked cards are one particular BJ and one particular SJ: the first of each kind.
    emperor_pos = int(np.searchsorted(deck, kinds.bj))
    guard_pos = int(np.searchsorted(deck, kinds.sj))
    order = rng.permutation(deck.size)  # order[i] = deck position dealt i-th
    seats = (rules.start_seat + np.arange(deck.size)) % NUM_SEATS
    K = kinds.num_kinds
    dealt = deck[order]
    hands = np.bincount(seats * K + dealt, minlength=NUM_SEATS * K).astype(np.int8).reshape(NUM_SEATS, K)
    dealt_at = np.empty(deck.size, dtype=np.int64)
    dealt_at[order] = np.arange(deck.size)
    suits = None
    if rules.suits_matter:
        # within a kind, deck position i is suit (i mod 4) for ranks; jokers are one suit-rank
        first = np.searchsorted(deck, deck)
        suit = np.where(deck < kinds.num_ranks, (np.arange(deck.size) - first) % NUM_SUITS, 0)
        suits = np.bincount((seats * K + dealt) * NUM_SUITS + suit[order], minlength=NUM_SEATS * K * NUM_SUITS
                            ).astype(np.int8).reshape(NUM_SEATS, K, NUM_SUITS)
    return Deal(
        hands=hands,
        emperor_card_seat=int(seats[dealt_at[emperor_pos]]),
        guard_card_seat=-1 if rules.suits_matter else int(seats[dealt_at[guard_pos]]),
        suits=suits,
    )
