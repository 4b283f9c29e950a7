"""Card bookkeeping of one deal: where every card is (hands, suits, the tribute pile) and
what has been played.

`Hands` knows cards only, no roles and no turns: the role phase moves cards through it
(abdication hands over the emperor card, tribute, taking the pile, the called card turning
into SP) and the play phase removes plays from it. Everything is plain lists of ints, so a
`Game` copies and pickles cheaply. Its lists are changed in place and never replaced (only
`suits` is dropped once the call is made), so a reader may keep a reference to them.
"""

from __future__ import annotations

from .cards import NUM_SEATS, NUM_SUITS, CardKinds, Deal


class Hands:
    """Card counts per seat and kind, and the cards outside the hands.

    * `hands[seat][kind]`: cards held; `cards_left[seat]`: their total;
    * `played[seat][kind]` and `total_played[kind]`: cards played so far;
    * `suits[seat][kind][suit]`: the same hands per suit, only in the calling presets and only
      until the call (None otherwise; jokers count in suit 0);
    * `pile[kind]`: the tribute pile (贴牌) travelling with the emperor card until someone
      accepts the throne; `pile_suits[kind][suit]` the same per suit while `suits` is kept.
    """

    def __init__(self, kinds: CardKinds, hands: list[list[int]], suits: list[list[list[int]]] | None) -> None:
        K = kinds.num_kinds
        self.kinds = kinds
        self.hands = hands
        self.cards_left = [sum(h) for h in hands]
        self.played = [[0] * K for _ in range(NUM_SEATS)]
        self.total_played = [0] * K
        self.suits = suits
        self.pile = [0] * K
        self.pile_suits = None if suits is None else [[0] * NUM_SUITS for _ in range(K)]

    @classmethod
    def from_deal(cls, kinds: CardKinds, d: Deal) -> Hands:
        """The hands of a fresh deal."""
        return cls(kinds, d.hands.tolist(), None if d.suits is None else d.suits.tolist())

    def copy(self) -> Hands:
        """An independent copy (the immutable `kinds` is shared)."""
        c = Hands.__new__(Hands)
        c.kinds = self.kinds
        c.hands = [h[:] for h in self.hands]
        c.cards_left = self.cards_left[:]
        c.played = [h[:] for h in self.played]
        c.total_played = self.total_played[:]
        c.pile = self.pile[:]
        if self.suits is None:
            c.suits = c.pile_suits = None
        else:
            c.suits = [[row[:] for row in seat] for seat in self.suits]
            c.pile_suits = [row[:] for row in self.pile_suits]
        return c

    # ------------------------------------------------------------------ role phase
    def move_card(self, src: int, dst: int, kind: int) -> None:
        """Move one card of `kind` between hands (abdication hands over the emperor card).
        With suits, `kind` must be a joker (one suit-rank, suit 0)."""
        self.hands[src][kind] -= 1
        self.hands[dst][kind] += 1
        self.cards_left[src] -= 1
        self.cards_left[dst] += 1
        if self.suits is not None:
            self.suits[src][kind][0] -= 1
            self.suits[dst][kind][0] += 1

    def pay_tribute(self, seat: int) -> int:
        """`seat` adds his highest non-joker card (a 2 if he has one) to the pile (§3.4,
        §3.7); with suits, the lowest suit of that rank. Returns the kind paid, or -1 when he
        holds only jokers (nothing is paid)."""
        hand = self.hands[seat]
        for kind in range(self.kinds.num_ranks - 1, -1, -1):
            if hand[kind]:
                hand[kind] -= 1
                self.cards_left[seat] -= 1
                self.pile[kind] += 1
                if self.suits is not None:
                    suit = next(i for i, c in enumerate(self.suits[seat][kind]) if c)
                    self.suits[seat][kind][suit] -= 1
                    self.pile_suits[kind][suit] += 1
                return kind
        return -1

    def take_pile(self, seat: int) -> tuple[int, ...]:
        """`seat` takes the tribute pile into his hand; returns what the pile held (per kind)."""
        taken = tuple(self.pile)
        hand = self.hands[seat]
        for kind, c in enumerate(taken):
            hand[kind] += c
            self.pile[kind] = 0
            if self.suits is not None:
                for suit in range(NUM_SUITS):
                    self.suits[seat][kind][suit] += self.pile_suits[kind][suit]
                    self.pile_suits[kind][suit] = 0
        self.cards_left[seat] += sum(taken)
        return taken

    def relabel(self, seat: int, old: int, new: int) -> None:
        """One card of `seat` changes kind from `old` to `new` (generic216: the called 4th
        copy becomes SP, and back when the solo is grabbed)."""
        self.hands[seat][old] -= 1
        self.hands[seat][new] += 1

    def forget_suits(self) -> None:
        """Suits matter only for calling: drop them once the call is made (the pile is
        empty by then)."""
        self.suits = self.pile_suits = None

    # ------------------------------------------------------------------ play phase
    def play(self, seat: int, rank: int, n: int, small: int, big: int, special: int) -> None:
        """Remove a play (`n` cards of `rank`, jokers and SP) from `seat`'s hand and count it
        played."""
        hand, played, total = self.hands[seat], self.played[seat], self.total_played
        if n:
            hand[rank] -= n
            played[rank] += n
            total[rank] += n
        if small or big:
            sj = self.kinds.num_ranks  # the small joker, then the big one
            hand[sj] -= small
            hand[sj + 1] -= big
            played[sj] += small
            played[sj + 1] += big
            total[sj] += small
            total[sj + 1] += big
        if special:
            sp = self.kinds.sp
            hand[sp] -= special
            played[sp] += special
            total[sp] += special
        self.cards_left[seat] -= n + small + big + special
