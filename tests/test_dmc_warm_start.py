"""DMC's warm start (`init_from`): a new run starts from another run's network weights."""

from __future__ import annotations

import pytest
import torch

from agents.training.config import load_config
from agents.dmc.config import DMCConfig
from agents.dmc.trainer import CHECKPOINT_NAME, train

TINY = ["actors=0", "unroll_length=16", "slots_per_role=8", "batch_slots=2", "hidden=32", "head=16",
        "eval_minutes=0", "log_seconds=1000", "checkpoint_minutes=100", "total_minutes=5"]


def _config(tmp_path, *extra: str) -> DMCConfig:
    return load_config(DMCConfig, None, [*TINY, f"runs_dir={tmp_path}", *extra])


def _weights(run_dir) -> dict[str, torch.Tensor]:
    return torch.load(run_dir / CHECKPOINT_NAME, weights_only=True)["models"]["shared"]


def test_a_warm_started_run_begins_from_the_given_weights(tmp_path):
    first = train(_config(tmp_path, "total_frames=2000", "exp_name=first"))
    # learning rate 0: the second run's weights stay what it started from
    second = train(_config(tmp_path, "total_frames=2000", "exp_name=second", "learning_rate=0",
                           f"init_from={first / CHECKPOINT_NAME}"))
    cold = train(_config(tmp_path, "total_frames=2000", "exp_name=cold", "learning_rate=0", "seed=5"))
    a, b, c = _weights(first), _weights(second), _weights(cold)
    assert all(torch.equal(a[k], b[k]) for k in a)
    assert not all(torch.equal(a[k], c[k]) for k in a)


def test_a_warm_start_of_another_layout_is_refused_with_both_layouts(tmp_path):
    first = train(_config(tmp_path, "total_frames=500", "exp_name=first"))
    runs_before = sorted(tmp_path.iterdir())
    with pytest.raises(ValueError, match=r"it has hidden=32.*this run has hidden=64"):
        train(_config(tmp_path, "total_frames=500", "hidden=64", f"init_from={first / CHECKPOINT_NAME}"))
    assert sorted(tmp_path.iterdir()) == runs_before  # no run directory left behind
