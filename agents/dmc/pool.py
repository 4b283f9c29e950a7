"""DMC's opponent pool (`opponent_mix` entry "snapshots"; the pool itself is
`agents.training.pool`, PPO's too): what a snapshot of the learner is (its networks, as one
`ModuleList`), the pool of a new or resumed run, and when a snapshot is taken
(`DMCConfig.snapshot_minutes`, `pool_size`).

A snapshot's id is its mark on the schedule: the number of whole `snapshot_minutes` of
training time (over all resumes) when it was taken, 0 for the first one, taken as the run
starts. So ids are distinct and grow, and a resumed run goes on with the schedule it left.
"""

from __future__ import annotations

from typing import Any

import torch

from ..nets.networks import ActionScorer
from ..training.pool import OpponentPool
from .config import DMCConfig


def snapshot_net(nets: list[ActionScorer]) -> torch.nn.ModuleList:
    """The learner's networks (one per role, or the shared one) as one module: a snapshot's net."""
    return torch.nn.ModuleList(nets)


def opponent_pool(cfg: DMCConfig, nets: list[ActionScorer], checkpoint: dict[str, Any] | None) -> OpponentPool | None:
    """The run's pool: None without "snapshots" in `opponent_mix`; else the checkpoint's (empty
    for a new run, or a checkpoint without one), then a first snapshot of `nets` if it has none."""
    if not cfg.uses_pool:
        return None
    pool = OpponentPool(cfg.pool_size)
    if checkpoint is not None and "pool" in checkpoint:
        pool.load(checkpoint["pool"], snapshot_net(nets))
    take_snapshot(pool, nets, 0.0 if checkpoint is None else checkpoint["counters"]["elapsed_s"],
                  cfg.snapshot_minutes)
    return pool


def take_snapshot(pool: OpponentPool, nets: list[ActionScorer], elapsed_s: float, snapshot_minutes: float) -> bool:
    """Add a snapshot of `nets` to `pool` when training time `elapsed_s` has reached a mark of
    the schedule (every `snapshot_minutes`) past the newest snapshot's, or at once when the pool
    is empty; the oldest leaves a full pool. True when one was added."""
    mark = int(elapsed_s / 60 // snapshot_minutes)
    if pool.snapshots and mark <= pool.snapshots[-1].id:
        return False
    pool.add(snapshot_net(nets), mark)
    return True
