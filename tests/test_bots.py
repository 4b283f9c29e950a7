"""Scripted bots: `SeatView` decoding, and each documented behaviour of `GreedyAgent` and
`HeuristicAgent` in hand-built situations (`Game.from_deal`), then legality over random games.

Seats are 0..4 in play order (seat 1 plays right after seat 0). Hands are written as card
names; bots are always asked through the observation and the action mask, as in play.
"""

from __future__ import annotations

import numpy as np
import pytest

from agents import GreedyAgent, HeuristicAgent, make_agent
from agents.view import OPPONENT, PARTNER, UNKNOWN, SeatView
from baohuang_env import DECISIONS, FIRST_PLAY, PASS, Game, action_table, get_rules
from baohuang_env.encoding import Encoder

from helpers import hand as counts
from helpers import play_id

RULES = get_rules("jj")
TABLE = action_table(RULES)
ENC = Encoder(RULES)
NAMES = ["6", "7", "8", "9", "10", "J", "Q", "K", "A", "2", "SJ", "BJ"]
SJ, BJ = 10, 11
ACCEPT, ABDICATE, NO, OPEN_SOLO, OPEN_GUARD = (
    1 + DECISIONS.index(d) for d in ("ACCEPT", "ABDICATE", "NO", "OPEN_SOLO", "OPEN_GUARD"))
BIG_HAND = "7 7 7 8 8 8 9 9 9 10 10 10 J J J Q Q Q K K K A A A"  # 24 cards, plenty left




def name(action: int) -> str:
    """An action id as 'pass', a decision name, or its cards ('7 7 SJ')."""
    if action == PASS:
        return "pass"
    if action < FIRST_PLAY:
        return DECISIONS[action - 1]
    p = TABLE.play(action)
    return " ".join([p.rank] * p.n + ["SJ"] * p.small + ["BJ"] * p.big)


def new_game(hands: list[str], emperor: int = 0, guard: int = 1, open_guard: bool = False) -> Game:
    """A deal whose emperor-card holder accepts; the guard declares open guard if asked to."""
    game = Game.from_deal([counts(h) for h in hands], emperor, guard, RULES)
    game.step(ACCEPT)
    while game.phase == "role":
        seat = game.current_player
        game.step(OPEN_GUARD if open_guard and seat == guard else NO)
    return game


def do(game: Game, *moves: str) -> None:
    """Play moves ('pass' or cards) for whoever is to move."""
    for m in moves:
        game.step(PASS if m == "pass" else play_id(m))


def ask(agent, game: Game) -> str:
    """What the agent does for the seat to move, as a name; asserts it is legal."""
    mask = game.legal_mask()
    action = agent.act(ENC.encode(game, game.current_player), mask)
    assert mask[action], f"illegal action {action} ({name(action)})"
    return name(action)


@pytest.fixture(scope="module")
def greedy() -> GreedyAgent:
    return GreedyAgent(RULES)


@pytest.fixture(scope="module")
def heuristic() -> HeuristicAgent:
    return HeuristicAgent(RULES)


# --------------------------------------------------------------------------- SeatView


def test_seat_view_matches_the_game_over_random_games():
    agent = make_agent("random", RULES, seed=3)
    for seed in range(6):
        game = Game(RULES, seed)
        while not game.is_over:
            seat = game.current_player
            v = SeatView(ENC.encode(game, seat), RULES)
            rot = [(seat + k) % 5 for k in range(5)]

            def rel(s: int, seat: int = seat) -> int:
                return (s - seat) % 5 if s >= 0 else -1

            assert v.hand.tolist() == game.hands[seat]
            assert v.cards_left.tolist() == [game.cards_left[s] for s in rot]
            assert v.played.tolist() == [game.played[s] for s in rot]
            assert v.places.tolist() == [game.places[s] for s in rot]
            assert v.emperor == rel(game.emperor)
            if game.phase == "play":
                assert v.phase == "play"
                deck = np.array([16] * 10 + [4, 4])
                assert v.unseen.tolist() == (deck - np.array(game.total_played) - v.hand).tolist()
                assert v.trick_play == game.top and v.trick_seat == rel(game.top_player)
                assert v.leading == (game.top < 0)
                assert v.passed.tolist() == [game.passed[s] for s in rot]
                for k in range(1, 5):  # whatever the seat believes about teams is true
                    other = rot[k]
                    royal = {game.emperor, game.guard}
                    same = (other in royal) == (seat in royal)
                    if v.team[k] != UNKNOWN:
                        assert (v.team[k] == PARTNER) == same
            else:
                assert v.phase in ("abdication", "declaration")
            game.step(agent.act(ENC.encode(game, seat), game.legal_mask()))


def test_seat_view_team_knowledge():
    hands = ["8 9 BJ", "8 9 SJ", "8 9", "8 9", "8 9"]
    game = new_game(hands, emperor=0, guard=1)
    views = [SeatView(ENC.encode(game, s), RULES) for s in range(5)]
    assert views[0].role == "emperor" and views[0].team.tolist() == [PARTNER, 0, 0, 0, 0]  # hidden guard
    assert views[1].role == "guard" and views[1].team.tolist() == [PARTNER, OPPONENT, OPPONENT, OPPONENT, PARTNER]
    assert views[2].role == "rebel" and views[2].team.tolist() == [PARTNER, 0, 0, OPPONENT, 0]
    assert views[2].emperor == 3 and views[2].guard == -1
    open_game = new_game(hands, emperor=0, guard=1, open_guard=True)
    v = SeatView(ENC.encode(open_game, 2), RULES)  # a rebel once the guard is open knows everyone
    assert v.open_guard and v.guard == 4 and v.team.tolist() == [PARTNER, PARTNER, PARTNER, OPPONENT, OPPONENT]
    v = SeatView(ENC.encode(open_game, 0), RULES)
    assert v.team.tolist() == [PARTNER, PARTNER, OPPONENT, OPPONENT, OPPONENT]


def test_seat_view_trick_and_lead():
    game = new_game([BIG_HAND + " BJ", "9 9 SJ", "J J", "K K", "A A"], emperor=0, guard=1)
    v = SeatView(ENC.encode(game, 0), RULES)
    assert v.leading and v.trick_seat == -1 and v.trick_play == -1
    do(game, "8 8")
    v = SeatView(ENC.encode(game, 1), RULES)
    assert not v.leading and v.trick_seat == 4 and name(v.trick_play + FIRST_PLAY) == "8 8"
    assert v.trick.tolist() == counts("8 8")
    assert v.played[4].tolist() == counts("8 8") and v.cards_left[4] == 23
    assert v.history_seat.tolist()[:2] == [4, -1] and v.history_cards[0].tolist() == counts("8 8")
    do(game, "pass")
    v = SeatView(ENC.encode(game, 2), RULES)  # seat 1 passed: relative seat 4 of seat 2
    assert v.history_seat.tolist()[:3] == [4, 3, -1] and v.history_pass.tolist()[:2] == [True, False]
    assert v.passed.tolist() == [False, False, False, False, True] and v.trick_seat == 3


# --------------------------------------------------------------------------- greedy


def test_greedy_role_phase_declares_nothing(greedy):
    game = Game.from_deal([counts(h) for h in ["7 BJ SJ", "8", "9", "10", "J"]], 0, 0, RULES)
    assert ask(greedy, game) == "ACCEPT"
    game.step(ACCEPT)
    assert game.legal_mask()[OPEN_SOLO]
    assert ask(greedy, game) == "NO"
    game = Game.from_deal([counts(h) for h in ["7 BJ", "8 SJ SJ BJ BJ", "9", "10", "J"]], 0, 1, RULES)
    game.step(ACCEPT)
    game.step(NO)
    assert game.current_player == 1 and game.legal_mask()[OPEN_GUARD]
    assert ask(greedy, game) == "NO"


def test_greedy_follows_with_the_cheapest_winning_play(greedy):
    game = new_game([BIG_HAND + " BJ", "9 9 K 2 SJ " + BIG_HAND, "8", "8", "8"])
    do(game, "8")
    assert ask(greedy, game) == "9"  # lowest rank that beats, even if it breaks the pair


def test_greedy_prefers_no_jokers_over_a_lower_rank(greedy):
    game = new_game([BIG_HAND + " BJ", "8 K K SJ 6", "8", "8", "8"])
    do(game, "7 7")
    assert "8 SJ" in {name(a) for a in game.legal_actions()}
    assert ask(greedy, game) == "K K"  # no joker beats a lower rank with one


def test_greedy_saves_jokers_and_twos_until_the_end_game(greedy):
    game = new_game([BIG_HAND + " BJ", "2 SJ BJ " + BIG_HAND, "8", "8", "8"])
    do(game, "A")
    assert ask(greedy, game) == "pass"  # only the 2 or jokers beat an ace: not worth it yet
    game = new_game([BIG_HAND + " BJ", "2 SJ 7 7 8", "8", "8", "8"])
    do(game, "A")
    assert ask(greedy, game) == "2"  # at most 8 cards left after it: spend the 2 (not a joker)


def test_greedy_leads_its_weakest_whole_group(greedy):
    game = new_game(["6 6 7 7 7 9 K SJ BJ", "8 SJ", "8", "8", "8"])
    assert ask(greedy, game) == "7 7 7"  # 6s wait for the end; the whole group of 7s
    game = new_game(["6 6 6 SJ BJ", "8 SJ", "8", "8", "8"])
    assert ask(greedy, game) == "SJ BJ"  # only 6s and jokers: all the jokers, then the 6s


def test_greedy_goes_out_and_passes_when_it_must(greedy):
    game = new_game([BIG_HAND + " BJ", "K K SJ", "8", "8", "8"])
    do(game, "Q Q Q")
    assert ask(greedy, game) == "K K SJ"  # the whole hand
    game = new_game([BIG_HAND + " BJ", "7 7 7", "8 SJ", "8", "8"], guard=2)
    do(game, "Q Q Q")
    assert ask(greedy, game) == "pass"


# --------------------------------------------------------------------------- heuristic


def test_heuristic_never_overtakes_its_partner(heuristic, greedy):
    # seat 0 is the emperor, seat 1 the guard, who knows it: the emperor's 8 is left standing
    hands = [BIG_HAND + " BJ", "9 9 9 J SJ " + BIG_HAND, "8 SJ", "8", "8"]
    game = new_game(hands, emperor=0, guard=1)
    do(game, "8")
    assert ask(heuristic, game) == "pass"
    assert ask(greedy, game) == "9"
    # the same seat as a rebel does beat the emperor's play
    game = new_game(hands, emperor=0, guard=2)
    do(game, "8")
    assert ask(heuristic, game) != "pass"


def test_heuristic_guard_blocks_the_rebels(heuristic):
    # emperor 0 leads, rebel 1 overtakes; the guard (seat 2) beats the rebel's cheap play
    game = new_game([BIG_HAND + " BJ", "9 " + BIG_HAND, "10 Q Q SJ " + BIG_HAND, "8", "8"], emperor=0, guard=2)
    do(game, "8", "9")
    assert ask(heuristic, game) == "10"
    # but leaves the emperor's own play standing
    game = new_game([BIG_HAND + " BJ", "9 " + BIG_HAND, "10 Q Q SJ " + BIG_HAND, "8", "8"], emperor=0, guard=2)
    do(game, "8", "pass")
    assert ask(heuristic, game) == "pass"


def test_heuristic_goes_out_over_its_partner(heuristic):
    game = new_game([BIG_HAND + " BJ", "9 SJ", "8", "8", "8"], emperor=0, guard=1)
    do(game, "8 8")
    assert ask(heuristic, game) == "9 SJ"  # the last cards: out, partner or not


def test_heuristic_follows_with_a_whole_group_rather_than_splitting(heuristic, greedy):
    game = new_game([BIG_HAND + " BJ", "9 9 J " + BIG_HAND.replace("J J J ", ""), "8 SJ", "8", "8"],
                    emperor=0, guard=2)
    do(game, "8")
    assert ask(greedy, game) == "9"
    assert ask(heuristic, game) == "J"  # the single J goes as a whole group; the 9s stay a pair


def test_heuristic_saves_jokers_and_twos(heuristic):
    game = new_game([BIG_HAND + " BJ", "2 SJ BJ " + BIG_HAND, "8 SJ", "8", "8"], emperor=0, guard=2)
    do(game, "A")
    assert ask(heuristic, game) == "pass"


def test_heuristic_spends_a_two_to_stop_an_opponent_close_to_going_out(heuristic):
    game = new_game(["A 9 9 BJ", "2 SJ BJ " + BIG_HAND, "8 SJ", "8", "8"], emperor=0, guard=2)
    do(game, "A")  # the emperor keeps 3 cards: a rebel stops him with the cheapest precious play
    assert ask(heuristic, game) == "2"


def test_heuristic_leads_its_weakest_group_early(heuristic):
    game = new_game(["6 6 7 7 8 8 8 9 10 10 J Q K A 2 2 SJ BJ " + BIG_HAND, "8 SJ", "8", "8", "8"])
    assert ask(heuristic, game) == "7 7 7 7 7"  # all the 7s (the 6s must wait for the end)


def test_heuristic_protects_the_play_before_its_sixes(heuristic, greedy):
    # 6s must be played last and alone: the 8s must win their trick, so they carry the BJ
    game = new_game(["6 6 8 8 BJ", "7 SJ", "9", "10", "J"], emperor=0, guard=1)
    assert ask(greedy, game) == "8 8"
    assert ask(heuristic, game) == "8 8 BJ"


def test_heuristic_plays_safe_groups_first_and_the_weak_one_last(heuristic):
    # two groups, no 6s: the unbeatable one first keeps the lead, the last play goes out anyway
    game = new_game(["7 7 2 2 2 2 BJ", "8 SJ", "9", "10", "J"], emperor=0, guard=1)
    choice = ask(heuristic, game)
    assert choice in ("2 2 2 2", "2 2 2 2 BJ", "7 7 BJ")  # keeps the lead for the last group
    assert choice != "7 7"


def test_heuristic_takes_a_sure_trick_into_a_sure_finish(heuristic, greedy):
    game = new_game([BIG_HAND + " BJ", "6 6 K K BJ BJ", "8 SJ", "8", "8"], emperor=0, guard=2)
    do(game, "Q Q")
    assert ask(greedy, game) == "K K"
    # K+BJ cannot be beaten, and K+BJ then 66 finishes: the whole hand goes in three plays
    assert ask(heuristic, game) == "K BJ"


def test_heuristic_role_phase(heuristic):
    weak = "6 6 6 7 7 8 8 9 9 10 10 J Q Q"
    # the throne is always worth taking without the guard card
    game = Game.from_deal([counts(h) for h in [weak + " BJ", "8 SJ", "9", "10", "J"]], 0, 1, RULES)
    assert ask(heuristic, game) == "ACCEPT"
    # holding both marked cards with a weak hand: abdicate rather than play a losing solo
    game = Game.from_deal([counts(h) for h in [weak + " BJ SJ", "8", "9", "10", "J"]], 0, 0, RULES)
    assert ask(heuristic, game) == "ABDICATE"
    # with a strong hand: accept, then declare the open solo
    strong = "7 8 9 K K A A A 2 2 2 2 SJ SJ SJ BJ BJ BJ"
    game = Game.from_deal([counts(h) for h in [strong, "8", "9", "10", "J"]], 0, 0, RULES)
    assert ask(heuristic, game) == "ACCEPT"
    game.step(ACCEPT)
    assert ask(heuristic, game) == "OPEN_SOLO"
    # the guard opens with a strong hand (x2), stays hidden with a weak one
    for guard_hand, answer in ((strong.replace("BJ BJ BJ", "BJ"), "OPEN_GUARD"), (weak + " SJ", "NO")):
        game = Game.from_deal([counts(h) for h in ["7 BJ", guard_hand, "9", "10", "J"]], 0, 1, RULES)
        game.step(ACCEPT)
        game.step(NO)
        assert ask(heuristic, game) == answer
    # without the x2 (a rule option) an open guard would only give the guard away
    rules = get_rules("jj", open_guard_multiplier=1)
    game = Game.from_deal([counts(h) for h in ["7 BJ", strong.replace("BJ BJ BJ", "BJ"), "9", "10", "J"]], 0, 1, rules)
    game.step(ACCEPT)
    game.step(NO)
    assert name(HeuristicAgent(rules).act(Encoder(rules).encode(game, 1), game.legal_mask())) == "NO"


def test_heuristic_rejects_unknown_parameters():
    with pytest.raises(ValueError, match="unknown HeuristicAgent parameters"):
        HeuristicAgent(RULES, bogus=1)


# --------------------------------------------------------------------------- legality


@pytest.mark.parametrize("layout", range(4))
def test_bots_only_take_legal_actions(layout):
    """250 games per layout, 1,000 in all; greedy and heuristic share every table."""
    rng = np.random.default_rng(layout)
    bots = {"greedy": make_agent("greedy", RULES), "heuristic": make_agent("heuristic", RULES)}
    seen = {"greedy": 0, "heuristic": 0}
    for i in range(250):
        game = Game(RULES, seed=10_000 * layout + i)
        kinds = ["greedy", "heuristic", *rng.choice(["greedy", "heuristic"], size=3).tolist()]
        rng.shuffle(kinds)
        while not game.is_over:
            seat = game.current_player
            mask = game.legal_mask()
            action = bots[kinds[seat]].act(ENC.encode(game, seat), mask)
            assert mask[action], (game.seed, seat, kinds[seat], action)
            seen[kinds[seat]] += 1
            game.step(action)
        assert sum(game.result.scores) == 0
    assert min(seen.values()) > 0
