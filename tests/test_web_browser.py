"""`baohuang serve` in a real browser: the system's headless Chromium, driven by Playwright,
plays a whole game through the page, steps through replays, and takes a screenshot that
must not be blank. The server is the real command, started on 127.0.0.1 and stopped here.

Needs the web extra (Playwright's Python package; its own browser download is never used)
and a `chromium` on PATH (Debian's package; .ci/run installs it).
"""

from __future__ import annotations

import json
import random
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from agents.pretrained import SHIPPED
from baohuang_env import PRESETS, Game, get_rules
from baohuang_env.agent import make_agent
from baohuang_env.encoding import Encoder
from baohuang_env.replay import save_replay
from web_helpers import stop_server

sync_api = pytest.importorskip("playwright.sync_api")
CHROMIUM = shutil.which("chromium")
if CHROMIUM is None:
    pytest.skip("no chromium on PATH: install it with `apt-get install -y chromium` (Debian; .ci/run does)",
                allow_module_level=True)

pytestmark = pytest.mark.browser
ROOT = Path(__file__).resolve().parents[1]
#: Chromium flags for a sandboxed CI machine without network or GPU.
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
WAIT_MS = 20_000


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _greedy_replay(path: Path, seed: int) -> Game:
    rules = get_rules("jj")
    game, bot, enc = Game(rules, seed=seed), make_agent("greedy", rules), Encoder(rules)
    while not game.is_over:
        game.step(bot.act(enc.encode(game, game.current_player), game.legal_mask()))
    save_replay(game, path)
    return game


@contextmanager
def _serving(args: list[str]) -> Iterator[tuple[str, dict]]:
    """The real `baohuang serve ARGS` on a free loopback port: (its url, its /api/options)."""
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "baohuang_cli.cli", "serve", "--port", str(port), *args],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):  # up to 30 s for the server to answer
            if proc.poll() is not None:
                raise AssertionError(f"baohuang serve exited: {proc.stdout.read()}")
            try:
                with urllib.request.urlopen(f"{url}/api/options", timeout=1) as r:
                    options = json.load(r)
                break
            except OSError:
                time.sleep(0.1)
        else:
            raise AssertionError("baohuang serve did not answer within 30 s")
        yield url, options
    finally:
        stop_server(proc)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """The real `baohuang serve` on a free loopback port, with one replay file given."""
    folder = tmp_path_factory.mktemp("served")
    given = _greedy_replay(folder / "given.json", seed=21)
    with _serving(["--opponents", "greedy,random", "--hints", "greedy", "--replays", str(folder),
                   "--seed", "2026"]) as (url, options):
        assert options["replays"] == ["given.json"]
        yield url, given


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    """A page of a headless Chromium with a fresh profile; fails a test on any page error."""
    with sync_api.sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("chromium-profile")), executable_path=CHROMIUM, headless=True,
            args=CHROMIUM_ARGS, viewport={"width": 1100, "height": 900})
        page = context.new_page()
        page.errors = []
        page.on("pageerror", lambda err: page.errors.append(str(err)))
        page.on("console", lambda msg: page.errors.append(msg.text) if msg.type == "error" else None)
        yield page
        context.close()


def _wait_turn_or_result(page) -> bool:
    """Wait until it is the human's turn (False) or the result shows (True)."""
    page.wait_for_function("() => !document.getElementById('turn').hidden || "
                           "document.querySelector('#result .result')", timeout=WAIT_MS)
    return page.locator("#result .result").count() > 0


def _click_and_wait(page, locator) -> None:
    """Click, then wait until the page has drawn the server's answer."""
    before = page.get_attribute("#game", "data-draws")
    locator.click()
    page.wait_for_function(f"() => document.getElementById('game').dataset.draws !== '{before}' || "
                           "document.getElementById('error').textContent", timeout=WAIT_MS)
    assert not page.inner_text("#error"), page.inner_text("#error")


def _new_game(page, url: str, seat: int = 2, auto_forced: bool = False, preset: str | None = None) -> None:
    """Start a game from the setup form: the human at `seat`, the bots instant; with
    `auto_forced` off the test clicks every move itself, forced ones too."""
    page.goto(url + "/")
    if preset is not None:
        page.select_option("#preset", preset)
    page.select_option("#seat", str(seat))
    page.select_option("#opponent-0", "random")
    page.select_option("#speed", "0")
    if page.locator("#auto-forced").count():  # (so that this runs on pages from before the option, too)
        page.set_checked("#auto-forced", auto_forced)
    page.click("#start")


def _game_of(page, url: str) -> tuple[dict, dict]:
    """The server's replay record of the page's game (as Python reads it: exact integers)
    and the player's view, asked with the page's own game id and token."""
    game_id, token = page.evaluate("() => [state.id, state.token]")
    answers = []
    for path in (f"/api/games/{game_id}/replay", f"/api/games/{game_id}"):
        request = urllib.request.Request(url + path, headers={"X-Player-Token": token})
        with urllib.request.urlopen(request, timeout=10) as r:
            answers.append(json.load(r))
    return answers[0], answers[1]


def _play_to_the_end(page, rng: random.Random, typed: bool, hinted: bool) -> int:
    """Click random moves until the result shows; type one move and ask one hint when asked.
    Returns the number of clicks."""
    clicks = 0
    for _ in range(300):
        if _wait_turn_or_result(page):
            return clicks
        moves = page.locator("#moves button.move")
        assert moves.count() > 0
        if not hinted and "phase: play" in page.inner_text("#status"):
            page.click("#hint-button")
            page.wait_for_selector("#hints li", timeout=WAIT_MS)
            assert "greedy would play" in page.inner_text("#hints")
            hinted = True
        if not typed and page.locator("#moves button.play").count():
            page.fill("#typed", page.locator("#moves button.play").first.inner_text())
            _click_and_wait(page, page.locator("#typed-form button"))
            typed = True
            continue
        _click_and_wait(page, moves.nth(rng.randrange(moves.count())))
        clicks += 1
    raise AssertionError("no result after 300 turns")


def _shown_scores(page) -> dict[int, int]:
    """The result table on the page: seat -> score, read by the column headers."""
    rows = page.locator("#result .scores tr").all()
    head = rows[0].locator("th").all_inner_texts()
    seat, score = head.index("seat"), head.index("score")
    scores = {}
    for row in rows[1:]:
        cells = row.locator("td").all_inner_texts()
        scores[int(cells[seat].split()[0])] = int(cells[score])
    return scores


def test_a_whole_game_with_a_63_bit_seed_is_played_and_its_saved_replay_is_exact(server, page, tmp_path):
    """The deal seed is 63 bits and JS numbers keep 53: the page must hand on the server's
    replay text untouched (the save link, the replay viewer), or the replay names another deal."""
    url, _ = server
    rng = random.Random(3)
    for games in range(1, 6):  # a random seed is above 2**53 with probability 1 - 2**-10
        _new_game(page, url)
        _play_to_the_end(page, rng, typed=games > 1, hinted=games > 1)
        record, view = _game_of(page, url)
        if record["seed"] > 2**53:
            break
    assert record["seed"] > 2**53, f"five deals in a row had a seed below 2**53: {record['seed']}"
    scores = record["result"]["scores"]
    assert page.locator("#result .scores tr").count() == 6  # a header and five seats
    assert _shown_scores(page) == dict(enumerate(scores))
    assert page.locator("#table tr.me td").nth(1).inner_text() == "you"
    assert page.locator("#log li").count() > 50
    end_screen = {"winner": page.locator("#result .winner").all_inner_texts(),
                  "score_lines": page.locator("#result .score-lines li").all_inner_texts()}

    # the saved file is the server's record, integer for integer
    page.wait_for_function("() => document.getElementById('save-replay').href.startsWith('blob:')",
                           timeout=WAIT_MS)
    with page.expect_download() as download:
        page.click("#save-replay")
    saved = tmp_path / "saved.json"
    download.value.save_as(saved)
    assert json.loads(saved.read_text(encoding="utf-8")) == record
    assert re.fullmatch(r"baohuang-jj-\d{8}-\d{4}\.json", download.value.suggested_filename)  # preset, time
    assert record["players"] == ["random", "greedy", "you", "greedy", "greedy"]  # seat 0 as chosen, the others default

    # `baohuang replay` replays it to the same scores
    cli = subprocess.run([sys.executable, "-m", "baohuang_cli.cli", "replay", str(saved)], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert cli.returncode == 0, cli.stderr
    assert f"seed {record['seed']}," in cli.stdout
    assert "checked: replaying the actions reproduces the recorded result" in cli.stdout
    assert "scores: " + "  ".join(f"seat {s}: {v:+d}" for s, v in enumerate(scores)) in cli.stdout

    # the replay viewer, from the page's link and from the saved file, ends with the same result
    page.click("#watch-replay")
    page.wait_for_selector("#viewer:not([hidden]), #error:not([hidden])", timeout=WAIT_MS)
    assert not page.inner_text("#error"), page.inner_text("#error")
    page.click("#last")
    assert _frame(page) == (len(record["actions"]), len(record["actions"]))
    assert _shown_scores(page) == dict(enumerate(scores))
    viewer_winner = page.locator("#result .winner").all_inner_texts()
    page.reload()
    page.set_input_files("#file", str(saved))
    page.wait_for_selector("#viewer:not([hidden])", timeout=WAIT_MS)
    page.click("#last")
    assert _shown_scores(page) == dict(enumerate(scores))
    # who played each seat, as a person reads it in the viewer
    assert page.inner_text("#players") == "Players: seat 0 random · seat 1 greedy · seat 2 you · seat 3 greedy · " \
        "seat 4 greedy"
    assert page.locator(".seat-box[data-seat='0'] .who").inner_text() == "seat 0 · random"
    assert page.errors == []

    # the end screen said who won and why the scores are what they are
    result = view["result"]
    assert end_screen["winner"] == viewer_winner == [result["winner"]]
    assert any(w in result["winner"].lower() for w in ("win", "draw")), result["winner"]  # says who won
    assert end_screen["score_lines"] == result["score_lines"]
    res = record["result"]
    if res["end"] == "played" and res["solo"] == "none":
        places = res["places"]
        assert result["score_lines"][0].startswith(
            f"JJ formula: g = 6 − (emperor's place {places[res['emperor']]} + guard's place {places[res['guard']]})")
    page.goto(url + "/")


def test_new_game_returns_to_the_setup(server, page):
    url, _ = server
    _new_game(page, url)
    page.wait_for_selector("#game:not([hidden])", timeout=WAIT_MS)
    page.evaluate("() => newGame()")
    assert page.locator("#setup").is_visible() and not page.locator("#game").is_visible()


def _log_at_bottom(page) -> bool:
    """Whether "What happened" overflows its box and shows its newest line."""
    return page.evaluate("() => { const l = document.getElementById('log'); return l.scrollHeight > l.clientHeight "
                         "&& l.scrollTop + l.clientHeight >= l.scrollHeight - 2; }")


def test_an_only_move_is_played_after_a_visible_second_and_can_be_stopped(server, page):
    url, _ = server
    rng = random.Random(8)
    _new_game(page, url, auto_forced=True)
    stopped = waited = False
    for _ in range(200):
        if _wait_turn_or_result(page) or waited:
            break
        moves = page.locator("#moves button.move")
        if moves.count() != 1:
            _click_and_wait(page, moves.nth(rng.randrange(moves.count())))
            continue
        label = moves.first.inner_text()
        assert page.inner_text("#forced").startswith(f"Only move: {label} — playing it in 1 s")
        before = page.get_attribute("#game", "data-draws")
        if not stopped:  # stop it: nothing happens, and the move waits for a click
            page.click("#stop-forced")
            assert not page.locator("#forced").is_visible()
            page.wait_for_timeout(1500)
            assert page.get_attribute("#game", "data-draws") == before
            _click_and_wait(page, moves.first)
            stopped = True
            continue
        started = time.monotonic()  # let it play itself
        page.wait_for_function(f"() => document.getElementById('game').dataset.draws !== '{before}'",
                               timeout=WAIT_MS)
        assert time.monotonic() - started > 0.7, "the only move was played without a visible delay"
        waited = True
    assert stopped and waited, "fewer than two only-moves in the game"
    assert page.errors == []


def test_what_happened_follows_the_newest_line_unless_scrolled_up(server, page):
    url, _ = server
    rng = random.Random(4)
    _new_game(page, url)
    for _ in range(100):  # until the log overflows its box
        assert not _wait_turn_or_result(page)
        if page.evaluate("() => { const l = document.getElementById('log'); return l.scrollHeight > "
                         "l.clientHeight + 50; }"):
            break
        moves = page.locator("#moves button.move")
        _click_and_wait(page, moves.nth(rng.randrange(moves.count())))
    assert _log_at_bottom(page), "the newest line of 'What happened' is out of sight"
    newest = page.locator("#log li").last
    assert newest.is_visible()
    page.evaluate("() => { document.getElementById('log').scrollTop = 0; }")  # the reader scrolls up
    moves = page.locator("#moves button.move")
    _click_and_wait(page, moves.nth(rng.randrange(moves.count())))
    assert page.evaluate("() => document.getElementById('log').scrollTop") == 0, "the log jumped while read"
    page.evaluate("() => { const l = document.getElementById('log'); l.scrollTop = l.scrollHeight; }")
    _wait_turn_or_result(page)
    moves = page.locator("#moves button.move")
    _click_and_wait(page, moves.nth(rng.randrange(moves.count())))
    assert _log_at_bottom(page)


def test_the_round_table_shows_each_seats_last_play_and_fits_a_phone(server, page, tmp_path):
    url, _ = server
    rng = random.Random(6)
    page.set_viewport_size({"width": 390, "height": 844})
    try:
        _new_game(page, url, seat=3)
        for _ in range(150):  # until a play is on the table at the human's turn
            assert not _wait_turn_or_result(page)
            if page.inner_text("#trick").startswith("to beat:"):
                break
            moves = page.locator("#moves button.move")
            _click_and_wait(page, moves.nth(rng.randrange(moves.count())))
        else:
            raise AssertionError("no play to beat in 150 turns")
        page.screenshot(path=str(tmp_path / "phone.png"), full_page=True)
        # nothing wider than the phone, and whose turn it is in sight
        assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
        for indicator in ("#table tr.acting td.status", ".round .seat-box.acting .to-act"):
            box = page.locator(indicator).bounding_box()
            assert "to act" in page.locator(indicator).inner_text()
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390, indicator
        # the human sits at the bottom, in front of the others
        me = page.locator(".round .seat-box.bottom")
        assert me.get_attribute("data-seat") == "3" and "(you)" in me.inner_text()
        bottom = me.bounding_box()["y"]
        for other in page.locator(".round .seat-box:not(.bottom)").all():
            assert other.bounding_box()["y"] < bottom
        # the play to beat lies in front of the seat that made it
        words = page.inner_text("#trick").split()  # "to beat: 888+SJ by seat 4"
        play, by = words[2], words[-1]
        cards = page.locator(f".round .seat-box[data-seat='{by}'] .last-play .card").all_inner_texts()
        assert "".join(cards) == play.replace("+", "")
    finally:
        page.set_viewport_size({"width": 1100, "height": 900})


def test_the_hint_button_shows_only_in_presets_the_hint_agent_plays(server, page):
    url, _ = server

    def only_weihai(route):
        response = route.fetch()
        route.fulfill(response=response, json={**response.json(), "hint_presets": ["weihai"]})

    page.route("**/api/options", only_weihai)
    try:
        _new_game(page, url, preset="jj")
        page.wait_for_selector("#game:not([hidden])", timeout=WAIT_MS)
        assert page.get_attribute("#hint-button", "hidden") is not None
        assert page.locator("#no-hints").get_attribute("hidden") is None
        assert "No hints in jj" in page.text_content("#no-hints")
        _new_game(page, url, preset="weihai")
        page.wait_for_selector("#game:not([hidden])", timeout=WAIT_MS)
        assert page.get_attribute("#hint-button", "hidden") is None
        assert page.get_attribute("#no-hints", "hidden") is not None
    finally:
        page.unroute("**/api/options")
    assert page.errors == []


def test_the_default_opponents_follow_the_preset_its_own_agent_preselected(page):
    """Under serve's default --opponents the page offers, in each preset, only the opponents
    that play it, with the preset's own shipped agent (`pretrained`) preselected (every preset
    ships one); a new seat keeps the choices made. An agent of one preset only (here jj's
    checkpoint, given by name) is offered in that preset alone: elsewhere the first opponent
    that plays it is preselected, and a game started there seats it."""

    def chosen() -> list[str]:
        return [page.input_value(f"#opponent-{i}") for i in range(4)]

    def offered() -> list[str]:
        return page.locator("#opponent-0 option").all_inner_texts()

    def seated() -> set[str]:
        page.select_option("#speed", "0")
        page.click("#start")
        page.wait_for_selector("#game:not([hidden])", timeout=WAIT_MS)
        assert not page.inner_text("#setup-error")
        names = set(page.locator("#table tr td:nth-child(2)").all_inner_texts())
        page.evaluate("() => newGame()")
        return names

    with _serving(["--hints", "none", "--seed", "7"]) as (url, _):
        page.goto(url + "/")
        page.wait_for_selector("#opponent-3", state="attached", timeout=WAIT_MS)
        assert page.input_value("#preset") == "jj"
        assert chosen() == ["pretrained"] * 4 and offered()[0] == "pretrained"
        page.select_option("#opponent-1", "greedy")
        page.select_option("#seat", "3")
        assert chosen() == ["pretrained", "greedy", "pretrained", "pretrained"]
        for preset in [p for p in PRESETS if p != "jj"]:
            page.select_option("#preset", preset)
            assert chosen() == ["pretrained"] * 4, preset
        assert seated() == {"you", "pretrained"}
        page.select_option("#preset", "jj")
        assert chosen() == ["pretrained"] * 4
    jj_agent = SHIPPED["dmc_kickstart_jj"].spec
    with _serving(["--hints", "none", "--seed", "7", "--opponents", f"{jj_agent},heuristic,greedy"]) as (url, _):
        page.goto(url + "/")
        page.wait_for_selector("#opponent-3", state="attached", timeout=WAIT_MS)
        assert chosen() == [jj_agent] * 4
        page.select_option("#preset", "weihai")
        assert chosen() == ["heuristic"] * 4 and jj_agent not in offered(), offered()
        assert seated() == {"you", "heuristic"}
    assert page.errors == []


def _frame(page) -> tuple[int, int]:
    text = page.inner_text("#position")  # "move i of n"
    words = text.split()
    return int(words[1]), int(words[3])


def test_a_replay_is_stepped_through_in_a_seats_and_the_spectators_view(server, page, tmp_path):
    url, given = server
    game = _greedy_replay(tmp_path / "mine.json", seed=5)
    n = len(game.actions)
    page.goto(url + "/replay")
    page.set_input_files("#file", str(tmp_path / "mine.json"))
    page.wait_for_selector("#viewer:not([hidden])", timeout=WAIT_MS)
    assert _frame(page) == (0, n)
    assert page.inner_text("#players") == "Players: not recorded in this file"  # a file from before the field
    for _ in range(3):
        page.click("#forward")
    page.click("#back")
    assert _frame(page) == (2, n)
    page.fill("#jump-to", "12")
    page.press("#jump-to", "Enter")
    assert _frame(page) == (12, n)
    assert page.locator("#table tr td.handtext").count() == 5  # the spectator sees every hand
    page.select_option("#view", "1")
    page.wait_for_selector("#seat-hand:not([hidden])", timeout=WAIT_MS)
    assert _frame(page) == (12, n)
    assert page.locator("#table td.handtext").count() == 0 and page.locator("#hand .card").count() > 0
    page.click("#last")
    assert _frame(page) == (n, n) and page.locator("#result .scores").count() == 1
    page.select_option("#given", "0")
    page.wait_for_function(f"() => document.getElementById('position').textContent.endsWith('of {len(given.actions)}')",
                           timeout=WAIT_MS)
    page.click("#first")
    page.keyboard.press("ArrowRight")
    assert _frame(page) == (1, len(given.actions))
    assert any(e.startswith("roles fixed") for e in _first_events(page, 15))
    assert page.errors == []


def _first_events(page, n: int) -> list[str]:
    """The event lines of the loaded replay's first `n` moves (the role phase), step by step."""
    page.click("#first")
    lines = []
    for _ in range(n):
        page.click("#forward")
        lines += page.locator("#events li").all_inner_texts()
    return lines


def test_the_page_screenshot_is_not_blank(server, page, tmp_path):
    from PIL import Image

    url, _ = server
    page.goto(url + "/replay")
    page.select_option("#given", "0")
    page.wait_for_selector("#viewer:not([hidden])", timeout=WAIT_MS)
    page.fill("#jump-to", "40")
    page.press("#jump-to", "Enter")
    shot = tmp_path / "replay.png"
    page.screenshot(path=str(shot))
    image = Image.open(shot).convert("RGB")
    assert image.size == (1100, 900)
    colours = image.getcolors(maxcolors=1 << 20)
    assert len(colours) > 50, "the screenshot is (nearly) blank"
    most = max(count for count, _ in colours)
    assert most < 0.9 * image.size[0] * image.size[1], "one colour fills the page"
