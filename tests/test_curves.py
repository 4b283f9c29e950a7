"""`baohuang curves` (agents.training.curves) and what the training's final evaluation leaves behind:
its summary, its short names, its TensorBoard scalars, and curves of a run without
periodic evaluations."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from baohuang_cli.cli import main as cli_main

#: The bots of the tiny run's final evaluation, and its deals.
BOTS, FINAL_DEALS = ("random", "greedy"), 2


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


def test_curves_place_evaluations_at_training_minutes_and_find_the_time_to_beat(tmp_path, capsys):
    _fake_run(tmp_path / "slow", 10.0, [0.2, 0.4, 0.6])
    _fake_run(tmp_path / "fast", 5.0, [0.45, 0.55, 0.7])
    out = tmp_path / "curves.png"
    assert cli_main(["curves", f"{tmp_path / 'slow'}=slow", f"{tmp_path / 'fast'}=fast", "--out", str(out)]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["slow"]["curves"]["heuristic"] == [[10.0, 0.2], [20.0, 0.4], [30.0, 0.6]]
    assert summary["slow"]["minutes_to_beat"] == {"heuristic": 30.0}
    assert summary["fast"]["minutes_to_beat"] == {"heuristic": 10.0}
    assert summary["slow"]["frames"] == 3_000_000 and summary["png"] == str(out)
    assert out.read_bytes().startswith(b"\x89PNG")


def test_curves_refuse_runs_evaluated_on_other_deals(tmp_path, capsys):
    _fake_run(tmp_path / "a", 10.0, [0.5])
    _fake_run(tmp_path / "b", 10.0, [0.5], eval_deal_seed=7_000_000)
    assert cli_main(["curves", str(tmp_path / "a"), str(tmp_path / "b"), "--out", str(tmp_path / "c.png")]) == 2
    assert "evaluate on different deals" in capsys.readouterr().err
    assert not (tmp_path / "c.png").exists()


def test_curves_refuse_a_folder_that_is_not_a_run(tmp_path, capsys):
    assert cli_main(["curves", str(tmp_path)]) == 2
    assert f"{tmp_path} has no config.yaml" in capsys.readouterr().err


@pytest.fixture(scope="module")
def trained_run(tmp_path_factory) -> Path:
    """A real run without periodic evaluations (DMC, one actor, until its first frames: a frame
    budget, not a few seconds that a loaded machine can spend before the first frame)."""
    runs = tmp_path_factory.mktemp("runs")
    assert cli_main(["train", "dmc", "total_minutes=3", "total_frames=2000", "eval_minutes=0", "actors=1",
                     f"runs_dir={runs}", "--no-eval"]) == 0
    [run] = [p for p in runs.iterdir() if p.is_dir()]
    return run


@pytest.mark.slow
def test_curves_of_a_run_without_evaluations_plot_its_training(trained_run, tmp_path, capsys):
    out = tmp_path / "curves.png"
    assert cli_main(["curves", str(trained_run), "--out", str(out)]) == 0
    captured = capsys.readouterr()
    summary = json.loads(captured.out)[trained_run.name]
    assert summary["curves"] == {} and summary["frames"] > 0
    assert "has no periodic evaluations" in captured.err
    assert out.read_bytes().startswith(b"\x89PNG") and out.stat().st_size > 10_000


@pytest.mark.slow
def test_final_evaluation_ends_with_a_summary_and_logs_to_tensorboard(trained_run, capsys):
    """The final evaluation's tables name the trained agent briefly, end with the headline
    figures and the reports' paths, and its figures are in the run's TensorBoard events
    at the checkpoint's frame count; `baohuang curves` then draws them."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    from agents.files.checkpoint import load_checkpoint
    from agents.training.config import load_config
    from agents.dmc.config import DMCConfig
    from agents.training.common import final_evaluation

    cfg = replace(load_config(DMCConfig, str(trained_run / "config.yaml"), []), eval_opponents=list(BOTS),
                  final_eval_deals=FINAL_DEALS)
    spec = f"dmc:{trained_run / 'model.pt'}"
    final_evaluation(spec, cfg, cfg.build_rules(), trained_run, workers=1)
    out = capsys.readouterr().out.splitlines()
    tail = out[-(2 * len(BOTS) + 2):]
    assert tail[0].startswith(f"Final evaluation of {spec} (")
    team = json.loads((trained_run / "eval-team" / "report.json").read_text())
    for line, pair in zip(tail[1:1 + len(BOTS)], team["pairs"], strict=True):
        rate = pair["duplicate_win_rate_a"]
        assert line == (f"  dmc:model.pt vs {pair['b']}: team duplicate win rate {100 * rate['rate']:.1f}% "
                        f"[{100 * rate['low']:.1f}, {100 * rate['high']:.1f}]")
    assert tail[-1].startswith(f"Reports: {trained_run / 'eval-team' / 'report.md'}, ")
    table_rows = [line for line in out if line.startswith("|")]
    assert table_rows and not any(str(trained_run) in line for line in table_rows)
    assert team["agents"][0] == spec and team["agents_resolved"][spec]["file"] == str(trained_run / "model.pt")

    frames = load_checkpoint(trained_run / "model.pt")["counters"]["frames"]
    events = EventAccumulator(str(trained_run), size_guidance={"scalars": 0})
    events.Reload()
    for pair in team["pairs"]:
        [point] = events.Scalars(f"final_eval/team_win_rate/{pair['b']}")
        assert point.step == frames and point.value == pytest.approx(pair["duplicate_win_rate_a"]["rate"])

    assert cli_main(["curves", str(trained_run)]) == 0
    summary = json.loads(capsys.readouterr().out)[trained_run.name]
    assert set(summary["final"]) == set(BOTS)
    assert (trained_run / "curves.png").read_bytes().startswith(b"\x89PNG")
