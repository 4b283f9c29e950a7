"""experiments/web_load.py: many games at once through `baohuang serve`'s HTTP API, and the
server's memory per game (here three games and a store of 12, to stay quick; the figures
in the report come from the script's own run of 50 games and 600 creations)."""

from __future__ import annotations

import json

import pytest

from helpers import load_experiment

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")


def _report(capsys, seed: int) -> dict:
    args = ["--games", "3", "--max-games", "12", "--drops", "4", "--seed", str(seed), "--timeout", "120"]
    assert load_experiment("web_load").main(args) == 0
    return json.loads(capsys.readouterr().out)


def test_the_load_script_plays_every_game_to_its_end_and_reports_the_action_times(capsys):
    report = _report(capsys, seed=3)
    assert report["games_finished"] == report["replays_reproduced"] == 3
    assert report["human_actions"] > 3 and report["advance_requests"] > 3
    times = report["human_action_ms"]
    assert 0 < times["p50"] <= times["p95"] <= times["max"]
    memory = report["memory"]
    assert memory["games_created"] == 16 and memory["games_kept"] == 12
    assert 0 < memory["rss_before_mb"] <= memory["rss_after_first_game_mb"]
    assert memory["rss_full_mb"] > 0 and memory["rss_after_drops_mb"] > 0
    assert memory["rss_per_game_mb"] == round((memory["rss_full_mb"] - memory["rss_after_first_game_mb"]) / 11, 3)


def test_the_load_script_plays_the_same_games_for_the_same_seed(capsys):
    """The server deals from --seed, and the human's moves are seeded too: the request
    counts (a function of the deals and the moves) repeat."""
    counts = [(r["human_actions"], r["advance_requests"]) for r in (_report(capsys, 5), _report(capsys, 5))]
    assert counts[0] == counts[1]


def test_the_load_script_refuses_a_bad_setting(capsys):
    with pytest.raises(SystemExit) as exit_info:
        load_experiment("web_load").main(["--games", "0"])
    assert exit_info.value.code == 2
    assert "must be positive" in capsys.readouterr().err
