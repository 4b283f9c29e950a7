"""The observation encoder: the slice layout, slices decoded in hand-built
situations, and the information model of docs/rules.md §3.0 / §3.8: a seat's observation never
depends on cards or roles hidden from it, and the order of turns does not reveal the guard."""

from __future__ import annotations

import numpy as np
import pytest

from baohuang_env import FIRST_PLAY, PASS, Game, get_rules
from baohuang_env.cards import COPIES_PER_RANK, NUM_SEATS, deck_counts
from baohuang_env.encoding import CARDS_LEFT_SCALE, HISTORY_LENGTH, MY_ROLES, Encoder
from baohuang_env.actions import DECISION_ID, Play
from baohuang_env.roles import ROLES

from helpers import hand, hidden_variant

RULES = get_rules("jj")
ENC = Encoder(RULES)
PHASES = ENC.phases
TABLE = ENC.table
KINDS = TABLE.kinds
K = KINDS.num_kinds
SJ, BJ = KINDS.sj, KINDS.bj
DECK = deck_counts(RULES).astype(float)
ACCEPT, ABDICATE, NO = DECISION_ID["ACCEPT"], DECISION_ID["ABDICATE"], DECISION_ID["NO"]
OPEN_SOLO, OPEN_GUARD = DECISION_ID["OPEN_SOLO"], DECISION_ID["OPEN_GUARD"]
DECLARATIONS = {NO, OPEN_SOLO, OPEN_GUARD}




def play(text: str) -> int:
    """Action id of a play written as rank, count, small, big: "7", "88", "9+SJ"."""
    rank, small, big, n = None, 0, 0, 0
    for tok in text.split("+"):
        if tok == "SJ":
            small += 1
        elif tok == "BJ":
            big += 1
        else:
            rank, n = ("10" if tok[0] == "T" else tok[0]), len(tok)
    return TABLE.action_id(Play(rank, n, small, big))


def obs(game: Game, seat: int) -> dict[str, np.ndarray]:
    return ENC.decode(ENC.encode(game, seat))


def onehot(i: int, n: int = NUM_SEATS) -> np.ndarray:
    v = np.zeros(n, dtype=np.float32)
    v[i] = 1
    return v


def rel(seat: int, observer: int) -> int:
    return (seat - observer) % NUM_SEATS


# A small hand-built deal: seat 0 holds the emperor card, seat 1 the guard card.
SCENARIO = [
    hand("7x2 9 Q BJ"),
    hand("8 T K SJ"),
    hand("6 J A 2x2"),
    hand("8x3 Q"),
    hand("7 9x2 K A 2"),
]


def scenario(*, guard_answer: int = NO) -> Game:
    """SCENARIO after seat 0 accepts and the declaration round (guard seat 1 answers
    `guard_answer`, everyone else NO): seat 0 is emperor and leads."""
    g = Game.from_deal(SCENARIO, emperor_card_seat=0, guard_card_seat=1)
    g.step(ACCEPT)
    for seat in range(NUM_SEATS):
        assert g.current_player == seat
        g.step(guard_answer if seat == 1 else NO)
    assert g.phase == "play" and g.current_player == 0
    return g


# --------------------------------------------------------------------------- layout


def test_slices_cover_the_vector_exactly():
    names = [name for name, _, _ in ENC.slices]
    assert len(names) == len(set(names))
    off = 0
    for _, o, n in ENC.slices:
        assert o == off and n > 0
        off += n
    assert off == ENC.size
    assert {"my_hand", "known_guard", "my_role", "history", "phase"} <= set(names)
    sizes = {name: n for name, _, n in ENC.slices}
    assert sizes["my_hand"] == K * COPIES_PER_RANK
    assert sizes["history"] == HISTORY_LENGTH * (K + NUM_SEATS + 1)
    assert sizes["phase"] == len(PHASES)
    assert sizes["my_role"] == len(MY_ROLES)


def test_my_role_one_hot_is_in_the_one_roles_order():
    assert MY_ROLES is ROLES


def test_decode_returns_views_of_the_slices():
    g = Game(RULES, seed=3)
    v = ENC.encode(g, 2)
    assert v.dtype == np.float32 and v.shape == (ENC.size,)
    parts = ENC.decode(v)
    assert list(parts) == [name for name, _, _ in ENC.slices]
    for name, o, n in ENC.slices:
        assert np.shares_memory(parts[name], v)
        np.testing.assert_array_equal(parts[name], v[o:o + n])
    v[:] = 0.5  # a view sees writes to the vector
    assert all((p == 0.5).all() for p in parts.values())


@pytest.mark.parametrize("seed", [0, 1])
def test_values_stay_in_unit_interval_during_random_games(seed):
    g = Game(RULES, seed=seed)
    rng = np.random.default_rng(seed)
    while True:
        for s in range(NUM_SEATS):
            v = ENC.encode(g, s)
            assert v.min() >= 0.0 and v.max() <= 1.0
            assert np.isfinite(v).all()
        if g.is_over:
            break
        g.step(int(rng.choice(g.legal_actions())))


# --------------------------------------------------------------------------- slices, hand-built


def test_my_hand_is_a_thermometer_of_the_hand():
    g = Game(RULES, seed=11)
    for s in range(NUM_SEATS):
        therm = obs(g, s)["my_hand"].reshape(K, COPIES_PER_RANK)
        for k in range(K):
            c = g.hands[s][k]
            np.testing.assert_array_equal(therm[k], [1.0] * c + [0.0] * (COPIES_PER_RANK - c))
        # unseen: the deck minus my own hand (nothing played yet), per copies
        np.testing.assert_allclose(obs(g, s)["unseen"], (DECK - np.array(g.hands[s])) / DECK)


def test_phase_one_hot_follows_the_role_steps_then_play():
    g = Game.from_deal(SCENARIO, emperor_card_seat=0, guard_card_seat=1)
    np.testing.assert_array_equal(obs(g, 3)["phase"], onehot(PHASES.index("abdication"), len(PHASES)))
    g.step(ACCEPT)
    np.testing.assert_array_equal(obs(g, 3)["phase"], onehot(PHASES.index("declaration"), len(PHASES)))
    for _ in range(NUM_SEATS):
        g.step(NO)
    for s in range(NUM_SEATS):
        np.testing.assert_array_equal(obs(g, s)["phase"], onehot(PHASES.index("play"), len(PHASES)))


def test_cards_left_and_relative_seat_rotation():
    g = Game.from_deal(SCENARIO, emperor_card_seat=0, guard_card_seat=1)
    sizes = [sum(h) for h in SCENARIO]  # 5, 4, 5, 4, 6
    for observer in range(NUM_SEATS):
        o = obs(g, observer)
        expected = [sizes[(observer + i) % NUM_SEATS] / CARDS_LEFT_SCALE for i in range(NUM_SEATS)]
        np.testing.assert_allclose(o["cards_left"], expected)
        # the emperor-card holder (seat 0) at its relative seat
        np.testing.assert_array_equal(o["emperor_card"], onehot(rel(0, observer)))
        assert not o["emperor"].any()  # nobody has accepted yet
    g.step(ACCEPT)
    for observer in range(NUM_SEATS):
        np.testing.assert_array_equal(obs(g, observer)["emperor"], onehot(rel(0, observer)))


def test_abdication_moves_the_emperor_card_and_counts_declines():
    g = Game.from_deal(SCENARIO, emperor_card_seat=0, guard_card_seat=1)
    g.step(ABDICATE)  # the card goes to upper(0) = seat 4
    g.step(ABDICATE)  # and on to seat 3
    assert g.current_player == 3
    for observer in range(NUM_SEATS):
        o = obs(g, observer)
        np.testing.assert_array_equal(o["emperor_card"], onehot(rel(3, observer)))
        assert o["declines"][0] == pytest.approx(2 / 5)
        # the card moved with the throne: seat 0 lost one card, seat 3 gained one
        assert o["cards_left"][rel(0, observer)] * CARDS_LEFT_SCALE == pytest.approx(4)
        assert o["cards_left"][rel(3, observer)] * CARDS_LEFT_SCALE == pytest.approx(5)
    g.step(ACCEPT)
    np.testing.assert_array_equal(obs(g, 1)["emperor"], onehot(rel(3, 1)))


def test_played_trick_trick_player_and_leading():
    g = scenario()
    # seat 0 leads: only seat 0 sees the leading flag
    for s in range(NUM_SEATS):
        o = obs(g, s)
        assert o["leading"][0] == (1.0 if s == 0 else 0.0)
        assert not o["trick"].any() and not o["trick_player"].any()
    g.step(play("7"))
    g.step(play("K"))  # seat 1 beats it
    g.step(PASS)  # seat 2 passes
    observer = 3
    o = obs(g, observer)
    played = o["played"].reshape(NUM_SEATS, K)
    expected = np.zeros((NUM_SEATS, K))
    expected[rel(0, observer), KINDS.index("7")] = 1 / 16
    expected[rel(1, observer), KINDS.index("K")] = 1 / 16
    np.testing.assert_allclose(played, expected)
    np.testing.assert_allclose(o["trick"], onehot(KINDS.index("K"), K) / 16)
    np.testing.assert_array_equal(o["trick_player"], onehot(rel(1, observer)))
    np.testing.assert_array_equal(o["passed"], onehot(rel(2, observer)))
    assert o["leading"][0] == 0.0
    # unseen for seat 3: the deck less its own hand and the two played cards
    unseen = DECK - np.array(SCENARIO[3]) - played.sum(axis=0) * DECK
    np.testing.assert_allclose(o["unseen"], unseen / DECK, atol=1e-6)
    # seats 3, 4, 0 pass: seat 1 won the trick and leads
    for _ in range(3):
        g.step(PASS)
    assert g.current_player == 1
    for s in range(NUM_SEATS):
        o = obs(g, s)
        assert o["leading"][0] == (1.0 if s == 1 else 0.0)
        assert not o["trick"].any() and not o["trick_player"].any() and not o["passed"].any()


def test_history_is_most_recent_first_and_relative():
    g = scenario()
    moves = [(0, play("7")), (1, play("K")), (2, PASS), (3, PASS), (4, play("2"))]
    for seat, action in moves:
        assert g.current_player == seat
        g.step(action)
    observer = 1
    width = K + NUM_SEATS + 1
    hist = obs(g, observer)["history"].reshape(HISTORY_LENGTH, width)
    for i, (seat, action) in enumerate(reversed(moves)):
        cards, who, passed = hist[i, :K], hist[i, K:K + NUM_SEATS], hist[i, -1]
        np.testing.assert_array_equal(who, onehot(rel(seat, observer)))
        assert passed == (1.0 if action == PASS else 0.0)
        if action == PASS:
            assert not cards.any()
        else:
            np.testing.assert_allclose(cards, TABLE.counts[action - FIRST_PLAY] / DECK)
    assert not hist[len(moves):].any()  # padding


def test_history_keeps_only_the_last_plays():
    g = Game(RULES, seed=5)
    rng = np.random.default_rng(5)
    while g.phase != "play" or len(g.history) < HISTORY_LENGTH + 3:
        g.step(int(rng.choice(g.legal_actions())))
    width = K + NUM_SEATS + 1
    hist = obs(g, 0)["history"].reshape(HISTORY_LENGTH, width)
    seat, action = g.history[-1]
    np.testing.assert_array_equal(hist[0, K:K + NUM_SEATS], onehot(rel(seat, 0)))
    seat, action = g.history[-HISTORY_LENGTH]
    np.testing.assert_array_equal(hist[-1, K:K + NUM_SEATS], onehot(rel(seat, 0)))
    assert hist[-1, -1] == (1.0 if action == PASS else 0.0)


def test_places_one_hot_when_a_seat_goes_out():
    g = Game.from_deal([hand("7 BJ"), hand("8 SJ"), hand("9x3"), hand("Tx3"), hand("Jx3")],
                       emperor_card_seat=0, guard_card_seat=1)
    g.step(ACCEPT)
    for _ in range(NUM_SEATS):
        g.step(NO)
    g.step(play("7+BJ"))  # seat 0 is out first; nobody can beat a big joker
    assert g.places[0] == 1
    for observer in range(NUM_SEATS):
        place = obs(g, observer)["place"].reshape(NUM_SEATS, NUM_SEATS)
        expected = np.zeros((NUM_SEATS, NUM_SEATS))
        expected[rel(0, observer), 0] = 1
        np.testing.assert_array_equal(place, expected)
        assert obs(g, observer)["cards_left"][rel(0, observer)] == 0


# --------------------------------------------------------------------------- roles as known


def _role(o) -> str | None:
    r = o["my_role"]
    return MY_ROLES[int(r.argmax())] if r.any() else None


def test_hidden_guard_knows_itself_and_nobody_else_does():
    g = scenario()
    for s in range(NUM_SEATS):
        o = obs(g, s)
        assert o["hold_guard_card"][0] == (1.0 if s == 1 else 0.0)
        if s == 1:
            np.testing.assert_array_equal(o["known_guard"], onehot(0))  # itself
            assert _role(o) == "guard"
        else:
            assert not o["known_guard"].any(), f"seat {s} sees the hidden guard"
            assert _role(o) == ("emperor" if s == 0 else "rebel")
        assert o["open_guard"][0] == 0 and o["open_solo"][0] == 0


def test_nobody_has_a_role_before_the_declaration_round():
    g = Game.from_deal(SCENARIO, emperor_card_seat=0, guard_card_seat=1)
    for s in range(NUM_SEATS):
        o = obs(g, s)
        assert _role(o) is None and not o["known_guard"].any()
    assert obs(g, 1)["hold_guard_card"][0] == 1.0  # but the holder sees its own card


def test_open_guard_is_known_to_everyone():
    g = scenario(guard_answer=OPEN_GUARD)
    for s in range(NUM_SEATS):
        o = obs(g, s)
        np.testing.assert_array_equal(o["known_guard"], onehot(rel(1, s)))
        assert o["open_guard"][0] == 1.0


def test_playing_the_marked_guard_card_reveals_the_guard():
    g = scenario()
    g.step(play("7"))
    g.step(play("SJ"))  # seat 1's only small joker is the marked guard card
    for s in range(NUM_SEATS):
        np.testing.assert_array_equal(obs(g, s)["known_guard"], onehot(rel(1, s)))
        assert obs(g, s)["open_guard"][0] == 0.0  # revealed, but not an open declaration


def test_an_unmarked_small_joker_reveals_nothing():
    hands = [hand("7x2 Q BJ"), hand("8 T SJx2"), hand("6 J A 2x2"), hand("8x3 Q"), hand("7 9x2 K A SJ")]
    g = Game.from_deal(hands, emperor_card_seat=0, guard_card_seat=1)
    g.step(ACCEPT)
    for _ in range(NUM_SEATS):
        g.step(NO)
    g.step(play("7"))
    g.step(play("SJ"))  # seat 1 still holds another SJ: the marked one stays hidden
    for s in (0, 2, 3, 4):
        assert not obs(g, s)["known_guard"].any()


@pytest.mark.parametrize("open_solo", [False, True])
def test_solo_emperor_knows_itself_rebels_see_only_an_open_solo(open_solo):
    hands = [hand("7x2 Q SJ BJ"), hand("8 T K"), hand("6 J A 2x2"), hand("8x3 Q SJ"), hand("7 9x2 K A 2")]
    g = Game.from_deal(hands, emperor_card_seat=0, guard_card_seat=0)
    g.step(ACCEPT)
    assert set(g.legal_actions()) == {NO, OPEN_SOLO}
    g.step(OPEN_SOLO if open_solo else NO)
    for _ in range(NUM_SEATS - 1):
        assert set(g.legal_actions()) == {NO}
        g.step(NO)
    o = obs(g, 0)
    assert _role(o) == "solo"
    np.testing.assert_array_equal(o["known_guard"], onehot(0))
    for s in range(1, NUM_SEATS):
        o = obs(g, s)
        assert _role(o) == "rebel"
        assert o["open_solo"][0] == float(open_solo)
        if open_solo:
            np.testing.assert_array_equal(o["known_guard"], onehot(rel(0, s)))
        else:
            assert not o["known_guard"].any()


# --------------------------------------------------------------------------- information leaks


def _declaration_round_deal(guard: int, h0: int) -> Game:
    """Every seat holds the same ordinary cards; `guard` holds the marked SJ in place of one
    of them, and `h0` also holds the marked BJ. Only the guard's own hand differs between
    choices of `guard`, so the hands of all other seats are the same."""
    hands = [hand("7 8 9 T J Q") for _ in range(NUM_SEATS)]
    hands[guard][KINDS.index("7")] -= 1
    hands[guard][SJ] += 1
    hands[h0][BJ] += 1
    return Game.from_deal(hands, emperor_card_seat=h0, guard_card_seat=guard)


@pytest.mark.parametrize("h0", range(NUM_SEATS))
@pytest.mark.parametrize("declines", range(NUM_SEATS + 1))
def test_seats_asked_in_the_role_phase_do_not_depend_on_the_guard(h0, declines):
    """docs/rules.md §3.8: for the same public history, the sequence of seats asked (and every
    other seat's view) is the same whoever holds the guard card."""
    turns, views = {}, {}
    for guard in range(NUM_SEATS):
        g = _declaration_round_deal(guard, h0)
        seq, seen = [], {s: [] for s in range(NUM_SEATS)}
        while g.phase == "role":
            seat = g.current_player
            seq.append(seat)
            for s in range(NUM_SEATS):
                seen[s].append(ENC.encode(g, s).tobytes())
            options = set(g.legal_actions().tolist())
            if options & DECLARATIONS:
                if seat == g.guard:
                    assert options == ({NO, OPEN_SOLO} if seat == g.emperor else {NO, OPEN_GUARD})
                else:
                    assert options == {NO}  # nothing to declare, but asked all the same
                g.step(NO)
            else:
                assert options == {ACCEPT, ABDICATE}
                g.step(ABDICATE if len(seq) <= declines else ACCEPT)
        turns[guard], views[guard] = seq, seen
    emperor = (h0 - declines) % NUM_SEATS
    asked = [(h0 - i) % NUM_SEATS for i in range(min(declines + 1, NUM_SEATS))]
    expected = asked + [(emperor + i) % NUM_SEATS for i in range(NUM_SEATS)]
    for guard in range(NUM_SEATS):
        assert turns[guard] == expected, f"guard at seat {guard}"
    for s in range(NUM_SEATS):
        others = [views[guard][s] for guard in range(NUM_SEATS) if guard != s]
        assert all(v == others[0] for v in others), f"seat {s} can tell where the guard card is"


@pytest.mark.parametrize("seed", range(24))
def test_observation_does_not_depend_on_hidden_cards_or_the_hidden_guard(seed):
    """Two deals differing only in what `seat` cannot see, played with the same public
    actions, give `seat` the same observation at every step until something that differs
    becomes public (the marked guard card is played, or one game ends)."""
    rng = np.random.default_rng(seed)
    base = Game(RULES, seed=seed)
    seat = seed % NUM_SEATS
    hands_b, guard_b = hidden_variant(base, seat, rng)
    a = Game.from_deal(base.hands, base.emperor_card_seat, base.guard_card_seat)
    b = Game.from_deal(hands_b, base.emperor_card_seat, guard_b)
    assert (a.guard_card_seat == b.guard_card_seat) == (a.guard_card_seat == seat)
    compared = plays = 0
    while not (a.is_over or b.is_over) and a.public_guard == b.public_guard:
        assert a.current_player == b.current_player
        assert a.phase == b.phase
        np.testing.assert_array_equal(ENC.encode(a, seat), ENC.encode(b, seat))
        compared += 1
        mover = a.current_player
        mask_a, mask_b = a.legal_mask(), b.legal_mask()
        if mover == seat:
            np.testing.assert_array_equal(mask_a, mask_b)
            common = np.flatnonzero(mask_a)
        else:
            common = np.flatnonzero(mask_a & mask_b)  # public moves both deals allow
            if common.size == 0:
                break
        action = int(rng.choice(common))
        plays += a.phase == "play"
        a.step(action)
        b.step(action)
    assert compared > NUM_SEATS + 1 and plays > 0  # got through the role phase into play


@pytest.mark.parametrize("seed", range(6))
def test_the_guard_is_not_revealed_by_the_turn_order_in_random_role_phases(seed):
    """With random public role-phase choices, every seat other than the guard sees the
    same observations whichever other seat holds the guard card."""
    rng = np.random.default_rng(100 + seed)
    h0 = int(rng.integers(NUM_SEATS))
    choices = [int(rng.integers(2)) for _ in range(NUM_SEATS)]  # 1 = abdicate
    runs = {}
    for guard in range(NUM_SEATS):
        g = _declaration_round_deal(guard, h0)
        i, trace = 0, []
        while g.phase == "role":
            trace.append((g.current_player, [ENC.encode(g, s).tobytes() for s in range(NUM_SEATS)]))
            if ACCEPT in g.legal_actions():
                g.step(ABDICATE if choices[i] else ACCEPT)
                i += 1
            else:
                g.step(NO)
        runs[guard] = trace
    for s in range(NUM_SEATS):
        views = [[(p, v[s]) for p, v in runs[guard]] for guard in range(NUM_SEATS) if guard != s]
        assert all(v == views[0] for v in views)
