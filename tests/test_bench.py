"""`baohuang bench` and `bench --batch` run and report every figure as JSON (the numbers are
measured, not tested)."""

from __future__ import annotations

import json

from baohuang_env import PRESETS
from baohuang_cli.bench import RATIO_ROUNDS, run_all_presets, run_batch_bench
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


def test_batch_bench_reports_every_batch_size_the_loop_the_phases_and_the_vector_envs():
    report = run_batch_bench(seconds=0.01, sizes=(1, 16), profile_size=16, vector_envs=4)
    rates = report["batched_steps_per_s"]
    assert set(rates) == {"arrays", "games"}
    assert set(rates["arrays"]) == set(rates["games"]) == set(report["python_loop_steps_per_s"]) == {"1", "16"}
    assert all(v > 0 for engine in rates.values() for v in engine.values()) and report["raw_env_steps_per_s"] > 0
    assert report["arrays_over_games"]["16"] == rates["arrays"]["16"] / rates["games"]["16"]
    games, arrays = report["profile"]["games"], report["profile"]["arrays"]
    assert set(games["shares"]) == {"masks", "observations", "choose_actions", "game_step"}
    assert set(arrays["shares"]) == {"play_moves", "masks", "observations", "rows_to_arrays", "new_deals",
                                     "choose_actions", "role_phase_and_rest"}
    for profile in (games, arrays):
        assert abs(sum(profile["shares"].values()) - 1) < 1e-9 and profile["batch_size"] == 16
        assert all(v >= 0 for v in profile["us_per_game_step"].values())
    assert report["vector_envs"] == 4 and set(report["vector_learner_steps_per_s"]) == {"native", "sync"}
    assert report["native_over_sync"] > 0
    json.dumps(report)


def test_bench_batch_refuses_all_presets(capsys):
    assert main(["bench", "--batch", "--all-presets"]) == 2
    assert "--batch" in capsys.readouterr().err


def test_actor_bench_reports_every_recipe_and_size_with_ratios_to_one_game():
    from baohuang_cli.bench_actors import run_actor_bench

    report = run_actor_bench(seconds=0.01, rounds=1, sizes=(1, 4), recipes=("self_play", "main_job_own"))
    for recipe in ("self_play", "main_job_own"):
        rates = report[recipe]["frames_per_s"]
        assert set(rates) == {1, 4} and all(v > 0 for v in rates.values())
        assert report[recipe]["ratio_to_one_game"][1] == 1.0
        assert report[recipe]["ratio_to_one_game"][4] == rates[4] / rates[1]
