"""Hand-built scenarios for each rule of the jj preset (docs/rules.md §2-§6), with `Game.from_deal`.

Every expected value below is worked out by hand from docs/rules.md; the comments show how.
Seats are 0..4 in play order; upper(i) = i - 1 (mod 5). Hands are written as card names.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from baohuang_env import DECISIONS, FIRST_PLAY, PASS, Game, IllegalActionError, action_table, get_rules

from helpers import hand as counts
from helpers import play_id

RULES = get_rules("jj")
TABLE = action_table(RULES)
NAMES = ["6", "7", "8", "9", "10", "J", "Q", "K", "A", "2", "SJ", "BJ"]
SJ, BJ = 10, 11
ACCEPT, ABDICATE, NO, OPEN_SOLO, OPEN_GUARD = (
    1 + DECISIONS.index(d) for d in ("ACCEPT", "ABDICATE", "NO", "OPEN_SOLO", "OPEN_GUARD"))




def new_game(hands: list[str], emperor_card: int, guard_card: int, rules=RULES) -> Game:
    return Game.from_deal([counts(h) for h in hands], emperor_card, guard_card, rules)


def do(game: Game, seat: int, action: int | str) -> None:
    """Step `action` (an id, or a play in card names, or 'pass'), asserting whose turn it is."""
    assert game.current_player == seat, (game.current_player, seat)
    if isinstance(action, str):
        action = PASS if action == "pass" else play_id(action)
    game.step(action)


def legal(game: Game) -> set:
    """The legal actions now, as 'pass', decision names, or plays in card names."""
    out = set()
    for a in game.legal_actions().tolist():
        if a == PASS:
            out.add("pass")
        elif a < FIRST_PLAY:
            out.add(DECISIONS[a - 1])
        else:
            p = TABLE.play(a)
            out.add(" ".join([p.rank] * p.n + ["SJ"] * p.small + ["BJ"] * p.big))
    return out


def roles(game: Game, emperor: int, answers: dict[int, int] | None = None) -> list[int]:
    """Accept at once, then answer the declaration round (NO unless `answers` says otherwise).
    Returns the seats asked in the declaration round."""
    do(game, game.current_player, ACCEPT)
    asked = []
    for _ in range(5):
        seat = game.current_player
        asked.append(seat)
        do(game, seat, (answers or {}).get(seat, NO))
    assert game.phase == "play" and game.current_player == emperor
    return asked


def hands_now(game: Game) -> list[list[int]]:
    return [game.hand(s).tolist() for s in range(5)]


def snapshot(game: Game):
    return (
        json.dumps(game.to_replay(), sort_keys=True), hands_now(game), game.current_player, game.phase,
        game.trick, game.legal_mask().tolist(), list(game.log), game.is_over, game.public_guard,
    )


def finish_with_first_legal(game: Game) -> None:
    """Play on with the first legal action: accept, answer NO, pass when following, and lead
    the lowest play (the default answers of docs/rules.md §7)."""
    while not game.is_over:
        game.step(int(game.legal_actions()[0]))


# --------------------------------------------------------------------------- role phase


def test_abdication_moves_the_emperor_card_to_the_upper_seat():
    hands = ["7 8", "9 10", "J Q BJ", "K A SJ", "2 2"]
    game = new_game(hands, emperor_card=2, guard_card=3)
    before = hands_now(game)
    assert game.phase == "role" and game.current_player == 2
    assert legal(game) == {"ACCEPT", "ABDICATE"}
    do(game, 2, ABDICATE)
    # the marked BJ went from seat 2 to upper(2) = 1: one card fewer and one more
    after = hands_now(game)
    assert after[2][BJ] == before[2][BJ] - 1 and after[1][BJ] == before[1][BJ] + 1
    assert [sum(h) for h in after] == [2, 3, 2, 3, 2]
    assert [after[s] for s in (0, 3, 4)] == [before[s] for s in (0, 3, 4)]
    assert game.current_player == 1 and legal(game) == {"ACCEPT", "ABDICATE"}
    do(game, 1, ACCEPT)
    # the declaration round starts at the new emperor, seat 1
    asked = []
    while game.phase == "role":
        asked.append(game.current_player)
        assert legal(game) == ({"NO", "OPEN_GUARD"} if game.current_player == 3 else {"NO"})
        do(game, game.current_player, NO)
    assert asked == [1, 2, 3, 4, 0]
    assert game.current_player == 1  # the emperor leads (the JJ page)
    assert game.trick is None
    finish_with_first_legal(game)
    assert game.result.emperor == 1 and game.result.guard == 3 and game.result.solo == "none"
    assert game.result.roles == ["rebel", "emperor", "rebel", "guard", "rebel"]


def test_five_declines_bring_the_card_back_to_the_first_holder():
    hands = ["7 8", "9 10", "J Q BJ", "K A SJ", "2 2"]
    game = new_game(hands, emperor_card=2, guard_card=3)
    before = hands_now(game)
    asked = []
    for k in range(5):
        asked.append(game.current_player)
        assert legal(game) == {"ACCEPT", "ABDICATE"}
        do(game, game.current_player, ABDICATE)
        holder = (2 - k - 1) % 5  # the card moves one seat up per decline
        assert game.hand(holder)[BJ] == 1
        assert sum(game.hand(s)[BJ] for s in range(5)) == 1
    assert asked == [2, 1, 0, 4, 3]
    # after the fifth decline seat 2 (h0) is emperor by default, with no further decision
    assert hands_now(game) == before
    assert game.phase == "role" and game.current_player == 2 and legal(game) == {"NO"}
    asked = []
    while game.phase == "role":
        asked.append(game.current_player)
        do(game, game.current_player, NO)
    assert asked == [2, 3, 4, 0, 1]
    assert game.current_player == 2
    finish_with_first_legal(game)
    assert game.result.emperor == 2


def _declaration_turns(guard_seat: int, abdications: int) -> tuple[list[int], list[set]]:
    """Seats asked (and their options) for a fixed public history, with the guard card at
    `guard_seat`. Hands differ only in where the SJ is, so all hand sizes are equal."""
    hands = []
    for seat in range(5):
        base = ["7", "8", "9", "10", "J"][seat] + " Q"
        hands.append(base + (" SJ" if seat == guard_seat else " K") + (" BJ" if seat == 3 else ""))
    game = new_game(hands, emperor_card=3, guard_card=guard_seat)
    seats, options = [], []
    for _ in range(abdications):
        seats.append(game.current_player)
        options.append(legal(game))
        do(game, game.current_player, ABDICATE)
    seats.append(game.current_player)
    options.append(legal(game))
    do(game, game.current_player, ACCEPT)
    while game.phase == "role":
        seats.append(game.current_player)
        options.append(legal(game))
        do(game, game.current_player, NO)
    seats.append(game.current_player)  # the first leader
    return seats, options


@pytest.mark.parametrize("abdications", [0, 2, 4])
def test_declaration_round_turn_order_does_not_depend_on_the_guard(abdications):
    # docs/rules.md §3.8: for the same public history, the seats asked are the same whoever holds
    # the guard card (including the emperor himself: a hidden solo)
    emperor = (3 - abdications) % 5
    runs = {g: _declaration_turns(g, abdications) for g in range(5)}
    expected = [(3 - k) % 5 for k in range(abdications + 1)] + [(emperor + k) % 5 for k in range(5)] + [emperor]
    for g, (seats, options) in runs.items():
        assert seats == expected, g
        # only the guard card holder sees an OPEN_* option, in his own mask
        decl = options[abdications + 1:]
        for seat, opts in zip(seats[abdications + 1:-1], decl, strict=True):
            if seat != g:
                assert opts == {"NO"}
            elif g == emperor:
                assert opts == {"NO", "OPEN_SOLO"}
            else:
                assert opts == {"NO", "OPEN_GUARD"}


# --------------------------------------------------------------------------- scores


@pytest.mark.parametrize(("open_guard", "multiplier"), [(False, 2), (True, 2), (True, 1)])
def test_emperor_and_guard_out_first_and_open_guard_doubles(open_guard, multiplier):
    rules = get_rules("jj", open_guard_multiplier=multiplier)
    game = new_game(["BJ", "SJ", "7 7", "8", "9 9 9"], emperor_card=0, guard_card=1, rules=rules)
    roles(game, 0, {1: OPEN_GUARD} if open_guard else None)
    assert game.public_guard == (1 if open_guard else -1)
    do(game, 0, "BJ")  # E goes out first; nobody can beat a BJ
    for seat in (1, 2, 3, 4):
        assert legal(game) == {"pass"}
        do(game, seat, "pass")
    # the finisher's play stood: catch-the-wind, next_active(0) = 1 leads
    assert game.trick is None
    do(game, 1, "SJ")  # G goes out second: E and G both out, the deal ends
    assert game.is_over and game.phase == "over"
    r = game.result
    # remaining places by cards held: seat 3 (1 card), seat 2 (2), seat 4 (3)
    assert r.places == [1, 2, 4, 3, 5]
    # g = 6 - (1 + 2) = 3: E = 2g = 6, G = g = 3, rebels -g = -3; open guard x2
    m = multiplier if open_guard else 1
    assert r.scores == [6 * m, 3 * m, -3 * m, -3 * m, -3 * m]
    assert r.open_guard is open_guard and r.solo == "none"
    assert r.roles == ["emperor", "guard", "rebel", "rebel", "rebel"]
    assert sum(r.scores) == 0


def test_three_rebels_out_ends_the_deal():
    # E = 0, G = 4. The three rebels go out first; E and G keep cards.
    game = new_game(["7 BJ", "8", "9", "10", "J SJ"], emperor_card=0, guard_card=4)
    roles(game, 0)
    do(game, 0, "7")
    do(game, 1, "8")  # out, place 1
    do(game, 2, "9")  # out, place 2
    do(game, 3, "10")  # out, place 3: all three rebels out (docs/rules.md §5.2)
    assert game.is_over
    r = game.result
    # E holds 1 card, G 2 cards: E 4th, G 5th; g = 6 - 9 = -3: E -6, G -3, rebels +3
    assert r.places == [4, 1, 2, 3, 5]
    assert r.scores == [-6, 3, 3, 3, -3]


def test_open_solo_emperor_first():
    game = new_game(["SJ BJ", "7 7", "8", "9 9 9", "10"], emperor_card=0, guard_card=0)
    asked = []
    do(game, 0, ACCEPT)
    while game.phase == "role":
        asked.append(game.current_player)
        assert legal(game) == ({"NO", "OPEN_SOLO"} if game.current_player == 0 else {"NO"})
        do(game, game.current_player, OPEN_SOLO if game.current_player == 0 else NO)
    assert asked == [0, 1, 2, 3, 4]
    assert game.public_guard == 0  # the open solo is public
    do(game, 0, "SJ BJ")  # E out first: an open solo ends at the first player out
    assert game.is_over
    r = game.result
    # others by cards held, ties in play order from seat 1: seats 2, 4 (1 card), 1 (2), 3 (3)
    assert r.places == [1, 4, 2, 5, 3]
    assert r.scores == [24, -6, -6, -6, -6]
    assert r.solo == "open" and r.emperor == r.guard == 0
    assert r.roles == ["solo", "rebel", "rebel", "rebel", "rebel"]


def test_open_solo_ends_when_a_rebel_goes_out_first():
    game = new_game(["7 SJ BJ", "8", "9 9", "10 10", "J J"], emperor_card=0, guard_card=0)
    roles(game, 0, {0: OPEN_SOLO})
    do(game, 0, "7")
    do(game, 1, "8")  # a rebel out first: the open solo has lost (docs/rules.md §5.2)
    assert game.is_over
    r = game.result
    # everyone else holds 2 cards: ties in play order from seat 2 (whose turn it would be)
    assert r.places == [5, 1, 2, 3, 4]
    assert r.scores == [-24, 6, 6, 6, 6]


def test_hidden_solo_emperor_first():
    game = new_game(["SJ BJ", "7 7", "8", "9 9 9", "10"], emperor_card=0, guard_card=0)
    roles(game, 0)  # NO = hidden solo
    assert game.public_guard == -1
    do(game, 0, "SJ BJ")
    assert game.is_over
    r = game.result
    assert r.solo == "hidden" and r.roles[0] == "solo"
    assert r.scores == [12, -3, -3, -3, -3]


def test_hidden_solo_emperor_second_scores_zero():
    game = new_game(["7 SJ BJ", "8", "9 9", "10 10", "J J"], emperor_card=0, guard_card=0)
    roles(game, 0)
    do(game, 0, "7")
    do(game, 1, "8")  # a rebel out first: a hidden solo goes on (only two rebels end it)
    assert not game.is_over
    for seat in (2, 3, 4):
        do(game, seat, "pass")
    do(game, 0, "BJ")  # beats the 8
    # seat 1 has finished and is skipped from now on
    for seat in (2, 3, 4):
        assert legal(game) == {"pass"}
        do(game, seat, "pass")
    assert game.current_player == 0 and game.trick is None  # E won the trick
    do(game, 0, "SJ")  # E out second: the deal ends (docs/rules.md §9 #31)
    assert game.is_over
    r = game.result
    assert r.places == [2, 1, 3, 4, 5]
    assert r.scores == [0, 0, 0, 0, 0]


def test_hidden_solo_two_rebels_out_first():
    game = new_game(["7 SJ BJ", "8", "9", "K K", "A"], emperor_card=0, guard_card=0)
    roles(game, 0)
    do(game, 0, "7")
    do(game, 1, "8")  # one rebel out
    do(game, 2, "9")  # two rebels out: the hidden solo has lost
    assert game.is_over
    r = game.result
    # left: seat 4 (1 card) 3rd; seats 3 and 0 (2 cards each) in play order from seat 3
    assert r.places == [5, 1, 2, 4, 3]
    assert r.scores == [-12, 3, 3, 3, 3]


# --------------------------------------------------------------------------- play phase


def test_leader_must_play_and_may_lead_any_legal_play():
    game = new_game(["7 7 SJ BJ", "8", "9", "10", "J SJ"], emperor_card=0, guard_card=4)
    roles(game, 0)
    assert legal(game) == {
        "7", "7 SJ", "7 BJ", "7 SJ BJ", "7 7", "7 7 SJ", "7 7 BJ", "7 7 SJ BJ", "SJ", "BJ", "SJ BJ"}
    before = snapshot(game)
    with pytest.raises(IllegalActionError) as err:
        game.step(PASS)
    assert "leader must play" in str(err.value)
    assert snapshot(game) == before


def _follow_game(lead: str, follower: str) -> Game:
    """Seat 0 (E) leads `lead`; seat 1 holds `follower`; the guard card is with seat 3."""
    game = new_game([lead + " Q BJ", follower, "K", "K SJ", "A"], emperor_card=0, guard_card=3)
    roles(game, 0)
    do(game, 0, lead)
    return game


@pytest.mark.parametrize(
    ("lead", "expected"),
    [
        # two cards, each strictly greater position by position (docs/rules.md §4.3)
        ("8 8", {"pass", "9 9", "9 SJ", "9 BJ", "SJ BJ"}),
        # a small joker in the previous play needs a big joker: SJ,9 vs SJ,8 fails at SJ
        ("8 SJ", {"pass", "9 BJ", "SJ BJ"}),
        # a play with a big joker is never beaten
        ("8 BJ", {"pass"}),
        # singles: 7 < 8, so only 9, SJ, BJ
        ("8", {"pass", "9", "SJ", "BJ"}),
        # three cards: 777 fails, 999 is fine; jokers fill in
        ("8 8 8", {"pass", "9 9 9", "9 9 SJ", "9 9 BJ", "9 SJ BJ"}),
    ],
)
def test_follow_rule(lead, expected):
    # the follower's hand: 7 7 9 9 9 SJ BJ
    game = _follow_game(lead, "7 7 9 9 9 SJ BJ")
    assert game.trick == (TABLE.play(play_id(lead)), 0)
    assert legal(game) == expected
    for text in sorted(expected - {"pass"}):
        g = game.copy()
        do(g, 1, text)
        assert g.trick == (TABLE.play(play_id(text)), 1)


@pytest.mark.parametrize("text", ["7 7", "7 SJ", "7 BJ", "9", "9 9 9"])
def test_play_that_does_not_beat_is_rejected(text):
    game = _follow_game("8 8", "7 7 9 9 9 SJ BJ")
    before = snapshot(game)
    with pytest.raises(IllegalActionError) as err:
        do(game, 1, text)
    assert err.value.seat == 1 and err.value.phase == "play" and err.value.action == play_id(text)
    assert "does not beat" in err.value.reason
    assert snapshot(game) == before


def test_pass_and_reenter_in_the_same_trick_then_trick_ends():
    game = new_game(["7 7 K BJ", "8 Q", "10 J", "A SJ", "2 2"], emperor_card=0, guard_card=3)
    roles(game, 0)
    do(game, 0, "7")
    assert legal(game) == {"pass", "8", "Q"}
    do(game, 1, "pass")
    do(game, 2, "10")
    do(game, 3, "pass")
    do(game, 4, "pass")
    do(game, 0, "pass")
    # three passes since the 10: the trick is not over, seat 1 may come back in (docs/rules.md §9 #37)
    assert game.trick == (TABLE.play(play_id("10")), 2)
    assert "Q" in legal(game) and "pass" in legal(game)
    do(game, 1, "Q")
    for seat in (2, 3, 4, 0):
        do(game, seat, "pass")
    # every other active player passed since the Q: seat 1 leads a new trick
    assert game.trick is None and game.current_player == 1
    assert "pass" not in legal(game)
    assert legal(game) == {"8"}


def test_trick_needs_every_other_player_to_pass_in_a_row():
    game = new_game(["7 7 K BJ", "8 Q", "10 J", "A SJ", "2 2"], emperor_card=0, guard_card=3)
    roles(game, 0)
    do(game, 0, "7")
    do(game, 1, "8")
    do(game, 2, "pass")
    do(game, 3, "pass")
    do(game, 4, "pass")
    assert game.trick == (TABLE.play(play_id("8")), 1)  # E has not passed yet
    do(game, 0, "BJ")
    for seat in (1, 2, 3, 4):
        do(game, seat, "pass")
    assert game.trick is None and game.current_player == 0


def test_hold_the_sixes():
    game = new_game(["6 6 7 BJ", "7 7 9", "6 6 6", "8 SJ", "10 10 J"], emperor_card=0, guard_card=3)
    roles(game, 0)
    # E may not play a 6 while he holds anything else (docs/rules.md §4.5)
    assert legal(game) == {"7", "7 BJ", "BJ"}
    before = snapshot(game)
    with pytest.raises(IllegalActionError, match="hold-the-sixes"):
        do(game, 0, "6 6")
    assert snapshot(game) == before
    do(game, 0, "7")
    assert legal(game) == {"pass", "9"}
    do(game, 1, "pass")
    assert legal(game) == {"pass"}  # only 6s: a 6 never beats anything, so he must pass
    do(game, 2, "pass")
    do(game, 3, "pass")
    do(game, 4, "pass")
    # E holds 6 6 BJ: the joker must go before the 6s, and 6s never carry jokers
    assert legal(game) == {"BJ"}
    with pytest.raises(IllegalActionError, match="hold-the-sixes"):
        do(game, 0, "6 6 BJ")
    do(game, 0, "BJ")
    for seat in (1, 2, 3, 4):
        do(game, seat, "pass")
    assert legal(game) == {"6 6"}  # only 6s left: exactly one legal play, all of them
    do(game, 0, "6 6")  # E out, place 1
    # others may beat the final 6s like any play
    assert legal(game) == {"pass", "7 7"}
    do(game, 1, "7 7")
    assert legal(game) == {"pass"}
    do(game, 2, "pass")
    do(game, 3, "pass")
    do(game, 4, "10 10")
    do(game, 1, "pass")
    do(game, 2, "pass")
    do(game, 3, "pass")
    do(game, 4, "J")  # seat 4 out, place 2
    do(game, 1, "pass")
    do(game, 2, "pass")
    do(game, 3, "pass")
    # catch-the-wind: next_active(4) skips the finished seat 0 -> seat 1
    assert game.trick is None and game.current_player == 1
    do(game, 1, "9")  # seat 1 out, place 3
    do(game, 2, "pass")
    do(game, 3, "pass")
    # the stuck 6s get the lead by catch-the-wind (docs/rules.md §4.5 point 3 (ii))
    assert game.current_player == 2 and game.trick is None
    assert legal(game) == {"6 6 6"}
    do(game, 2, "6 6 6")  # place 4: all three rebels (1, 2, 4) are out
    assert game.is_over
    r = game.result
    assert r.places == [1, 3, 4, 5, 2]
    # g = 6 - (1 + 5) = 0
    assert r.scores == [0, 0, 0, 0, 0]


def test_six_hold_off_allows_sixes_anywhere():
    rules = get_rules("jj", hold_sixes=False)
    game = new_game(["6 6 7 BJ", "7 7 9", "6 6 6", "8 SJ", "10 10 J"], emperor_card=0, guard_card=3, rules=rules)
    roles(game, 0)
    assert {"6", "6 6", "6 BJ", "6 6 BJ", "7", "BJ"} <= legal(game)


def test_catch_the_wind_skips_finished_seats():
    game = new_game(["7 BJ", "8", "9 10", "J SJ", "Q Q"], emperor_card=0, guard_card=3)
    roles(game, 0)
    do(game, 0, "7")
    do(game, 1, "8")  # out, place 1
    seen = []
    for seat in (2, 3, 4, 0):
        seen.append(game.current_player)
        do(game, seat, "pass")
    # the finisher's play stood after every active player passed: next_active(1) = 2 leads
    assert game.trick is None and game.current_player == 2
    assert "pass" not in legal(game)
    do(game, 2, "9")
    do(game, 3, "pass")
    do(game, 4, "pass")
    do(game, 0, "BJ")  # E out, place 2; the deal goes on (G still holds cards)
    assert not game.is_over
    for seat in (2, 3, 4):
        seen.append(game.current_player)
        assert legal(game) == {"pass"}
        do(game, seat, "pass")
    # next_active(0): seat 1 has finished, so seat 2 leads
    assert game.trick is None and game.current_player == 2
    assert 1 not in seen and 0 not in seen[4:]
    do(game, 2, "10")  # out, place 3
    do(game, 3, "pass")
    do(game, 4, "pass")
    assert game.current_player == 3 and game.trick is None  # next_active(2) = 3
    do(game, 3, "J SJ")  # G out, place 4: E and G are both out
    assert game.is_over
    r = game.result
    assert r.places == [2, 1, 3, 4, 5]
    # g = 6 - (2 + 4) = 0
    assert r.scores == [0, 0, 0, 0, 0]


def test_finished_players_are_never_asked_again():
    game = new_game(["7 BJ", "8", "9 10", "J SJ", "Q Q"], emperor_card=0, guard_card=3)
    roles(game, 0)
    do(game, 0, "7")
    do(game, 1, "8")
    turns = []
    while not game.is_over:
        turns.append(game.current_player)
        finish_seats = [s for s in range(5) if game.hand(s).sum() == 0]
        assert game.current_player not in finish_seats
        game.step(int(game.legal_actions()[0]))
    assert 1 not in turns


def test_playing_the_marked_guard_card_reveals_the_guard():
    # G (seat 3) holds two SJs; the unmarked one goes first (docs/rules.md §4.9)
    game = new_game(["7 7 BJ", "8 8", "9 9", "J SJ SJ", "Q Q"], emperor_card=0, guard_card=3)
    roles(game, 0)
    assert game.public_guard == -1
    do(game, 0, "7")
    do(game, 1, "pass")
    do(game, 2, "pass")
    do(game, 3, "SJ")
    assert game.public_guard == -1  # an unmarked small joker
    do(game, 4, "pass")
    do(game, 0, "BJ")
    for seat in (1, 2, 3, 4):
        do(game, seat, "pass")
    do(game, 0, "7")  # E out, place 1
    do(game, 1, "pass")
    do(game, 2, "pass")
    do(game, 3, "SJ")  # the last small joker: the marked guard card
    assert game.public_guard == 3
    assert not game.is_over


def test_emperor_card_played_by_the_emperor_does_not_reveal_a_guard():
    game = new_game(["7 BJ", "8 8", "9 9", "J SJ", "Q Q"], emperor_card=0, guard_card=3)
    roles(game, 0)
    do(game, 0, "BJ")
    assert game.public_guard == -1


# --------------------------------------------------------------------------- errors


def test_an_illegal_action_error_pickles_whole_so_a_worker_process_can_send_it_back():
    import pickle

    game = new_game(["7 8 BJ", "9 10", "J Q", "K A SJ", "2 2"], emperor_card=0, guard_card=3)
    with pytest.raises(IllegalActionError) as err:
        game.step(PASS)
    err.value.row = 7  # the batched engine adds the row
    back = pickle.loads(pickle.dumps(err.value))
    assert type(back) is IllegalActionError and str(back) == str(err.value)
    assert (back.seat, back.phase, back.action, back.reason, back.row) == (0, "role", PASS, err.value.reason, 7)


def test_illegal_action_error_names_seat_phase_action_reason_and_changes_nothing():
    game = new_game(["7 8 BJ", "9 10", "J Q", "K A SJ", "2 2"], emperor_card=0, guard_card=3)
    # role phase: PASS is not a role decision
    before = snapshot(game)
    with pytest.raises(IllegalActionError) as err:
        game.step(PASS)
    e = err.value
    assert (e.seat, e.phase, e.action) == (0, "role", PASS)
    assert "seat 0" in str(e) and "role" in str(e) and "ACCEPT" in e.reason
    assert snapshot(game) == before
    # the guard's option is not offered to anyone else
    roles_before = snapshot(game)
    do(game, 0, ACCEPT)
    with pytest.raises(IllegalActionError) as err:
        game.step(OPEN_GUARD)
    assert err.value.seat == 0 and err.value.phase == "role"
    do(game, 0, NO)
    do(game, 1, NO)
    do(game, 2, NO)
    do(game, 3, NO)
    do(game, 4, NO)
    assert roles_before != snapshot(game)
    # play phase
    cases = [
        (PASS, "leader must play"),
        (play_id("9"), "not in the hand"),
        (play_id("7 7"), "not in the hand"),
        (ACCEPT, "only pass or a play"),
        (TABLE.num_actions, "only pass or a play"),
        (-1, "only pass or a play"),
    ]
    for action, reason in cases:
        before = snapshot(game)
        with pytest.raises(IllegalActionError) as err:
            game.step(action)
        e = err.value
        assert e.seat == 0 and e.phase == "play" and e.action == action
        assert reason in e.reason
        assert "seat 0" in str(e) and "play" in str(e) and str(action) in str(e) and reason in str(e)
        assert snapshot(game) == before


def test_no_action_after_the_game_is_over():
    game = new_game(["SJ BJ", "7 7", "8", "9 9 9", "10"], emperor_card=0, guard_card=0)
    roles(game, 0)
    do(game, 0, "SJ BJ")
    assert game.is_over
    before = snapshot(game)
    with pytest.raises(IllegalActionError, match="over"):
        game.step(PASS)
    assert snapshot(game) == before


def test_from_deal_rejects_impossible_deals():
    ok = [counts(h) for h in ["7 BJ", "8", "9", "10", "J SJ"]]
    Game.from_deal(ok, 0, 4)
    with pytest.raises(ValueError):
        Game.from_deal(ok, 1, 4)  # seat 1 has no BJ
    with pytest.raises(ValueError):
        Game.from_deal(ok, 0, 3)  # seat 3 has no SJ
    empty = [list(h) for h in ok]
    empty[2] = [0] * 12
    with pytest.raises(ValueError):
        Game.from_deal(empty, 0, 4)
    too_many = [list(h) for h in ok]
    too_many[1][SJ] = 4  # 5 SJs in all
    with pytest.raises(ValueError):
        Game.from_deal(too_many, 0, 4)
    with pytest.raises(ValueError):
        Game.from_deal(ok[:4], 0, 4)


# --------------------------------------------------------------------------- replays and copies


def _random_game(seed: int, policy_seed: int, stop_after: int | None = None) -> Game:
    game = Game(RULES, seed=seed)
    rng = np.random.default_rng(policy_seed)
    while not game.is_over and (stop_after is None or len(game.to_replay()["actions"]) < stop_after):
        acts = game.legal_actions()
        game.step(int(acts[rng.integers(len(acts))]))
    return game


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_replay_json_round_trip_reproduces_the_game(seed):
    game = _random_game(seed, policy_seed=100 + seed)
    text = json.dumps(game.to_replay())
    for record in (json.loads(text), text):
        again = Game.from_replay(record)
        assert again.result == game.result
        assert again.log == game.log
        assert hands_now(again) == hands_now(game)
    assert sum(game.result.scores) == 0


def test_replay_of_a_hand_built_deal_and_of_an_unfinished_game():
    game = new_game(["7 BJ", "8", "9 10", "J SJ", "Q Q"], emperor_card=0, guard_card=3)
    roles(game, 0, {3: OPEN_GUARD})
    do(game, 0, "7")
    do(game, 1, "8")
    mid = Game.from_replay(json.loads(json.dumps(game.to_replay())))
    assert snapshot(mid) == snapshot(game)
    finish_with_first_legal(game)
    done = Game.from_replay(json.dumps(game.to_replay()))
    assert done.result == game.result and done.result.open_guard


def test_replay_with_a_wrong_result_is_rejected():
    game = _random_game(4, policy_seed=4)
    rec = game.to_replay()
    rec["result"]["scores"] = [s + 1 for s in rec["result"]["scores"]]
    with pytest.raises(ValueError):
        Game.from_replay(rec)


def test_copy_is_independent():
    game = _random_game(5, policy_seed=5, stop_after=40)
    assert not game.is_over
    before = snapshot(game)
    twin = game.copy()
    assert snapshot(twin) == before
    rng = np.random.default_rng(0)
    for _ in range(30):
        acts = twin.legal_actions()
        twin.step(int(acts[rng.integers(len(acts))]))
    assert snapshot(game) == before
    # and the other way round
    twin_state = snapshot(twin)
    for _ in range(30):
        acts = game.legal_actions()
        game.step(int(acts[rng.integers(len(acts))]))
    assert snapshot(twin) == twin_state


def test_same_seed_and_actions_give_the_same_game():
    a = _random_game(9, policy_seed=1)
    b = Game(RULES, seed=9)
    for action in a.to_replay()["actions"]:
        b.step(action)
    assert b.result == a.result and b.log == a.log


def test_from_replay_rejects_other_formats_and_versions():
    rec = _random_game(6, policy_seed=6).to_replay()
    with pytest.raises(ValueError, match="format"):
        Game.from_replay({**rec, "format": "something-else"})
    with pytest.raises(ValueError, match="version"):
        Game.from_replay({**rec, "version": 999})


@pytest.mark.parametrize("preset", ["qingdao", "weihai", "generic216", "lianzhong_classic"])
def test_a_replay_recorded_before_its_rules_changed_is_refused_naming_the_change(preset):
    # records without "rules_revision" are revision 0; these presets changed at revision 1
    from baohuang_env.rules import RULE_CHANGES

    rec = Game(get_rules(preset), seed=3).to_replay()
    assert rec["rules_revision"] >= 1
    assert Game.from_replay(rec).actions == []
    old = {k: v for k, v in rec.items() if k != "rules_revision"}
    with pytest.raises(ValueError, match="revision 0") as err:
        Game.from_replay(old)
    changed = [c.rule for c in RULE_CHANGES if preset in c.presets]
    assert changed and all(rule in str(err.value) for rule in changed)
    with pytest.raises(ValueError, match="newer"):
        Game.from_replay({**rec, "rules_revision": 999})
    with pytest.raises(ValueError, match="non-negative integer"):
        Game.from_replay({**rec, "rules_revision": "1"})


@pytest.mark.parametrize("preset", ["jj", "lianzhong_simple"])
def test_a_replay_of_a_preset_no_revision_changed_still_replays_without_a_revision(preset):
    game, rng = Game(get_rules(preset), seed=3), np.random.default_rng(3)
    while not game.is_over:
        game.step(int(rng.choice(game.legal_actions())))
    rec = game.to_replay()
    old = {k: v for k, v in rec.items() if k != "rules_revision"}
    assert Game.from_replay(old).actions == rec["actions"]
