"""The action table: layout, id <-> play and id <-> call round trips, card notation, and the
vectorized legal masks checked against the slow reference generator of `tests/reference.py`
for every deck and comparison mode (jj, weihai's 165 cards, lianzhong roasting and 6s with
jokers, generic216 with the special card SP, a calling preset's action block)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import reference
from baohuang_env import (
    ActionTable,
    DECISIONS,
    FIRST_PLAY,
    PASS,
    Play,
    action_table,
    beats,
    format_play,
    get_rules,
    parse_play,
)
from baohuang_env.cards import SUITS, deck_counts

RULES = get_rules("jj")
TABLE = action_table(RULES)
CARD_ORDER = reference.CARD_ORDER
SJ, BJ = reference.SJ, reference.BJ

#: Rule variants the masks are checked under (docs/rules.md §4.1, §4.5; §8 for the jj values).
VARIANTS = {
    "jj": {},
    "no_hold_sixes": {"hold_sixes": False},
    "sixes_may_carry_jokers": {"six_no_jokers": False},
    # jokers alone only from a hand of jokers (with 6s that may carry them: else no lead, test_rules)
    "no_jokers_only": {"jokers_only_plays": False, "six_no_jokers": False},
}
#: The other presets' decks and comparison modes (docs/rules.md §8): (preset, overrides).
PRESET_CASES = {
    "weihai": ("weihai", {}),  # 165 cards: 13 sixes, same table as 168
    "lianzhong_roasting": ("lianzhong_simple", {"roasting": True}),  # §4.7
    "lianzhong_hold_sixes": ("lianzhong_simple", {"hold_sixes": True}),  # 6s may carry jokers
    "lianzhong_classic": ("lianzhong_classic", {}),  # the call block after the plays
    "generic216": ("generic216", {}),  # 216 cards, SP, no jokers-only plays but from a hand of jokers
    "qingdao": ("qingdao", {}),  # no jokers-only plays but from a hand of jokers
}
CASE_RULES = {**{k: get_rules("jj", **v) for k, v in VARIANTS.items()},
              **{k: get_rules(p, **v) for k, (p, v) in PRESET_CASES.items()}}
G216 = get_rules("generic216")
T216 = action_table(G216)
CLASSIC = get_rules("lianzhong_classic")
ROAST = get_rules("lianzhong_simple", roasting=True)


# --------------------------------------------------------------------------- layout


def test_layout_pass_decisions_then_plays():
    assert PASS == 0
    assert DECISIONS == (
        "ACCEPT", "ABDICATE", "DECLINE", "NO", "OPEN_SOLO", "OPEN_GUARD",
        "GRAB", "REBEL", "KICK", "SURRENDER", "APPLY_WIND",
    )
    assert FIRST_PLAY == 1 + len(DECISIONS) == 12
    # plays: 10 ranks x n in 1..16 x 0..4 small x 0..4 big, plus the 5*5-1 jokers-only plays
    assert TABLE.num_plays == 10 * 16 * 5 * 5 + 24
    assert TABLE.num_actions == FIRST_PLAY + TABLE.num_plays
    assert TABLE.describe(PASS) == "pass"
    for i, name in enumerate(DECISIONS):
        assert TABLE.describe(1 + i) == name


def test_every_play_id_round_trips_and_plays_are_distinct():
    seen = set()
    for a in range(FIRST_PLAY, TABLE.num_actions):
        play = TABLE.play(a)
        rank, n, small, big, special = play
        assert special == 0
        assert 0 <= small <= 4 and 0 <= big <= 4 and 0 <= n <= 16
        assert n + small + big >= 1
        assert (rank is None) == (n == 0)
        assert rank is None or rank in reference.RANKS
        assert TABLE.action_id(play) == a
        assert TABLE.action_id(Play(rank, n, small, big)) == a
        seen.add(tuple(play))
    assert len(seen) == TABLE.num_plays


def test_every_possible_play_has_an_id():
    expected = {(None, 0, s, b, 0) for s in range(5) for b in range(5) if s + b}
    expected |= {(r, n, s, b, 0) for r in reference.RANKS for n in range(1, 17) for s in range(5) for b in range(5)}
    got = {tuple(TABLE.play(a)) for a in range(FIRST_PLAY, TABLE.num_actions)}
    assert got == expected


@pytest.mark.parametrize("action", [PASS, 1, FIRST_PLAY - 1, -1, 10**6])
def test_play_rejects_non_play_ids(action):
    with pytest.raises(ValueError, match="not a play"):
        TABLE.play(action)
    with pytest.raises(ValueError):
        TABLE.play(TABLE.num_actions)


@pytest.mark.parametrize(
    "play",
    [
        Play("8", 17, 0, 0),  # only 16 of a rank
        Play("8", 1, 5, 0),  # only 4 small jokers
        Play("8", 1, 0, 5),  # only 4 big jokers
        Play(None, 0, 0, 0),  # no cards
        Play("8", 0, 1, 0),  # a rank with n = 0
        Play(None, 2, 0, 0),  # n > 0 without a rank
        Play("SJ", 1, 0, 0),  # jokers are counted in small/big
        Play("5", 1, 0, 0),  # no 5s in the 168-card deck
        Play(None, 0, 0, 0, 1),  # no SP in the 168-card deck
        Play("8", 1, 0, 0, 2),  # special is 0 or 1
    ],
)
def test_action_id_rejects_impossible_plays(play):
    with pytest.raises(ValueError):
        TABLE.action_id(play)


# --------------------------------------------------------------------------- notation


@pytest.mark.parametrize(
    ("play", "text"),
    [
        (Play("8", 3, 1, 0), "888+SJ"),
        (Play(None, 0, 2, 1), "BJ+SJ+SJ"),
        (Play("10", 3, 0, 0), "TTT"),
        (Play("2", 1, 0, 0), "2"),
        (Play(None, 0, 0, 1), "BJ"),
        (Play("A", 2, 1, 2), "AA+BJ+BJ+SJ"),
    ],
)
def test_format_play(play, text):
    assert format_play(play) == text


@pytest.mark.parametrize(
    ("text", "play"),
    [
        ("888+SJ", Play("8", 3, 1, 0)),
        ("888 SJ", Play("8", 3, 1, 0)),
        ("SJ+888", Play("8", 3, 1, 0)),
        ("BJ+SJ+SJ", Play(None, 0, 2, 1)),
        ("bj sj sj", Play(None, 0, 2, 1)),
        ("TTT", Play("10", 3, 0, 0)),
        ("10 10 10", Play("10", 3, 0, 0)),
        ("8x5", Play("8", 5, 0, 0)),
        ("8x5+BJ", Play("8", 5, 0, 1)),
        ("2", Play("2", 1, 0, 0)),
        ("KKKK", Play("K", 4, 0, 0)),
        ("  Q Q  ", Play("Q", 2, 0, 0)),
    ],
)
def test_parse_play(text, play):
    assert parse_play(text) == play
    assert parse_play(text, RULES) == play


@pytest.mark.parametrize("text", ["pass", "PASS", " pass ", "p", "-"])
def test_parse_pass(text):
    assert parse_play(text) is None


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("8889", "one rank"),
        ("7 8", "one rank"),
        ("555", "not in this deck"),
        ("33", "not in this deck"),
        ("XYZ", "cannot read"),
        ("88+ZZ", "cannot read"),
        ("8x17", "at most 16"),
        ("SJ SJ SJ SJ SJ", "4 SJ"),
        ("BJx5", "4 BJ"),
    ],
)
def test_parse_errors_say_what_is_wrong(text, match):
    with pytest.raises(ValueError, match=match):
        parse_play(text)


@pytest.mark.parametrize("text", ["8x0", "SJx0", "BJx0"])
def test_parse_rejects_a_play_without_cards(text):
    # docs/rules.md §4.1: a play has at least one card (n + s + b >= 1)
    with pytest.raises(ValueError):
        parse_play(text)


def test_describe_parse_round_trip_for_every_play():
    for a in range(FIRST_PLAY, TABLE.num_actions):
        text = TABLE.describe(a)
        assert text == format_play(TABLE.play(a))
        assert parse_play(text) == TABLE.play(a)
        assert TABLE.action_id(parse_play(text)) == a
    assert parse_play(TABLE.describe(PASS)) is None


def test_ten_spelled_as_10_or_t_is_the_same_play():
    assert parse_play("10 10 10") == parse_play("TTT") == parse_play("tx3") == Play("10", 3, 0, 0)


# --------------------------------------------------------------------------- generic216 and calls


def test_generic216_layout_extends_the_joker_combinations_with_sp():
    # 13 ranks x n 1..16 x (small 0..4, big 0..4, special 0..1), then 5*5*2-1 jokers-only plays
    assert T216.kinds.names[-1] == "SP" and T216.kinds.ranks[:3] == ("3", "4", "5")
    assert T216.num_plays == 13 * 16 * 50 + 49 == 10_449
    assert T216.first_call == FIRST_PLAY + 10_449 == 10_461
    assert T216.num_calls == 13 * 4 + 2
    assert T216.num_actions == 10_515
    assert T216.play(FIRST_PLAY) == Play("3", 1, 0, 0, 0)
    assert T216.play(FIRST_PLAY + 1) == Play("3", 1, 0, 0, 1)
    assert T216.play(FIRST_PLAY + 2) == Play("3", 1, 0, 1, 0)
    assert T216.play(T216.first_call - 1) == Play(None, 0, 4, 4, 1)
    assert T216.play(FIRST_PLAY + T216.grid_plays) == Play(None, 0, 0, 0, 1)


def test_every_generic216_play_round_trips_through_its_id_and_notation():
    seen = set()
    for a in range(FIRST_PLAY, T216.first_call):
        play = T216.play(a)
        assert T216.action_id(play) == a
        text = T216.describe(a)
        assert text == format_play(play)
        assert parse_play(text, G216) == play
        seen.add(play)
    assert len(seen) == T216.num_plays
    assert sum(p.special for p in seen) == 13 * 16 * 25 + 25


def test_presets_share_tables_by_deck_and_calls():
    jj = action_table(RULES)
    for preset in ("weihai", "lianzhong_simple", "qingdao"):
        assert action_table(get_rules(preset)) is jj  # 165 cards: only 13 sixes, same table
    assert action_table(get_rules("lianzhong_simple", roasting=True)) is jj  # roasting: other tables
    classic = action_table(CLASSIC)
    assert classic is not jj and classic.rank is jj.rank  # same plays, plus calls
    assert (classic.first_call, classic.num_calls, classic.num_actions) == (4036, 42, 4078)
    assert jj.num_actions == jj.first_call == 4036 and jj.num_calls == 0
    assert action_table(get_rules("lianzhong_classic", jokers_callable=False)).num_calls == 40
    assert isinstance(T216, ActionTable)


@pytest.mark.parametrize("rules", [CLASSIC, G216], ids=["lianzhong_classic", "generic216"])
def test_every_call_id_round_trips(rules):
    table = action_table(rules)
    kinds = table.kinds
    expected = [(r, s) for r in range(kinds.num_ranks) for s in range(4)] + [(kinds.sj, 0), (kinds.bj, 0)]
    assert list(table.calls) == expected
    for a in range(table.first_call, table.num_actions):
        kind, suit = table.call_of(a)
        assert table.call_id(kind, suit) == a
        assert table.call_id(kinds.names[kind], suit) == a
        name = kinds.names[kind]
        assert table.describe(a) == (f"CALL {name}" if name in ("SJ", "BJ") else f"CALL {SUITS[suit]}{name}")
        with pytest.raises(ValueError, match="is a call"):
            table.play(a)
    assert table.describe(table.call_id("K", 3)) == "CALL ♠K"
    assert table.describe(table.call_id("BJ")) == "CALL BJ"
    assert table.describe(table.call_id("10", 0)) == "CALL ♣10"
    for bad in [("K", 4), ("SJ", 1), ("SP", 0) if kinds.special else ("K", -1)]:
        with pytest.raises(ValueError, match="no call"):
            table.call_id(*bad)
    with pytest.raises(ValueError, match="not a call"):
        table.call_of(FIRST_PLAY)
    with pytest.raises(ValueError, match="not a call"):
        table.call_of(table.num_actions)


def test_tables_without_calls_refuse_call_ids():
    with pytest.raises(ValueError, match="no call round"):
        TABLE.call_id("K", 0)
    with pytest.raises(ValueError, match="not a call"):
        TABLE.call_of(TABLE.num_actions - 1)
    no_jokers = action_table(get_rules("lianzhong_classic", jokers_callable=False))
    with pytest.raises(ValueError, match="no call"):
        no_jokers.call_id("BJ", 0)


@pytest.mark.parametrize(
    ("play", "text"),
    [
        (Play(None, 0, 0, 0, 1), "SP"),
        (Play("2", 4, 0, 0, 1), "2222+SP"),
        (Play(None, 0, 1, 1, 1), "SP+BJ+SJ"),
        (Play("3", 2, 0, 1, 0), "33+BJ"),
    ],
)
def test_format_and_parse_with_sp(play, text):
    assert format_play(play) == text
    assert parse_play(text, G216) == play
    assert parse_play(text.lower(), G216) == play


@pytest.mark.parametrize(
    ("text", "rules", "match"),
    [
        ("SP", None, "not in this deck"),
        ("SP", RULES, "not in this deck"),
        ("SPx2", G216, "1 SP"),
        ("SP SP", G216, "1 SP"),
        ("333", RULES, "not in this deck"),
    ],
)
def test_parse_sp_errors(text, rules, match):
    with pytest.raises(ValueError, match=match):
        parse_play(text, rules)


def test_parse_special_spelled_out_and_small_ranks():
    assert parse_play("special+555", G216) == Play("5", 3, 0, 0, 1)
    assert parse_play("4x16", G216) == Play("4", 16, 0, 0)


# --------------------------------------------------------------------------- comparison


def _sp_closed_form(table: ActionTable, p: int) -> np.ndarray:
    """The lead's closed form for the generic216 order (SP above BJ), vectorized over the
    table: same size, t_p = 0, b_p <= t_c, b_p + s_p <= t_c + b_c, and
    (n_c = 0 or n_p = 0 or r_c > r_p)."""
    s, b, t, n, r = (a.astype(int) for a in (table.small, table.big, table.special, table.n, table.rank))
    return ((table.size == table.size[p]) & (t[p] == 0) & (b[p] <= t) & (b[p] + s[p] <= t + b)
            & ((n == 0) | (n[p] == 0) | (r > r[p])))


@pytest.mark.parametrize("case", ["jj", "lianzhong_roasting", "generic216"])
def test_beats_row_matches_reference_on_sampled_rows(case):
    rules = CASE_RULES[case]
    table = action_table(rules)
    order = reference.card_order(rules)
    rng = np.random.default_rng(11)
    plays = [table.play(a) for a in range(FIRST_PLAY, table.first_call)]
    rows = set(rng.choice(table.num_plays, size=40 if table is TABLE else 12, replace=False).tolist())
    rows |= {table.action_id(Play(*p)) - FIRST_PLAY for p in [("7", 1, 0, 0), ("9", 3, 2, 0), (None, 0, 1, 0),
                                                               ("2", 4, 0, 0), ("6", 16, 0, 0), (None, 0, 4, 0),
                                                               (None, 0, 0, 1), ("8", 2, 1, 1), ("A", 1, 0, 2)]}
    if table.kinds.special:
        sp_plays = [(None, 0, 0, 0, 1), ("4", 4, 0, 1), ("3", 2, 1, 0, 1)]
        rows |= {table.action_id(Play(*p)) - FIRST_PLAY for p in sp_plays}
    for p in sorted(rows):
        row = table.beats_row(p, rules)
        assert row.shape == (table.num_plays,) and row.dtype == bool
        expected = [reference.beats(plays[p], c, order, rules.roasting) for c in plays]
        assert row.tolist() == expected, plays[p]
        if table.kinds.special:
            assert np.array_equal(row, _sp_closed_form(table, p)), plays[p]
        if not rules.roasting:
            assert np.array_equal(table.beats_row(p), row)  # without rules: the standard rule
        # the Play-level helper agrees as well on a sample of candidates
        for c in rng.choice(table.num_plays, size=50, replace=False).tolist():
            assert beats(plays[p], plays[c], rules) == expected[c]
        for c in rng.choice(np.flatnonzero(expected), size=min(10, sum(expected)), replace=False).tolist():
            assert beats(plays[p], plays[c], rules)


def test_beats_examples_derived_by_hand():
    # docs/rules.md §4.3 consequences (a)-(c)
    assert beats(Play("7", 3, 0, 0), Play("8", 3, 0, 0), RULES)
    assert not beats(Play("8", 3, 0, 0), Play("8", 3, 0, 0), RULES)  # equal never beats
    assert not beats(Play("8", 3, 0, 0), Play("9", 2, 0, 0), RULES)  # counts differ
    assert not beats(Play(None, 0, 0, 1), Play(None, 0, 0, 1), RULES)  # a BJ is never beaten
    assert not beats(Play("7", 1, 1, 0), Play("8", 2, 0, 0), RULES)  # SJ needs a BJ
    assert beats(Play("7", 1, 1, 0), Play("8", 1, 0, 1), RULES)
    assert not beats(Play("7", 2, 0, 0), Play("6", 2, 0, 0), RULES)
    # §4.8: SP is above BJ; nothing beats SP
    assert beats(Play(None, 0, 0, 1), Play(None, 0, 0, 0, 1), G216)
    assert beats(Play("4", 4, 0, 1), Play("2", 4, 0, 0, 1), G216)
    assert not beats(Play(None, 0, 0, 0, 1), Play(None, 0, 0, 1), G216)
    assert not beats(Play("3", 1, 0, 0, 1), Play("4", 1, 0, 0, 1), G216)
    # §4.7: roasting only answers a play with a joker; counts may differ
    assert beats(Play(None, 0, 0, 1), Play(None, 0, 3, 0), ROAST)
    assert not beats(Play(None, 0, 0, 1), Play(None, 0, 3, 0), RULES)
    assert not beats(Play("7", 3, 0, 0), Play("8", 3, 1, 0), ROAST)
    assert not beats(Play(None, 0, 0, 1), Play(None, 0, 3, 1), ROAST)  # only the listed groups (§9 #35)


def test_sp_is_rejected_where_the_deck_has_none_and_roasting_with_sp():
    with pytest.raises(ValueError, match="SP"):
        beats(Play(None, 0, 0, 1), Play(None, 0, 0, 0, 1), RULES)
    with pytest.raises(ValueError, match=r"impossible rule combination.*SP"):
        get_rules("generic216", roasting=True)
    # a Rules built around get_rules' validation still cannot reach an undefined comparison
    roast216 = dataclasses.replace(get_rules("generic216"), roasting=True)
    with pytest.raises(ValueError, match="roasting"):
        action_table(roast216).legal_mask([0] * 16, -1, roast216)
    with pytest.raises(ValueError, match="roasting"):
        beats(Play(None, 0, 0, 1), Play(None, 0, 0, 2), roast216)


# --------------------------------------------------------------------------- legal masks


def _random_hand(rng: np.random.Generator, rules) -> list[int]:
    """A plausible hand of the rules' deck: counts within its limits (16 per rank, 13 sixes in
    weihai, 4 per joker, 1 SP)."""
    full = deck_counts(rules).astype(int)
    K, R = full.size, full.size - 2 - bool(rules.special_card)
    deck = np.repeat(np.arange(K), full)
    jokers = list(range(R, K))

    def some_jokers(h):
        while sum(h[R:]) == 0:
            for v in jokers:
                h[v] = int(rng.integers(full[v] + 1))

    kind = rng.integers(9)
    if kind <= 2:  # a random part of a real deck, up to a full hand plus abdicated cards
        k = int(rng.integers(1, 39 if R == 10 else 49))
        return np.bincount(rng.choice(deck, size=k, replace=False), minlength=K).tolist()
    h = [0] * K
    if kind == 3:  # only 6s (the lowest rank)
        h[0] = int(rng.integers(1, full[0] + 1))
    elif kind == 4:  # only jokers
        some_jokers(h)
    elif kind == 5:  # 6s and jokers
        h[0] = int(rng.integers(1, full[0] + 1))
        some_jokers(h)
    elif kind == 6:  # nearly empty: one to three cards
        k = int(rng.integers(1, 4))
        return np.bincount(rng.choice(deck, size=k, replace=False), minlength=K).tolist()
    elif kind == 7:  # 6s plus a few other cards (the 6s are blocked)
        h[0] = int(rng.integers(1, full[0] + 1))
        for c in rng.choice(deck[deck != 0], size=int(rng.integers(1, 4)), replace=False):
            h[int(c)] += 1
    else:  # sparse arbitrary counts, up to whole ranks of 16
        for v in range(K):
            if rng.random() < 0.35:
                h[v] = int(rng.integers(1, full[v] + 1))
        if sum(h) == 0:
            h[int(rng.integers(K))] = 1
    return h


def _random_prev(rng: np.random.Generator, hand: list[int], table: ActionTable) -> int:
    """A previous play index from the table, or -1 when leading."""
    u = rng.random()
    if u < 0.25:
        return -1
    if u < 0.4:  # any play of the table
        return int(rng.integers(table.num_plays))
    if u < 0.85:  # a play of a size this hand can match, so that beating plays can exist
        size = int(rng.integers(1, min(sum(hand), 20) + 1))
        return int(rng.choice(np.flatnonzero(table.size == size)))
    # a small everyday play: a few cards of one rank, maybe a joker (or two, to roast)
    rank = table.kinds.ranks[int(rng.integers(table.kinds.num_ranks))]
    play = Play(rank, int(rng.integers(1, 5)), int(rng.random() < 0.3), int(rng.random() < 0.15),
                int(table.kinds.special and rng.random() < 0.05))
    return table.action_id(play) - FIRST_PLAY


def _mask_as_plays(mask: np.ndarray, table: ActionTable = TABLE) -> set:
    ids = np.flatnonzero(mask[FIRST_PLAY:table.first_call])
    names = [None, *table.kinds.ranks]
    return set(zip(
        [names[r + 1] for r in table.rank[ids].tolist()],
        table.n[ids].tolist(), table.small[ids].tolist(), table.big[ids].tolist(), table.special[ids].tolist(),
        strict=True,
    ))


def _cases(n_per_case: dict[str, int], seed: int):
    rng = np.random.default_rng(seed)
    for name, n in n_per_case.items():
        rules = CASE_RULES[name]
        table = action_table(rules)
        hands, prevs = [], []
        for _ in range(n):
            hand = _random_hand(rng, rules)
            hands.append(hand)
            prevs.append(_random_prev(rng, hand, table))
        yield name, rules, hands, prevs


#: 12,500 (hand, previous play) pairs for jj's variants, 8,000 for the other presets.
N_PAIRS = {"jj": 6000, "no_hold_sixes": 2500, "sixes_may_carry_jokers": 2500, "no_jokers_only": 1500}
N_PAIRS_PRESETS = {"weihai": 1500, "lianzhong_roasting": 2000, "lianzhong_hold_sixes": 1000,
                   "lianzhong_classic": 1000, "generic216": 1500, "qingdao": 1000}


def _check_masks_against_reference(n_pairs: dict[str, int], seed: int) -> dict[str, int]:
    nonempty_follows = dict.fromkeys(n_pairs, 0)
    for name, rules, hands, prevs in _cases(n_pairs, seed):
        table = action_table(rules)
        for hand, prev in zip(hands, prevs, strict=True):
            mask = table.legal_mask(hand, prev, rules)
            assert mask.dtype == np.int8 and mask.shape == (table.num_actions,)
            previous = None if prev < 0 else tuple(table.play(prev + FIRST_PLAY))
            expected = reference.legal_plays(hand, previous, rules)
            got = _mask_as_plays(mask, table)
            assert got == expected, (name, hand, previous, sorted(got ^ expected, key=str)[:5])
            assert mask[PASS] == (prev >= 0), (name, hand, previous)
            assert not mask[1:FIRST_PLAY].any()
            assert not mask[table.first_call:].any()  # calls are never legal in the play phase
            assert set(np.unique(mask).tolist()) <= {0, 1}
            nonempty_follows[name] += prev >= 0 and bool(expected)
    return nonempty_follows


def test_legal_mask_matches_reference_generator():
    nonempty_follows = _check_masks_against_reference(N_PAIRS, seed=20240601)
    assert sum(N_PAIRS.values()) >= 10_000
    # the random pairs are not trivial: many follows have at least one beating play
    assert sum(nonempty_follows.values()) >= 1000


def test_legal_mask_matches_reference_generator_for_other_presets():
    nonempty_follows = _check_masks_against_reference(N_PAIRS_PRESETS, seed=20261129)
    for name, n in N_PAIRS_PRESETS.items():
        assert nonempty_follows[name] >= n // 10, (name, nonempty_follows[name])


def test_legal_mask_does_not_mutate_or_share_state():
    for rules in (RULES, G216, ROAST):
        table = action_table(rules)
        hand = [2, 1, 0, 3, 0, 0, 0, 0, 1, 0, 1, 1, *[0, 0, 0, 1][:table.kinds.num_kinds - 12]]
        before = list(hand)
        prev = table.action_id(Play("7", 1, 0, 0)) - FIRST_PLAY
        m1 = table.legal_mask(hand, prev, rules)
        m1[:] = 1
        m2 = table.legal_mask(hand, prev, rules)
        assert _mask_as_plays(m2, table) == reference.legal_plays(hand, ("7", 1, 0, 0), rules)
        assert hand == before


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.int16, np.int8])
def test_legal_masks_batch_equals_single_masks(dtype):
    # int8 is the engine's own dtype for hands (cards.deal, Game.hand), so it must work too
    n = {**{k: 400 for k in VARIANTS}, **{k: 200 for k in PRESET_CASES}}
    for name, rules, hands, prevs in _cases(n, seed=7 + len(str(dtype))):
        table = action_table(rules)
        arr = np.array(hands, dtype=dtype)
        batch = table.legal_masks_batch(arr, np.array(prevs), rules)
        assert batch.shape == (len(hands), table.num_actions) and batch.dtype == np.int8
        single = np.stack([table.legal_mask(h, p, rules) for h, p in zip(hands, prevs, strict=True)])
        bad = np.flatnonzero((batch != single).any(axis=1))
        assert bad.size == 0, (name, np.dtype(dtype).name, [hands[i] for i in bad[:3]])


@pytest.mark.parametrize("case", ["jj", "generic216", "lianzhong_roasting"])
def test_legal_masks_batch_writes_into_out(case):
    (_, rules, hands, prevs), = _cases({case: 300}, seed=3)
    table = action_table(rules)
    out = np.full((len(hands), table.num_actions), 7, dtype=np.int8)
    res = table.legal_masks_batch(np.array(hands), np.array(prevs), rules, out=out)
    single = np.stack([table.legal_mask(h, p, rules) for h, p in zip(hands, prevs, strict=True)])
    assert np.array_equal(out, single)
    assert res is out or np.shares_memory(res, out)
    strided = np.full((len(hands), 2 * table.num_actions), 7, dtype=np.int8)[:, ::2]  # not one block
    table.legal_masks_batch(np.array(hands), np.array(prevs), rules, out=strided)
    assert np.array_equal(strided, single)


def _hand(rules, cards: dict[str, int]) -> list[int]:
    return [cards.get(name, 0) for name in reference.card_order(rules)]


@pytest.mark.parametrize(
    ("hand_cards", "prev", "expected"),
    [
        # hand-derived cases (docs/rules.md §4.3, §4.5)
        ({"6": 2, "7": 1}, None, {("7", 1, 0, 0)}),
        ({"6": 2}, None, {("6", 2, 0, 0)}),
        ({"6": 2, "SJ": 1}, None, {(None, 0, 1, 0)}),
        ({"6": 3}, ("7", 3, 0, 0), set()),
        ({"SJ": 1, "BJ": 1}, None, {(None, 0, 1, 0), (None, 0, 0, 1), (None, 0, 1, 1)}),
        ({"9": 2, "SJ": 1}, ("8", 2, 0, 0), {("9", 2, 0, 0), ("9", 1, 1, 0)}),
        ({"9": 2, "SJ": 1, "BJ": 1}, ("8", 1, 1, 0), {("9", 1, 0, 1), (None, 0, 1, 1)}),
        ({"2": 4, "SJ": 4, "BJ": 4}, ("A", 1, 0, 1), set()),
    ],
)
def test_legal_mask_hand_derived_examples(hand_cards, prev, expected):
    hand = _hand(RULES, hand_cards)
    p = -1 if prev is None else TABLE.action_id(Play(*prev)) - FIRST_PLAY
    mask = TABLE.legal_mask(hand, p, RULES)
    assert _mask_as_plays(mask) == {tuple(Play(*e)) for e in expected}
    assert mask[PASS] == (prev is not None)


@pytest.mark.parametrize(
    ("rules", "hand_cards", "prev", "expected"),
    [
        # §4.8: SP beats BJ, alone or attached; nothing beats SP
        (G216, {"SP": 1, "BJ": 1}, (None, 0, 0, 1), {(None, 0, 0, 0, 1)}),
        (G216, {"SP": 1, "BJ": 2}, (None, 0, 0, 0, 1), set()),
        (G216, {"2": 4, "SP": 1}, ("4", 4, 0, 1), {("2", 4, 0, 0, 1)}),
        (G216, {"5": 2, "SP": 1}, ("4", 2, 0, 0), {("5", 2, 0, 0), ("5", 1, 0, 0, 1)}),
        (G216, {"3": 1, "4": 1}, None, {("3", 1, 0, 0), ("4", 1, 0, 0)}),
        # §4.7: a play with a joker is roasted by the listed groups; counts may differ
        (ROAST, {"SJ": 3, "BJ": 2}, (None, 0, 0, 1), {(None, 0, 0, 2), (None, 0, 3, 0)}),
        (ROAST, {"8": 4, "BJ": 2}, ("7", 4, 0, 1), {("8", 4, 0, 2)}),
        # no joker to roast: the standard rule (888+SJ has one card too many)
        (ROAST, {"8": 3, "SJ": 1}, ("7", 3, 0, 0), {("8", 3, 0, 0), ("8", 2, 1, 0)}),
        # lianzhong with hold-the-sixes: the final 6s may carry the jokers (§4.5, the Lianzhong page)
        (get_rules("lianzhong_simple", hold_sixes=True), {"6": 2, "SJ": 1}, None,
         {("6", 2, 1, 0), (None, 0, 1, 0)}),
    ],
    ids=["sp-beats-bj", "nothing-beats-sp", "sp-2222", "sp-attached", "ranks-3-4", "roast-bj", "roast-set",
         "roast-needs-joker", "sixes-with-jokers"],
)
def test_legal_mask_hand_derived_examples_of_other_presets(rules, hand_cards, prev, expected):
    table = action_table(rules)
    hand = _hand(rules, hand_cards)
    p = -1 if prev is None else table.action_id(Play(*prev)) - FIRST_PLAY
    mask = table.legal_mask(hand, p, rules)
    assert _mask_as_plays(mask, table) == {tuple(Play(*e)) for e in expected}
    assert mask[PASS] == (prev is not None)


@pytest.mark.parametrize("preset", ["jj", "generic216"])
def test_play_beats_agrees_with_beats_row(preset):
    rules = get_rules(preset)
    table = action_table(rules)
    rng = np.random.default_rng(5)
    for prev in rng.choice(table.num_plays, 60, replace=False).tolist():
        row = table.beats_row(prev, rules)
        for play in [*rng.choice(table.num_plays, 200, replace=False).tolist(), *np.flatnonzero(row)[:50].tolist()]:
            assert table.play_beats(prev, play, rules) == bool(row[play])
