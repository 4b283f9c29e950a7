"""The role phase as its own owner: steps return an `Outcome` and `Game.step` acts on it
(a void deal and a surrender end the deal through the outcome, not from inside the step);
the role facts live in `RoleFacts` and the game shows them; the public abdication count."""

from __future__ import annotations

import ast
import pickle

import numpy as np

import baohuang_env.hands
import baohuang_env.role_phase
from baohuang_env import PASS, Game, get_rules
from baohuang_env.actions import DECISION_ID
from baohuang_env.cards import NUM_SEATS, Deal
from baohuang_env.game import ROLE, ROLE_FIELDS
from baohuang_env.role_phase import STEPS, Outcome, RoleFacts

from test_presets import build, build_called, do

ACCEPT, ABDICATE, NO = DECISION_ID["ACCEPT"], DECISION_ID["ABDICATE"], DECISION_ID["NO"]
OPEN_GUARD, REBEL, SURRENDER = DECISION_ID["OPEN_GUARD"], DECISION_ID["REBEL"], DECISION_ID["SURRENDER"]


def outcome(game: Game, decision: int) -> Outcome:
    """What the running step answers to `decision`, applied to a copy of the game."""
    probe = game.copy()
    return STEPS[probe.rules.role_steps[probe.step_index]].apply(probe, decision)


def test_abdications_go_on_until_two_circles_make_a_void_deal():
    g = Game(get_rules("lianzhong_simple"), seed=5)
    for k in range(2 * NUM_SEATS - 1):
        assert outcome(g, ABDICATE) is Outcome.GO_ON
        g.step(ABDICATE)
        assert g.abdications == k + 1 and g.phase == ROLE
    probe = g.copy()
    assert STEPS["abdication"].apply(probe, ABDICATE) is Outcome.VOID
    assert probe.phase == ROLE and probe.result is None  # the step only says so; the game ends the deal
    g.step(ABDICATE)
    assert g.is_over and g.result.end == "void" and g.result.scores == [0] * NUM_SEATS
    assert g.current_player == -1 and g.log[-2:] == [("void",), ("over", (0,) * NUM_SEATS)]


def test_accepting_ends_the_step_and_the_next_one_begins():
    g = Game(get_rules("jj"), seed=2)
    assert outcome(g, ACCEPT) is Outcome.DONE
    h0 = g.current_player
    g.step(ACCEPT)
    assert g.emperor == h0 and g.rules.role_steps[g.step_index] == "declaration"
    assert g.current_player == h0  # the declaration round starts from the emperor


def test_a_forced_round_nobody_qualifies_for_is_a_void_deal():
    hands = ["7/0 BJ", "8/1x2", "9/2x2", "T/1", "J/1 SJ"]
    g = build_called("lianzhong_classic", hands, emperor_card=0)
    for s in (0, 4, 3, 2):
        assert outcome(g, ABDICATE) is Outcome.GO_ON
        do(g, s, ABDICATE)
    assert outcome(g, ABDICATE) is Outcome.VOID
    do(g, 1, ABDICATE)
    assert g.is_over and g.result.end == "void"


def test_a_surrender_ends_the_deal_through_its_outcome():
    g = build("qingdao", ["7 8", "8 9", "9 T", "T J", "J Q BJ SJ"], emperor_card=4, guard_card=4)
    probe = g.copy()
    assert STEPS["declaration"].apply(probe, SURRENDER) is Outcome.SURRENDER
    assert probe.phase == ROLE and probe.result is None
    assert outcome(g, NO) is Outcome.GO_ON
    do(g, 4, SURRENDER)
    assert g.is_over and g.result.end == "surrender" and g.result.scores == [1, 1, 1, 1, -4]
    assert g.public_guard == 4 and g.log[-2:] == [("surrender",), ("over", (1, 1, 1, 1, -4))]


def test_the_game_shows_the_role_facts_and_copies_them_independently():
    g = build("lianzhong_simple", ["7 8", "8 9 SJ", "9 T", "T J", "J Q BJ"], emperor_card=4, guard_card=1)
    do(g, 4, ACCEPT)
    for s in (4, 0, 1, 2, 3):
        do(g, s, NO)
    c = g.copy()
    do(c, 0, REBEL)
    assert c.rebels == [0] and g.rebels == [] and g.roles.rebels == []
    for game in (g, c, pickle.loads(pickle.dumps(c))):
        for name in ROLE_FIELDS:
            assert getattr(game, name) == getattr(game.roles, name), name
        assert game.role_state is game.roles.progress and game.rebels is game.roles.rebels
    assert (g.emperor, g.guard, g.solo) == (4, 1, "none")


def test_the_abdication_count_is_public_and_kept():
    g = Game(get_rules("jj"), seed=3)
    do(g, g.current_player, ABDICATE)
    do(g, g.current_player, ABDICATE)
    assert g.abdications == 2 and "declines" not in g.role_state  # the count is a public fact, not a step counter
    do(g, g.current_player, ACCEPT)
    assert g.abdications == 2  # a public fact of the deal; the step's own counters are gone
    assert "declines" not in g.role_state


def test_a_marked_card_is_seen_when_its_holder_has_none_of_its_kind_left():
    g = Game(get_rules("jj"), seed=0)
    facts = RoleFacts(g.kinds, Deal(np.zeros((NUM_SEATS, g.kinds.num_kinds), np.int8), 1, 2))
    sj, bj = g.kinds.sj, g.kinds.bj
    hand = [0] * g.kinds.num_kinds
    hand[sj] = 1
    assert facts.marked_card_played(2, hand, g.kinds) == []  # another SJ is still held: marks go last
    hand[sj] = 0
    assert facts.marked_card_played(2, hand, g.kinds) == [("guard_card", 2)]
    assert (facts.guard_card_seat, facts.public_guard) == (-1, 2)
    hand[bj] = 1
    assert facts.marked_card_played(1, hand, g.kinds) == []
    hand[bj] = 0
    assert facts.marked_card_played(1, hand, g.kinds) == [("emperor_card", 1)]
    assert facts.emperor_card_seat == -1 and facts.first_emperor_card_seat == 1


def test_playing_the_marked_guard_card_shows_the_guard_on_the_game():
    g = build("jj", ["7 8", "8 9 SJ", "9 T", "T J", "J Q BJ"], emperor_card=4, guard_card=1)
    do(g, 4, ACCEPT)
    for s in (4, 0, 1, 2, 3):
        do(g, s, NO)
    assert g.public_guard == -1 and g.guard_card_seat == 1
    lead = g.table.action_id_of(g.kinds.index("J"), 1, 0, 0)
    do(g, 4, lead)
    do(g, 0, PASS)
    do(g, 1, g.table.action_id_of(-1, 0, 1, 0))  # the SJ alone beats the J
    assert g.public_guard == 1 and g.guard_card_seat == -1 and ("guard_card", 1) in g.log


def test_the_bookkeeping_sits_below_the_game_and_the_role_phase():
    """hands.py imports neither; role_phase.py imports the game module only for type hints."""
    for module, banned in ((baohuang_env.hands, {"game", "role_phase"}), (baohuang_env.role_phase, {"game"})):
        tree = ast.parse(open(module.__file__, encoding="utf-8").read())
        runtime = [node for node in tree.body if isinstance(node, ast.ImportFrom)]  # not under TYPE_CHECKING
        assert not {node.module for node in runtime} & banned, module.__name__
