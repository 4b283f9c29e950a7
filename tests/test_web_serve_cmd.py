"""`baohuang serve`: its options and defaults (loopback only), its errors before anything
starts, the message without the web extra, and a real start on 127.0.0.1."""

from __future__ import annotations

import importlib.util
import json
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from baohuang_cli import cli
from web_helpers import stop_server

ROOT = Path(__file__).resolve().parents[1]


def test_serve_listens_on_loopback_port_8000_with_jj_by_default():
    args = cli.build_parser().parse_args(["serve"])
    assert (args.host, args.port, args.preset) == ("127.0.0.1", 8000, "jj")
    # the preset's shipped agent first (offered where one is shipped), then the bots
    assert args.opponents.split(",") == ["pretrained", "heuristic", "greedy", "autoplay", "random"]
    # unpredictable deals; the shipped agent's hints, the heuristic's where none is shipped
    assert args.seed is None and args.hints == "pretrained,heuristic"


def test_serve_preselects_the_opponent_baohuang_play_defaults_to_in_every_preset():
    """The page's default opponent of a preset is `baohuang play`'s (`default_opponent`):
    `pretrained` is that preset's strongest shipped agent, else the heuristic bot."""
    pytest.importorskip("starlette")
    from agents.pretrained import default_opponent
    from baohuang_cli.serve_cmd import DEFAULT_OPPONENTS
    from baohuang_env.rules import PRESETS
    from baohuang_web.sessions import SessionStore

    store = SessionStore(DEFAULT_OPPONENTS.split(","))
    for preset in PRESETS:
        played = default_opponent(preset)
        assert store.default_opponent(preset) == ("heuristic" if played == "heuristic" else "pretrained"), preset
        assert ("pretrained" in store.preset_opponents()[preset]) == (played != "heuristic"), preset


def test_without_the_web_extra_serve_says_how_to_install_it(monkeypatch, capsys):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name in ("starlette", "uvicorn") else real(name, *a))
    assert cli.main(["serve"]) == 2
    err = capsys.readouterr().err
    assert "needs starlette and uvicorn" in err and 'pip install "baohuang-rl[web]"' in err


def test_serve_help_names_the_web_extra(capsys):
    with pytest.raises(SystemExit):
        cli.main(["serve", "--help"])
    assert 'pip install "baohuang-rl[web]"' in " ".join(capsys.readouterr().out.split())


@pytest.mark.parametrize("argv, words", [
    (["--opponents", "greedy,nosuchbot"], "unknown agent 'nosuchbot'"),
    (["--opponents", "dmc:missing.pt"], "no checkpoint file missing.pt"),
    (["--hints", "dmc:missing.pt"], "no checkpoint file missing.pt"),
    (["--hints", "pretrained:nosuch"], "no shipped agent 'nosuch'; shipped agents: dmc_kickstart_jj"),
    (["--preset", "nope"], "nope"),
    (["--port", "70000"], "--port must be"),
    (["--replays", "no/such/folder"], "neither a replay file nor a folder"),
])
def test_bad_settings_fail_before_the_server_starts(argv, words, capsys):
    pytest.importorskip("starlette")
    pytest.importorskip("uvicorn")
    assert cli.main(["serve", *argv]) == 2
    assert words in capsys.readouterr().err


def _serve(args: list[str], cwd: Path) -> tuple[subprocess.Popen, str, dict]:
    """A real `baohuang serve` on a free loopback port, run in `cwd`: (process, url, options)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "baohuang_cli.cli", "serve", "--port", str(port), *args],
                            cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    for _ in range(300):
        if proc.poll() is not None:
            raise AssertionError(proc.stdout.read())
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/options", timeout=1) as r:
                return proc, f"http://127.0.0.1:{port}", json.load(r)
        except OSError:
            time.sleep(0.1)
    stop_server(proc)
    raise AssertionError("no answer within 30 s")


def _request(url: str, method: str = "GET", body: dict | None = None, headers: dict | None = None) -> dict:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method,
                                 headers={"Content-Type": "application/json", **(headers or {})})
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.load(r)


def test_serve_hints_with_the_strongest_shipped_agent_from_any_directory(tmp_path):
    """Started outside the checkout, the default hint agent and jj's default opponent are still
    the shipped kickstart agent (package data), and it answers with its Q values."""
    pytest.importorskip("starlette")
    pytest.importorskip("uvicorn")
    proc, url, options = _serve(["--seed", "1"], cwd=tmp_path)  # a seeded deal: its first decision is not forced
    try:
        assert options["hints"] == "pretrained,heuristic" and options["hint_presets"] == options["presets"]
        assert options["preset_opponents"]["jj"]["default"] == "pretrained"
        game = _request(f"{url}/api/games", "POST", {"preset": "jj", "seat": 0, "opponents": "random"})
        headers = {"X-Player-Token": game["token"]}
        view = game["view"]
        while not view["your_turn"]:
            view = _request(f"{url}/api/games/{game['game_id']}/advance", "POST", {"steps": 1}, headers)
        hint = _request(f"{url}/api/games/{game['game_id']}/hints", headers=headers)
    finally:
        stop_server(proc)
    assert hint["agent"] == "pretrained"
    assert len(view["moves"]) > 1, "the seeded deal's first decision has a choice (a forced one gets no values)"
    assert hint["moves"] and "Q" in hint["value_name"]


def test_serve_starts_on_127_0_0_1_and_serves_the_page_and_the_api():
    pytest.importorskip("starlette")
    pytest.importorskip("uvicorn")
    proc, url, options = _serve(["--opponents", "random", "--hints", "none"], cwd=ROOT)
    port = url.rsplit(":", 1)[1]
    try:
        assert options["opponents"] == ["random"] and options["hints"] is None
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as r:
            assert "Baohuang" in r.read().decode()
    finally:
        stop_server(proc)
    assert "open http://127.0.0.1:" in proc.stdout.read()


def test_serve_on_a_busy_port_says_so_in_one_line_without_a_url():
    """The port is bound before the URL is printed: on a port another server listens on, a
    one-line error naming the port and --port, exit 2, no traceback, and no "open http"."""
    pytest.importorskip("starlette")
    pytest.importorskip("uvicorn")
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = subprocess.run([sys.executable, "-m", "baohuang_cli.cli", "serve", "--port", str(port),
                               "--opponents", "random", "--hints", "none"],
                              cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert "open http" not in done.stdout + done.stderr
    assert done.stderr.splitlines() == [
        f"baohuang serve: error: port {port} on 127.0.0.1 is in use (another server?); pass --port with a free "
        f"port, e.g. --port {port + 1}"]


def test_serve_on_port_0_prints_the_port_the_system_chose():
    pytest.importorskip("starlette")
    pytest.importorskip("uvicorn")
    proc = subprocess.Popen([sys.executable, "-m", "baohuang_cli.cli", "serve", "--port", "0", "--opponents",
                             "random", "--hints", "none"], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        url = line.split("open ", 1)[1].split()[0]
        assert not url.endswith(":0/")
        with urllib.request.urlopen(f"{url}api/options", timeout=30) as r:  # answered as soon as it is printed
            assert json.load(r)["opponents"] == ["random"]
    finally:
        stop_server(proc)


def test_every_static_file_of_the_web_app_is_package_data():
    """A non-editable install ships the pages: every file under baohuang_web/static matches
    a `[tool.setuptools.package-data]` pattern."""
    import fnmatch
    import tomllib

    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"][
        "package-data"]["baohuang_web"]
    static = ROOT / "baohuang_web" / "static"
    files = [p.relative_to(static.parent).as_posix() for p in static.rglob("*") if p.is_file()]
    assert {"static/index.html", "static/replay.html", "static/game.js"} <= set(files)
    assert [f for f in files if not any(fnmatch.fnmatch(f, pat) for pat in patterns)] == []
