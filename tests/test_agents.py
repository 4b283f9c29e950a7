"""Scripted agents: the auto-play (托管) bot follows docs/rules.md §7 exactly, the random agent is
seeded and legal, `make_agent` names, and legality over many random games."""

from __future__ import annotations

import functools

import numpy as np
import pytest

from agents import Agent, AutoPlayAgent, RandomAgent, make_agent
from baohuang_env import PASS, Game, get_rules
from baohuang_env.cards import NUM_SEATS
from baohuang_env.encoding import Encoder
from baohuang_env.actions import DECISION_ID, Play

from helpers import hand

RULES = get_rules("jj")
TABLE = Encoder(RULES).table
KINDS = TABLE.kinds
K = KINDS.num_kinds
SJ, BJ, SIX = KINDS.sj, KINDS.bj, 0
ACCEPT, ABDICATE, NO = DECISION_ID["ACCEPT"], DECISION_ID["ABDICATE"], DECISION_ID["NO"]
OPEN_SOLO, OPEN_GUARD = DECISION_ID["OPEN_SOLO"], DECISION_ID["OPEN_GUARD"]




def single(name: str) -> int:
    if name == "SJ":
        return TABLE.action_id(Play(None, 0, 1, 0))
    if name == "BJ":
        return TABLE.action_id(Play(None, 0, 0, 1))
    return TABLE.action_id(Play(name, 1, 0, 0))


@functools.cache
def encoder(rules) -> Encoder:
    return Encoder(rules)


def act(agent, game: Game) -> int:
    """The agent's choice for the seat to move, from that seat's observation and mask."""
    return agent.act(encoder(game.rules).encode(game, game.current_player), game.legal_mask())


def finish_role_phase(game: Game) -> None:
    """Seat 0 (the emperor-card holder) accepts; everyone answers NO."""
    game.step(ACCEPT)
    while game.phase == "role":
        game.step(NO)


def leading_position(lead_hand: str, rules=RULES) -> Game:
    """A game where seat 1 is to lead holding exactly `lead_hand`: seat 0 (emperor) leads a
    7, seat 1 beats it with a 2, everyone passes, and seat 1 wins the trick."""
    hands = [hand("7 Q Q BJ"), hand(lead_hand), hand("8 9 SJ"), hand("8 9"), hand("8 9")]
    hands[1][KINDS.index("2")] += 1
    game = Game.from_deal(hands, emperor_card_seat=0, guard_card_seat=2, rules=rules)
    finish_role_phase(game)
    game.step(single("7"))
    game.step(single("2"))
    for _ in range(NUM_SEATS - 1):
        game.step(PASS)
    assert game.phase == "play" and game.current_player == 1 and game.trick is None
    assert game.hands[1] == hand(lead_hand)
    return game


def expected_autoplay(game: Game) -> int:
    """docs/rules.md §7 computed from the seat's hand (not from the mask)."""
    options = set(game.legal_actions().tolist())
    if game.phase == "role":
        return ACCEPT if ACCEPT in options else NO
    if game.trick is not None:
        return PASS
    h = game.hands[game.current_player]
    ranks = h[:KINDS.num_ranks]
    if game.rules.hold_sixes and ranks[SIX]:
        others = [k for k in range(1, K) if h[k]]
        if not others:
            return TABLE.action_id(Play("6", ranks[SIX], 0, 0))
        lowest = others[0]
    else:
        lowest = next(k for k in range(K) if h[k])
    return single(KINDS.names[lowest])


# --------------------------------------------------------------------------- auto-play, role phase


def test_autoplay_accepts_the_throne():
    game = Game.from_deal([hand("7 BJ"), hand("8 SJ"), hand("9"), hand("T"), hand("J")], 0, 1)
    assert set(game.legal_actions()) == {ACCEPT, ABDICATE}
    assert act(AutoPlayAgent(RULES), game) == ACCEPT


@pytest.mark.parametrize("guard_seat", [0, 1, 3])
def test_autoplay_answers_no_in_the_declaration_round(guard_seat):
    hands = [hand("7 BJ"), hand("8"), hand("9"), hand("T"), hand("J")]
    hands[guard_seat][SJ] += 1
    game = Game.from_deal(hands, emperor_card_seat=0, guard_card_seat=guard_seat)
    agent = AutoPlayAgent(RULES)
    game.step(ACCEPT)
    for seat in range(NUM_SEATS):
        assert game.current_player == seat
        options = set(game.legal_actions())
        if seat == guard_seat:
            assert options == ({NO, OPEN_SOLO} if seat == 0 else {NO, OPEN_GUARD})
        assert act(agent, game) == NO  # hidden solo / hidden guard / nothing to declare
        game.step(NO)
    assert game.phase == "play" and not game.open_guard and game.solo in ("none", "hidden")


# --------------------------------------------------------------------------- auto-play, play phase


def test_autoplay_passes_when_following_even_if_it_could_beat():
    game = Game.from_deal([hand("7 Q BJ"), hand("A 2 SJ"), hand("8"), hand("9"), hand("T")], 0, 1)
    finish_role_phase(game)
    game.step(single("7"))
    assert game.legal_mask()[single("A")]  # seat 1 could beat the 7
    assert act(AutoPlayAgent(RULES), game) == PASS


@pytest.mark.parametrize(
    ("lead_hand", "expected"),
    [
        ("8x2 J K SJ BJ", "8"),  # the lowest card
        ("Tx3 9 2", "9"),
        ("2 SJ", "2"),  # jokers rank above 2
        ("6x3 9 K", "9"),  # hold-the-sixes: the lowest non-6 card
        ("6x2 SJ BJ", "SJ"),  # 6s may not carry jokers: the jokers go first, SJ below BJ
        ("6 BJx2", "BJ"),
        ("SJx2 BJ", "SJ"),  # only jokers: one SJ
        ("BJx3", "BJ"),  # else one BJ
    ],
)
def test_autoplay_leads_the_lowest_single(lead_hand, expected):
    game = leading_position(lead_hand)
    action = act(AutoPlayAgent(RULES), game)
    assert action == single(expected), game.describe(action)
    game.step(action)  # and it is legal


@pytest.mark.parametrize("sixes", [1, 3, 5])
def test_autoplay_leads_all_the_sixes_when_only_sixes_are_left(sixes):
    game = leading_position(f"6x{sixes}")
    action = act(AutoPlayAgent(RULES), game)
    assert game.action_to_play(action) == Play("6", sixes, 0, 0)
    game.step(action)
    assert game.cards_left[1] == 0 and game.places[1] == 1


def test_autoplay_leads_a_single_six_without_hold_the_sixes():
    rules = get_rules("jj", hold_sixes=False)
    game = leading_position("6x3 9", rules)
    assert act(AutoPlayAgent(rules), game) == single("6")


def test_autoplay_with_sixes_carrying_jokers_plays_everything_at_the_end():
    """six_no_jokers=False (docs/rules.md §4.5): a hand of 6s plus jokers leads the lowest non-6
    card, a joker; with only 6s left it plays them all."""
    rules = get_rules("jj", six_no_jokers=False)
    game = leading_position("6x2 BJ", rules)
    assert act(AutoPlayAgent(rules), game) == single("BJ")


def test_autoplay_matches_the_rules_in_full_games():
    """Every auto-play decision in whole games equals §7 computed from the hand."""
    agent = AutoPlayAgent(RULES)
    leads = 0
    for seed in range(10):
        game = Game(RULES, seed=seed)
        rng = np.random.default_rng(seed)
        while not game.is_over:
            seat = game.current_player
            if seat % 2 == 0:  # auto-play seats; the others play randomly to vary the tricks
                action = act(agent, game)
                assert action == expected_autoplay(game), (seed, game.describe(action))
                leads += game.phase == "play" and game.trick is None
            else:
                action = int(rng.choice(game.legal_actions()))
            game.step(action)
    assert leads > 20


# --------------------------------------------------------------------------- random agent


def test_random_agent_picks_only_legal_actions_and_covers_them():
    mask = np.zeros(TABLE.num_actions, dtype=np.int8)
    legal = [0, 5, 100, TABLE.num_actions - 1]
    mask[legal] = 1
    agent = RandomAgent(0)
    picks = [agent.act(None, mask) for _ in range(400)]
    assert set(picks) == set(legal)
    bool_picks = {agent.act(None, mask.astype(bool)) for _ in range(400)}
    assert bool_picks == set(legal)
    single_mask = np.zeros(TABLE.num_actions, dtype=np.int8)
    single_mask[7] = 1
    assert {agent.act(None, single_mask) for _ in range(20)} == {7}


def test_random_agent_is_seeded():
    mask = np.ones(TABLE.num_actions, dtype=np.int8)
    a, b, c = RandomAgent(5), RandomAgent(5), RandomAgent(6)
    seq_a = [a.act(None, mask) for _ in range(50)]
    assert seq_a == [b.act(None, mask) for _ in range(50)]
    assert seq_a != [c.act(None, mask) for _ in range(50)]
    a.reset(5)
    assert [a.act(None, mask) for _ in range(50)] == seq_a
    # make_agent passes the seed through
    m = make_agent("random", RULES, seed=5)
    assert [m.act(None, mask) for _ in range(50)] == seq_a


def test_random_agent_ignores_the_global_rng():
    mask = np.ones(TABLE.num_actions, dtype=np.int8)
    np.random.seed(0)
    first = [RandomAgent(9).act(None, mask) for _ in range(5)]
    np.random.seed(1)
    assert [RandomAgent(9).act(None, mask) for _ in range(5)] == first


# --------------------------------------------------------------------------- make_agent


def test_make_agent_builds_by_name():
    assert isinstance(make_agent("random", RULES), RandomAgent)
    assert isinstance(make_agent("autoplay", RULES), AutoPlayAgent)
    assert isinstance(make_agent("autoplay", RULES), Agent)


def test_make_agent_unknown_name_lists_the_names():
    with pytest.raises(ValueError, match=r"unknown agent 'nosuch'; available agents: \[.*'autoplay'.*'random'.*\]"):
        make_agent("nosuch", RULES)


# --------------------------------------------------------------------------- legality at scale


def test_agents_only_pick_legal_actions_over_200_games():
    enc = Encoder(RULES)
    auto = AutoPlayAgent(RULES)
    finished = 0
    for seed in range(200):
        game = Game(RULES, seed=seed)
        randoms = [RandomAgent(seed * NUM_SEATS + s) for s in range(NUM_SEATS)]
        kinds = [(seed >> s) & 1 for s in range(NUM_SEATS)]  # 1 = auto-play seat
        while not game.is_over:
            seat = game.current_player
            mask = game.legal_mask()
            agent = auto if kinds[seat] else randoms[seat]
            action = agent.act(enc.encode(game, seat), mask)
            assert mask[action] == 1, (seed, seat, action)
            game.step(action)
        finished += 1
        assert sum(game.result.scores) == 0
    assert finished == 200


def test_agent_plugins_load_once_for_threads_that_ask_at_once(monkeypatch):
    """Threads that build agents at the same moment all see every installed kind (a thread
    used to see the registry half filled while another was still importing the plugins)."""
    import threading
    import time
    from types import SimpleNamespace

    import baohuang_env.agent as registry

    def slow_plugin_import(name):  # a plugin module that takes a while to import, then registers
        time.sleep(0.2)
        return SimpleNamespace(register=lambda: registry.register_agent("plugin-test", registry.AGENT_KINDS["random"]))

    monkeypatch.setattr(registry, "_plugins_loaded", False)
    monkeypatch.setattr(registry, "AGENT_KINDS", {"random": registry.AGENT_KINDS["random"]})
    monkeypatch.setattr(registry, "entry_points",
                        lambda group: [SimpleNamespace(module="plugin_test", attr="register", dist=None)])
    monkeypatch.setattr(registry, "import_module", slow_plugin_import)
    seen = []
    threads = [threading.Thread(target=lambda: seen.append(registry.agent_kinds())) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert seen == [["plugin-test", "random"]] * 4
