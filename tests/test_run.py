"""`agents.training.run`: the run clock (budget, cadences, frame counts) and opening / resuming /
finishing a run, shared by the DMC and PPO trainers."""

from __future__ import annotations

import io
import math
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass

import pytest
import torch
import yaml

from agents.files.checkpoint import load_checkpoint
from agents.training.config import RunConfig, config_to_dict, load_config
from agents.training.run import (
    CHECKPOINT_NAME,
    MID_RUN_KEYS,
    MODEL_NAME,
    Counters,
    FrameRate,
    RunClock,
    checkpoint_path,
    make_run_dir,
    open_run,
    resume_config,
)

from helpers import folder_snapshot


class FakeTime:
    def __init__(self, t: float = 1000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


@dataclass
class MyCounters(Counters):
    games: int = 0


def config(*overrides: str) -> RunConfig:
    return load_config(RunConfig, None, list(overrides))


def run_minute(eval_seconds: float = 0.0) -> tuple[FakeTime, Counters, RunClock, dict[str, list[int]]]:
    """A one-minute run on a fake clock that ticks every second (log every 5 s, checkpoint
    every 30 s, evaluate every 15 s, each evaluation taking `eval_seconds`): the clock, the
    counters and the training seconds at which each event fired."""
    now = FakeTime()
    counters = Counters()
    clock = RunClock(config("total_minutes=1", "log_seconds=5", "checkpoint_minutes=0.5", "eval_minutes=0.25"),
                     counters, clock=now)
    fired: dict[str, list[int]] = {"log": [], "checkpoint": [], "eval": []}
    while not clock.done():
        now.t += 1.0
        clock.tick()
        for event, times in fired.items():
            if clock.due(event):
                times.append(round(counters.elapsed_s))
                if event == "eval" and eval_seconds:
                    with clock.evaluating():
                        now.t += eval_seconds
    return now, counters, clock, fired


def test_clock_cadences_and_time_budget():
    _, counters, clock, fired = run_minute()
    assert fired["log"][:3] == [5, 10, 15] and fired["checkpoint"] == [30, 60] and fired["eval"] == [15, 30, 45, 60]
    assert counters.elapsed_s == pytest.approx(60.0, abs=2.0) and clock.remaining_s == 0.0


def test_evaluation_time_spends_neither_the_budget_nor_the_cadences():
    """A minute of training with a 20 s evaluation every 15 s of it: the run trains its whole
    minute (80 s of evaluation besides, 140 s of wall time), and the log, checkpoint and
    evaluation periods are training time."""
    wall_start = FakeTime().t
    now, counters, clock, fired = run_minute(eval_seconds=20.0)
    assert fired["log"][:4] == [5, 10, 15, 20] and fired["checkpoint"] == [30, 60]
    assert fired["eval"] == [15, 30, 45, 60]
    assert counters.elapsed_s == pytest.approx(60.0) and counters.eval_s == pytest.approx(80.0)
    assert now.t - wall_start == pytest.approx(140.0) and clock.remaining_s == 0.0
    assert clock.minutes() == "1.0 min training + 1.3 min evaluating"
    assert "1.0 min training + 1.3 min evaluating" in clock.progress("algo", 1.0, "")


def test_clock_frame_budget_reads_frames_and_continues_a_resumed_run():
    now, made = FakeTime(), [0]
    counters = Counters(frames=4000, updates=7, elapsed_s=90.0, eval_s=30.0)  # as a resumed run has them
    clock = RunClock(config("total_minutes=0", "total_frames=5000", "eval_minutes=0"), counters,
                     frames=lambda: 4000 + made[0], clock=now)
    assert clock.start == now.t - 90.0 and clock.budget_s == math.inf
    steps = 0
    while not clock.done():
        made[0] += 300
        now.t += 0.5
        steps += 1
        clock.tick()
        assert not clock.due("eval")  # eval_minutes 0: never during training
    assert steps == 4 and counters.frames == 5200 and counters.elapsed_s == pytest.approx(92.0)
    assert clock.frame_rate() == pytest.approx(1200 / 2.0)  # since the clock started
    with clock.evaluating():
        now.t += 6.0
    assert counters.eval_s == pytest.approx(36.0) and clock.tick() - clock.start == pytest.approx(92.0)
    line = clock.progress("algo", 600.0, "loss 0.1")
    assert line == ("[algo] 1.5 min training + 0.6 min evaluating  frames 5,200  600 frames/s  updates 7  "
                    "loss 0.1")


def test_frame_rate_between_readings():
    rate = FrameRate(100, 10.0)
    assert rate(300, 12.0) == 100.0 and rate(300, 13.0) == 0.0
    assert rate(400, 13.0) > 1e10  # no time passed: large, not a division error


def training_payload(cfg: RunConfig, counters: Counters, saved: dict | None = None) -> dict:
    """A checkpoint as a trainer writes one: networks plus the state training continues from."""
    return {"compat": {"algo": "test"}, "config": saved or config_to_dict(cfg), "arch": {},
            "models": {"w": torch.ones(2)}, "counters": vars(counters).copy(), "optimizer": {"lr": 0.1}}


def finished_run(tmp_path, *overrides: str, saved: dict | None = None):
    """A run that trained and finished: its checkpoint (config `saved` if given) and model.pt."""
    cfg = config(f"runs_dir={tmp_path}", *overrides)
    run = open_run(cfg, None, load=load_checkpoint, counters=MyCounters(), log=io.StringIO())
    run.finish(training_payload(cfg, run.counters, saved), "done", io.StringIO())
    return run.dir


def test_open_resume_and_finish_a_run(tmp_path):
    cfg = config(f"runs_dir={tmp_path}", "exp_name=t", "seed=5")
    log = io.StringIO()
    run = open_run(cfg, None, load=lambda p: pytest.fail("nothing to load"), counters=MyCounters(), log=log)
    assert run.checkpoint is None and run.counters == MyCounters()
    assert log.getvalue() == f"run {run.dir} (Ctrl-C stops it with a checkpoint to resume from)\n"
    assert run.dir.parent == tmp_path and run.dir.name.startswith("baohuang-jj__t__5__")
    assert yaml.safe_load((run.dir / "config.yaml").read_text())["seed"] == 5
    first_draw = torch.rand(1)
    run.counters.frames, run.counters.updates, run.counters.games = 1234, 3, 9
    assert run.finish(training_payload(cfg, run.counters), "[t] done", log) == run.dir
    assert (run.dir / CHECKPOINT_NAME).is_file() and "[t] done; checkpoint" in log.getvalue()
    playing = load_checkpoint(run.dir / MODEL_NAME)
    assert "optimizer" not in playing and playing["counters"]["games"] == 9
    # resume from the directory (or the file): counters, folder; seeded with seed + updates
    cfg2 = config(f"runs_dir={tmp_path}", "exp_name=t", "seed=5", "total_minutes=3")
    again = open_run(cfg2, run.dir, load=load_checkpoint, counters=MyCounters(), log=log)
    assert again.dir == run.dir and again.counters == MyCounters(frames=1234, updates=3, games=9,
                                                                 elapsed_s=again.counters.elapsed_s)
    assert again.checkpoint["optimizer"] == {"lr": 0.1}
    assert "resumed" in log.getvalue() and "total_minutes 10.0 -> 3.0" in log.getvalue()
    assert not torch.equal(torch.rand(1), first_draw)
    assert yaml.safe_load((run.dir / "config.yaml").read_text())["total_minutes"] == 3
    assert checkpoint_path(run.dir) == checkpoint_path(run.dir / CHECKPOINT_NAME) == run.dir / CHECKPOINT_NAME


def test_resume_config_is_the_runs_own_with_mid_run_changes_on_top(tmp_path):
    """The run's config comes from its checkpoint; a `--config` file and key=value overrides
    go on top, and only keys in MID_RUN_KEYS may differ from the run's."""
    run_dir = finished_run(tmp_path, "exp_name=mine", "reward_mode=win", "seed=4", "eval_minutes=1")
    cfg = resume_config(RunConfig, run_dir, None, ["total_minutes=20", "eval_opponents=random"], algo="test")
    assert (cfg.exp_name, cfg.reward_mode, cfg.seed) == ("mine", "win", 4)  # the run's, not the defaults
    assert cfg.eval_minutes == 1 and cfg.total_minutes == 20 and cfg.eval_opponents == ["random"]
    same = tmp_path / "same.yaml"
    same.write_text("exp_name: mine\nreward_mode: win\nlog_seconds: 1\n")
    assert resume_config(RunConfig, run_dir / CHECKPOINT_NAME, same, [], algo="test").log_seconds == 1
    other = tmp_path / "other.yaml"
    other.write_text("reward_mode: score\nseed: 4\n")
    with pytest.raises(ValueError) as err:
        resume_config(RunConfig, run_dir, other, ["exp_name=theirs", "total_minutes=20"], algo="test")
    message = str(err.value)
    assert str(run_dir) in message
    assert "reward_mode is 'win' in the run, asked 'score'" in message
    assert "exp_name is 'mine' in the run, asked 'theirs'" in message
    assert "total_minutes" not in message.split("Only")[0] and "mid-run" in message
    with pytest.raises(ValueError, match=r"is a test checkpoint, not a dmc one; resume it with its own trainer"):
        resume_config(RunConfig, run_dir, None, [], algo="dmc")
    assert {"total_minutes", "total_frames", "eval_opponents"} <= MID_RUN_KEYS
    assert not {"seed", "preset", "reward_mode", "exp_name"} & MID_RUN_KEYS


def test_a_refused_resume_leaves_the_run_as_it_was(tmp_path):
    run_dir = finished_run(tmp_path)
    before = folder_snapshot(run_dir)
    with pytest.raises(ValueError, match=r"(?s)seed is 1 in the run, asked 9.*mid-run"):
        open_run(config(f"runs_dir={tmp_path}", "seed=9"), run_dir, load=load_checkpoint, counters=MyCounters())
    with pytest.raises(ValueError, match=r"playing copy.*Resume from the run directory"):
        open_run(config(f"runs_dir={tmp_path}"), run_dir / MODEL_NAME, load=load_checkpoint, counters=MyCounters())
    with pytest.raises(ValueError, match=f"there is no checkpoint {run_dir / 'elsewhere.pt'}"):
        open_run(config(f"runs_dir={tmp_path}"), run_dir / "elsewhere.pt", load=load_checkpoint, counters=MyCounters())
    assert folder_snapshot(run_dir) == before and list(tmp_path.iterdir()) == [run_dir]


def test_a_checkpoint_config_with_the_old_reward_key_resumes_quietly(tmp_path, recwarn):
    old = config_to_dict(config(f"runs_dir={tmp_path}"))
    old["objective"] = old.pop("reward_mode")  # as checkpoints written before the rename hold it
    run_dir = finished_run(tmp_path, saved=old)
    assert resume_config(RunConfig, run_dir, None, [], algo="test").reward_mode == "score"
    open_run(config(f"runs_dir={tmp_path}"), run_dir, load=load_checkpoint, counters=MyCounters(), log=io.StringIO())
    assert not [w for w in recwarn if issubclass(w.category, FutureWarning)]


def test_two_runs_of_the_same_name_and_seed_in_the_same_second(tmp_path, monkeypatch):
    monkeypatch.setattr(time, "strftime", lambda fmt, *args: "20260101-120000")
    cfg = config(f"runs_dir={tmp_path}", "exp_name=same")
    first, second = make_run_dir(cfg), make_run_dir(cfg)
    assert first != second and first.is_dir() and second.is_dir()
    assert first.name == "baohuang-jj__same__1__20260101-120000"
    assert second.name.startswith(first.name)
    third = open_run(cfg, None, load=load_checkpoint, counters=MyCounters(), log=io.StringIO())
    assert third.dir not in (first, second) and (third.dir / "config.yaml").is_file()


HOLD = """
import sys
from dataclasses import dataclass
from agents.files.checkpoint import load_checkpoint
from agents.training.config import RunConfig, load_config
from agents.training.run import Counters, open_run

@dataclass
class MyCounters(Counters):
    games: int = 0

cfg = load_config(RunConfig, None, ["runs_dir=" + sys.argv[2]])
run = open_run(cfg, sys.argv[1], load=load_checkpoint, counters=MyCounters())
print("training", flush=True)
sys.stdin.read()  # hold the run until killed
"""


def test_a_run_directory_is_locked_while_a_process_trains_in_it(tmp_path):
    """Another process resumes the run and holds it; a second resume is refused with a
    message naming the run and that process, and changes nothing; once that process is
    killed (kill -9), the run can be resumed again."""
    run_dir = finished_run(tmp_path)
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(run_dir), str(tmp_path)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline() == "training\n", holder.stderr.read()
        before = folder_snapshot(run_dir)
        for resume in (run_dir, run_dir / CHECKPOINT_NAME):
            with pytest.raises(ValueError) as err:
                open_run(config(f"runs_dir={tmp_path}"), resume, load=load_checkpoint, counters=MyCounters())
            assert str(run_dir) in str(err.value)
            assert f"another process (pid {holder.pid}) is training in it" in str(err.value)
        assert folder_snapshot(run_dir) == before
    finally:
        os.kill(holder.pid, signal.SIGKILL)
        holder.wait()
    run = open_run(config(f"runs_dir={tmp_path}"), run_dir, load=load_checkpoint, counters=MyCounters(),
                   log=io.StringIO())
    with pytest.raises(ValueError, match="another process"):  # a second trainer in this process, too
        open_run(config(f"runs_dir={tmp_path}"), run_dir, load=load_checkpoint, counters=MyCounters())
    run.finish(training_payload(config(f"runs_dir={tmp_path}"), run.counters), "done", io.StringIO())
    open_run(config(f"runs_dir={tmp_path}"), run_dir, load=load_checkpoint, counters=MyCounters(), log=io.StringIO())
