"""PPO ends within its time budget: the last iteration collects only the share of
`rollout_decisions` that the remaining training time fits at the pace of the one before
(`agents.ppo.trainer.iteration_decisions`), where it used to run a whole iteration past the
budget (`total_minutes=1` ended at 1.2 min). The trainer runs on a fake clock that each
rollout step moves on by a tenth of a second, so the figures are exact."""

from __future__ import annotations

import functools
import io

import pytest
import torch

import agents.ppo.trainer as ppo_trainer
from agents.training.config import load_config
from agents.ppo.config import PPOConfig
from agents.ppo.rollout import Rollouts
from agents.training.run import CHECKPOINT_NAME, RunClock

STEP_S = 0.1  # fake seconds per rollout step (a move in each of the num_games games)
TINY = ["num_games=64", "rollout_decisions=2048", "minibatch_size=128", "update_epochs=1", "hidden=32", "head=16",
        "value_hidden=32", "torch_threads=1", "opponent_mix=self=1", "eval_minutes=0", "log_seconds=1000",
        "checkpoint_minutes=100", "total_minutes=1"]


def test_the_last_iteration_is_sized_to_the_time_left():
    cfg = load_config(PPOConfig, None, ["rollout_decisions=8192", "minibatch_size=2048"])
    size = ppo_trainer.iteration_decisions
    assert size(cfg, 30.0, None) == 8192  # no pace measured yet: a whole one
    assert size(cfg, 30.0, 0.002) == 8192  # 16.4 s for a whole one
    assert size(cfg, 5.0, 0.002) == 2500
    assert size(cfg, 0.0001, 0.002) == 1
    assert size(cfg, float("inf"), 0.002) == 8192  # a frame budget only


@pytest.mark.slow
def test_a_time_budget_ends_the_run_on_time(tmp_path, monkeypatch):
    now = [0.0]
    step = Rollouts.step

    def timed_step(self) -> None:
        now[0] += STEP_S
        step(self)

    monkeypatch.setattr(Rollouts, "step", timed_step)
    monkeypatch.setattr(ppo_trainer, "RunClock", functools.partial(RunClock, clock=lambda: now[0]))
    sizes, size = [], ppo_trainer.iteration_decisions
    monkeypatch.setattr(ppo_trainer, "iteration_decisions", lambda *args: sizes.append(size(*args)) or sizes[-1])
    run_dir = ppo_trainer.train(load_config(PPOConfig, None, [*TINY, f"runs_dir={tmp_path}"]), log=io.StringIO())
    counters = torch.load(run_dir / CHECKPOINT_NAME, weights_only=True)["counters"]
    # an iteration takes about 10 fake seconds here: the run ends within a few steps of the minute
    assert 60.0 <= counters["elapsed_s"] <= 60.0 + 10 * STEP_S
    assert sizes[0] == 2048 and sizes[-1] < 2048
