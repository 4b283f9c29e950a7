"""The training budget is training time: evaluation during training (every `eval_minutes`)
neither spends `total_minutes` nor delays the cadences, and the progress line, the final
line, the checkpoint's counters and TensorBoard report the two times apart. Both trainers
run under a fake clock with a stubbed evaluation that takes ten (fake) minutes."""

from __future__ import annotations

import functools
import io

import pytest
import torch
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

import agents.dmc.trainer as dmc_trainer
import agents.ppo.trainer as ppo_trainer
from agents.training.config import load_config
from agents.dmc.config import DMCConfig
from agents.ppo.config import PPOConfig
from agents.training.run import CHECKPOINT_NAME, RunClock

EVAL_S = 600.0  # each stubbed evaluation: ten minutes
TRAINERS = {
    # trainer module, config class, a tiny config, fake seconds per clock reading
    "dmc": (dmc_trainer, DMCConfig, ["actors=0", "unroll_length=16", "slots_per_role=8", "batch_slots=2",
                                     "hidden=32", "head=16", "eval_minutes=0.1"], 2.0),
    "ppo": (ppo_trainer, PPOConfig, ["num_games=8", "rollout_decisions=128", "minibatch_size=128",
                                     "update_epochs=1", "hidden=32", "head=16", "value_hidden=32", "torch_threads=1",
                                     "opponent_mix=self=1", "eval_minutes=0.25"], 5.0),
}


@pytest.mark.parametrize("algo", sorted(TRAINERS))
def test_evaluation_during_training_is_off_the_budget(algo, tmp_path, monkeypatch):
    trainer, config_cls, tiny, step_s = TRAINERS[algo]
    now = [0.0]

    def fake_clock() -> float:  # every reading moves time on, so the loop trains for a while
        now[0] += step_s
        return now[0]

    evaluations = []

    def slow_evaluation(*args, **kwargs) -> None:
        evaluations.append(now[0])
        now[0] += EVAL_S

    monkeypatch.setattr(trainer, "RunClock", functools.partial(RunClock, clock=fake_clock))
    monkeypatch.setattr(trainer, "log_eval", slow_evaluation)
    cfg = load_config(config_cls, None, [*tiny, "total_minutes=1", "log_seconds=20", "checkpoint_minutes=100",
                                         f"runs_dir={tmp_path}"])
    log = io.StringIO()
    run_dir = trainer.train(cfg, log=log)

    counters = torch.load(run_dir / CHECKPOINT_NAME, weights_only=True)["counters"]
    assert 60.0 <= counters["elapsed_s"] <= 60.0 + 2 * step_s  # the whole minute was training
    n = len(evaluations)
    assert n >= 3 and EVAL_S * n <= counters["eval_s"] <= (EVAL_S + step_s) * n  # one reading inside each
    assert now[0] >= 60.0 + EVAL_S * n  # the wall time holds both
    lines = log.getvalue().splitlines()
    minutes = f"{counters['elapsed_s'] / 60:.1f} min training + {counters['eval_s'] / 60:.1f} min evaluating"
    assert lines[-1].startswith(f"[{algo}] done: ") and minutes in lines[-1]
    assert any(line.startswith(f"[{algo}] ") and "min training +" in line and "min of training left" in line
               for line in lines[:-1])
    scalars = EventAccumulator(str(run_dir)).Reload()
    train_minutes = [e.value for e in scalars.Scalars("charts/train_minutes")]
    eval_minutes = [e.value for e in scalars.Scalars("charts/eval_minutes")]
    assert train_minutes[-1] == pytest.approx(counters["elapsed_s"] / 60)
    assert eval_minutes[-1] == pytest.approx(counters["eval_s"] / 60)


def test_the_periodic_evaluation_logs_the_duplicate_win_rate(tmp_path):
    """`eval/winrate_vs_<opponent>` is the duplicate win rate (wins + ½ draws), the figure the
    reports lead with: an agent against a copy of itself in the team protocol plays both
    sides the same way, so it gets exactly 0.5 however many games are drawn."""
    from torch.utils.tensorboard import SummaryWriter

    from agents.bots.heuristic import HeuristicAgent
    from agents.training.common import log_eval
    from baohuang_env import get_rules

    rules = get_rules("jj")
    cfg = load_config(DMCConfig, None, ["eval_opponents=[heuristic]", "eval_protocol=team"])
    with SummaryWriter(str(tmp_path)) as writer:
        res = log_eval(writer, HeuristicAgent(rules), cfg, rules, 7, 12, log=io.StringIO())["heuristic"]
    assert res.table_a["overall"].draws > 0 and res.win_rate < 0.5  # the plain win rate counts draws as lost
    logged = EventAccumulator(str(tmp_path)).Reload().Scalars("eval/winrate_vs_heuristic")
    assert [(e.step, e.value) for e in logged] == [(7, 0.5)]
