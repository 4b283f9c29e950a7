"""The action table: layout, id <-> play round trips, card notation, and the vectorized legal
masks checked against the slow reference generator of `tests/reference.py`."""

from __future__ import annotations

import numpy as np
import pytest

import reference
from baohuang_env import (
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

RULES = get_rules("jj")
TABLE = action_table(RULES)
CARD_ORDER = reference.CARD_ORDER
SJ, BJ = reference.SJ, reference.BJ

#: Rule variants the masks are checked under (RULES.md §4.1, §4.5; §8 for the jj values).
#: (`jokers_only_plays=False` is rejected by get_rules: a leader holding only jokers would have
#: no legal play; see test_rules.py.)
VARIANTS = {
    "jj": {},
    "no_hold_sixes": {"hold_sixes": False},
    "sixes_may_carry_jokers": {"six_no_jokers": False},
}


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
        rank, n, small, big = play
        assert 0 <= small <= 4 and 0 <= big <= 4 and 0 <= n <= 16
        assert n + small + big >= 1
        assert (rank is None) == (n == 0)
        assert rank is None or rank in reference.RANKS
        assert TABLE.action_id(play) == a
        assert TABLE.action_id(Play(rank, n, small, big)) == a
        seen.add(tuple(play))
    assert len(seen) == TABLE.num_plays


def test_every_possible_play_has_an_id():
    expected = {(None, 0, s, b) for s in range(5) for b in range(5) if s + b}
    expected |= {(r, n, s, b) for r in reference.RANKS for n in range(1, 17) for s in range(5) for b in range(5)}
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
    # RULES.md §4.1: a play has at least one card (n + s + b >= 1)
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


# --------------------------------------------------------------------------- comparison


def test_beats_row_matches_reference_on_sampled_rows():
    rng = np.random.default_rng(11)
    plays = [TABLE.play(a) for a in range(FIRST_PLAY, TABLE.num_actions)]
    rows = set(rng.choice(TABLE.num_plays, size=40, replace=False).tolist())
    rows |= {TABLE.action_id(Play(*p)) - FIRST_PLAY for p in [("7", 1, 0, 0), ("9", 3, 2, 0), (None, 0, 1, 0),
                                                               ("2", 4, 0, 0), ("6", 16, 0, 0), (None, 0, 4, 0)]}
    for p in sorted(rows):
        row = TABLE.beats_row(p)
        expected = [reference.beats(plays[p], c) for c in plays]
        assert row.tolist() == expected, plays[p]
        # the Play-level helper agrees as well on a sample of candidates
        for c in rng.choice(TABLE.num_plays, size=50, replace=False).tolist():
            assert beats(plays[p], plays[c], RULES) == expected[c]


def test_beats_examples_derived_by_hand():
    # RULES.md §4.3 consequences (a)-(c)
    assert beats(Play("7", 3, 0, 0), Play("8", 3, 0, 0), RULES)
    assert not beats(Play("8", 3, 0, 0), Play("8", 3, 0, 0), RULES)  # equal never beats
    assert not beats(Play("8", 3, 0, 0), Play("9", 2, 0, 0), RULES)  # counts differ
    assert not beats(Play(None, 0, 0, 1), Play(None, 0, 0, 1), RULES)  # a BJ is never beaten
    assert not beats(Play("7", 1, 1, 0), Play("8", 2, 0, 0), RULES)  # SJ needs a BJ
    assert beats(Play("7", 1, 1, 0), Play("8", 1, 0, 1), RULES)
    assert not beats(Play("7", 2, 0, 0), Play("6", 2, 0, 0), RULES)


# --------------------------------------------------------------------------- legal masks


def _random_hand(rng: np.random.Generator, deck: np.ndarray) -> list[int]:
    """A plausible hand: counts within the deck's limits (16 per rank, 4 per joker)."""
    kind = rng.integers(9)
    if kind <= 2:  # a random part of a real deck, up to a full hand plus abdicated cards
        k = int(rng.integers(1, 39))
        return np.bincount(rng.choice(deck, size=k, replace=False), minlength=12).tolist()
    h = [0] * 12
    if kind == 3:  # only 6s
        h[0] = int(rng.integers(1, 17))
    elif kind == 4:  # only jokers
        while h[SJ] + h[BJ] == 0:
            h[SJ], h[BJ] = int(rng.integers(5)), int(rng.integers(5))
    elif kind == 5:  # 6s and jokers
        h[0] = int(rng.integers(1, 17))
        while h[SJ] + h[BJ] == 0:
            h[SJ], h[BJ] = int(rng.integers(5)), int(rng.integers(5))
    elif kind == 6:  # nearly empty: one to three cards
        k = int(rng.integers(1, 4))
        return np.bincount(rng.choice(deck, size=k, replace=False), minlength=12).tolist()
    elif kind == 7:  # 6s plus a few other cards (the 6s are blocked)
        h[0] = int(rng.integers(1, 17))
        for c in rng.choice(deck[deck != 0], size=int(rng.integers(1, 4)), replace=False):
            h[int(c)] += 1
    else:  # sparse arbitrary counts, up to whole ranks of 16
        for v in range(12):
            if rng.random() < 0.35:
                h[v] = int(rng.integers(1, (16 if v < 10 else 4) + 1))
        if sum(h) == 0:
            h[int(rng.integers(12))] = 1
    return h


def _random_prev(rng: np.random.Generator, hand: list[int], by_size: dict[int, np.ndarray]) -> int:
    """A previous play index from the table, or -1 when leading."""
    u = rng.random()
    if u < 0.25:
        return -1
    if u < 0.4:  # any play of the table
        return int(rng.integers(TABLE.num_plays))
    if u < 0.85:  # a play of a size this hand can match, so that beating plays can exist
        size = int(rng.integers(1, min(sum(hand), 20) + 1))
        return int(rng.choice(by_size[size]))
    # a small everyday play: a few cards of one rank, maybe a joker
    rank = reference.RANKS[int(rng.integers(10))]
    play = Play(rank, int(rng.integers(1, 5)), int(rng.random() < 0.2), int(rng.random() < 0.1))
    return TABLE.action_id(play) - FIRST_PLAY


def _mask_as_plays(mask: np.ndarray) -> set:
    ids = np.flatnonzero(mask[FIRST_PLAY:])
    names = [None, *reference.RANKS]
    return set(zip(
        [names[r + 1] for r in TABLE.rank[ids].tolist()],
        TABLE.n[ids].tolist(), TABLE.small[ids].tolist(), TABLE.big[ids].tolist(), strict=True,
    ))


def _cases(n_per_variant: dict[str, int], seed: int):
    rng = np.random.default_rng(seed)
    deck = np.repeat(np.arange(12), [16] * 10 + [4, 4])
    by_size = {s: np.flatnonzero(TABLE.size == s) for s in range(1, 25)}
    for name, n in n_per_variant.items():
        rules = get_rules("jj", **VARIANTS[name])
        hands, prevs = [], []
        for _ in range(n):
            hand = _random_hand(rng, deck)
            hands.append(hand)
            prevs.append(_random_prev(rng, hand, by_size))
        yield name, rules, hands, prevs


#: 12,000 (hand, previous play) pairs in all.
N_PAIRS = {"jj": 7000, "no_hold_sixes": 2500, "sixes_may_carry_jokers": 2500}


def test_legal_mask_matches_reference_generator():
    checked = nonempty_follows = 0
    for name, rules, hands, prevs in _cases(N_PAIRS, seed=20240601):
        for hand, prev in zip(hands, prevs, strict=True):
            mask = TABLE.legal_mask(hand, prev, rules)
            assert mask.dtype == np.int8 and mask.shape == (TABLE.num_actions,)
            previous = None if prev < 0 else tuple(TABLE.play(prev + FIRST_PLAY))
            expected = reference.legal_plays(hand, previous, rules)
            got = _mask_as_plays(mask)
            assert got == expected, (name, hand, previous, sorted(got ^ expected, key=str)[:5])
            assert mask[PASS] == (prev >= 0), (name, hand, previous)
            assert not mask[1:FIRST_PLAY].any()
            assert set(np.unique(mask).tolist()) <= {0, 1}
            checked += 1
            nonempty_follows += prev >= 0 and bool(expected)
    assert checked >= 10_000
    # the random pairs are not trivial: many follows have at least one beating play
    assert nonempty_follows >= 1000


def test_legal_mask_does_not_mutate_or_share_state():
    hand = [2, 1, 0, 3, 0, 0, 0, 0, 1, 0, 1, 1]
    prev = TABLE.action_id(Play("7", 1, 0, 0)) - FIRST_PLAY
    m1 = TABLE.legal_mask(hand, prev, RULES)
    m1[:] = 1
    m2 = TABLE.legal_mask(hand, prev, RULES)
    assert _mask_as_plays(m2) == reference.legal_plays(hand, ("7", 1, 0, 0), RULES)
    assert hand == [2, 1, 0, 3, 0, 0, 0, 0, 1, 0, 1, 1]


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.int16, np.int8])
def test_legal_masks_batch_equals_single_masks(dtype):
    # int8 is the engine's own dtype for hands (cards.deal, Game.hand), so it must work too
    for name, rules, hands, prevs in _cases({k: 400 for k in VARIANTS}, seed=7 + len(str(dtype))):
        arr = np.array(hands, dtype=dtype)
        batch = TABLE.legal_masks_batch(arr, np.array(prevs), rules)
        assert batch.shape == (len(hands), TABLE.num_actions) and batch.dtype == np.int8
        single = np.stack([TABLE.legal_mask(h, p, rules) for h, p in zip(hands, prevs, strict=True)])
        bad = np.flatnonzero((batch != single).any(axis=1))
        assert bad.size == 0, (name, np.dtype(dtype).name, [hands[i] for i in bad[:3]])


def test_legal_masks_batch_writes_into_out():
    (_, rules, hands, prevs), = _cases({"jj": 300}, seed=3)
    out = np.full((len(hands), TABLE.num_actions), 7, dtype=np.int8)
    res = TABLE.legal_masks_batch(np.array(hands), np.array(prevs), rules, out=out)
    single = np.stack([TABLE.legal_mask(h, p, rules) for h, p in zip(hands, prevs, strict=True)])
    assert np.array_equal(out, single)
    assert res is out or np.shares_memory(res, out)


@pytest.mark.parametrize(
    ("hand_cards", "prev", "expected"),
    [
        # hand-derived cases (RULES.md §4.3, §4.5)
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
    hand = [hand_cards.get(name, 0) for name in CARD_ORDER]
    p = -1 if prev is None else TABLE.action_id(Play(*prev)) - FIRST_PLAY
    mask = TABLE.legal_mask(hand, p, RULES)
    assert _mask_as_plays(mask) == expected
    assert mask[PASS] == (prev is not None)
