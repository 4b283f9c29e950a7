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



def test_learning_curves_is_baohuang_curves(tmp_path, capsys):
    """The old script is `baohuang curves` (tests/test_curves.py) under its old path."""
    lc = load_experiment("learning_curves")
    assert lc.main([str(tmp_path / "a"), str(tmp_path / "b")]) == 2
    assert "baohuang curves: error: several runs go on one figure" in capsys.readouterr().err


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


def test_search_cost_reports_play_outs_per_second_and_the_per_phase_counts():
    """One deal, the seat searching its last decisions: every searched decision plays each
    (world, candidate) row out, and the play-outs per second are those rows over the search time."""
    row = load_experiment("search_cost").measure("search:w=2:m=2:endgame=80", "jj", 1, 23_000_000)
    stats = row["stats"]
    searched = sum(p["searched"] for p in stats["phases"].values())
    assert row["searched"] == searched > 0
    assert stats["phases"]["80-51"]["searched"] + stats["phases"]["50-0"]["searched"] == searched
    assert 2 * 2 * searched <= row["playouts"] == stats["playouts"] <= 2 * 3 * searched  # 2 worlds x 2 moves (+PASS)
    assert row["playouts_per_s"] == pytest.approx(row["playouts"] / stats["seconds"])
    assert json.loads(json.dumps(row)) == row


def test_search_phases_searches_each_phase_of_the_deal_alone(capsys):
    """One deal, one game, a tiny search: a JSON line per phase of the deal (`PHASES`), its
    search limited to that window, its team result against the base and its statistics there."""
    from agents.search import PHASES, phase

    sp = load_experiment("search_phases")
    for label, endgame, stop in sp.windows():  # each window is exactly its phase's cards left
        assert phase(stop + 1) == label and (endgame == 0 or phase(endgame) == label)
    # a deal whose one game has searched decisions in every window under the shipped jj agent
    sp.main(["--settings", "w=2:m=2:depth=1", "--deals", "1", "--games", "1", "--workers", "1",
             "--deal-seed", "21000003"])
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["window"] for r in rows] == [label for label, _ in PHASES]
    assert [(r["endgame"], r["stop"]) for r in rows] == [(0, 120), (120, 80), (80, 50), (50, 0)]
    for r in rows:
        assert set(r) == {"window", "endgame", "stop", "spec", "opponent", "deals", "duplicate_win_rate",
                          "paired_difference", "games", "searched", "deviations", "deviation_rate", "reestimates",
                          "gain", "gain_se", "ms_per_searched_decision"}
        assert f":depth=1:limit=0:endgame={r['endgame']}:stop={r['stop']}:" in r["spec"]
        assert (r["opponent"], r["deals"], r["games"]) == ("pretrained", 1, 1)
        rate, d = r["duplicate_win_rate"], r["paired_difference"]
        assert rate["games"] == 2 and 0 <= rate["low"] <= rate["rate"] <= rate["high"] <= 1
        assert d["n"] == 1 and d["a_better"] + d["ties"] + d["b_better"] == 1
        assert r["searched"] > 0 and r["deviation_rate"] == pytest.approx(r["deviations"] / r["searched"], abs=1e-4)
        assert r["reestimates"] <= r["deviations"]  # double=1: each re-estimated where fresh worlds were drawn
        assert (r["gain"] is None) == (r["gain_se"] is None) == (r["reestimates"] < 2)
        assert r["ms_per_searched_decision"] > 0


def test_search_belief_compares_each_samplers_worlds_with_the_true_deal(capsys):
    """One deal: a JSON line per sampler, over the same decisions of the same seat; the true
    deal's guard-card holder and hands scored as shares, every phase of the deal counted."""
    sb = load_experiment("search_belief")
    sb.main(["--games", "1", "search:w=4:sampler=prior", "search:w=4:sampler=policy"])
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["spec"] for r in rows] == ["search:w=4:sampler=prior", "search:w=4:sampler=policy"]
    assert rows[0]["decisions"] == rows[1]["decisions"] > 10
    for r in rows:
        assert r["guard_worlds"] > 0 and 0 <= r["guard_right"] <= 1
        assert 0.3 < r["cards_right"] < 1 and all(v is None or 0 < v <= 1 for v in r["by_phase"].values())
        assert r["by_phase"][">120"] is not None and r["ms"] > 0


def test_scaling_curve_plays_each_snapshot_once_and_reads_its_counters(tmp_path, capsys, monkeypatch):
    """Two snapshots (copies of the shipped agent with their own counters), one deal: each
    against the heuristic and the later one head to head against the earlier; a second call
    reads the reports it wrote instead of playing again."""
    import shutil

    import torch

    sc = load_experiment("scaling_curve")
    run = tmp_path / "run"
    (run / "snapshots").mkdir(parents=True)
    for minutes, frames in ((50, 1000), (100, 3000)):
        model = torch.load(ROOT / "agents/pretrained/dmc_kickstart_jj.pt", weights_only=False)
        model["counters"] = {**model["counters"], "frames": frames, "updates": frames // 10}
        torch.save(model, run / "snapshots" / f"model_{minutes}.pt")
    (run / "snapshots" / "model_best.pt").write_bytes(b"not a stage")  # not model_<minutes>: left alone
    monkeypatch.chdir(tmp_path)
    args = [str(run), "--deals", "1", "--deal-seed", "21000000", "--workers", "1"]
    sc.main([*args, "--out", str(tmp_path / "curve.png")])
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(r["minutes"], r["frames"], r["updates"]) for r in rows] == [(50, 1000, 100), (100, 3000, 300)]
    assert "vs_previous" not in rows[0] and rows[1]["vs_previous"]["of"] == 50
    assert "vs_50" not in rows[1]  # the 50-minute snapshot is the one before: no second comparison
    for rate in (rows[0]["vs_heuristic"], rows[1]["vs_heuristic"], rows[1]["vs_previous"]):
        assert rate["deals"] == 1 and 0 <= rate["low"] <= rate["rate"] <= rate["high"] <= 1
    same_agent = rows[1]["vs_previous"]
    assert same_agent["rate"] == 0.5  # the same network on both sides plays both games alike
    assert (tmp_path / "curve.png").stat().st_size > 1000
    reports = sorted(p.parent.name for p in (run / "scaling_eval").rglob("report.json"))
    assert reports == ["model_100_vs_heuristic", "model_100_vs_model_50", "model_50_vs_heuristic"]
    shutil.rmtree(run / "scaling_eval" / "model_100_vs_model_50")  # a missing comparison is played again
    sc.main(args)
    assert [json.loads(line) for line in capsys.readouterr().out.splitlines()] == rows
    assert len(list((run / "scaling_eval").rglob("report.json"))) == 3


def test_compare_pair_plays_on_its_preset_and_reads_a_report_only_of_that_preset(tmp_path, capsys):
    """One deal of heuristic against greedy on weihai lands under --evals/NAME with weihai's rules;
    a second call reads it instead of playing; the same pair on jj is not taken from it."""
    cp = load_experiment("compare_pair")
    evals = tmp_path / "evals"

    def line(preset: str, name: str) -> dict:
        cp.main(["heuristic", "greedy", "--preset", preset, "--deals", "1", "--deal-seed", "21000000",
                 "--workers", "1", "--evals", str(evals), "--name", name])
        return json.loads(capsys.readouterr().out)

    first = line("weihai", "w")
    assert (first["eval"], first["preset"], first["deals"]) == ("w", "weihai", 1)
    assert 0 <= first["low"] <= first["rate"] <= first["high"] <= 1
    report = json.loads((evals / "w" / "report.json").read_text())
    assert report["deals"]["preset"] == "weihai"
    assert line("weihai", "again") == {**first, "eval": "again"} and not (evals / "again").exists()
    assert line("jj", "j")["preset"] == "jj"
    assert json.loads((evals / "j" / "report.json").read_text())["deals"]["preset"] == "jj"


def test_compare_pair_plays_again_when_a_model_file_has_changed_since_its_report(tmp_path, capsys):
    """A run trained further under the same path is another agent: its old report is not read."""
    import shutil

    import torch

    cp = load_experiment("compare_pair")
    model = tmp_path / "model.pt"
    shutil.copy(ROOT / "agents/pretrained/dmc_kickstart_jj.pt", model)
    evals = tmp_path / "evals"

    def call(name: str) -> None:
        cp.main([f"dmc:{model}", "greedy", "--deals", "1", "--workers", "1", "--evals", str(evals), "--name", name])
        capsys.readouterr()

    call("first")
    call("same")
    assert not (evals / "same").exists()
    trained_on = torch.load(model, weights_only=False)
    trained_on["counters"] = {**trained_on["counters"], "frames": trained_on["counters"]["frames"] + 1}
    torch.save(trained_on, model)
    call("after")
    assert (evals / "after" / "report.json").is_file()


def test_ablation_run_refuses_an_unknown_variant(tmp_path):
    done = subprocess.run(["bash", str(ROOT / "experiments" / "ablation_run.sh"), "1", "sibling"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=30)
    assert done.returncode == 2
    assert "unknown variant sibling; known:" in done.stderr and "lambda" in done.stderr
    assert not (tmp_path / "runs").exists()


def test_anneal_run_refuses_a_start_model_that_is_not_there(tmp_path):
    done = subprocess.run(["bash", str(ROOT / "experiments" / "anneal_run.sh"), "weihai", "nothing.pt"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=30)
    assert done.returncode == 2
    assert "usage: anneal_run.sh PRESET START_MODEL" in done.stderr
    assert not (tmp_path / "runs").exists()


def test_the_annealing_stage_starts_from_a_shipped_file_found_from_any_directory(tmp_path, monkeypatch):
    """configs/dmc_anneal.yaml: the recipe's step lowered, a warm start from the shipped jj
    agent by default, whose path resolves outside a clone too, with that agent's network sizes."""
    import torch

    from agents.dmc.config import DMCConfig
    from agents.pretrained import checkpoint_path, find
    from agents.training.config import load_config

    monkeypatch.chdir(tmp_path)
    cfg = load_config(DMCConfig, "dmc_anneal")
    kickstart = load_config(DMCConfig, "dmc_kickstart")
    assert (cfg.learning_rate, cfg.epsilon) == (kickstart.learning_rate / 4, 0.02) and not cfg.teacher
    same = ("opponent_mix", "advice", "networks")
    assert [getattr(cfg, k) for k in same] == [getattr(kickstart, k) for k in same]
    assert checkpoint_path(cfg.init_from) == find("dmc_kickstart_jj").path
    arch = torch.load(find("dmc_kickstart_jj").path, weights_only=True)["arch"]
    assert (cfg.hidden, cfg.head) == (arch["hidden"], arch["head"])


def test_ablation_table_measures_each_variant_against_the_heuristic_and_the_base(tmp_path, capsys):
    """Two variants (copies of the shipped agent with their own counters), one deal: each
    against the heuristic, the other head to head against the base, then a table; a second call
    reads the reports instead of playing again."""
    import torch

    at = load_experiment("ablation_table")
    root = tmp_path / "ablation"
    for variant, frames in (("base", 1000), ("lambda", 2000)):
        snaps = root / variant / "run" / "snapshots"
        snaps.mkdir(parents=True)
        model = torch.load(ROOT / "agents/pretrained/dmc_kickstart_jj.pt", weights_only=False)
        model["counters"] = {**model["counters"], "frames": frames, "updates": frames // 10}
        torch.save(model, snaps / "model_7.5.pt")
    args = [str(root), "--minutes", "7.5", "--deals", "1", "--deal-seed", "21000000", "--workers", "1"]
    at.main(args)
    out = capsys.readouterr().out.splitlines()
    rows = [json.loads(line) for line in out if line.startswith("{")]
    assert [(r["variant"], r["frames"], r["updates"]) for r in rows] == [("base", 1000, 100), ("lambda", 2000, 200)]
    assert "vs_base" not in rows[0]
    same_network = rows[1]["vs_base"]
    assert same_network["rate"] == 0.5 and same_network["points"] == 0 and same_network["deals"] == 1
    assert "| lambda | 0.0 M | 200 | " in "\n".join(out) and "50.0% [" in "\n".join(out)
    reports = sorted(p.parent.name for p in (root / "eval").rglob("report.json"))
    assert reports == ["base_vs_heuristic", "lambda_vs_base", "lambda_vs_heuristic"]
    at.main(args)
    assert capsys.readouterr().out.splitlines() == out  # read back, not played again
    assert len(list((root / "eval").rglob("report.json"))) == 3


def test_ablation_table_needs_the_base_run(tmp_path):
    (tmp_path / "lambda" / "run" / "snapshots").mkdir(parents=True)
    with pytest.raises(SystemExit, match=r"no .*base/RUN/snapshots/model_50\.pt"):
        load_experiment("ablation_table").main([str(tmp_path)])


def test_expert_iteration_records_the_search_verdicts_and_the_finetune_teaches_its_moves(tmp_path):
    """exit_data.py writes each searched decision's candidates (the base policy's move first, the
    choice among them, the base move's own gain 0); exit_finetune.py, given deviations, writes a
    checkpoint of the same layout whose values now rank the search's move above the base's."""
    import numpy as np

    from agents.dmc.agent import DMCAgent
    from baohuang_env.rules import get_rules

    data, fake = tmp_path / "data.npz", tmp_path / "deviations.npz"
    load_experiment("exit_data").main(["--deals", "2", "--chunk", "1", "--deal-seed", "41000002", "--out", str(data)])
    with np.load(data) as z:
        d = {k: z[k] for k in z.files}
    la, ca = d["legal_at"], d["candidates_at"]
    n = len(d["obs"])
    assert n > 5 and len(d["choice"]) == n and len(la) == len(ca) == n + 1 and len(d["anchor_obs"]) > 5
    for i in range(n):
        legal, cands = d["legal"][la[i]:la[i + 1]], d["candidates"][ca[i]:ca[i + 1]]
        assert set(cands) <= set(legal) and 0 <= d["choice"][i] < len(cands) and d["gains"][ca[i]] == 0
    # the search rarely leaves its base on two deals: call its second candidate the better one
    two = [i for i in range(n) if ca[i + 1] - ca[i] > 1]
    d["choice"][two] = 1
    np.savez(fake, **d)
    out = tmp_path / "model.pt"
    load_experiment("exit_finetune").main([str(fake), "--out", str(out), "--epochs", "300", "--lr", "0.001",
                                           "--holdout", "0", "--anchor-weight", "0.1"])
    rules = get_rules("jj")
    before = DMCAgent.from_checkpoint(str(ROOT / "agents/pretrained/dmc_kickstart_jj.pt"), rules)
    after = DMCAgent.from_checkpoint(str(out), rules)
    assert len(after.nets) == len(before.nets)

    def prefers_search(agent: DMCAgent) -> float:
        wins = []
        for i in two:
            b, c = d["candidates"][ca[i]], d["candidates"][ca[i] + 1]
            mask = np.zeros(len(agent.features), np.int8)
            mask[d["legal"][la[i]:la[i + 1]]] = 1  # the advice columns read the whole mask
            q = agent.action_values(d["obs"][i], np.array([b, c]), mask)
            wins.append(q[1] > q[0])
        return float(np.mean(wins))

    assert prefers_search(before) == 0.0 and prefers_search(after) >= 0.9


def _values_along_a_deal(path: Path, seed: int = 4):
    """The agent of checkpoint `path`'s values of every legal move along one deal the shipped jj
    agent plays against itself (the same decisions for every checkpoint)."""
    import numpy as np

    from agents.dmc.agent import DMCAgent
    from baohuang_env import Game, get_rules
    from baohuang_env.encoding import Encoder

    rules = get_rules("jj")
    judge = DMCAgent.from_checkpoint(str(ROOT / "agents/pretrained/dmc_kickstart_jj.pt"), rules)
    agent = DMCAgent.from_checkpoint(str(path), rules)
    enc, game, values = Encoder(rules), Game(rules, seed=seed), []
    while not game.is_over:
        obs, mask = enc.encode(game, game.current_player), game.legal_mask()
        values.append(agent.action_values(obs, np.flatnonzero(mask), mask))
        game.step(judge.act(obs, mask))
    return np.concatenate(values)


def test_a_widened_network_computes_what_the_narrow_one_did_and_averages_only_with_its_own_shape(tmp_path):
    """widen_network.py grows the shipped jj network without changing a value; average_weights.py
    averages two networks into their mean, and refuses networks of different shapes."""
    import numpy as np
    import torch

    from agents.files.checkpoint import load_checkpoint, save_checkpoint

    shipped = ROOT / "agents/pretrained/dmc_kickstart_jj.pt"
    wide = tmp_path / "wide.pt"
    arch = load_checkpoint(shipped)["arch"]
    hidden, head = arch["hidden"] + 64, arch["head"] + 32
    load_experiment("widen_network").main([str(shipped), "--hidden", str(hidden), "--head", str(head),
                                           "--out", str(wide)])
    ckpt = load_checkpoint(wide)
    assert (ckpt["arch"]["hidden"], ckpt["arch"]["head"]) == (hidden, head)
    assert ckpt["models"]["shared"]["state.0.weight"].shape == (hidden, 487)
    narrow_values, wide_values = _values_along_a_deal(shipped), _values_along_a_deal(wide)
    assert len(narrow_values) > 100 and np.abs(narrow_values - wide_values).max() < 1e-4
    with pytest.raises(SystemExit, match="widen only"):
        load_experiment("widen_network").main([str(shipped), "--hidden", "64", "--head", "32", "--out",
                                               str(tmp_path / "narrow.pt")])

    # the mean of the shipped network and a copy of it with every weight doubled: 1.5 times it
    doubled = dict(load_checkpoint(shipped))
    doubled["models"] = {"shared": {k: 2 * v for k, v in doubled["models"]["shared"].items()}}
    save_checkpoint(tmp_path / "doubled.pt", doubled)
    soup = tmp_path / "soup.pt"
    load_experiment("average_weights").main([str(shipped), str(tmp_path / "doubled.pt"), "--out", str(soup)])
    mean, start = load_checkpoint(soup), load_checkpoint(shipped)
    for key, weight in start["models"]["shared"].items():
        assert torch.allclose(mean["models"]["shared"][key], 1.5 * weight)
    assert [a["weight"] for a in mean["config"]["averaged_from"]] == [0.5, 0.5]
    with pytest.raises(SystemExit, match="arch differs"):
        load_experiment("average_weights").main([str(shipped), str(wide), "--out", str(tmp_path / "bad.pt")])
