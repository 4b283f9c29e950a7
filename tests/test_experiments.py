"""The measurement scripts of experiments/ (not installed: loaded from their files)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from baohuang_cli.cli import main as cli_main
from helpers import load_experiment

ROOT = Path(__file__).resolve().parents[1]



def test_bench_compare_keeps_the_best_of_each_figure_and_the_ratio():
    bc = load_experiment("bench_compare")

    def report(rate: float, us: float) -> dict:
        return {**dict.fromkeys(bc.RATES, rate), **dict.fromkeys(bc.TIMES, us)}

    summary = bc.summarize([report(100, 2.0), report(120, 1.5)], [report(90, 1.0), report(110, 3.0)])
    assert summary["env_steps_per_s"] == {"old": 120, "new": 110, "new_over_old": 0.917}
    assert summary["mask_us_per_call_lead"] == {"old": 1.5, "new": 1.0, "new_over_old": 0.667}
    assert set(summary) == {*bc.RATES, *bc.TIMES}


def test_bench_compare_refuses_a_checkout_without_the_project_installed(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        load_experiment("bench_compare").main([str(tmp_path), str(ROOT)])
    assert exit_info.value.code == 2
    assert f"{tmp_path} has no .venv/bin/baohuang" in capsys.readouterr().err


def test_main_job_seeds_refuses_a_checkout_without_the_project_installed(tmp_path):
    done = subprocess.run(["bash", str(ROOT / "experiments" / "main_job_seeds.sh"), str(tmp_path), str(tmp_path)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=30)
    assert done.returncode == 2 and f"{tmp_path} has no .venv/bin/baohuang" in done.stderr



def _fake_run(run_dir: Path, minutes_per_million: float, winrates: list[float], eval_deal_seed: int = 1_000_000):
    """A run directory with a config and TensorBoard events: evaluations every million
    frames, training minutes growing linearly with frames."""
    import yaml
    from torch.utils.tensorboard import SummaryWriter

    run_dir.mkdir()
    (run_dir / "config.yaml").write_text(yaml.safe_dump(
        {"preset": "jj", "eval_deal_seed": eval_deal_seed, "eval_deals": 100, "eval_protocol": "team"}))
    writer = SummaryWriter(str(run_dir))
    for k in range(len(winrates) + 1):
        writer.add_scalar("charts/train_minutes", k * minutes_per_million, k * 1_000_000)
    for k, w in enumerate(winrates, start=1):
        writer.add_scalar("eval/winrate_vs_heuristic", w, k * 1_000_000)
    writer.close()


def test_learning_curves_place_evaluations_at_training_minutes_and_find_the_time_to_beat(tmp_path, capsys):
    import json

    lc = load_experiment("learning_curves")
    _fake_run(tmp_path / "slow", 10.0, [0.2, 0.4, 0.6])
    _fake_run(tmp_path / "fast", 5.0, [0.45, 0.55, 0.7])
    out = tmp_path / "curves.png"
    assert lc.main([f"{tmp_path / 'slow'}=slow", f"{tmp_path / 'fast'}=fast", "--out", str(out)]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["slow"]["curves"]["heuristic"] == [[10.0, 0.2], [20.0, 0.4], [30.0, 0.6]]
    assert summary["slow"]["minutes_to_beat"] == {"heuristic": 30.0}
    assert summary["fast"]["minutes_to_beat"] == {"heuristic": 10.0}
    assert out.read_bytes().startswith(b"\x89PNG")


def test_learning_curves_refuse_runs_evaluated_on_other_deals(tmp_path, capsys):
    lc = load_experiment("learning_curves")
    _fake_run(tmp_path / "a", 10.0, [0.5])
    _fake_run(tmp_path / "b", 10.0, [0.5], eval_deal_seed=7_000_000)
    with pytest.raises(SystemExit) as exit_info:
        lc.main([str(tmp_path / "a"), str(tmp_path / "b")])
    assert exit_info.value.code == 2
    assert "evaluate on different deals" in capsys.readouterr().err


def test_search_curve_matches_each_setting_to_its_cost_and_draws_the_points(tmp_path, capsys):
    sc = load_experiment("search_curve")
    spec = "search:w=2:m=2:endgame=12"
    full = sc.full_spec(spec)
    assert full.startswith("search:w=2:m=2:") and full.endswith(":base=pretrained")
    report = tmp_path / "w2"  # a real team report: the search's last decisions of one deal, both sides
    assert cli_main(["eval", "--agents", spec, "random", "--protocol", "team", "--deals", "1", "--workers", "1",
                     "--out", str(report)]) == 0
    capsys.readouterr()
    rate = json.loads((report / "report.json").read_text())["pairs"][0]["duplicate_win_rate_a"]
    costs = tmp_path / "costs.jsonl"
    costs.write_text(json.dumps({"spec": full, "ms_p50": 41.5, "ms_per_decision": 4.25, "searched_share": 0.1}) + "\n")
    sc.main([str(report), "--costs", str(costs), "--out", str(tmp_path / "curve.png")])
    row = json.loads(capsys.readouterr().out)
    assert row == {"search": spec, "opponent": "random", "deals": 1, "duplicate_win_rate": round(rate["rate"], 4),
                   "low": round(rate["low"], 4), "high": round(rate["high"], 4), "ms_per_searched_decision": 41.5,
                   "ms_per_decision": 4.2, "searched_share": 0.1}
    assert (tmp_path / "curve.png").stat().st_size > 1000
    costs.write_text(json.dumps({"spec": sc.full_spec("search:w=8:m=3"), "ms_p50": 1, "ms_per_decision": 1,
                                 "searched_share": 1}) + "\n")
    with pytest.raises(SystemExit, match="no cost line for search:w=2:m=2:endgame=12"):
        sc.main([str(report), "--costs", str(costs)])
    seat = tmp_path / "seat"
    seat.mkdir()
    (seat / "report.json").write_text(json.dumps({"protocol": {"name": "duplicate-rotation"}, "pairs": []}))
    with pytest.raises(SystemExit, match="reads team-protocol reports"):
        sc.main([str(seat), "--costs", str(costs)])
