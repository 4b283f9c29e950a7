"""Stopping `baohuang train` and resuming it: a real `baohuang train` process gets a real
Ctrl-C (SIGINT, sent to its whole process group as a terminal does, actors included) or
SIGTERM while it trains. It must stop its actors, write a checkpoint, name the run directory
and the command that resumes it, exit with the shell's code for the signal, print no
traceback (its actor processes neither), and skip the final evaluation; resuming continues
the counters. A run directory without a checkpoint says so when resumed."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import torch

from agents.training.config import RunConfig, load_config, save_config
from agents.training.run import CHECKPOINT_NAME, MODEL_NAME, make_run_dir
from baohuang_cli.cli import main

TINY = {
    "dmc": ["actors=1", "games_per_actor=4", "unroll_length=16", "slots_per_role=8", "batch_slots=2", "hidden=32",
            "head=16"],
    "ppo": ["num_games=8", "rollout_decisions=128", "minibatch_size=128", "update_epochs=1", "hidden=32", "head=16",
            "value_hidden=32", "torch_threads=1", "opponent_mix=self=1"],
}
#: Long budget and cadences: only the signal ends the run, and only it writes the checkpoint.
QUIET = ["seed=3", "eval_minutes=0", "log_seconds=0.2", "checkpoint_minutes=100", "total_minutes=10"]
WAIT_S = 120  # bounds on the waits (a loaded machine starts slowly); a normal pass takes a few seconds
TRAINING = re.compile(r"frames [1-9]")  # a progress line once frames have arrived


def command(algo: str, tmp_path: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "baohuang_cli.cli", "train", algo, "--no-eval", *TINY[algo], *QUIET,
            f"runs_dir={tmp_path}", *extra]


class Lines:
    """A process's stderr, read line by line on a thread, so that the test can wait for a line
    with a bound."""

    def __init__(self, proc: subprocess.Popen) -> None:
        self.lines: list[str] = []
        self._new = threading.Condition()
        self._thread = threading.Thread(target=self._read, args=(proc,), daemon=True)
        self._thread.start()

    def _read(self, proc: subprocess.Popen) -> None:
        for line in proc.stderr:
            with self._new:
                self.lines.append(line)
                self._new.notify_all()

    def wait_for(self, pattern: re.Pattern, timeout: float) -> bool:
        with self._new:
            return self._new.wait_for(lambda: any(pattern.search(line) for line in self.lines), timeout)

    def text(self) -> str:
        self._thread.join(timeout=10)
        return "".join(self.lines)


def stop_while_training(algo: str, tmp_path: Path, signum: int) -> tuple[int, str]:
    """Start a run, wait until it trains, send `signum` (SIGINT to the whole process group, as
    a terminal's Ctrl-C; SIGTERM to the trainer, as `kill`); its exit code and stderr."""
    proc = subprocess.Popen(command(algo, tmp_path), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        err = Lines(proc)
        assert err.wait_for(TRAINING, WAIT_S), f"it never trained:\n{''.join(err.lines)}"
        if signum == signal.SIGINT:
            os.killpg(proc.pid, signum)
        else:
            proc.send_signal(signum)
        code = proc.wait(timeout=WAIT_S)
        return code, err.text()
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


@pytest.mark.slow
@pytest.mark.parametrize(("algo", "signum"), [("dmc", signal.SIGINT), ("dmc", signal.SIGTERM), ("ppo", signal.SIGINT)],
                         ids=["dmc-sigint", "dmc-sigterm", "ppo-sigint"])
def test_a_stopped_run_saves_a_checkpoint_that_resumes(algo, signum, tmp_path):
    code, err = stop_while_training(algo, tmp_path, signum)
    assert code == 128 + signum, err  # 130 for Ctrl-C, 143 for SIGTERM
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    (run_dir,) = tmp_path.iterdir()
    lines = err.splitlines()
    assert lines[0] == f"[{algo}] run {run_dir} (Ctrl-C stops it with a checkpoint to resume from)"
    what = "Ctrl-C (SIGINT)" if signum == signal.SIGINT else "SIGTERM"
    resume = f"baohuang train {algo} --resume {run_dir}"
    assert lines[-1].startswith(f"[{algo}] stopped by {what} after ")
    assert lines[-1].endswith(f"; checkpoint {run_dir / CHECKPOINT_NAME}; resume with: {resume}")
    saved = torch.load(run_dir / CHECKPOINT_NAME, weights_only=True)["counters"]
    assert saved["frames"] > 0 and (run_dir / MODEL_NAME).is_file()

    inline = ["actors=0"] if algo == "dmc" else []  # a worker count may change on resume: quicker here
    more = subprocess.run([*command(algo, tmp_path), "--resume", str(run_dir), *inline, "total_minutes=0",
                           f"total_frames={saved['frames'] + 200}"], capture_output=True, text=True, timeout=WAIT_S)
    assert more.returncode == 0, more.stderr
    assert more.stderr.splitlines()[0].startswith(f"[{algo}] resumed {run_dir} at {saved['frames']} frames, "
                                                  f"{saved['updates']} updates")
    final = torch.load(run_dir / CHECKPOINT_NAME, weights_only=True)["counters"]
    assert final["frames"] >= saved["frames"] + 200 and final["updates"] >= saved["updates"]
    assert final["elapsed_s"] > saved["elapsed_s"]


def test_resuming_a_run_that_never_wrote_a_checkpoint_says_so(tmp_path, capsys):
    """What a run killed before its first checkpoint leaves: a folder with its config only."""
    run_dir = make_run_dir(load_config(RunConfig, None, [f"runs_dir={tmp_path}"]))
    save_config(load_config(RunConfig, None, []), run_dir / "config.yaml")
    for resume in (run_dir, run_dir / CHECKPOINT_NAME):
        assert main(["train", "dmc", "--resume", str(resume)]) == 2
        message = capsys.readouterr().err
        assert f"cannot resume {run_dir}: that run never wrote a checkpoint" in message
        assert f"Start it again with: baohuang train dmc --config {run_dir / 'config.yaml'}" in message
    assert sorted(p.name for p in run_dir.iterdir()) == ["config.yaml"]  # nothing written
