"""Checkpoint files through the command line: `baohuang export` never loses a training
checkpoint and takes a run directory; files that are not checkpoints, unsafe pickles, rules
mismatches and binary configs each get one clear `baohuang <cmd>: error: ...` line (exit 2)."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from agents.files.checkpoint import checkpoint_kind, load_checkpoint
from agents.dmc import DMCAgent
from agents.dmc.config import DMCConfig
from agents.dmc.trainer import train
from agents.training.config import load_config
from agents.training.run import CHECKPOINT_NAME, MODEL_NAME
from baohuang_cli.cli import main as cli_main
from baohuang_env import get_rules

TINY = ["actors=0", "unroll_length=16", "slots_per_role=8", "batch_slots=2", "hidden=32", "head=16",
        "eval_minutes=0", "log_seconds=1000", "checkpoint_minutes=100", "total_frames=300"]


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    """A tiny finished DMC run on jj: checkpoint.pt (training) and model.pt (playing copy)."""
    return train(load_config(DMCConfig, None, [*TINY, f"runs_dir={tmp_path_factory.mktemp('runs')}"]))


def cli_error(capsys, argv: list[str]) -> str:
    """Run the CLI expecting a refusal: exit 2, one `baohuang <cmd>: error:` line, no traceback."""
    assert cli_main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"baohuang {argv[0]}: error: ") and err.count("\n") == 1, err
    assert "Traceback" not in err
    return err


# ----------------------------------------------------------------------------- export
def test_export_never_replaces_a_training_checkpoint(run_dir, capsys, tmp_path):
    ckpt = run_dir / CHECKPOINT_NAME
    other = tmp_path / "other.pt"  # another run's training checkpoint
    other.write_bytes(ckpt.read_bytes())
    before = ckpt.read_bytes()
    for argv in (["export", str(ckpt), str(ckpt)], ["export", str(ckpt), str(ckpt), "--force"],
                 ["export", str(run_dir), str(other), "--force"]):
        err = cli_error(capsys, argv)
        assert "is a training checkpoint" in err and "even with --force" in err
        assert "-playing.pt" in err  # where the playing copy could go instead
    assert ckpt.read_bytes() == before and other.read_bytes() == before
    assert checkpoint_kind(ckpt) == checkpoint_kind(other) == "training"
    assert not [p for p in [*run_dir.iterdir(), *tmp_path.iterdir()] if p.name.endswith(".tmp")]


def test_export_replaces_an_existing_file_only_with_force(run_dir, capsys, tmp_path):
    out = tmp_path / "play.pt"
    assert cli_main(["export", str(run_dir / CHECKPOINT_NAME), str(out)]) == 0
    assert capsys.readouterr().out == f"wrote {out}\n" and checkpoint_kind(out) == "playing"
    first = out.read_bytes()
    err = cli_error(capsys, ["export", str(run_dir / CHECKPOINT_NAME), str(out)])
    assert "already exists (a playing copy)" in err and "--force" in err and out.read_bytes() == first
    assert cli_main(["export", str(run_dir / CHECKPOINT_NAME), str(out), "--force"]) == 0
    assert checkpoint_kind(out) == "playing"
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    assert "already exists (not a checkpoint)" in cli_error(capsys, ["export", str(run_dir), str(notes)])
    assert notes.read_text() == "my notes\n"
    assert cli_main(["export", str(run_dir), str(notes), "--force"]) == 0 and checkpoint_kind(notes) == "playing"


def test_export_takes_a_run_directory_as_resume_does(run_dir, capsys, tmp_path):
    out = tmp_path / "from_dir.pt"
    assert cli_main(["export", str(run_dir), str(out)]) == 0
    copy, source = load_checkpoint(out), load_checkpoint(run_dir / CHECKPOINT_NAME)
    assert "optimizers" not in copy and copy["counters"] == source["counters"]
    assert all(torch.equal(copy["models"][n][k], v) for n, m in source["models"].items() for k, v in m.items())
    err = cli_error(capsys, ["export", str(tmp_path), str(tmp_path / "x.pt")])  # a folder without a run
    assert f"{tmp_path / CHECKPOINT_NAME} does not exist" in err


# ----------------------------------------------------------------------------- what a file is
def test_a_text_file_is_not_a_checkpoint(capsys, tmp_path):
    text = tmp_path / "notes.pt"
    text.write_text("hello\n")
    err = cli_error(capsys, ["eval", "--agents", f"dmc:{text}", "random", "--deals", "1"])
    assert f"{text} is not a checkpoint" in err and "written by `baohuang train` or `baohuang export`" in err
    assert "101" not in err.replace(str(tmp_path), "TMP")  # torch's raw "…: 101" (the byte 'e'); the path may hold 101


class _Payload:
    """Pickles as a call to `open(marker, "w")`: loading it unsafely would create `marker`."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return open, (str(self.marker), "w")


@pytest.mark.parametrize("legacy", [False, True])
def test_an_unsafe_pickle_is_refused_for_safety_without_advice_to_load_it_unsafely(capsys, tmp_path, legacy):
    marker, evil = tmp_path / "ran", tmp_path / "evil.pt"
    torch.save({"format": "baohuang-checkpoint", "x": _Payload(marker)}, evil,
               _use_new_zipfile_serialization=not legacy)
    for argv in (["eval", "--agents", f"dmc:{evil}", "random", "--deals", "1"],
                 ["play", "--opponents", f"dmc:{evil}"]):
        err = cli_error(capsys, argv)
        assert "is not a Baohuang checkpoint" in err and "refused for safety" in err
        assert "weights_only" not in err and "torch.load" not in err
    assert not marker.exists()


def test_a_rules_mismatch_names_the_presets_and_the_flags_that_differ(run_dir, capsys):
    err = cli_error(capsys, ["eval", "--agents", f"dmc:{run_dir / MODEL_NAME}", "random", "--deals", "1",
                             "--preset", "weihai"])
    assert "was trained for other rules (checkpoint: preset 'jj'; asked: preset 'weihai')" in err
    assert "deck_size (checkpoint 168, asked 165)" in err and "kick (checkpoint False, asked True)" in err
    assert "tribute" not in err and "{" not in err  # no rule dicts, no flags that agree
    with pytest.raises(ValueError) as refused:
        DMCAgent.from_checkpoint(str(run_dir / MODEL_NAME), get_rules("jj", hold_sixes=False))
    assert str(refused.value).endswith("(checkpoint: preset 'jj'; asked: preset 'jj'); flags that differ: "
                                       "hold_sixes (checkpoint True, asked False)")


def test_a_binary_config_names_the_file_and_what_a_config_is(capsys, tmp_path):
    config = tmp_path / "model.yaml"
    config.write_bytes(b"PK\x03\x04\xbe\xef\x00\xff")
    err = cli_error(capsys, ["train", "dmc", "--config", str(config)])
    assert f"config {config} is not a text file" in err and "a config must be a YAML text file" in err
