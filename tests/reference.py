"""A slow, obviously-correct reference move generator (RULES.md §4.1, §4.3, §4.5).

It knows nothing of the engine's action table or lookup arrays: it lists every multiset of
cards a hand can make that is a play (one ordinary rank plus any jokers, or jokers only), then
keeps the legal ones by applying the written rules literally, with plain Python loops:

* §4.3: sort both plays high to low and compare position by position: same number of cards,
  and every card of the candidate strictly greater than the card at its place;
* §4.5 (hold-the-sixes): a play containing a 6 is legal only when it is exactly the player's
  whole remaining hand, and (where 6s may not carry jokers) it contains no joker;
* §4.1: jokers-only plays only where the rules allow them.

A hand is 12 counts over the card kinds of the 168-card deck, lowest first. A play is the
tuple (rank name or None, n, small, big), exactly like the engine's `Play`.
"""

from __future__ import annotations

#: The single card order of RULES.md §1.1 for the 168- and 165-card decks, lowest first.
CARD_ORDER = ["6", "7", "8", "9", "10", "J", "Q", "K", "A", "2", "SJ", "BJ"]
RANKS = CARD_ORDER[:10]
SJ = CARD_ORDER.index("SJ")
BJ = CARD_ORDER.index("BJ")


def cards_high_to_low(play):
    """The cards of a play as positions in CARD_ORDER, sorted from the highest down."""
    rank, n, small, big = play
    cards = []
    for _ in range(n):
        cards.append(CARD_ORDER.index(rank))
    for _ in range(small):
        cards.append(SJ)
    for _ in range(big):
        cards.append(BJ)
    cards.sort(reverse=True)
    return cards


def beats(previous, candidate):
    """RULES.md §4.3: same count, and sorted high to low every candidate card is strictly
    greater than the previous card at the same position."""
    prev_cards = cards_high_to_low(previous)
    cand_cards = cards_high_to_low(candidate)
    if len(prev_cards) != len(cand_cards):
        return False
    for i in range(len(prev_cards)):
        if not cand_cards[i] > prev_cards[i]:
            return False
    return True


def play_counts(play):
    """The play as 12 counts over the card kinds."""
    rank, n, small, big = play
    counts = [0] * len(CARD_ORDER)
    if n:
        counts[CARD_ORDER.index(rank)] += n
    counts[SJ] += small
    counts[BJ] += big
    return counts


def all_plays_in_hand(hand):
    """Every play whose cards are all in the hand (no legality rule applied yet)."""
    plays = []
    for small in range(hand[SJ] + 1):
        for big in range(hand[BJ] + 1):
            if small + big > 0:
                plays.append((None, 0, small, big))
    for r, name in enumerate(RANKS):
        for n in range(1, hand[r] + 1):
            for small in range(hand[SJ] + 1):
                for big in range(hand[BJ] + 1):
                    plays.append((name, n, small, big))
    return plays


def allowed_by_hold_sixes(play, hand, six_no_jokers):
    """RULES.md §4.5, literally: a play containing a 6 must be the whole remaining hand and,
    where 6s may not carry jokers, every card in it must be a 6."""
    rank, n, small, big = play
    if rank != "6" or n == 0:
        return True
    if play_counts(play) != list(hand):
        return False
    if six_no_jokers and (small > 0 or big > 0):
        return False
    return True


def legal_plays(hand, previous, rules):
    """The legal plays (as (rank, n, small, big) tuples) of a hand; `previous` is the play to
    beat, or None when leading. Passing is not a play: it is legal exactly when following."""
    hand = [int(c) for c in hand]
    legal = set()
    for play in all_plays_in_hand(hand):
        if play[1] == 0 and not rules.jokers_only_plays:
            continue
        if rules.hold_sixes and not allowed_by_hold_sixes(play, hand, rules.six_no_jokers):
            continue
        if previous is not None and not beats(previous, play):
            continue
        legal.add(play)
    return legal
