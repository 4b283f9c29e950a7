"""A slow, obviously-correct reference move generator (docs/rules.md §4.1, §4.3, §4.5, §4.7, §4.8).

It knows nothing of the engine's action table or lookup arrays: it lists every multiset of
cards a hand can make that is a play (one ordinary rank plus any jokers, or jokers only), then
keeps the legal ones by applying the written rules literally, with plain Python loops:

* §4.3: sort both plays high to low and compare position by position: same number of cards,
  and every card of the candidate strictly greater than the card at its place;
* §4.7 (roasting, where the rules roast): when the previous play holds a joker, try every
  split of its big jokers (each beaten by 2 BJ or by 3 SJ) and small jokers (each beaten by
  1 BJ or by 2 SJ) that the candidate's jokers can pay for, and compare what is left of the
  candidate with the previous play's rank cards by §4.3;
* §4.5 (hold-the-sixes): a play containing a 6 is legal only when it is exactly the player's
  whole remaining hand, and (where 6s may not carry jokers) it contains no joker;
* §4.1: jokers-only plays only where the rules allow them, or from a hand without rank cards.

A hand is counts over the card kinds of the deck, lowest first (`card_order(rules)`: 12 kinds
for the 168- and 165-card decks, 16 for generic216 with SP). A play is the tuple
(rank name or None, n, small, big, special), exactly like the engine's `Play`; 4-tuples
(no SP) are accepted as input.
"""

from __future__ import annotations

#: The single card order of docs/rules.md §1.1 for the 168- and 165-card decks, lowest first.
CARD_ORDER = ["6", "7", "8", "9", "10", "J", "Q", "K", "A", "2", "SJ", "BJ"]
RANKS = CARD_ORDER[:10]
SJ = CARD_ORDER.index("SJ")
BJ = CARD_ORDER.index("BJ")
#: The 216-card order with the special card SP (generic216).
CARD_ORDER_216 = ["3", "4", "5", *RANKS, "SJ", "BJ", "SP"]


def card_order(rules) -> list[str]:
    """The card kinds of a rule set's deck, lowest first (§1.1)."""
    if rules.deck_size == 216:
        return CARD_ORDER_216 if rules.special_card else CARD_ORDER_216[:-1]
    return CARD_ORDER


def _parts(play):
    rank, n, small, big, *rest = play
    return rank, n, small, big, (rest[0] if rest else 0)


def cards_high_to_low(play, order=CARD_ORDER):
    """The cards of a play as positions in `order`, sorted from the highest down."""
    rank, n, small, big, special = _parts(play)
    cards = []
    for _ in range(n):
        cards.append(order.index(rank))
    for _ in range(small):
        cards.append(order.index("SJ"))
    for _ in range(big):
        cards.append(order.index("BJ"))
    for _ in range(special):
        cards.append(order.index("SP"))
    cards.sort(reverse=True)
    return cards


def standard_beats(prev_cards, cand_cards):
    """§4.3 on two card lists sorted high to low."""
    if len(prev_cards) != len(cand_cards):
        return False
    for i in range(len(prev_cards)):
        if not cand_cards[i] > prev_cards[i]:
            return False
    return True


def roasting_beats(previous, candidate, order=CARD_ORDER):
    """§4.7 as written: x + y = b_p, u + v = s_p; 2x + u BJ and 3y + 2v SJ of the candidate
    pay for the previous play's jokers; the rest of the candidate beats its rank cards."""
    r_p, n_p, s_p, b_p, _ = _parts(previous)
    r_c, n_c, s_c, b_c, _ = _parts(candidate)
    for x in range(b_p + 1):
        for y in range(b_p + 1):
            for u in range(s_p + 1):
                for v in range(s_p + 1):
                    if x + y != b_p or u + v != s_p:
                        continue
                    big_used, small_used = 2 * x + u, 3 * y + 2 * v
                    if big_used > b_c or small_used > s_c:
                        continue
                    leftover = (r_c, n_c, s_c - small_used, b_c - big_used)
                    if standard_beats(cards_high_to_low((r_p, n_p, 0, 0), order),
                                      cards_high_to_low(leftover, order)):
                        return True
    return False


def beats(previous, candidate, order=CARD_ORDER, roasting=False):
    """docs/rules.md §4.3: same count, and sorted high to low every candidate card is strictly
    greater than the previous card at the same position; §4.7 instead when roasting and the
    previous play holds a joker."""
    _, _, s_p, b_p, _ = _parts(previous)
    if roasting and s_p + b_p > 0:
        return roasting_beats(previous, candidate, order)
    return standard_beats(cards_high_to_low(previous, order), cards_high_to_low(candidate, order))


def play_counts(play, order=CARD_ORDER):
    """The play as counts over the card kinds."""
    rank, n, small, big, special = _parts(play)
    counts = [0] * len(order)
    if n:
        counts[order.index(rank)] += n
    counts[order.index("SJ")] += small
    counts[order.index("BJ")] += big
    if special:
        counts[order.index("SP")] += special
    return counts


def all_plays_in_hand(hand, order=CARD_ORDER):
    """Every play whose cards are all in the hand (no legality rule applied yet)."""
    sj, bj = order.index("SJ"), order.index("BJ")
    sp = hand[order.index("SP")] if "SP" in order else 0
    ranks = [name for name in order if name not in ("SJ", "BJ", "SP")]
    plays = []
    for small in range(hand[sj] + 1):
        for big in range(hand[bj] + 1):
            for special in range(sp + 1):
                if small + big + special > 0:
                    plays.append((None, 0, small, big, special))
    for r, name in enumerate(ranks):
        for n in range(1, hand[r] + 1):
            for small in range(hand[sj] + 1):
                for big in range(hand[bj] + 1):
                    for special in range(sp + 1):
                        plays.append((name, n, small, big, special))
    return plays


def allowed_by_hold_sixes(play, hand, six_no_jokers, order=CARD_ORDER):
    """docs/rules.md §4.5, literally: a play containing a 6 must be the whole remaining hand and,
    where 6s may not carry jokers, every card in it must be a 6."""
    rank, n, small, big, special = _parts(play)
    if rank != "6" or n == 0:
        return True
    if play_counts(play, order) != list(hand):
        return False
    if six_no_jokers and (small > 0 or big > 0 or special > 0):
        return False
    return True


def legal_plays(hand, previous, rules):
    """The legal plays (as (rank, n, small, big, special) tuples) of a hand; `previous` is the
    play to beat, or None when leading. Passing is not a play: it is legal exactly when
    following."""
    order = card_order(rules)
    hand = [int(c) for c in hand]
    legal = set()
    holds_rank = any(count for count, kind in zip(hand, order, strict=True) if kind not in ("SJ", "BJ", "SP"))
    for play in all_plays_in_hand(hand, order):
        if play[1] == 0 and not rules.jokers_only_plays and holds_rank:  # §4.1: jokers alone only then
            continue
        if rules.hold_sixes and not allowed_by_hold_sixes(play, hand, rules.six_no_jokers, order):
            continue
        if previous is not None and not beats(previous, play, order, rules.roasting):
            continue
        legal.add(play)
    return legal
