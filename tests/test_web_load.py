"""experiments/web_load.py: many games at once through `baohuang serve`'s HTTP API (here
three, to stay quick; the figures in the report come from the script's own run of 50)."""

from __future__ import annotations

import json

import pytest

from helpers import load_experiment

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")




def test_the_load_script_plays_every_game_to_its_end_and_reports_the_action_times(capsys):
    assert load_experiment("web_load").main(["--games", "3", "--timeout", "120"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["games_finished"] == report["replays_reproduced"] == 3
    assert report["human_actions"] > 3 and report["advance_requests"] > 3
    times = report["human_action_ms"]
    assert 0 < times["p50"] <= times["p95"] <= times["max"]


def test_the_load_script_refuses_a_bad_setting(capsys):
    with pytest.raises(SystemExit) as exit_info:
        load_experiment("web_load").main(["--games", "0"])
    assert exit_info.value.code == 2
    assert "must be positive" in capsys.readouterr().err
