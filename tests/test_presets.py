"""The role phases, decks, end rules and scoring of every preset but jj (docs/rules.md §3.3–3.7,
§4.6, §5.2, §6), on hand-built deals; and every preset end to end on random games."""

from __future__ import annotations

import numpy as np
import pytest

from baohuang_env import DECISIONS, PASS, PRESETS, Game, IllegalActionError, get_rules
from baohuang_env.cards import NUM_SEATS, card_kinds, deal, deck_counts, hand_sizes

from baohuang_env.text import describe_event
from helpers import hidden_variant

D = {name: 1 + i for i, name in enumerate(DECISIONS)}
ACCEPT, ABDICATE, DECLINE, NO = D["ACCEPT"], D["ABDICATE"], D["DECLINE"], D["NO"]
OPEN_SOLO, OPEN_GUARD, GRAB, REBEL, KICK = D["OPEN_SOLO"], D["OPEN_GUARD"], D["GRAB"], D["REBEL"], D["KICK"]
SURRENDER, APPLY_WIND = D["SURRENDER"], D["APPLY_WIND"]


def counts(rules, text: str) -> list[int]:
    """Card counts from text such as "7x2 9 Q BJ" in the rules' deck."""
    kinds = card_kinds(rules)
    out = [0] * kinds.num_kinds
    for tok in text.split():
        name, _, n = tok.partition("x")
        out[kinds.index("10" if name == "T" else name)] += int(n or 1)
    return out


def build(preset: str, hands: list[str], emperor_card: int, guard_card: int, **flags) -> Game:
    rules = get_rules(preset, **flags)
    return Game.from_deal([counts(rules, h) for h in hands], emperor_card, guard_card, rules)


def do(game: Game, seat: int, action: int) -> None:
    assert game.current_player == seat, (game.current_player, seat, game.phase)
    game.step(action)


def options(game: Game) -> set[str]:
    return {game.describe(a) for a in game.legal_actions().tolist()}


def play(game: Game, seat: int, text: str) -> None:
    """Play cards given as text ("8 8", "BJ"), or pass."""
    if text == "pass":
        do(game, seat, PASS)
        return
    rules = game.rules
    c = counts(rules, text)
    kinds = game.kinds
    ranks = [k for k in range(kinds.num_ranks) if c[k]]
    rank = ranks[0] if ranks else -1
    action = game.table.action_id_of(rank, c[rank] if ranks else 0, c[kinds.sj], c[kinds.bj])
    do(game, seat, action)


def run_out(game: Game) -> None:
    """Finish with the first legal action (accept, NO, pass when following, lowest lead)."""
    while not game.is_over:
        game.step(int(game.legal_actions()[0]))


def cards_conserved(game: Game, total: list[int]) -> None:
    held = np.array(game.hands).sum(axis=0) + np.array(game.total_played) + np.array(game.pile)
    np.testing.assert_array_equal(held, total)


# --------------------------------------------------------------------------- decks


@pytest.mark.parametrize(("preset", "size", "sizes"), [
    ("jj", 168, [34, 34, 34, 33, 33]), ("weihai", 165, [33] * 5), ("lianzhong_classic", 168, [34, 34, 34, 33, 33]),
    ("lianzhong_simple", 168, [34, 34, 34, 33, 33]), ("qingdao", 168, [34, 34, 34, 33, 33]),
    ("generic216", 216, [44, 43, 43, 43, 43]),
])
def test_deck_and_hand_sizes(preset, size, sizes):
    rules = get_rules(preset)
    d = deal(rules, np.random.default_rng(3))
    assert d.hands.sum() == size and d.hands.sum(axis=1).tolist() == sizes == hand_sizes(size, 0)
    np.testing.assert_array_equal(d.hands.sum(axis=0), deck_counts(rules) - (card_kinds(rules).sp >= 0) * (
        np.arange(len(deck_counts(rules))) == card_kinds(rules).sp))
    if preset == "weihai":
        assert deck_counts(rules)[0] == 13  # three 6s removed (§1.2)
    if rules.suits_matter:  # 4 copies of every suit-rank; jokers one suit-rank of 4
        assert d.suits is not None and (d.suits.sum(axis=0)[:card_kinds(rules).num_ranks] == 4).all()
        np.testing.assert_array_equal(d.suits.sum(axis=2), d.hands)
        assert d.guard_card_seat == -1
    else:
        assert d.suits is None and 0 <= d.guard_card_seat < NUM_SEATS


# --------------------------------------------------------------------------- weihai (§3.3)

def w_hands(guard: int) -> list[str]:
    """Five small hands, the emperor card (BJ) in seat 4 and the guard card (SJ) in `guard`."""
    hands = ["7 8 9", "8 9 T", "9 T J", "T J Q", "J Q K BJ"]
    hands[guard] += " SJ"
    return hands


def weihai_to_rebellion(g: Game) -> None:
    """Weihai with the emperor card in seat 4: accept, no solo, no grab (upper order 3, 2, 1,
    0), nobody declares open guard (from lower(E): 0, 1, 2, 3). The rebellion round is next."""
    do(g, 4, ACCEPT)
    do(g, 4, NO)
    for s in (3, 2, 1, 0):
        do(g, s, NO)
    for s in (0, 1, 2, 3):
        do(g, s, NO)


def test_weihai_only_a_double_holder_may_decline():
    g = build("weihai", w_hands(3), emperor_card=4, guard_card=3)
    assert g.current_player == 4 and options(g) == {"ACCEPT"}  # asked anyway (§3.8)
    hands = ["7 8 9", "8 9 T", "9 T J", "T J Q", "J Q K BJ SJ"]
    g = build("weihai", hands, emperor_card=4, guard_card=4)
    assert options(g) == {"ACCEPT", "DECLINE"}
    do(g, 4, DECLINE)
    # 隔一个的下家: lower(lower(4)) = 1 is emperor and cannot pass it on; 4 keeps the guard card
    assert g.emperor == 1 and g.emperor_card_seat == 1 and g.hands[1][card_kinds(g.rules).bj] == 1
    assert g.guard == 4 and g.solo == "none" and g.public_guard == 4 and not g.open_guard
    assert g.current_player == 1  # the solo step asks the (new) emperor


def test_weihai_grab_solo_in_upper_order_and_the_old_emperor_becomes_an_opponent():
    g = build("weihai", w_hands(3), emperor_card=4, guard_card=3)
    do(g, 4, ACCEPT)
    do(g, 4, NO)  # solo step: E does not hold the guard card, NO is his only answer
    assert options(g) == {"NO", "GRAB"}
    do(g, 3, NO)  # upper(4) = 3 first, then 2
    do(g, 2, GRAB)
    assert (g.emperor, g.guard, g.solo, g.grabbed, g.public_guard) == (2, 2, "open", True, 2)
    assert g.emperor_card_seat == -1 and g.guard_card_seat == -1  # marks lost, cards stay (§9 #14)
    assert g.hands[4][card_kinds(g.rules).bj] == 1
    # no guard and no rebellion after an open solo; the kick round asks the 4 opponents from lower(E)
    asked = []
    while g.phase == "role":
        asked.append(g.current_player)
        assert options(g) == {"NO", "KICK"}
        do(g, g.current_player, KICK if len(asked) in (2, 3) else NO)
    assert asked[:2] == [3, 4] and 2 not in asked and g.kicked
    assert g.current_player == 2  # the grabber leads


def test_weihai_open_solo_pre_empts_grabs():
    hands = ["7 8 9", "8 9 T", "9 T J", "T J Q", "J Q K BJ SJ"]
    g = build("weihai", hands, emperor_card=4, guard_card=4)
    do(g, 4, ACCEPT)
    assert options(g) == {"NO", "OPEN_SOLO"}
    do(g, 4, OPEN_SOLO)
    # straight to the kick round: nobody is asked to grab
    assert g.rules.role_steps[g.step_index] == "kick"


def test_weihai_a_hidden_solo_keeps_priority_and_a_grab_reveals_it():
    # the JJ and Lianzhong pages: "皇帝'独保'优先成功" (§3.1 R2 point 4, §9 #15, #71)
    hands = ["7 8 9", "8 9 T", "9 T J", "T J Q", "J Q K BJ SJ"]
    g = build("weihai", hands, emperor_card=4, guard_card=4)
    do(g, 4, ACCEPT)
    do(g, 4, NO)  # a hidden solo: the others are asked to grab as always
    assert options(g) == {"NO", "GRAB"}
    do(g, 3, NO)
    assert g.public_guard == -1
    do(g, 2, GRAB)  # fails: E's own solo comes first, and everyone now knows he plays alone
    assert (g.emperor, g.guard, g.solo, g.grabbed, g.public_guard) == (4, 4, "hidden", False, 4)
    assert ("grab_failed", 2, 4) in g.log and g.emperor_card_seat == 4 and g.guard_card_seat == 4
    # nothing left to reveal or declare: no guard round, no rebellion, no kick
    assert g.phase == "play" and g.current_player == 4


@pytest.mark.parametrize(("rebels", "outcome"), [(0, "none"), (1, "failed"), (2, "succeeded"), (3, "succeeded")])
def test_weihai_rebellion_needs_two(rebels, outcome):
    g = build("weihai", w_hands(2), emperor_card=4, guard_card=2)
    weihai_to_rebellion(g)
    asked, wanted = [], rebels
    while g.phase == "role" and g.rules.role_steps[g.step_index] == "rebellion":
        seat = g.current_player
        asked.append(seat)
        if seat == 2:
            assert options(g) == {"NO"}  # the guard cannot rebel
            do(g, seat, NO)
        else:
            assert options(g) == {"NO", "REBEL"}
            do(g, seat, REBEL if wanted > 0 else NO)
            wanted -= 1
    assert asked == [0, 1, 2, 3] and g.rebellion == outcome
    assert (g.public_guard == 2) == (outcome == "succeeded")
    if outcome == "succeeded":  # the emperor's side may kick: E, then G
        assert g.current_player == 4 and options(g) == {"NO", "KICK"}
        do(g, 4, KICK)
        assert g.kicked and g.phase == "play"
    else:
        assert g.phase == "play"  # hidden guard, no successful rebellion: no kick round


def test_weihai_scoring_split_table_and_kick():
    # E = 4, G = 2 go out first and second after a successful rebellion and a kick:
    # split table E = G = 3g = 9, rebels -6, doubled by the kick
    hands = ["7 8 9 K", "8 9 T K", "SJ", "T J Q K", "BJ"]
    g = build("weihai", hands, emperor_card=4, guard_card=2)
    weihai_to_rebellion(g)
    for s, a in ((0, REBEL), (1, REBEL), (2, NO), (3, NO)):
        do(g, s, a)
    do(g, 4, KICK)
    play(g, 4, "BJ")  # E out first; nobody beats a BJ
    for s in (0, 1, 2, 3):
        play(g, s, "pass")
    play(g, 0, "7")  # catch the wind: 0 leads
    play(g, 1, "pass")
    play(g, 2, "SJ")  # G out second: the emperor's side is out
    assert g.is_over and g.result.scores == [-12, -12, 18, -12, 18]
    assert g.result.kicked and g.result.rebellion == "succeeded"


def test_weihai_guard_round_keeps_the_guard_hidden():
    # same public history, guard card in seat 1 or seat 2: the same seats are asked
    def turns(guard_seat):
        hands = ["7 8 9", "8 9 T", "9 T J", "T J Q", "J Q K BJ"]
        hands[guard_seat] += " SJ"
        hands[(guard_seat + 1) % 5 if guard_seat != 1 else 2] += " 7"
        g = build("weihai", [h for h in hands], emperor_card=4, guard_card=guard_seat)
        seats = []
        while g.phase == "role":
            seats.append(g.current_player)
            do(g, g.current_player, NO if NO in g.legal_actions() else ACCEPT)
        return seats
    assert turns(1) == turns(2) == turns(3)


# --------------------------------------------------------------------------- lianzhong_simple (§3.4)


def test_lianzhong_simple_tribute_from_the_second_decliner_and_the_pile_goes_to_the_acceptor():
    hands = ["7 8 2", "8 9 T BJ", "9 T J SJ", "T J A", "J Q K"]
    g = build("lianzhong_simple", hands, emperor_card=1, guard_card=2)
    total = np.array(g.hands).sum(axis=0)
    do(g, 1, ABDICATE)  # h0's decline: no tribute
    assert g.pile == [0] * 12 and g.emperor_card_seat == 0
    do(g, 0, ABDICATE)  # the receiver declines: pays a 2 (his highest non-joker)
    assert g.pile[9] == 1 and g.hands[0][9] == 0
    do(g, 4, ABDICATE)  # no 2: pays the highest non-joker, K
    assert g.pile[7] == 1 and g.hands[4][7] == 0
    cards_conserved(g, total)
    do(g, 3, ACCEPT)
    assert g.emperor == 3 and g.pile == [0] * 12
    assert g.hands[3][9] == 1 and g.hands[3][7] == 1 and g.hands[3][11] == 1  # the pile and the emperor card
    cards_conserved(g, total)


def test_lianzhong_simple_void_deal_after_two_circles():
    hands = ["7 8 2", "8 9 T BJ", "9 T J SJ", "T J A", "J Q K"]
    g = build("lianzhong_simple", hands, emperor_card=1, guard_card=2)
    total = np.array(g.hands).sum(axis=0)
    for k in range(10):
        assert g.phase == "role"
        do(g, (1 - k) % 5, ABDICATE)
    assert g.is_over and g.result.end == "void" and g.result.scores == [0] * 5
    cards_conserved(g, total)


def test_lianzhong_simple_successful_rebellion_doubles():
    hands = ["7 7", "8", "SJ", "T J", "BJ"]
    g = build("lianzhong_simple", hands, emperor_card=4, guard_card=2)
    do(g, 4, ACCEPT)
    for s in (4, 0, 1, 2, 3):
        do(g, s, NO)
    for s, a in ((0, REBEL), (1, REBEL), (2, NO), (3, NO)):
        do(g, s, a)
    assert g.rebellion == "succeeded" and g.public_guard == 2
    play(g, 4, "BJ")
    for s in (0, 1, 2, 3):
        play(g, s, "pass")
    play(g, 0, "7")
    play(g, 1, "pass")
    play(g, 2, "SJ")
    assert g.is_over and g.result.scores == [-6, -6, 6, -6, 12]  # JJ 6/3/-3, doubled


# --------------------------------------------------------------------------- qingdao (§3.6, §4.6, §6.4)


def test_qingdao_h0_is_emperor_and_a_solo_may_surrender():
    hands = ["7 8", "8 9", "9 T", "T J", "J Q BJ SJ"]
    g = build("qingdao", hands, emperor_card=4, guard_card=4)
    assert g.current_player == 4 and options(g) == {"NO", "OPEN_SOLO", "SURRENDER"}
    do(g, 4, SURRENDER)
    assert g.is_over and g.result.end == "surrender" and g.result.scores == [1, 1, 1, 1, -4]


def test_qingdao_rebellion_is_a_declaration_and_four_out_ends_the_deal():
    hands = ["7", "8", "9 Q SJ", "T", "J J BJ"]
    g = build("qingdao", hands, emperor_card=4, guard_card=2)
    for s in (4, 0, 1, 2, 3):
        do(g, s, NO)
    for s, a in ((0, REBEL), (1, NO), (2, NO), (3, REBEL)):
        do(g, s, a)
    assert g.rebellion == "declared" and g.rebels == [0, 3] and g.public_guard == -1
    play(g, 4, "J J")
    play(g, 0, "pass")
    play(g, 1, "pass")
    play(g, 2, "Q SJ")  # reveals the guard (a joker rides with a rank: jokers alone are not a play here)
    assert g.public_guard == 2
    for s in (3, 4, 0, 1):
        play(g, s, "pass")
    play(g, 2, "9")  # out first
    assert not g.is_over
    assert options(g) >= {"pass", "APPLY_WIND"}  # the first answer to a final play may apply
    do(g, 3, APPLY_WIND)
    play(g, 4, "pass")
    play(g, 0, "pass")
    play(g, 1, "pass")
    assert g.current_player == 3 and g.top < 0  # catch the wind: 3 leads
    with pytest.raises(IllegalActionError):
        g.step(APPLY_WIND)
    play(g, 3, "T")  # out second
    for s in (4, 0, 1):
        play(g, s, "pass")
    play(g, 4, "BJ")  # out third
    for s in (0, 1):
        play(g, s, "pass")
    play(g, 0, "7")  # out fourth: four out ends the deal
    assert g.is_over and g.result.places == [4, 5, 1, 2, 3]
    # E 3rd (0) + G 1st (+4) = 4; rebels 2 - 2 - 4 = -4; team scores per seat
    assert g.result.scores == [-4, -4, 4, -4, 4] and g.result.points == [-2, -4, 4, 2, 0]


# --------------------------------------------------------------------------- every preset


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_random_games_end_with_consistent_results(preset):
    rules = get_rules(preset)
    rng = np.random.default_rng(7)
    ends = set()
    for seed in range(60):
        g = Game(rules, seed=seed)
        total = np.array(g.hands).sum(axis=0)
        steps = 0
        while not g.is_over:
            legal = g.legal_actions()
            assert legal.size > 0
            g.step(int(legal[rng.integers(legal.size)]))
            steps += 1
            assert steps < 2000
        if g.kinds.special:  # a call turns one card into SP: only the number of cards is kept
            assert sum(map(sum, g.hands)) + sum(g.total_played) + sum(g.pile) == total.sum()
        else:
            cards_conserved(g, total)
        r = g.result
        ends.add(r.end)
        if rules.scoring != "qingdao":
            assert sum(r.scores) == 0
        if r.end == "played":
            assert sorted(r.places) == [1, 2, 3, 4, 5]
            assert r.roles.count("emperor") + r.roles.count("solo") == 1
        assert Game.from_replay(g.to_replay()).result == r
    assert "played" in ends


# --------------------------------------------------------------------------- envs and leaks


@pytest.mark.parametrize("preset", sorted(set(PRESETS) - {"jj"}))
def test_pettingzoo_api_and_seed_tests_pass(preset):
    from pettingzoo.test import api_test, seed_test

    import baohuang_env

    api_test(baohuang_env.env(preset=preset), num_cycles=300)
    seed_test(lambda: baohuang_env.env(preset=preset), num_cycles=200)


@pytest.mark.parametrize("preset", sorted(set(PRESETS) - {"jj"}))
def test_gymnasium_env_plays_every_preset(preset):
    import gymnasium

    env = gymnasium.make("Baohuang-v0", preset=preset, opponents="random")
    for seed in range(3):
        obs, info = env.reset(seed=seed)
        done = False
        while not done:
            assert env.observation_space.contains(obs)
            legal = np.flatnonzero(info["action_mask"])
            obs, reward, terminated, truncated, info = env.step(int(legal[0]))
            done = terminated or truncated
        assert not truncated and reward == info["scores"][env.unwrapped.learner]


@pytest.mark.parametrize("preset", ["weihai", "lianzhong_simple", "qingdao"])
@pytest.mark.parametrize("seed", range(8))
def test_observation_and_turn_order_do_not_depend_on_hidden_cards_or_the_hidden_guard(preset, seed):
    """docs/rules.md §3.8 for the fixed-guard-card presets: two deals that differ only in what
    `seat` cannot see, played with the same public actions, ask the same seats and give
    `seat` the same observation until something that differs becomes public."""
    from baohuang_env.encoding import Encoder

    rules = get_rules(preset)
    enc = Encoder(rules)
    rng = np.random.default_rng(seed)
    base = Game(rules, seed=seed)
    seat = seed % NUM_SEATS
    hands_b, guard_b = hidden_variant(base, seat, rng)
    a = Game.from_deal(base.hands, base.emperor_card_seat, base.guard_card_seat, rules)
    b = Game.from_deal(hands_b, base.emperor_card_seat, guard_b, rules)
    compared = 0
    while not (a.is_over or b.is_over) and a.public_guard == b.public_guard:
        assert a.current_player == b.current_player and a.phase == b.phase
        np.testing.assert_array_equal(enc.encode(a, seat), enc.encode(b, seat))
        compared += 1
        mask_a, mask_b = a.legal_mask(), b.legal_mask()
        if a.current_player == seat:
            np.testing.assert_array_equal(mask_a, mask_b)
            common = np.flatnonzero(mask_a)
        else:
            common = np.flatnonzero(mask_a & mask_b)
            if common.size == 0:
                break
        # in the role phase answer what both deals allow, preferring "declare nothing"
        action = int(common[0]) if a.phase == "role" else int(rng.choice(common))
        a.step(action)
        b.step(action)
    assert compared > NUM_SEATS


# --------------------------------------------------------------------------- calling presets (§3.5, §3.7)


def suited(rules, hands: list[str]) -> np.ndarray:
    """(5, K, 4) counts from texts such as "K/3x3 7/0 BJ": rank/suit (suits 0..3 = ♣♦♥♠)."""
    kinds = card_kinds(rules)
    out = np.zeros((NUM_SEATS, kinds.num_kinds, 4), dtype=np.int64)
    for seat, text in enumerate(hands):
        for tok in text.split():
            tok, _, n = tok.partition("x")
            name, _, suit = tok.partition("/")
            out[seat, kinds.index("10" if name == "T" else name), int(suit or 0)] += int(n or 1)
    return out


def build_called(preset: str, hands: list[str], emperor_card: int, **flags) -> Game:
    rules = get_rules(preset, **flags)
    return Game.from_deal(None, emperor_card, -1, rules, suits=suited(rules, hands))


def call(game: Game, kind: str, suit: int = 0) -> int:
    return game.table.call_id(game.kinds.index(kind), suit)


C_HANDS = ["K/3x3 7/0 BJ", "8/1 9/2", "K/3 Q/0x2", "T/1 J/1", "A/0 2/0 SJ"]


def test_classic_call_a_triple_the_fourth_copy_holder_is_the_hidden_guard():
    g = build_called("lianzhong_classic", C_HANDS, emperor_card=0)
    assert g.current_player == 0 and options(g) == {"ABDICATE", "OPEN_SOLO", "CALL ♠K"}
    do(g, 0, call(g, "K", 3))
    assert (g.emperor, g.guard, g.solo) == (0, 2, "none") and g.public_guard == -1
    assert g.guard_card_seat == 2 and g.guard_card_kind == g.kinds.index("K") and g.suits is None
    # grabs in upper order (4, 3, 2, 1), then the guard round from lower(E)
    for s in (4, 3, 2, 1):
        do(g, s, NO)
    for s in (1, 2, 3, 4):
        assert options(g) == ({"NO", "OPEN_GUARD"} if s == 2 else {"NO"})
        do(g, s, NO)
    assert g.phase == "play" and g.current_player == 0
    play(g, 0, "7")
    play(g, 1, "pass")
    play(g, 2, "K")  # the guard plays his only K: the called copy, so he is known
    assert g.public_guard == 2


def test_classic_call_of_a_quad_is_a_hidden_solo_and_open_solo_needs_no_cards():
    hands = ["K/3x4 BJ", "8/1 9/2", "Q/0x2", "T/1 J/1", "A/0 2/0 SJ"]
    g = build_called("lianzhong_classic", hands, emperor_card=0)
    do(g, 0, call(g, "K", 3))
    assert (g.emperor, g.guard, g.solo, g.public_guard) == (0, 0, "hidden", -1)
    g = build_called("lianzhong_classic", hands, emperor_card=0)
    do(g, 0, OPEN_SOLO)
    assert (g.emperor, g.guard, g.solo, g.public_guard) == (0, 0, "open", 0)
    assert g.phase == "play"  # nobody may grab an open solo; no guard to ask


def test_classic_a_grab_against_a_quad_call_fails_and_reveals_the_hidden_solo():
    hands = ["K/3x4 BJ", "8/1 9/2", "Q/0x2", "T/1 J/1", "A/0 2/0 SJ"]
    g = build_called("lianzhong_classic", hands, emperor_card=0)
    do(g, 0, call(g, "K", 3))
    do(g, 4, NO)
    do(g, 3, GRAB)  # the hidden solo has priority (§9 #15): nobody else is asked, no guard round
    assert (g.emperor, g.guard, g.solo, g.grabbed, g.public_guard) == (0, 0, "hidden", False, 0)
    assert g.phase == "play" and g.current_player == 0
    event = next(e for e in g.log if e[0] == "grab_failed")
    assert event == ("grab_failed", 3, 0) and "hidden solo" in describe_event(g, event)


def test_classic_forced_round_and_void_deal():
    # after five abdications the first seat from h0 (upper order) with a triple and no quad must call
    hands = ["7/0 BJ", "8/1x3 K/0x4 2/3", "9/2x3", "T/1 9/2", "J/1 SJ"]
    g = build_called("lianzhong_classic", hands, emperor_card=0)
    for s in (0, 4, 3, 2, 1):
        do(g, s, ABDICATE)
    # h0 = 0: no triple; 4: none; 3: none; 2: a triple; (1 has a quad too: skipped)
    assert g.current_player == 2 and g.emperor_card_seat == 2
    assert options(g) == {"OPEN_SOLO", "CALL ♥9"}
    do(g, 2, call(g, "9", 2))
    assert g.emperor == 2
    hands = ["7/0 BJ", "8/1x2", "9/2x2", "T/1", "J/1 SJ"]
    g = build_called("lianzhong_classic", hands, emperor_card=0)
    for s in (0, 4, 3, 2, 1):
        do(g, s, ABDICATE)
    assert g.is_over and g.result.end == "void" and g.result.scores == [0] * 5


G_HANDS = ["K/3x3 7/0 BJ", "8/1 9/2 2/0", "K/3 Q/0x2 2/2", "T/1 J/1 A/2", "3/0 2/1 SJ"]


def test_generic216_the_fourth_copy_becomes_sp_and_beats_a_big_joker():
    g = build_called("generic216", G_HANDS, emperor_card=0)
    assert options(g) == {"ABDICATE", "CALL ♠K"}  # no open-solo declaration in generic216
    do(g, 0, call(g, "K", 3))
    sp, k = g.kinds.sp, g.kinds.index("K")
    assert (g.emperor, g.guard) == (0, 2) and g.hands[2][sp] == 1 and g.hands[2][k] == 0
    assert g.guard_card_kind == sp
    do(g, 0, NO)  # the solo step: not a solo, NO only
    for s in (4, 3, 2, 1):
        do(g, s, NO)
    for s in (1, 2, 3, 4):
        do(g, s, NO)
    play(g, 0, "7 BJ")
    play(g, 1, "pass")
    # SP beats BJ (§4.8): Q + SP beats 7 + BJ (jokers alone are no play here, §4.1)
    do(g, 2, g.table.action_id_of(g.kinds.index("Q"), 1, 0, 0, 1))
    assert g.public_guard == 2 and g.trick[1] == 2


def test_generic216_tribute_from_the_second_abdicator_and_grab_moves_the_emperor_card():
    g = build_called("generic216", G_HANDS, emperor_card=0)
    do(g, 0, ABDICATE)  # first: no tribute
    assert not any(g.pile)
    do(g, 4, ABDICATE)  # second: his highest non-joker, a 2
    assert g.pile[g.kinds.index("2")] == 1 and g.hands[4][g.kinds.index("2")] == 0
    do(g, 3, ABDICATE)  # third: an A
    assert g.pile[g.kinds.index("A")] == 1
    do(g, 2, ABDICATE)  # pays his 2 and keeps the ♠K
    do(g, 1, ABDICATE)
    # forced round from h0 = 0: seat 0 holds the ♠K triple
    assert g.current_player == 0 and options(g) == {"CALL ♠K"}
    do(g, 0, call(g, "K", 3))
    assert g.emperor == 0 and not any(g.pile) and g.hands[0][g.kinds.index("2")] >= 1
    do(g, 0, NO)
    do(g, 4, NO)
    do(g, 3, GRAB)  # 3 grabs: the marked BJ moves to him, SP reverts to the ♠K (§3.7 R2, §9 #42)
    sp, k, bj = g.kinds.sp, g.kinds.index("K"), g.kinds.bj
    assert (g.emperor, g.solo, g.grabbed) == (3, "open", True)
    assert g.hands[3][bj] == 1 and g.hands[0][bj] == 0 and g.emperor_card_seat == 3
    assert g.hands[2][sp] == 0 and g.hands[2][k] == 1
    assert g.phase == "play" and g.current_player == 3


def test_generic216_a_grab_against_a_hidden_solo_fails_and_the_marked_bj_stays():
    hands = ["K/3x4 BJ 7/0", "8/1 9/2", "Q/0x2", "T/1 J/1", "A/0 2/0 SJ"]
    g = build_called("generic216", hands, emperor_card=0)
    do(g, 0, call(g, "K", 3))  # a quad: a solo, open or hidden chosen next
    do(g, 0, NO)
    do(g, 4, GRAB)
    assert (g.emperor, g.solo, g.grabbed, g.public_guard) == (0, "hidden", False, 0)
    assert g.hands[0][g.kinds.bj] == 1 and g.hands[4][g.kinds.bj] == 0 and g.emperor_card_seat == 0
    assert g.phase == "play" and g.current_player == 0


def test_generic216_forced_call_applies_even_with_a_quad():
    hands = ["7/0 BJ", "8/1x3 K/0x4 2/3", "9/2x2", "T/1", "J/1 SJ 8/1"]
    g = build_called("generic216", hands, emperor_card=0)
    for s in (0, 4, 3, 2, 1):
        do(g, s, ABDICATE)
    assert g.current_player == 1 and options(g) == {"CALL ♦8"}  # 003's literal "has a triple"


# --------------------------------------------------------------------------- observation slices of the presets


def test_preset_slices_show_public_role_facts_and_my_own_groups():
    from baohuang_env.encoding import Encoder

    g = build_called("generic216", G_HANDS, emperor_card=0)
    enc = Encoder(g.rules)
    o = enc.decode(enc.encode(g, 0))
    k_spade = g.table.calls.index((g.kinds.index("K"), 3))
    assert o["my_groups"][k_spade] == 0.75 and o["my_groups"].sum() == pytest.approx(0.75 + 0.25 + 0.25)  # ♠Kx3, ♣7, BJ
    assert not o["called"].any() and not o["pile"].any()
    do(g, 0, ABDICATE)
    do(g, 4, ABDICATE)  # pays a 2 into the pile: public
    o = enc.decode(enc.encode(g, 1))
    assert o["pile"][g.kinds.index("2")] == pytest.approx(1 / 16)
    do(g, 3, ABDICATE)
    do(g, 2, ABDICATE)
    do(g, 1, ABDICATE)
    do(g, 0, call(g, "K", 3))
    for seat in range(NUM_SEATS):
        o = enc.decode(enc.encode(g, seat))
        assert o["called"][k_spade] == 1 and o["called"].sum() == 1
        assert not o["my_groups"].any()  # suits no longer matter
    # rebels are public, relative to the observer; a successful rebellion is flagged
    g = build("weihai", w_hands(2), emperor_card=4, guard_card=2)
    enc = Encoder(g.rules)
    weihai_to_rebellion(g)
    for s, a in ((0, REBEL), (1, REBEL), (2, NO), (3, NO)):
        do(g, s, a)
    o = enc.decode(enc.encode(g, 3))  # from seat 3, seat 0 is relative 2 and seat 1 relative 3
    assert o["rebels"].tolist() == [0, 0, 1, 1, 0] and o["rebellion_succeeded"][0] == 1
    assert o["known_guard"].tolist() == [0, 0, 0, 0, 1]  # the revealed guard, seat 2 = relative 4


def test_observations_stay_in_the_unit_box_through_two_circles_of_abdications():
    """lianzhong_simple allows ten abdications: the declines slice must stay within [0, 1]."""
    from baohuang_env.encoding import Encoder

    hands = ["7 8 2", "8 9 T BJ", "9 T J SJ", "T J A", "J Q K"]
    g = build("lianzhong_simple", hands, emperor_card=1, guard_card=2)
    enc = Encoder(g.rules)
    seen = []
    for k in range(9):
        do(g, (1 - k) % 5, ABDICATE)
        o = enc.encode(g, 0)
        assert o.min() >= 0.0 and o.max() <= 1.0
        seen.append(float(enc.decode(o)["declines"][0]))
    assert seen == pytest.approx([(k + 1) / 10 for k in range(9)])
