"""Every preset, as a player meets it: words, `baohuang play` / `replay`, bots and fuzzing.

* Decisions and role-phase events read in plain words with the Chinese term in brackets.
* `baohuang play --preset P` finishes a game driven through its input, lists the role-phase
  decisions by number in those words, and saves a replay that `baohuang replay` replays.
* The auto-play bot answers every role prompt as docs/rules.md §7 says (hand-built situations).
* random, autoplay, greedy and heuristic only take legal actions in 20 games of each preset.
* `baohuang fuzz` finds no broken invariant in 30 games of each preset, and its end checks
  accept void deals and surrenders (and reject a broken result).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import re
from pathlib import Path

import numpy as np
import pytest

from agents import AutoPlayAgent, make_agent
from baohuang_env import Game, get_rules
from baohuang_env.encoding import Encoder
from baohuang_env.actions import DECISION_ID, PASS, action_table
from baohuang_env.text import (
    DECISION_WORDS, ROLE_NAMES, decision_words, describe_event, render_table, result_lines, role_step, story,
    turn_hint,
)
from baohuang_env.role_phase import groups
from baohuang_env.rules import PRESETS
from baohuang_cli import cli, fuzz, play_cmd, preset_examples
from tests.helpers import hand

ALL = tuple(PRESETS)
D = DECISION_ID
DOCS = Path(__file__).resolve().parent.parent / "docs" / "rules.md"
CJK = re.compile(r"\([^()]*[\u4e00-\u9fff][^()]*\)")  # "(...汉字...)"


def run_game(rules, seed: int, agents) -> Game:
    """Play a game with one agent per seat (a list of 5), checking each action is legal."""
    enc = Encoder(rules)
    game = Game(rules, seed=seed)
    while not game.is_over:
        s = game.current_player
        mask = game.legal_mask()
        action = int(agents[s].act(enc.encode(game, s), mask))
        assert mask[action], f"{rules.preset} seed {seed}: seat {s} chose illegal {game.describe(action)}"
        game.step(action)
    return game


def random_game_until(preset: str, want, seeds=range(200), agent="random"):
    """The first random game (by seed) in which `want(game)` holds once; the game is left there."""
    rules = get_rules(preset)
    for seed in seeds:
        game = Game(rules, seed=seed)
        bot = make_agent(agent, rules, seed)
        enc = Encoder(rules)
        while not game.is_over:
            if want(game):
                return game
            s = game.current_player
            game.step(bot.act(enc.encode(game, s), game.legal_mask()))
        if want(game):
            return game
    raise AssertionError(f"no {preset} game in {seeds} reached the situation")


# ------------------------------------------------------------------ words
@pytest.mark.parametrize(("name", "words"), [
    ("ACCEPT", "accept the throne (登基)"), ("ABDICATE", "abdicate (让位)"),
    ("DECLINE", "decline (让位给隔一家)"), ("OPEN_SOLO", "open solo (明独)"),
    ("OPEN_GUARD", "open guard (明保)"), ("GRAB", "grab the solo (抢独)"), ("REBEL", "rebel (造反)"),
    ("KICK", "kick (踢)"), ("SURRENDER", "surrender (投降)"), ("APPLY_WIND", "apply for the wind (申请接风)"),
])
def test_decision_words(name, words):
    game = Game(get_rules("weihai"), seed=0)
    assert DECISION_WORDS[name] == words
    assert decision_words(game, D[name]) == words


def test_call_and_no_words():
    rules = get_rules("generic216")
    game = Game(rules, seed=1)
    k = game.kinds.index("K")
    assert decision_words(game, game.table.call_id(k, 3)) == "call ♠K (叫牌)"
    assert decision_words(game, game.table.call_id(game.kinds.bj, 0)) == "call BJ (叫牌)"
    assert decision_words(game, PASS) == "pass"
    # NO as everyone hears it, and as it means to the guard / a solo emperor himself
    jj = Game.from_deal(*_jj_deal(), rules=get_rules("jj"))
    jj.step(D["ACCEPT"])  # seat 1 accepts; the declaration round starts at seat 1
    assert decision_words(jj, D["NO"]) == "no open declaration"
    assert decision_words(jj, D["NO"], seat=0, private=True) == "hidden guard (暗保)"
    assert decision_words(jj, D["NO"], seat=2, private=True) == "no (nothing to declare)"
    solo = Game.from_deal(*_jj_deal(guard_card_seat=1), rules=get_rules("jj"))
    solo.step(D["ACCEPT"])
    assert decision_words(solo, D["NO"], seat=1, private=True) == "hidden solo (暗独)"
    assert ROLE_NAMES["none"].endswith("(void deal 流局)")


def _jj_deal(guard_card_seat: int = 0):
    """Seat 1 holds the emperor card; the guard card is at `guard_card_seat` (0 or 1)."""
    hands = [hand(t) for t in ("6 7 9 9 2 SJ", "8 8 K A BJ SJ", "7 7 T J", "8 Q K", "9 A 2")]
    return hands, 1, guard_card_seat


@pytest.mark.parametrize("preset", ALL)
def test_every_event_of_every_preset_reads_in_words(preset):
    rules = get_rules(preset)
    seen: set[str] = set()
    for seed in range(6):
        agents = [make_agent(["random", "autoplay"][(seed + s) % 2], rules, seed * 5 + s) for s in range(5)]
        game = run_game(rules, seed, agents)
        for event, step in story(game):
            text = describe_event(game, event, step)
            assert not text.startswith("("), f"{preset}: event {event} has no words"
            seen.add(event[0])
            if event[0] == "decide" and event[2] != D["NO"]:
                assert CJK.search(text), f"{preset}: {text!r} lacks the Chinese term"
            if event[0] == "decide" and event[2] == D["NO"] and step in ("grab", "rebellion", "kick"):
                assert CJK.search(text), text
        assert render_table(game)
    assert {"deal", "decide", "roles", "play", "over"} <= seen


def test_role_phase_events_in_words():
    # tribute and void deal: ten abdications in lianzhong_simple
    game = Game(get_rules("lianzhong_simple"), seed=4)
    for _ in range(10):
        game.step(D["ABDICATE"])
    texts = [describe_event(game, e, st) for e, st in story(game)]
    assert any("to the tribute pile (贴牌)" in t for t in texts)
    assert texts[-2].startswith("void deal (流局)")
    assert "abdicate (让位): the emperor card passes to seat" in texts[1]
    assert game.result.roles == ["none"] * 5
    assert "none (void deal 流局)" in render_table(game)
    assert any("void deal (流局)" in line for line in result_lines(game))

    # forced call (逼位) after five abdications in generic216
    forced = None
    for seed in range(40):
        g = Game(get_rules("generic216"), seed=seed)
        for _ in range(5):
            g.step(D["ABDICATE"])
        if not g.is_over:
            forced = g
            break
    assert forced is not None
    assert any(t.startswith("forced call (逼位)") for t in (describe_event(forced, e) for e in forced.log))
    assert "Forced call (逼位)" in turn_hint(forced, forced.current_player)

    # weihai decline, and the roles line after a failed rebellion
    g = random_game_until("weihai", lambda g: g.phase == "role" and g.legal_mask()[D["DECLINE"]])
    g.step(D["DECLINE"])
    assert "decline (让位给隔一家): the emperor card goes to seat" in describe_event(g, g.log[-1])

    # qingdao surrender (投降) and apply for the wind (申请接风)
    g = random_game_until("qingdao", lambda g: g.phase == "role" and g.legal_mask()[D["SURRENDER"]])
    g.step(D["SURRENDER"])
    texts = [describe_event(g, e) for e in g.log]
    assert any("surrender (投降)" in t for t in texts) and any("surrendered (投降)" in t for t in texts)
    assert g.result.end == "surrender"
    g = random_game_until("qingdao", lambda g: g.phase == "play" and g.legal_mask()[D["APPLY_WIND"]])
    assert "apply for the wind (申请接风)" in turn_hint(g, g.current_player)
    g.step(D["APPLY_WIND"])
    assert describe_event(g, g.log[-1]).endswith("applies for the wind (申请接风)") or any(
        e[0] == "apply_wind" for e in g.log)

    # grab (抢独)
    g = random_game_until("weihai", lambda g: g.phase == "role" and g.legal_mask()[D["GRAB"]])
    g.step(D["GRAB"])
    assert any(describe_event(g, e).endswith("grabbed the solo (抢独)") for e in g.log)

    # SP (特画): the guard plays the called card's fourth copy in generic216
    g = random_game_until("generic216", lambda g: any(e[0] == "guard_card" for e in g.log) and g.rules.special_card
                          and g.called >= 0)
    event = next(e for e in g.log if e[0] == "guard_card")
    assert "the special card SP (特画)" in describe_event(g, event)


# ------------------------------------------------------------------ baohuang play / replay
class Script:
    """Answers every prompt with `then`, after the given answers; records prompts."""

    def __init__(self, answers=(), then: str = "1") -> None:
        self.answers, self.then, self.prompts = list(answers), then, []

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        return self.answers.pop(0) if self.answers else self.then


def parse(module, argv):
    parser = argparse.ArgumentParser()
    module.add_parser(parser.add_subparsers(dest="command"))
    return parser.parse_args(argv)


@pytest.mark.parametrize("preset", ALL)
def test_play_every_preset_through_its_input_and_replay_it(preset, tmp_path, capsys):
    path = tmp_path / f"{preset}.json"
    shown_decisions = False
    for seed in range(3, 8):  # a deal where the human (seat 0) gets a real role decision
        script = Script()
        args = parse(play_cmd, ["play", "--preset", preset, "--seed", str(seed), "--save", str(path)])
        assert play_cmd.main(args, input_fn=script) == 0
        out = capsys.readouterr().out
        assert f"Baohuang [{preset}]" in out and "Result:" in out and f"Replay saved to {path}" in out
        decision_lines = re.findall(r"^\s+\d+\s+([A-Z_]+(?: \S+)?)\s{2,}(.*)$", out, re.M)
        decision_lines = [(n, w) for n, w in decision_lines if n.split()[0] in D or n.startswith("CALL")]
        if any("| decide]" in p for p in script.prompts):
            assert decision_lines, out
            for name, words in decision_lines:  # every listed decision: its words and Chinese term
                if name == "NO":
                    continue
                assert CJK.search(words), (name, words)
            shown_decisions = True
            break
    assert shown_decisions, f"{preset}: seat 0 was never asked a role decision in seeds 3..7"
    record = json.loads(path.read_text())
    assert record["rules"]["preset"] == preset and record["result"]
    assert cli.main(["replay", str(path)]) == 0
    replayed = capsys.readouterr().out
    assert "reproduces the recorded result" in replayed and "Result:" in replayed
    assert f"preset {preset}" in replayed


@pytest.mark.parametrize("preset", ALL)
def test_every_preset_replays_from_random_games(preset, tmp_path, capsys):
    rules = get_rules(preset)
    game = run_game(rules, 11, [make_agent("random", rules, s) for s in range(5)])
    path = tmp_path / "g.json"
    path.write_text(json.dumps(game.to_replay()))
    assert cli.main(["replay", str(path), "--seat", "2"]) == 0
    out = capsys.readouterr().out
    assert f"[{len(game.actions)}/{len(game.actions)}]" in out and "Result:" in out


def test_play_reads_a_typed_call():
    rules = get_rules("generic216")
    for seed in range(50):
        game = Game(rules, seed=seed)
        calls = [int(a) for a in game.legal_actions() if game.table.is_call(int(a))]
        if calls:
            break
    seat, target = game.current_player, calls[-1]
    kind, suit = game.table.call_of(target)
    name = game.kinds.names[kind]
    typed = f"call {name}" if kind >= game.kinds.num_ranks else f"call {'CDHS'[suit]}{name}"
    out: list[str] = []
    turn = play_cmd.HumanTurn(game, seat, Script(["call ZZ", typed]), out.append)
    assert turn.ask() == target
    assert any("cannot call ZZ; the calls open to you:" in line for line in out)
    assert any("call " in line and "(叫牌)" in line for line in out)  # the numbered list, in words


# ------------------------------------------------------------------ autoplay follows docs/rules.md §7
@pytest.mark.parametrize("preset", ["jj", "weihai", "lianzhong_simple", "qingdao"])
def test_autoplay_declares_nothing_in_fixed_card_presets(preset):
    """ACCEPT where it may (also weihai's decline prompt), else NO: hidden solo, hidden guard,
    no grab, rebellion, kick or surrender; following it passes (never APPLY_WIND)."""
    rules = get_rules(preset)
    bot = AutoPlayAgent(rules)
    assert bot.uses_observation is False
    asked: set[tuple[str, int]] = set()
    for seed in range(25):
        game = Game(rules, seed=seed)
        others = make_agent("random", rules, seed)
        while not game.is_over:
            mask = game.legal_mask()
            if game.phase == "role":
                want = D["ACCEPT"] if mask[D["ACCEPT"]] else D["NO"]
                assert bot.act(None, mask) == want
                for d in (D["DECLINE"], D["OPEN_SOLO"], D["GRAB"], D["REBEL"], D["KICK"], D["SURRENDER"]):
                    if mask[d]:
                        asked.add((role_step(game), d))
            elif mask[PASS]:
                assert bot.act(None, mask) == PASS
            action = others.act(None, mask)  # random play reaches every kind of prompt ...
            if mask[D["GRAB"]] and seed % 2:
                action = D["NO"]  # ... but grabs (which skip the rebellion) only in half the games
            game.step(action)
    expected = {"weihai": {D["DECLINE"], D["GRAB"], D["REBEL"], D["KICK"]}, "qingdao": {D["SURRENDER"], D["REBEL"]},
                "lianzhong_simple": {D["REBEL"]}, "jj": {D["OPEN_SOLO"]}}[preset]
    assert expected <= {d for _, d in asked}


def _calling_obs(rules, groups: dict[tuple[str, str], int]):
    """An observation whose my_groups slice holds `groups` ((card, suit symbol or ''): copies),
    and a role-phase mask offering ABDICATE and a CALL of each group of 3 or 4."""
    enc, table = Encoder(rules), action_table(rules)
    off = {n: (o, o + k) for n, o, k in enc.slices}
    obs = np.zeros(enc.size, dtype=np.float32)
    mask = np.zeros(table.num_actions, dtype=np.int8)
    for (card, suit), copies in groups.items():
        kind = table.kinds.index(card)
        a = table.call_id(kind, "♣♦♥♠".index(suit) if suit else 0)
        obs[off["my_groups"][0] + a - table.first_call] = copies / 4
        if copies >= 3:
            mask[a] = 1
    return obs, mask, table


@pytest.mark.parametrize("preset", ["lianzhong_classic", "generic216"])
def test_autoplay_calls_the_lowest_triple(preset):
    rules = get_rules(preset)
    bot = AutoPlayAgent(rules)
    assert bot.uses_observation is True
    groups = {("8", "♠"): 4, ("Q", "♥"): 3, ("Q", "♣"): 3, ("BJ", ""): 3, ("7", "♦"): 2}
    obs, mask, table = _calling_obs(rules, groups)
    mask[D["ABDICATE"]] = 1
    if rules.call_declares_solo:
        mask[D["OPEN_SOLO"]] = 1
    assert table.describe(bot.act(obs, mask)) == "CALL ♣Q"  # lowest rank, then ♣ before ♥; never the quad
    # jokers come after every rank; SJ before BJ
    obs, mask, table = _calling_obs(rules, {("SJ", ""): 3, ("BJ", ""): 3, ("A", "♠"): 3})
    mask[D["ABDICATE"]] = 1
    assert table.describe(bot.act(obs, mask)) == "CALL ♠A"
    obs, mask, table = _calling_obs(rules, {("SJ", ""): 3, ("BJ", ""): 3})
    mask[D["ABDICATE"]] = 1
    assert table.describe(bot.act(obs, mask)) == "CALL SJ"
    # no triple (a quad only): abdicate
    obs, mask, table = _calling_obs(rules, {("K", "♥"): 4, ("9", "♣"): 2})
    mask[D["ABDICATE"]] = 1
    if rules.call_declares_solo:
        mask[D["OPEN_SOLO"]] = 1
    assert bot.act(obs, mask) == D["ABDICATE"]
    # forced round (逼位): only triples are offered (and classic's open solo): the lowest triple
    obs, mask, table = _calling_obs(rules, {("J", "♠"): 3, ("10", "♦"): 3, ("2", "♣"): 4})
    mask[table.call_id(table.kinds.index("2"), 0)] = 0
    if rules.call_declares_solo:
        mask[D["OPEN_SOLO"]] = 1
    assert table.describe(bot.act(obs, mask)) == "CALL ♦10"


@pytest.mark.parametrize("preset", ["lianzhong_classic", "generic216"])
def test_autoplay_calls_in_real_deals(preset):
    """From the real observation: the lowest triple the seat holds, else ABDICATE; then NO."""
    rules = get_rules(preset)
    enc, bot = Encoder(rules), AutoPlayAgent(rules)
    checked = 0
    for seed in range(12):
        game = Game(rules, seed=seed)
        while game.phase == "role":
            seat, mask = game.current_player, game.legal_mask()
            action = bot.act(enc.encode(game, seat), mask)
            if role_step(game) == "call":
                triples = sorted(a for a, c in groups(game, seat) if c == 3 and mask[a])
                assert action == (triples[0] if triples else D["ABDICATE"])
                checked += 1
            else:
                assert action == D["NO"]
            game.step(action)
    assert checked >= 12


def test_autoplay_leads_the_smallest_single_sp_last():
    rules = get_rules("generic216")
    bot, table = AutoPlayAgent(rules), action_table(rules)
    mask = np.zeros(table.num_actions, dtype=np.int8)
    bj, sp = table.action_id_of(-1, 0, 0, 1), table.action_id_of(-1, 0, 0, 0, 1)
    obs = np.zeros(Encoder(rules).size, dtype=np.float32)
    mask[[bj, sp, table.action_id_of(-1, 0, 0, 1, 1)]] = 1
    assert bot.act(obs, mask) == bj
    mask[bj] = 0
    assert bot.act(obs, mask) == sp
    mask[table.action_id_of(0, 1, 0, 0)] = 1  # a single 3, the lowest card of the 216-card deck
    assert table.describe(bot.act(obs, mask)) == "3"


def test_autoplay_never_applies_for_the_wind():
    g = random_game_until("qingdao", lambda g: g.phase == "play" and g.legal_mask()[D["APPLY_WIND"]])
    for name in ("autoplay", "greedy", "heuristic"):
        bot = make_agent(name, g.rules, 0)
        action = bot.act(Encoder(g.rules).encode(g, g.current_player), g.legal_mask())
        assert action != D["APPLY_WIND"] and g.legal_mask()[action]


# ------------------------------------------------------------------ every bot, every preset
@pytest.mark.parametrize("preset", ALL)
def test_every_bot_takes_only_legal_actions(preset):
    """20 games per preset; in each one every bot kind plays at least one seat."""
    rules = get_rules(preset)
    names = ["random", "autoplay", "greedy", "heuristic"]
    bots = {n: make_agent(n, rules, 7) for n in names}
    ends = set()
    for seed in range(20):
        agents = [bots[names[(seed + s) % len(names)]] for s in range(5)]
        game = run_game(rules, seed, agents)
        ends.add(game.result.end)
    assert ends <= {"played", "void", "surrender"}


def test_greedy_and_heuristic_use_the_defaults_where_they_have_no_model():
    rules = get_rules("lianzhong_classic")
    obs, mask, table = _calling_obs(rules, {("9", "♥"): 3, ("K", "♠"): 4})
    mask[[D["ABDICATE"], D["OPEN_SOLO"]]] = 1
    for name in ("greedy", "heuristic"):
        assert table.describe(make_agent(name, rules).act(obs, mask)) == "CALL ♥9"
    # weihai's decline has no model in use (agents/role_models/weihai.json): the default, ACCEPT
    heuristic = make_agent("heuristic", get_rules("weihai"))
    assert "decline" not in heuristic.roles.models and {"grab", "guard"} <= set(heuristic.roles.models)
    weihai_mask = np.zeros(action_table(get_rules("weihai")).num_actions, dtype=np.int8)
    weihai_mask[[D["ACCEPT"], D["DECLINE"]]] = 1
    assert heuristic.act(np.zeros(Encoder(get_rules("weihai")).size, np.float32), weihai_mask) == D["ACCEPT"]


# ------------------------------------------------------------------ fuzz
@pytest.mark.parametrize("preset", ALL)
def test_fuzz_every_preset(preset):
    assert fuzz.run_fuzz(preset, games=30, seed=0, log=open("/dev/null", "w")) == []


def test_fuzz_end_checks_accept_void_and_surrender_and_catch_errors():
    void = Game(get_rules("lianzhong_simple"), seed=4)
    for _ in range(10):
        void.step(D["ABDICATE"])
    assert void.result.end == "void" and fuzz.check_result(void) == []
    g = random_game_until("qingdao", lambda g: g.phase == "role" and g.legal_mask()[D["SURRENDER"]])
    g.step(D["SURRENDER"])
    assert fuzz.check_result(g) == []
    played = run_game(get_rules("qingdao"), 3, [make_agent("autoplay", get_rules("qingdao"))] * 5)
    assert played.result.end == "played" and fuzz.check_result(played) == []
    assert sum(1 for e in played.log if e[0] == "out") == 4
    played.result = dataclasses.replace(played.result, scores=[1, 0, 0, 0, 0])
    assert any("team scores" in p for p in fuzz.check_result(played))
    jj = run_game(get_rules("jj"), 3, [make_agent("autoplay", get_rules("jj"))] * 5)
    jj.result = dataclasses.replace(jj.result, scores=[1, 0, 0, 0, 0])
    assert any("sum to zero" in p for p in fuzz.check_result(jj))
    # cards are conserved with the tribute pile and SP counted
    g = random_game_until("generic216", lambda g: g.phase == "play" and g.kinds.sp >= 0
                          and sum(h[g.kinds.sp] for h in g.hands) == 1)
    dealt = fuzz.dealt_counts(g.rules).astype(np.int64)
    held = np.array(g.hands, dtype=np.int64).sum(axis=0) + np.array(g.pile) + np.array(g.total_played)
    assert np.array_equal(held, fuzz.expected_cards(g, dealt))


@pytest.mark.parametrize("preset", ALL)
def test_worked_examples_of_the_docs(preset):
    """`python -m baohuang_cli.preset_examples` (pasted into docs/rules.md §8.4) finds an
    example of every preset showing its role-phase events in words."""
    game = preset_examples.find_example(preset)
    text = "\n".join(preset_examples.example_text(game))
    assert text.startswith(f"preset {preset}, seed {game.seed}") and "Result:" in text and "roles fixed" in text
    assert f"preset {preset}, seed {game.seed}," in DOCS.read_text(encoding="utf-8")
