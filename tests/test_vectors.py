"""The shared rules test vectors (tests/data/vectors.json)
run through the engine: comparisons (every deck and mode, through `beats()` and the action
table), scoring rows, legality cases and the deal."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import reference
from baohuang_env import FIRST_PLAY, Game, Play, action_table, beats, get_rules
from baohuang_env.cards import deal, deck_counts, hand_sizes
from baohuang_env.scoring import jj_team_scores, score_jj, solo_scores

VECTORS = json.loads((Path(__file__).parent / "data" / "vectors.json").read_text(encoding="utf-8"))
RULES = get_rules("jj")
TABLE = action_table(RULES)
ORDER_168 = VECTORS["card_order"]["168"]


#: The rules each comparison vector is checked under: the deck it names (docs/rules.md §8), with
#: hold-the-sixes off so that only the comparison decides the follow masks, and the lianzhong
#: roasting option (§4.7) for the roasting mode.
DECK_RULES = {
    "168": get_rules("jj", hold_sixes=False),
    "165": get_rules("weihai", hold_sixes=False),
    "216": get_rules("generic216"),
}
ROASTING_RULES = get_rules("lianzhong_simple", roasting=True)
COMPARISONS = VECTORS["comparisons"]


def _rules_of(case: dict):
    return ROASTING_RULES if case["mode"] == "roasting" else DECK_RULES[case["deck"]]


def test_every_comparison_vector_is_checked():
    assert [c["id"] for c in COMPARISONS] == [f"C{i:02d}" for i in range(1, 62)]
    assert {c["mode"] for c in COMPARISONS} == {"standard", "roasting"}
    assert {c["deck"] for c in COMPARISONS} <= set(DECK_RULES)
    assert all(c["deck"] == "168" for c in COMPARISONS if c["mode"] == "roasting")
    assert VECTORS["card_order"]["216"][:-1] == reference.CARD_ORDER_216[:-1]  # "SPECIAL" is our "SP"


def _play(p: dict) -> Play:
    return Play(p["rank"] if p["n"] else None, p["n"], p["small"], p["big"], p.get("special", 0))


def closed_form(prev: Play, cand: Play, order: list[str]) -> bool:
    """docs/rules.md §4.3 closed form. For the 168/165 decks:
    C beats P  <=>  b_p = 0  and  b_c >= s_p  and  (n_c = 0 or n_p = 0 or r_c > r_p), same total;
    with SP (generic216) above BJ:
    C beats P  <=>  t_p = 0  and  b_p <= t_c  and  b_p + s_p <= t_c + b_c  and the same rank test."""
    if prev.size != cand.size:
        return False
    if "SP" in order:
        if prev.special or prev.big > cand.special or prev.big + prev.small > cand.special + cand.big:
            return False
    elif prev.big > 0 or cand.big < prev.small:
        return False
    if cand.n and prev.n:
        return order.index(cand.rank) > order.index(prev.rank)
    return True


@pytest.mark.parametrize("case", COMPARISONS, ids=[c["id"] for c in COMPARISONS])
def test_comparison_vector(case):
    rules = _rules_of(case)
    table = action_table(rules)
    order = reference.card_order(rules)
    prev, cand, expected = _play(case["previous"]), _play(case["candidate"]), case["beats"]
    assert beats(prev, cand, rules) is expected
    assert reference.beats(prev, cand, order, rules.roasting) is expected
    if case["mode"] == "standard":
        assert closed_form(prev, cand, order) is expected
    else:  # the literal §4.7 split search
        has_joker = prev.small + prev.big > 0
        assert (reference.roasting_beats(prev, cand) if has_joker else reference.beats(prev, cand)) is expected
    p, c = table.action_id(prev) - FIRST_PLAY, table.action_id(cand) - FIRST_PLAY
    assert bool(table.beats_row(p, rules)[c]) is expected
    # a hand holding exactly the candidate, following the previous play, single and batched
    hand = reference.play_counts(cand, order)
    mask = table.legal_mask(hand, p, rules)
    assert bool(mask[table.action_id(cand)]) is expected
    assert mask[0] == 1  # a follower may always pass
    batch = table.legal_masks_batch(np.array([hand, hand], dtype=np.int8), np.array([p, -1]), rules)
    assert np.array_equal(batch[0], mask)
    assert batch[1, table.action_id(cand)] == 1 and batch[1, 0] == 0  # and may lead it
    if case["deck"] == "168" and case["mode"] == "standard":
        # the other 168/165-card presets share the table and the standard comparison
        for other in (DECK_RULES["165"], get_rules("lianzhong_simple"), get_rules("qingdao")):
            assert action_table(other) is table
            assert bool(table.legal_mask(hand, p, other)[table.action_id(cand)]) is expected


# --------------------------------------------------------------------------- scoring

# Rows that apply to jj: the JJ table (S01-S20), the JJ solo table (S21-S30) and the worked
# example (S62). Rows for weihai (split table), lianzhong (rebellion doubling) and qingdao
# (place points, surrender) are issue #3's.
SCORING = [s for s in VECTORS["scoring"] if "jj" in s["applies_to"]]

#: Which seat finishes in which place in the scoring tests: not the identity, so that a mix-up
#: of "by seat" and "by place" shows.
SEAT_OF_PLACE = {1: 3, 2: 0, 3: 4, 4: 1, 5: 2}


def test_scoring_rows_for_jj_are_all_here():
    ids = [s["id"] for s in SCORING]
    assert ids == [f"S{i:02d}" for i in range(1, 31)] + ["S62"]


@pytest.mark.parametrize("row", SCORING, ids=[s["id"] for s in SCORING])
def test_scoring_vector(row):
    places = [0] * 5
    for place, seat in SEAT_OF_PLACE.items():
        places[seat] = place
    by_place = row["scores_by_place"]
    expected = [by_place[places[s] - 1] for s in range(5)]
    emperor = SEAT_OF_PLACE[row["places"]["emperor"]]
    if row["solo"] == "none":
        guard = SEAT_OF_PLACE[row["places"]["guard"]]
        assert score_jj(places, emperor, guard, "none", False) == expected
        # open guard (明保): every score x 2 (the JJ page)
        assert score_jj(places, emperor, guard, "none", True) == [2 * x for x in expected]
        assert score_jj(places, emperor, guard, "none", True, open_guard_multiplier=1) == expected
        pe, pg = row["places"]["emperor"], row["places"]["guard"]
        rebel = next(by_place[k - 1] for k in range(1, 6) if k not in (pe, pg))
        assert jj_team_scores(pe, pg) == (by_place[pe - 1], by_place[pg - 1], rebel)
        if "scores_by_role" in row:
            role = row["scores_by_role"]
            assert (role["emperor"], role["guard"], role["each_rebel"]) == jj_team_scores(pe, pg)
    else:
        assert score_jj(places, emperor, emperor, row["solo"], False) == expected
        # the solo values are fixed: open guard cannot apply to them (docs/rules.md §6.1)
        assert score_jj(places, emperor, emperor, row["solo"], True) == expected
        role = row["scores_by_role"]
        assert solo_scores(row["solo"], row["places"]["emperor"]) == (role["emperor"], role["each_other"])
    assert sum(expected) == 0
    if "final_points_by_place" in row:  # the worked example: base x score - fee
        assert [row["base"] * x - row["fee"] for x in by_place] == row["final_points_by_place"]


def test_solo_scores_rejects_unknown_kind():
    with pytest.raises(ValueError):
        solo_scores("none", 1)


# --------------------------------------------------------------------------- legality

LEGALITY = VECTORS["legality"]
JJ_LEGALITY = [t for t in LEGALITY if t["preset"] == "jj"]


def test_every_legality_vector_is_checked():
    assert len(LEGALITY) >= 9 and len(JJ_LEGALITY) >= 8
    assert {t["preset"] for t in LEGALITY} == {"jj", "lianzhong_simple"}


def _legality_rules(case: dict) -> list:
    """The vector's preset; for lianzhong_simple also with hold-the-sixes on, where the vector's
    reading ("000 does not forbid jokers with the 6s", docs/rules.md §4.5) is what it tests."""
    rules = [get_rules(case["preset"])]
    if case["preset"] == "lianzhong_simple":
        rules.append(get_rules("lianzhong_simple", hold_sixes=True))
    return rules


@pytest.mark.parametrize("case", LEGALITY, ids=[f"L{i}-{t['preset']}" for i, t in enumerate(LEGALITY)])
def test_legality_vector(case):
    for rules in _legality_rules(case):
        table = action_table(rules)
        order = reference.card_order(rules)
        hand = [case["hand"].get(name, 0) for name in order]
        play = _play(case["play"])
        prev = -1 if case["leading"] else table.action_id(_play(case["previous"])) - FIRST_PLAY
        mask = table.legal_mask(hand, prev, rules)
        assert bool(mask[table.action_id(play)]) is case["legal"], (case["why"], rules.hold_sixes)
        batch = table.legal_masks_batch(np.array([hand]), np.array([prev]), rules)
        assert np.array_equal(batch[0], mask)
        previous = None if case["leading"] else tuple(_play(case["previous"]))
        assert (tuple(play) in reference.legal_plays(hand, previous, rules)) is case["legal"]


def _lead_scenario(hand_counts: list[int]) -> Game:
    """Seat 0 holds `hand_counts` plus the emperor card and leads; others hold filler cards."""
    hands = [list(hand_counts), [0] * 12, [0] * 12, [0] * 12, [0] * 12]
    hands[0][11] += 1  # the emperor card
    for seat in range(1, 5):
        hands[seat][ORDER_168.index("K")] = 1
    hands[1][10] = 1  # the guard card
    game = Game.from_deal(hands, 0, 1, RULES)
    game.step(1)  # ACCEPT
    for _ in range(5):
        game.step(4)  # NO
    assert game.phase == "play" and game.current_player == 0
    return game


@pytest.mark.parametrize(
    "case", [t for t in JJ_LEGALITY if t["leading"] and not t["hand"].get("BJ")],
    ids=lambda t: f"{t['hand']}-{t['play']['rank']}x{t['play']['n']}",
)
def test_legality_vector_in_a_game_step(case):
    # the same lead, made by stepping a real game; the emperor card is played first so that
    # the hand is exactly the vector's hand when the tested play is led
    hand = [case["hand"].get(name, 0) for name in ORDER_168]
    game = _lead_scenario(hand)
    game.step(TABLE.action_id(Play(None, 0, 0, 1)))  # the emperor card; nobody can beat it
    for _ in range(4):
        game.step(0)
    assert game.current_player == 0 and game.hand(0).tolist() == hand
    action = TABLE.action_id(_play(case["play"]))
    assert bool(game.legal_mask()[action]) is case["legal"]
    if case["legal"]:
        game.step(action)
    else:
        with pytest.raises(ValueError):
            game.step(action)


# --------------------------------------------------------------------------- deal

DEAL_JJ = next(d for d in VECTORS["deal"] if d["preset"] == "jj")
# The other deal rows (weihai 165, generic216 216, and the lianzhong/qingdao 168 decks that
# need their presets) are issue #3's.


def test_deck_composition():
    counts = deck_counts(RULES)
    assert counts.tolist() == [DEAL_JJ["composition"][name] for name in ORDER_168]
    assert int(counts.sum()) == DEAL_JJ["deck_size"] == 168
    assert list(DEAL_JJ["composition"]) == ORDER_168


@pytest.mark.parametrize("start", range(5))
def test_hand_sizes_by_start_seat(start):
    in_deal_order = DEAL_JJ["hand_sizes_in_deal_order"]
    expected = [0] * 5
    for k, size in enumerate(in_deal_order):
        expected[(start + k) % 5] = size
    assert hand_sizes(168, start) == expected
    if start == DEAL_JJ["example"]["start_seat"]:
        assert expected == DEAL_JJ["example"]["hand_sizes_by_seat"]


@pytest.mark.parametrize("start", range(5))
def test_real_deal(start):
    rules = get_rules("jj", start_seat=start)
    expected_sizes = hand_sizes(168, start)
    totals = np.zeros(12, dtype=np.int64)
    for seed in range(20):
        d = deal(rules, np.random.default_rng(seed))
        assert d.hands.shape == (5, 12)
        assert d.hands.sum(axis=1).tolist() == expected_sizes
        assert d.hands.sum(axis=0).tolist() == deck_counts(rules).tolist()
        assert d.hands[d.emperor_card_seat, 11] >= 1  # the marked BJ
        assert d.hands[d.guard_card_seat, 10] >= 1  # the marked SJ
        totals += d.hands.sum(axis=0)
        game = Game(rules, seed=seed)
        assert [int(game.hand(s).sum()) for s in range(5)] == expected_sizes
        assert sum(game.hand(s) for s in range(5)).tolist() == deck_counts(rules).tolist()
    assert totals.tolist() == (20 * deck_counts(rules).astype(np.int64)).tolist()


def test_deal_is_seeded_and_varies_with_the_seed():
    a = [Game(RULES, seed=5).hand(s).tolist() for s in range(5)]
    b = [Game(RULES, seed=5).hand(s).tolist() for s in range(5)]
    c = [Game(RULES, seed=6).hand(s).tolist() for s in range(5)]
    assert a == b
    assert a != c


def test_marked_cards_land_on_every_seat():
    # a uniform shuffle: over many deals each seat is dealt the emperor card and the guard card
    emperor, guard = set(), set()
    for seed in range(200):
        d = deal(RULES, np.random.default_rng(seed))
        emperor.add(d.emperor_card_seat)
        guard.add(d.guard_card_seat)
    assert emperor == guard == set(range(5))
