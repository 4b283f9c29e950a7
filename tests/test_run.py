"""`agents.run`: the run clock (budget, cadences, frame counts) and opening / resuming /
finishing a run, shared by the DMC and PPO trainers."""

from __future__ import annotations

import io
import math
from dataclasses import dataclass

import pytest
import torch
import yaml

from agents.checkpoint import load_checkpoint
from agents.config import RunConfig, config_to_dict, load_config
from agents.run import CHECKPOINT_NAME, MODEL_NAME, Counters, FrameRate, RunClock, checkpoint_path, open_run


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


def test_clock_cadences_and_time_budget():
    now = FakeTime()
    counters = Counters()
    clock = RunClock(config("total_minutes=1", "log_seconds=5", "checkpoint_minutes=0.5", "eval_minutes=0.25"),
                     counters, clock=now)
    fired = {"log": [], "checkpoint": [], "eval": []}
    while not clock.done():
        now.t += 1.0
        clock.tick()
        for event, times in fired.items():
            if clock.due(event):
                times.append(round(counters.elapsed_s))
    assert fired["log"][:3] == [5, 10, 15] and fired["checkpoint"] == [30, 60] and fired["eval"] == [15, 30, 45, 60]
    assert counters.elapsed_s == pytest.approx(60.0, abs=2.0) and clock.remaining_s == 0.0


def test_evaluation_time_spends_neither_the_budget_nor_the_cadences():
    """A minute of training with a 20 s evaluation every 15 s of it: the run trains its whole
    minute (80 s of evaluation besides, 140 s of wall time), and the log, checkpoint and
    evaluation periods are training time."""
    now = FakeTime()
    counters = Counters()
    clock = RunClock(config("total_minutes=1", "log_seconds=5", "checkpoint_minutes=0.5", "eval_minutes=0.25"),
                     counters, clock=now)
    wall_start, fired = now.t, {"log": [], "checkpoint": [], "eval": []}
    while not clock.done():
        now.t += 1.0
        clock.tick()
        for event, times in fired.items():
            if clock.due(event):
                times.append(round(counters.elapsed_s))
                if event == "eval":
                    with clock.evaluating():
                        now.t += 20.0
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


def test_open_resume_and_finish_a_run(tmp_path):
    cfg = config(f"runs_dir={tmp_path}", "exp_name=t", "seed=5")
    log = io.StringIO()
    run = open_run(cfg, None, load=lambda p: pytest.fail("nothing to load"), counters=MyCounters(), log=log)
    assert run.checkpoint is None and run.counters == MyCounters() and log.getvalue() == ""
    assert run.dir.parent == tmp_path and run.dir.name.startswith("baohuang-jj__t__5__")
    assert yaml.safe_load((run.dir / "config.yaml").read_text())["seed"] == 5
    first_draw = torch.rand(1)
    run.counters.frames, run.counters.updates, run.counters.games = 1234, 3, 9
    payload = {"compat": {"algo": "test"}, "config": config_to_dict(cfg), "arch": {}, "models": {"w": torch.ones(2)},
               "counters": vars(run.counters).copy(), "optimizer": {"lr": 0.1}}
    assert run.finish(payload, "[t] done", log) == run.dir
    assert (run.dir / CHECKPOINT_NAME).is_file() and "[t] done; checkpoint" in log.getvalue()
    playing = load_checkpoint(run.dir / MODEL_NAME)
    assert "optimizer" not in playing and playing["counters"]["games"] == 9
    # resume from the directory (or the file): counters, folder; seeded with seed + updates
    checked = []
    cfg2 = config(f"runs_dir={tmp_path}", "exp_name=t", "seed=5", "total_minutes=3")
    again = open_run(cfg2, run.dir, load=load_checkpoint, counters=MyCounters(),
                     check=lambda ckpt, saved, path: checked.append((saved.seed, path)), log=log)
    assert again.dir == run.dir and again.counters == MyCounters(frames=1234, updates=3, games=9,
                                                                 elapsed_s=again.counters.elapsed_s)
    assert checked == [(5, run.dir / CHECKPOINT_NAME)] and again.checkpoint["optimizer"] == {"lr": 0.1}
    assert "resumed" in log.getvalue() and not torch.equal(torch.rand(1), first_draw)
    assert yaml.safe_load((run.dir / "config.yaml").read_text())["total_minutes"] == 3
    assert checkpoint_path(run.dir) == checkpoint_path(run.dir / CHECKPOINT_NAME) == run.dir / CHECKPOINT_NAME


def test_a_refused_resume_leaves_the_run_as_it_was(tmp_path):
    cfg = config(f"runs_dir={tmp_path}")
    run = open_run(cfg, None, load=load_checkpoint, counters=Counters(), log=io.StringIO())
    run.finish({"compat": {}, "config": config_to_dict(cfg), "arch": {}, "models": {}, "counters": {}},
               "done", io.StringIO())
    before = (run.dir / "config.yaml").read_text()

    def refuse(ckpt, saved, path):
        raise ValueError(f"cannot resume {path}: sizes differ")

    with pytest.raises(ValueError, match="sizes differ"):
        open_run(config(f"runs_dir={tmp_path}", "seed=9"), run.dir, load=load_checkpoint, counters=Counters(),
                 check=refuse)
    assert (run.dir / "config.yaml").read_text() == before and len(list(tmp_path.iterdir())) == 1


def test_a_checkpoint_config_with_the_old_reward_key_resumes_quietly(tmp_path, recwarn):
    cfg = config(f"runs_dir={tmp_path}")
    run = open_run(cfg, None, load=load_checkpoint, counters=Counters(), log=io.StringIO())
    old = config_to_dict(cfg)
    old["objective"] = old.pop("reward_mode")  # as checkpoints written before the rename hold it
    run.finish({"compat": {}, "config": old, "arch": {}, "models": {}, "counters": {}}, "done", io.StringIO())
    seen = []
    open_run(cfg, run.dir, load=load_checkpoint, counters=Counters(),
             check=lambda ckpt, saved, path: seen.append(saved.reward_mode), log=io.StringIO())
    assert seen == ["score"] and not [w for w in recwarn if issubclass(w.category, FutureWarning)]
