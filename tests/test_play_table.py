"""The table of `baohuang play` and `baohuang replay` (`baohuang_env.text.render_table`):
roles as the viewing seat knows them (`baohuang_env.knowledge`), the places at the end of a
deal (no "out" for a seat that still held cards), and in the calling presets the hands with
suits during the call round, where the suit-rank called decides the guard."""

from __future__ import annotations

import argparse
import re
import unicodedata

import pytest

from baohuang_cli import play_cmd, replay_cmd
from baohuang_env import Game, get_rules
from baohuang_env.knowledge import known_role
from baohuang_env.replay import save_replay
from baohuang_env.rules import PRESETS
from baohuang_env.text import ROLE_NAMES, format_hand, format_suited_hand, render_table
from helpers import random_game


def _row(table: str, seat: int) -> str:
    return next(line for line in table.splitlines() if re.match(rf"{seat}\*?\s", line))


def test_format_suited_hand():
    names = Game(get_rules("lianzhong_classic"), seed=0).kinds.names
    counts = [[0] * 4 for _ in names]
    counts[names.index("6")] = [1, 0, 0, 2]
    counts[names.index("K")] = [0, 0, 3, 0]
    counts[names.index("10")] = [0, 1, 0, 0]
    counts[names.index("SJ")] = [1, 0, 0, 0]
    counts[names.index("BJ")] = [2, 0, 0, 0]
    assert format_suited_hand(counts, names) == "♣6 ♠6x2 ♦T ♥Kx3 SJ BJx2"
    assert format_suited_hand([[0] * 4 for _ in names], names) == "-"


def test_at_the_end_a_seat_that_still_held_cards_has_a_place_not_out():
    games = [random_game(get_rules("jj"), seed, seed) for seed in range(10)]
    game = next(g for g in games if g.result.end == "played" and sum(1 for n in g.cards_left if n) >= 2)
    table = render_table(game)
    for s in range(5):
        place, left = game.result.places[s], game.cards_left[s]
        row = _row(table, s)
        if left:
            assert f"place {place} (still held {left})" in row and "out" not in row
        else:
            assert f"out #{place}" in row
    header = table.splitlines()[1]
    for s in range(5):  # the hand column stays aligned (CJK role names take two columns)
        row = _row(table, s)
        start = row.index(format_hand(game.hands[s], game.kinds.names)) if game.cards_left[s] else len(row) - 1
        assert _width(row[:start]) == header.index("hand")


def _width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_the_table_shows_each_role_as_the_viewer_knows_it(preset):
    """Public roles and the viewer's own role are shown, "?" only for what it cannot know."""
    rules = get_rules(preset)
    for seed in range(3):
        game = random_game(rules, seed, seed)
        start = Game(rules, seed=seed)
        for action in game.actions:
            start.step(action)
            if start.is_over:
                break
            for viewer in (None, *range(5)):
                table = render_table(start, viewer)
                for s in range(5):
                    role = known_role(start, s, viewer)
                    cell = _row(table, s)[6:].split("  ")[0]
                    assert cell.startswith(ROLE_NAMES[role]) if role else cell.strip() == "?"


def _call_round_game() -> Game:
    game = Game(get_rules("lianzhong_classic"), seed=1)
    assert game.suits is not None and game.rules.role_steps[game.step_index] == "call"
    return game


def test_call_round_hands_have_suits_for_the_seat_and_the_spectator():
    game = _call_round_game()
    names = game.kinds.names
    suited = [format_suited_hand(game.suits[s], names) for s in range(5)]
    assert "♥8x3" in suited[0]  # the triple seat 0 may call
    mine = render_table(game, viewer=0)
    assert suited[0] in _row(mine, 0)
    assert all("(hidden)" in _row(mine, s) for s in range(1, 5))
    spectator = render_table(game)
    assert all(suited[s] in _row(spectator, s) for s in range(5))
    while game.suits is not None:  # after the call suits no longer matter: plain hands
        game.step(int(game.legal_actions()[0]))
    assert format_hand(game.hands[0], names) in _row(render_table(game), 0)


def test_play_shows_the_suited_hand_in_the_call_round(capsys):
    args = argparse.Namespace(preset="lianzhong_classic", seed=1, seat=0, opponents="autoplay", save=None,
                              ask_forced=False)

    def read(prompt: str) -> str:
        raise EOFError

    play_cmd.main(args, read)
    out = capsys.readouterr().out
    suited = format_suited_hand(_call_round_game().suits[0], _call_round_game().kinds.names)
    assert f"Your hand (34 cards): {suited}" in out
    assert re.search(rf"^0\*\s.*{re.escape(suited)}", out, re.M)


def test_replay_shows_the_viewer_s_suited_hand_in_the_call_round(tmp_path, capsys):
    game = _call_round_game()
    start = _call_round_game()
    while not game.is_over:
        game.step(int(game.legal_actions()[-1]))
    save_replay(game, tmp_path / "g.json")
    parser = argparse.ArgumentParser()
    replay_cmd.add_parser(parser.add_subparsers(dest="command"))
    suited = [format_suited_hand(start.suits[s], start.kinds.names) for s in range(5)]
    assert replay_cmd.main(parser.parse_args(["replay", str(tmp_path / "g.json"), "--seat", "2"])) == 0
    out = capsys.readouterr().out
    assert suited[2] in out and not any(suited[s] in out for s in (0, 1, 3, 4))
    assert replay_cmd.main(parser.parse_args(["replay", str(tmp_path / "g.json")])) == 0
    out = capsys.readouterr().out
    assert all(h in out for h in suited)
