"""`baohuang info FILE [--json]` on every kind of file it reads: a run directory of a tiny real
training run (with its final evaluation), its training checkpoint and playing copy, a shipped
agent and an exported .onnx file print the preset, rules fingerprint, algorithm and the
recorded frames; `--json` is one parseable object with the same facts; anything else is
refused with one clear line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from agents.pretrained import find
from agents.training.run import CHECKPOINT_NAME, MODEL_NAME
from baohuang_cli.cli import main as cli_main

TINY = ["actors=0", "games_per_actor=2", "unroll_length=16", "slots_per_role=8", "batch_slots=2", "hidden=32",
        "head=16", "eval_minutes=0", "log_seconds=1000", "checkpoint_minutes=100", "total_frames=300",
        "final_eval_deals=1", "eval_opponents=heuristic"]


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    """A tiny DMC run trained by the CLI, final evaluation (both protocols, one deal) included."""
    runs = tmp_path_factory.mktemp("runs")
    assert cli_main(["train", "dmc", *TINY, f"runs_dir={runs}", "--workers", "1"]) == 0
    (found,) = runs.iterdir()
    return found


def info(capsys, *argv: str) -> tuple[str, dict]:
    """`baohuang info` printed (exit 0), and its `--json` form parsed."""
    assert cli_main(["info", *argv]) == 0
    text = capsys.readouterr().out
    assert cli_main(["info", *argv, "--json"]) == 0
    return text, json.loads(capsys.readouterr().out)


def test_a_run_directory_and_its_checkpoints(run_dir, capsys):
    recorded = torch.load(run_dir / CHECKPOINT_NAME, weights_only=True)
    frames, fingerprint = recorded["counters"]["frames"], recorded["compat"]["rules_fingerprint"]
    for path, kind in ((run_dir, "run directory"), (run_dir / CHECKPOINT_NAME, "training checkpoint"),
                       (run_dir / MODEL_NAME, "playing copy")):
        text, data = info(capsys, str(path))
        assert text.startswith(f"{path}: {kind}\n")
        for label, value in (("algorithm", "dmc"), ("preset", "jj"), ("rules fingerprint", fingerprint),
                             ("frames", f"{frames:,}")):
            assert f"  {label} " in text and value in text.split(f"  {label} ", 1)[1].splitlines()[0], text
        assert "team protocol vs heuristic on 1 deals: mean score difference" in text
        assert "seat protocol vs heuristic on 1 deals" in text
        assert (data["kind"], data["algo"], data["preset"], data["rules_fingerprint"]) == (kind, "dmc", "jj",
                                                                                          fingerprint)
        assert data["frames"] == frames and data["updates"] == recorded["counters"]["updates"]
        assert data["config"] == recorded["config"] and data["network"]["hidden"] == 32
        assert [(e["protocol"], e["opponent"], e["deals"]) for e in data["evaluation"]] == [
            ("team", "heuristic", 1), ("seat", "heuristic", 1)]
    _, whole = info(capsys, str(run_dir))
    assert whole["files"][CHECKPOINT_NAME]["kind"] == "training" and whole["files"][MODEL_NAME]["kind"] == "playing"


def test_a_shipped_agent(capsys):
    text, data = info(capsys, "agents/pretrained/dmc_jj.pt")  # as the docs write it, from any directory
    assert "shipped            pretrained:dmc_jj: DMC, pure self-play" in text
    assert "frames             83,965,184" in text and "rules fingerprint  e0c3aa5dc70c9572" in text
    assert "none recorded" in text
    assert data["evaluation"] is None and data["size_bytes"] == find("dmc_jj").path.stat().st_size
    assert len(data["sha256"]) == 64 and data["network"]["advice"] == "none"


def test_an_exported_onnx_file(run_dir, capsys, tmp_path):
    pytest.importorskip("onnx", reason='reading .onnx files needs onnx: pip install -e ".[onnx]"')
    out = tmp_path / "agent.onnx"
    assert cli_main(["export", "--onnx", str(run_dir), str(out)]) == 0
    capsys.readouterr()
    text, data = info(capsys, str(out))
    _, source = info(capsys, str(run_dir / CHECKPOINT_NAME))
    assert text.startswith(f"{out}: onnx graph\n")
    assert "onnx inputs        observation ['batch', 487], action_features ['batch', 'actions', 38]" in text
    assert "onnx outputs       values ['batch', 'actions']" in text
    for key in ("algo", "preset", "rules_fingerprint", "frames", "updates", "config", "network"):
        assert data[key] == source[key], key
    assert data["onnx"]["source_sha256"] == source["sha256"]
    (tmp_path / "broken.onnx").write_bytes(b"not a protobuf")
    assert cli_main(["info", str(tmp_path / "broken.onnx")]) == 2
    assert "is not an ONNX model" in capsys.readouterr().err


def test_what_is_not_a_checkpoint_is_refused_with_one_line(capsys, tmp_path):
    (tmp_path / "notes.txt").write_text("not a checkpoint")
    (tmp_path / "empty").mkdir()
    for argv, reason in ((["info", str(tmp_path / "notes.txt")], "is not a checkpoint"),
                         (["info", str(tmp_path / "empty")], "not a run directory"),
                         (["info", str(tmp_path / "missing.pt")], "does not exist")):
        assert cli_main(argv) == 2
        err = capsys.readouterr().err
        assert err.startswith("baohuang info: error: ") and reason in err and err.count("\n") == 1, err
        assert "Traceback" not in err
