"""The card bookkeeping (`baohuang_env.hands.Hands`): moving cards, tribute and the pile,
plays, and independent copies."""

from __future__ import annotations

import pickle

import numpy as np

from baohuang_env import Game, get_rules
from baohuang_env.actions import DECISION_ID
from baohuang_env.cards import NUM_SEATS, NUM_SUITS, Deal, card_kinds
from baohuang_env.hands import Hands

from helpers import KINDS, hand

ABDICATE = DECISION_ID["ABDICATE"]
RANK_2, SJ, BJ = KINDS.index("2"), KINDS.sj, KINDS.bj


def hands_of(texts: list[str], suits: bool = False) -> Hands:
    """Hands from card text per seat; with `suits`, every card in its lowest free suit."""
    counts = np.array([hand(t) for t in texts], dtype=np.int8)
    per_suit = None
    if suits:
        per_suit = np.zeros((NUM_SEATS, KINDS.num_kinds, NUM_SUITS), dtype=np.int8)
        for seat, row in enumerate(counts):
            for kind, c in enumerate(row):
                if kind >= KINDS.num_ranks:
                    per_suit[seat, kind, 0] = c
                else:
                    for i in range(c):
                        per_suit[seat, kind, i % NUM_SUITS] += 1
    return Hands.from_deal(KINDS, Deal(counts, 0, 1, per_suit))


def test_a_deal_is_counted_and_nothing_is_played():
    h = hands_of(["7 8 BJ", "9", "T J", "Q", "K A 2"])
    assert h.cards_left == [3, 1, 2, 1, 3]
    assert h.total_played == [0] * KINDS.num_kinds and not any(map(any, h.played))
    assert h.suits is None and h.pile_suits is None and not any(h.pile)


def test_move_card_moves_one_card_and_its_suit():
    h = hands_of(["7 BJ", "9", "T", "Q", "K"], suits=True)
    h.move_card(0, 4, BJ)
    assert h.hands[0][BJ] == 0 and h.hands[4][BJ] == 1
    assert h.cards_left == [1, 1, 1, 1, 2]
    assert h.suits[0][BJ][0] == 0 and h.suits[4][BJ][0] == 1


def test_tribute_is_the_highest_non_joker_and_the_pile_goes_to_its_taker():
    h = hands_of(["7 2 2 BJ", "SJ BJ", "9 A", "Q", "K"], suits=True)
    assert h.pay_tribute(0) == RANK_2  # a 2 beats the 7; jokers are never paid
    assert h.pay_tribute(1) == -1 and h.hands[1] == hand("SJ BJ")  # only jokers: nothing to pay
    assert h.pay_tribute(2) == KINDS.index("A")
    assert h.cards_left == [3, 2, 1, 1, 1]
    assert h.pile[RANK_2] == 1 and sum(h.pile) == 2
    assert h.pile_suits[RANK_2] == [1, 0, 0, 0]  # the lowest suit of the rank
    taken = h.take_pile(3)
    assert taken[RANK_2] == 1 and sum(taken) == 2
    assert not any(h.pile) and not any(map(any, h.pile_suits))
    assert h.cards_left[3] == 3 and h.hands[3] == hand("Q A 2")
    assert h.suits[3][RANK_2] == [1, 0, 0, 0]


def test_relabel_and_forget_suits():
    rules = get_rules("generic216")
    kinds = card_kinds(rules)
    counts = np.zeros((NUM_SEATS, kinds.num_kinds), dtype=np.int8)
    counts[:, 0] = 1
    h = Hands.from_deal(kinds, Deal(counts, 0, -1, np.zeros((NUM_SEATS, kinds.num_kinds, NUM_SUITS), np.int8)))
    h.relabel(2, 0, kinds.sp)
    assert h.hands[2][0] == 0 and h.hands[2][kinds.sp] == 1 and h.cards_left[2] == 1
    h.forget_suits()
    assert h.suits is None and h.pile_suits is None


def test_a_play_leaves_the_hand_and_is_counted_played():
    h = hands_of(["7 7 7 SJ BJ", "9", "T", "Q", "K"])
    seven = KINDS.index("7")
    h.play(0, seven, 2, 1, 1, 0)
    assert h.hands[0] == hand("7")
    assert h.played[0][seven] == 2 and h.played[0][SJ] == h.played[0][BJ] == 1
    assert h.total_played[seven] == 2 and sum(h.total_played) == 4
    assert h.cards_left[0] == 1
    h.play(0, seven, 1, 0, 0, 0)
    assert h.cards_left[0] == 0 and h.total_played[seven] == 3


def test_copies_are_independent():
    h = hands_of(["7 2 BJ", "9 2", "T", "Q", "K"], suits=True)
    h.pay_tribute(0)
    c = h.copy()
    c.pay_tribute(1)
    c.take_pile(2)
    c.move_card(0, 3, BJ)
    c.play(4, KINDS.index("K"), 1, 0, 0, 0)
    assert h.pile[RANK_2] == 1 and h.hands[1] == hand("9 2") and h.hands[0][BJ] == 1
    assert h.cards_left == [2, 2, 1, 1, 1] and h.total_played == [0] * KINDS.num_kinds
    assert h.suits[1][RANK_2] == [1, 0, 0, 0] and h.pile_suits[RANK_2] == [1, 0, 0, 0]


def test_a_game_copy_does_not_share_an_empty_tribute_pile():
    """Regression: a copy taken while the pile was empty used to share it, so a tribute paid
    in the copy showed in the original."""
    g = Game(get_rules("lianzhong_simple"), seed=1)
    g.step(ABDICATE)  # the first abdicator pays nothing
    c = g.copy()
    c.step(ABDICATE)  # the second pays tribute
    fresh = Game(get_rules("lianzhong_simple"), seed=1)
    fresh.step(ABDICATE)
    assert any(c.pile) and not any(g.pile)
    assert g.hands == fresh.hands and g.cards_left == fresh.cards_left


def test_the_game_shows_its_cards_lists_themselves():
    g = Game(get_rules("jj"), seed=4)
    for game in (g, g.copy(), pickle.loads(pickle.dumps(g))):
        cards = game.cards
        assert game.hands is cards.hands and game.cards_left is cards.cards_left
        assert game.played is cards.played and game.total_played is cards.total_played
        assert game.pile is cards.pile and game.suits is cards.suits
