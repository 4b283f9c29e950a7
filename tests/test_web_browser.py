"""`baohuang serve` in a real browser: the system's headless Chromium, driven by Playwright,
plays a whole game through the page, steps through replays, and takes a screenshot that
must not be blank. The server is the real command, started on 127.0.0.1 and stopped here.

Needs the web extra (Playwright's Python package; its own browser download is never used)
and a `chromium` on PATH (Debian's package; .ci/run installs it).
"""

from __future__ import annotations

import json
import random
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from baohuang_env import Game, get_rules
from baohuang_env.agent import make_agent
from baohuang_env.encoding import Encoder
from baohuang_env.replay import save_replay
from web_helpers import stop_server

sync_api = pytest.importorskip("playwright.sync_api")
CHROMIUM = shutil.which("chromium")
if CHROMIUM is None:
    pytest.skip("no chromium on PATH (apt-get install chromium; .ci/run does)", allow_module_level=True)

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


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """The real `baohuang serve` on a free loopback port, with one replay file given."""
    folder = tmp_path_factory.mktemp("served")
    given = _greedy_replay(folder / "given.json", seed=21)
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "baohuang_cli.cli", "serve", "--port", str(port),
                             "--opponents", "greedy,random", "--hints", "greedy", "--replays", str(folder)],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):  # up to 30 s for the server to answer
            if proc.poll() is not None:
                raise AssertionError(f"baohuang serve exited: {proc.stdout.read()}")
            try:
                with urllib.request.urlopen(f"{url}/api/options", timeout=1) as r:
                    assert json.load(r)["replays"] == ["given.json"]
                break
            except OSError:
                time.sleep(0.1)
        else:
            raise AssertionError("baohuang serve did not answer within 30 s")
        yield url, given
    finally:
        stop_server(proc)


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


def test_a_whole_game_is_played_through_the_page(server, page):
    url, _ = server
    rng = random.Random(3)
    page.goto(url + "/")
    page.select_option("#seat", "2")
    page.select_option("#opponent-0", "random")
    page.select_option("#speed", "0")
    page.click("#start")
    clicks = typed = hinted = 0
    for _ in range(300):
        if _wait_turn_or_result(page):
            break
        moves = page.locator("#moves button.move")
        assert moves.count() > 0
        if page.inner_text("#status").find("phase: play") >= 0 and not hinted:
            page.click("#hint-button")
            page.wait_for_selector("#hints li", timeout=WAIT_MS)
            assert "greedy would play" in page.inner_text("#hints")
            hinted += 1
        if not typed and page.locator("#moves button.play").count():
            page.fill("#typed", page.locator("#moves button.play").first.inner_text())
            _click_and_wait(page, page.locator("#typed-form button"))
            typed += 1
            continue
        _click_and_wait(page, moves.nth(rng.randrange(moves.count())))
        clicks += 1
    else:
        raise AssertionError("no result after 300 turns")
    assert clicks and typed and hinted
    assert page.locator("#result .scores tr").count() == 6  # a header and five seats
    assert page.locator("#table tr.me td").nth(1).inner_text() == "you"
    assert page.locator("#log li").count() > 50
    page.wait_for_function("() => document.getElementById('save-replay').href.startsWith('blob:')",
                           timeout=WAIT_MS)
    assert page.errors == []
    page.click("#new-game")
    assert page.locator("#setup").is_visible() and not page.locator("#game").is_visible()


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
