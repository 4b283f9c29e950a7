"""`baohuang bench` runs and reports every figure as JSON (its numbers are measured, not tested)."""

from __future__ import annotations

import json

from baohuang_env import PRESETS
from baohuang_cli.bench import RATIO_ROUNDS, run_all_presets
from baohuang_cli.cli import main


def test_all_presets_report_rates_and_ratios_to_jj():
    report = run_all_presets(seconds=0.05)
    assert set(report["presets"]) == set(PRESETS) and RATIO_ROUNDS >= 2
    for name, r in report["presets"].items():
        assert r["preset"] == name and r["env_steps_per_s"] > 0 and r["engine_steps_per_s"] > 0
        assert 0 < r["mask_us_per_call_follow"] and r["num_actions"] >= 4036
    assert report["env_steps_ratio_to_jj"]["jj"] == 1.0
    assert all(v > 0 for v in report["env_steps_ratio_to_jj"].values())
    json.dumps(report)  # JSON-ready


def test_bench_command_prints_json(capsys):
    assert main(["bench", "--preset", "qingdao", "--seconds", "0.05"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["preset"] == "qingdao" and out["env_steps_per_s"] > 0
