"""`baohuang play` and `baohuang replay`, driven through their input.

A person is simulated by a scripted input function (or a replaced stdin): bad answers of
every kind must get a clear message and a new prompt, a whole game must finish and save a
replay, and `baohuang replay` must reproduce that game's result. Broken replay files give a
clean error (exit code 2, message on stderr). One test runs the console script itself.
"""

from __future__ import annotations

import argparse
import io
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from agents import make_agent
from baohuang_env import Game, get_rules
from baohuang_env.encoding import Encoder
from baohuang_env.text import format_hand, render_table
from baohuang_env.replay import read_replay, save_replay
from baohuang_env.text import score_lines, winner_text
from baohuang_cli import cli, play_cmd, replay_cmd

RULES = get_rules("jj")
NAMES = ("6", "7", "8", "9", "T", "J", "Q", "K", "A", "2", "SJ", "BJ")


def hand(text: str) -> list[int]:
    counts = [0] * len(NAMES)
    for card in text.split():
        counts[NAMES.index(card)] += 1
    return counts


def scenario() -> Game:
    """Seat 1 holds the emperor card (autoplay accepts), seat 0 the guard card: the human at
    seat 0 is asked NO / OPEN_GUARD, then follows seat 1's lead of a single 8."""
    hands = [hand("6 7 9 9 2 SJ"), hand("8 8 K A BJ"), hand("7 7 T J"), hand("8 Q K"), hand("9 A 2")]
    return Game.from_deal(hands, emperor_card_seat=1, guard_card_seat=0, rules=RULES)


class Script:
    """A scripted person. `answers` maps a piece of the prompt ("| decide]", "| lead]",
    "| beat", "m = ") to the answers to give there, in order; after them `then` is typed
    (EOF when `then` is None). Prompts are recorded."""

    def __init__(self, answers: dict[str, list[str]] | list[str], then: str | None = "1") -> None:
        self.answers = {"": list(answers)} if isinstance(answers, list) else {k: list(v) for k, v in answers.items()}
        self.then = then
        self.prompts: list[str] = []

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        for key, queue in self.answers.items():
            if key in prompt and queue:
                return queue.pop(0)
        if self.then is None:
            raise EOFError
        return self.then


def parse(module, argv: list[str]) -> argparse.Namespace:
    """Arguments through the command's own parser (independent of the other commands)."""
    parser = argparse.ArgumentParser()
    module.add_parser(parser.add_subparsers(dest="command"))
    return parser.parse_args(argv)


def result_block(text: str) -> list[str]:
    """The 'Result:' table of a transcript, without the '(you)' marks."""
    lines = text.replace(" (you)", "").splitlines()
    start = lines.index("Result:")
    return lines[start:start + 7]


def finished_replay(path: Path, seed: int = 11) -> Game:
    """Save a whole game played by random agents."""
    game = Game(RULES, seed=seed)
    bots = [make_agent("random", RULES, seed + s) for s in range(5)]
    enc = Encoder(RULES)
    while not game.is_over:
        s = game.current_player
        game.step(bots[s].act(enc.encode(game, s), game.legal_mask()))
    save_replay(game, path)
    return game


# ------------------------------------------------------------------ baohuang play
def test_play_refuses_bad_input_with_reasons_and_finishes():
    game = scenario()
    bots = {s: make_agent("autoplay", RULES) for s in range(1, 5)}
    script = Script({
        "| decide]": ["garbage", "8", "ACCEPT", "pass", "open guard"],
        "| beat 8]": ["7", "AA", "6", "99", "#9", "2"],
        "m = ": ["x", "m"],  # '2' is move 2 (9) or a single 2: choose the move
        "| lead]": ["pass", "OPEN_GUARD", "9+SJ+SJ"],
    })
    out: list[str] = []
    assert play_cmd.play_game(game, 0, bots, script, out.append) == "over"
    text = "\n".join(out)
    expected = [
        "cannot read 'garbage'",  # unparseable
        "there is no move 8: choose a number from 1 to 2",  # role phase: digits are numbers
        "ACCEPT is not a choice now; choose NO, OPEN_GUARD",
        "this is the role phase; choose NO or OPEN_GUARD",
        "cannot play 7: it does not beat 8",
        "cannot play AA: those cards are not in your hand (you have 0 x A)",
        "cannot play 6: hold-the-sixes",
        "cannot play 99: it does not beat 8",
        "there is no move 9: choose a number from 1 to 4",
        "cannot pass: the leader must play",
        "OPEN_GUARD is a role-phase decision",
        "cannot play 9+SJ+SJ: those cards are not in your hand (you have 1 x 9, 1 x SJ)",
    ]
    for message in expected:
        assert message in text, message
    assert sum("'2' is move 2 (9) or the cards 2" in p for p in script.prompts) == 2  # 'x' asked again
    assert "seat 0 (you) plays 9" in text  # the move, not the single 2
    assert "NO         hidden guard (暗保): stay a hidden guard" in text
    assert "OPEN_GUARD open guard (明保): reveal yourself as the guard" in text
    assert game.is_over and game.open_guard  # "open guard" was read as OPEN_GUARD
    assert game.result.scores == [6, 12, -6, -6, -6]
    assert "Your score: +6" in text


def test_play_whole_game_from_main_saves_a_replay_that_replays(tmp_path, capsys):
    path = tmp_path / "game.json"
    script = Script({
        "| decide]": ["garbage", "KKKK", "help", "hand", "table"],
        "| lead]": ["pass", "KKKKKKKKKKKKKKKK", "moves", "#1000", "88+99"],
    })
    rc = play_cmd.main(parse(play_cmd, ["play", "--seed", "3", "--opponents", "autoplay", "--save", str(path)]),
                       input_fn=script)
    out = capsys.readouterr().out
    assert rc == 0
    assert "seed 3" in out and "seat 1: autoplay" in out
    assert "cannot read 'garbage'" in out
    assert "no cards are played yet: this is the role phase" in out
    assert "How to answer:" in out  # help
    assert "cannot pass: the leader must play" in out
    assert "cannot play KKKKKKKKKKKKKKKK: those cards are not in your hand" in out
    assert "there is no move 1000" in out
    assert "mixes ranks" in out
    assert "more plays with jokers added" in out  # the compact list ...
    assert re.search(r"\b\d+ 8\+SJ\b", out)  # ... and all of them after 'moves'
    assert f"Replay saved to {path}" in out and "(unfinished)" not in out
    played = Game.from_replay(json.loads(path.read_text()))
    assert played.is_over

    assert cli.main(["replay", str(path)]) == 0
    replayed = capsys.readouterr().out
    assert "reproduces the recorded result" in replayed
    assert result_block(replayed) == result_block(out)
    assert "scores " + " ".join(f"{v:+d}" for v in played.result.scores) in replayed


def test_play_eof_on_stdin_leaves_cleanly_and_saves_unfinished(tmp_path, capsys, monkeypatch):
    path = tmp_path / "part.json"
    monkeypatch.setattr(sys, "stdin", io.StringIO("garbage\n"))
    assert cli.main(["play", "--seed", "3", "--opponents", "autoplay", "--save", str(path)]) == 1
    out = capsys.readouterr().out
    assert "cannot read 'garbage'" in out and "End of input: leaving the game." in out
    assert "(unfinished)" in out
    assert cli.main(["replay", str(path)]) == 0
    replayed = capsys.readouterr().out
    assert "records no result" in replayed and "before the game is over" in replayed


def test_play_quit_and_four_opponent_specs(capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    assert cli.main(["play", "--seat", "1", "--seed", "4", "--opponents", "random, autoplay,random,autoplay"]) == 0
    out = capsys.readouterr().out
    assert "seat 0: random, seat 2: autoplay, seat 3: random, seat 4: autoplay" in out
    assert "You left the game." in out


def test_the_default_opponent_is_the_presets_strongest_shipped_agent_else_the_heuristic(monkeypatch):
    """jj has shipped agents, so its strongest is the default; a preset with none gets the
    heuristic; an agent added to SHIPPED for another preset is its default with no other change."""
    from agents import pretrained
    from agents.pretrained import SHIPPED, Pretrained, default_opponent
    from baohuang_env.rules import PRESETS

    assert default_opponent("jj") == "pretrained:dmc_kickstart_jj"
    for preset in set(PRESETS) - {p.preset for p in SHIPPED.values()}:
        assert default_opponent(preset) == "heuristic", preset
    jj_only = {name: p for name, p in SHIPPED.items() if p.preset == "jj"}
    monkeypatch.setattr(pretrained, "SHIPPED", jj_only)
    assert default_opponent("weihai") == "heuristic"
    fake = Pretrained("dmc_kickstart_test_weihai", "dmc", "weihai", "a test entry; no file")
    monkeypatch.setattr(pretrained, "SHIPPED", {**jj_only, fake.name: fake})
    assert default_opponent("weihai") == "pretrained:dmc_kickstart_test_weihai"
    assert default_opponent("jj") == "pretrained:dmc_kickstart_jj"


@pytest.mark.parametrize("preset", ["jj", "weihai"])
def test_play_without_opponents_plays_and_names_the_presets_default(preset, capsys, monkeypatch):
    from agents import pretrained

    jj_only = {name: p for name, p in pretrained.SHIPPED.items() if p.preset == "jj"}
    monkeypatch.setattr(pretrained, "SHIPPED", jj_only)  # weihai stands for a preset with no shipped agent
    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    assert cli.main(["play", "--preset", preset, "--seed", "4"]) == 0
    out = capsys.readouterr().out
    spec, why = ("pretrained:dmc_kickstart_jj", "its strongest shipped agent") if preset == "jj" else \
        ("heuristic", "no agent is shipped for it")
    assert f"Opponents: {spec}, the default for {preset} ({why}; --opponents picks others)" in out
    assert ", ".join(f"seat {s}: {spec}" for s in range(1, 5)) in out


@pytest.mark.parametrize(("opponents", "message"), [
    ("nosuch", "unknown agent 'nosuch'; available agents: ["),
    ("random,autoplay", "one agent spec or 4 comma-separated specs"),
    ("random,,random,random", "one agent spec or 4 comma-separated specs"),
])
def test_play_bad_opponents(opponents, message, capsys):
    assert cli.main(["play", "--opponents", opponents]) == 2
    err = capsys.readouterr().err
    assert err.startswith("baohuang play: error:") and message in err
    if opponents == "nosuch":
        assert "'autoplay'" in err and "'random'" in err


# ------------------------------------------------------------------ baohuang replay
@pytest.mark.parametrize(("content", "message"), [
    (None, "cannot read replay"),
    ("{not json", "is not valid JSON"),
    ('[1, 2, 3]', "expected a JSON object"),
    ('{"format": "chess-pgn", "version": 1}', "not a Baohuang replay"),
    ('{"format": "baohuang-replay", "version": 99}', "version 99 is not supported"),
    ('{"format": "baohuang-replay", "version": 1, "seed": 1, "actions": []}', "missing the field 'rules'"),
    ("tampered-result", "does not reproduce its recorded result"),
    ("illegal-action", "cannot take action"),
    ("bad-actions", "malformed"),
    ("bad-players", '"players" is a list of 5 names'),
])
def test_replay_broken_files_give_clean_errors(content, message, tmp_path, capsys):
    path = tmp_path / "broken.json"
    if content in ("tampered-result", "illegal-action", "bad-actions", "bad-players"):
        finished_replay(path)
        record = json.loads(path.read_text())
        if content == "tampered-result":
            record["result"]["scores"] = [0] * 5
        elif content == "illegal-action":
            record["actions"][0] = 4035  # a play in the role phase
        elif content == "bad-players":
            record["players"] = ["you", "heuristic"]
        else:
            record["actions"] = None
        content = json.dumps(record)
    if content is not None:
        path.write_text(content)
    assert cli.main(["replay", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith("baohuang replay: error:") and message in captured.err
    assert str(path) in captured.err
    assert "Traceback" not in captured.err and captured.out == ""


def test_replay_steps_with_enter_and_quits(tmp_path, capsys):
    path = tmp_path / "g.json"
    game = finished_replay(path)
    n = len(game.actions)
    script = Script(["", "", "q"])
    assert replay_cmd.main(parse(replay_cmd, ["replay", str(path), "--step"]), input_fn=script) == 0
    out = capsys.readouterr().out
    assert f"[1/{n}]" in out and f"[2/{n}]" in out and f"[3/{n}]" not in out
    assert f"stopped before action 3 of {n}" in out
    assert len(script.prompts) == 3 and "q = quit" in script.prompts[0]

    script = Script(["", "c"])  # continue to the end without stopping
    assert replay_cmd.main(parse(replay_cmd, ["replay", str(path), "--step"]), input_fn=script) == 0
    out = capsys.readouterr().out
    assert len(script.prompts) == 2 and f"[{n}/{n}]" in out and "Result:" in out

    script = Script([], then=None)  # EOF at the first prompt
    assert replay_cmd.main(parse(replay_cmd, ["replay", str(path), "--step"]), input_fn=script) == 0
    assert "end of input: stopped" in capsys.readouterr().out


def test_replay_views_and_result(tmp_path, capsys):
    path = tmp_path / "g.json"
    game = finished_replay(path, seed=5)
    start = Game(RULES, seed=5)
    hand_text = [format_hand(h, start.kinds.names) for h in start.hands]

    assert replay_cmd.main(parse(replay_cmd, ["replay", str(path)])) == 0
    out = capsys.readouterr().out
    assert all(h in out for h in hand_text)  # a spectator sees every hand
    assert "(hidden)" not in out
    for s in range(5):
        assert re.search(rf"^{s}\s+{game.result.places[s]}\s+.*{re.escape(f'{game.result.scores[s]:+d}')}$", out, re.M)

    assert replay_cmd.main(parse(replay_cmd, ["replay", str(path), "--seat", "2"])) == 0
    out = capsys.readouterr().out
    assert hand_text[2] in out and "(hidden)" in out
    assert not any(hand_text[s] in out for s in (0, 1, 3, 4))


def test_replay_table_shows_a_hidden_guard_only_once_public():
    """Roles in the table are what the viewer knows: to every other seat the guard's row reads
    '?' until he declares himself or plays the guard card, then 'guard'; the guard himself
    and a spectator see 'guard', marked hidden until then."""
    revealed = 0
    for seed in range(40):
        game = Game(RULES, seed=seed)
        bot = make_agent("random", RULES, seed)
        while not game.is_over:
            game.step(bot.act(None, game.legal_mask()))
            if game.is_over:  # at the end every role is shown
                break
            if game.guard < 0 or game.guard == game.emperor:
                continue
            public = game.public_guard == game.guard
            for viewer in (None, *range(5)):
                row = render_table(game, viewer).splitlines()[2 + game.guard]
                role = row.split()[1]
                if viewer is not None and viewer != game.guard:
                    assert role == ("guard" if public else "?"), row
                else:
                    assert role == "guard" and ("(hidden 暗保)" in row) != public, row
        if game.public_guard >= 0 and game.guard != game.emperor:
            revealed += 1
        if revealed >= 3:
            break
    assert revealed >= 3


def test_play_saves_who_played_each_seat_and_replay_steps_forward_back_and_jumps(tmp_path, capsys, monkeypatch):
    path = tmp_path / "game.json"
    monkeypatch.setattr(sys, "stdin", io.StringIO("#1\n" * 400))  # the human plays its first move
    assert cli.main(["play", "--seat", "2", "--seed", "3", "--opponents", "autoplay,random,heuristic,greedy",
                     "--save", str(path)]) == 0
    capsys.readouterr()
    replay = read_replay(path)
    assert replay.players == ["autoplay", "random", "you", "heuristic", "greedy"]
    n = len(replay.game.actions)

    # Enter and n step forward, b back, a number jumps (0: the deal); wrong answers are asked again
    monkeypatch.setattr(sys, "stdin", io.StringIO("\nn\nb\n40\nb\nx\n999\n0\nq\n"))
    assert cli.main(["replay", str(path), "--step"]) == 0
    out = capsys.readouterr().out
    assert "players: seat 0: autoplay, seat 1: random, seat 2: you, seat 3: heuristic, seat 4: greedy" in out
    shown = [int(m) for m in re.findall(rf"^\[(\d+)/{n}\]", out, re.M)]
    assert [k for i, k in enumerate(shown) if i == 0 or shown[i - 1] != k] == [1, 2, 1, 40, 39]
    blocks = [b for b in out.split("\n\n") if b.startswith(("[1/", "deal ("))]
    tables = [b.split("\n[Enter/n]")[0] for b in blocks]
    assert len(tables) == 4 and tables[0] == tables[3] and tables[1] == tables[2]  # the deal, move 1, 1 again, deal
    assert f"  ! type Enter or n (next), b (back), a number 0-{n} (jump)" in out
    assert f"  ! there is no action 999: jump to 0 (the deal) .. {n}" in out
    assert out.rstrip().endswith("stopped before action 1 of " + str(n))


def test_a_replay_from_before_players_were_recorded_still_loads(tmp_path, capsys):
    path = tmp_path / "old.json"
    game = finished_replay(path, seed=4)
    assert "players" not in json.loads(path.read_text())
    assert read_replay(path).players is None
    assert cli.main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    assert "players: not recorded in this file" in out and winner_text(game) in out


def test_the_terminal_result_names_the_winning_side_and_explains_qingdaos_doubling(tmp_path, capsys, monkeypatch):
    """The end of `baohuang play` in qingdao (seed 20: the emperor and the guard take the two
    last places, which doubles the points) says who won and why the scores are what they are,
    in the words the web page shows (one wording: `text.winner_text`, `text.score_lines`)."""
    from baohuang_web import views

    path = tmp_path / "q.json"
    monkeypatch.setattr(sys, "stdin", io.StringIO("#1\n" * 400))
    assert cli.main(["play", "--preset", "qingdao", "--seat", "2", "--seed", "20", "--opponents", "heuristic",
                     "--save", str(path)]) == 0
    out = capsys.readouterr().out.replace(" (you)", "")
    game = read_replay(path).game
    assert "The rebels win: seats 1, 3, 4." in out
    assert ("× 2 (the emperor and the guard took places 4 and 5, the two first or the two last): "
            "every player's points are doubled.") in out
    assert "Each seat scores its team's sum: the emperor's side -12, the rebels +12." in out
    end = out[out.index("Result:"):].splitlines()
    assert end[end.index(winner_text(game)):end.index("Your score: -12")] == [winner_text(game), *score_lines(game)]
    assert views.result_view(game)["score_lines"] == score_lines(game)  # the page's words are these


def _console_script() -> str | None:
    here = Path(sys.executable).parent / "baohuang"
    return str(here) if here.exists() else shutil.which("baohuang")


@pytest.mark.skipif(_console_script() is None, reason="the baohuang console script is not installed")
def test_console_script_replay_end_to_end(tmp_path):
    path = tmp_path / "g.json"
    game = finished_replay(path, seed=2)
    proc = subprocess.run([_console_script(), "replay", str(path), "--seat", "0"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "reproduces the recorded result" in proc.stdout
    assert f"[{len(game.actions)}/{len(game.actions)}]" in proc.stdout and "Result:" in proc.stdout
    path.write_text("{truncated")
    proc = subprocess.run([_console_script(), "replay", str(path)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.startswith("baohuang replay: error:") and "not valid JSON" in proc.stderr
