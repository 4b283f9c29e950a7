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
    assert args.opponents.split(",") == ["heuristic", "greedy", "autoplay", "random"]


def test_without_the_web_extra_serve_says_how_to_install_it(monkeypatch, capsys):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name in ("starlette", "uvicorn") else real(name, *a))
    assert cli.main(["serve"]) == 2
    err = capsys.readouterr().err
    assert "needs starlette and uvicorn" in err and 'pip install -e ".[web]"' in err


@pytest.mark.parametrize("argv, words", [
    (["--opponents", "greedy,nosuchbot"], "unknown agent 'nosuchbot'"),
    (["--opponents", "dmc:missing.pt"], "no checkpoint file missing.pt"),
    (["--hints", "dmc:missing.pt"], "no checkpoint file missing.pt"),
    (["--preset", "nope"], "nope"),
    (["--port", "70000"], "--port must be"),
    (["--replays", "no/such/folder"], "neither a replay file nor a folder"),
])
def test_bad_settings_fail_before_the_server_starts(argv, words, capsys):
    pytest.importorskip("starlette")
    pytest.importorskip("uvicorn")
    assert cli.main(["serve", *argv]) == 2
    assert words in capsys.readouterr().err


def test_serve_starts_on_127_0_0_1_and_serves_the_page_and_the_api():
    pytest.importorskip("starlette")
    pytest.importorskip("uvicorn")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "baohuang_cli.cli", "serve", "--port", str(port),
                             "--opponents", "random", "--hints", "none"],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        for _ in range(300):
            assert proc.poll() is None, proc.stdout.read()
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/options", timeout=1) as r:
                    options = json.load(r)
                break
            except OSError:
                time.sleep(0.1)
        else:
            raise AssertionError("no answer within 30 s")
        assert options["opponents"] == ["random"] and options["hints"] is None
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as r:
            assert "Baohuang" in r.read().decode()
    finally:
        stop_server(proc)
    assert "open http://127.0.0.1:" in proc.stdout.read()


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
