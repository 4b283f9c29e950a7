"""PPO rollout workers on Ray (backend "ray"): `actors` Ray Core actors, each running its own
`Rollouts` (`num_games` games at once) with a copy of the learner and of the opponent pool.

Each update the learner `ray.put`s the weights once (and the pool, when it changed) and asks
every worker for its share of `rollout_decisions`; the workers' batches come back through
the object store and are joined in worker order. PPO is on-policy, so the update waits for
all of them. Faults: a worker that dies is restarted by Ray and seeded anew from the run's
seed, its id and its restart count (`ray_backend.actor_seed`); the call it had in flight runs
again there, so the update only waits longer, and the lost call's frames are never counted.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from typing import Any

import numpy as np
import ray
import torch

from baohuang_env.rules import Rules

from ..training.ray_backend import ACTOR_OPTIONS, actor_seed, load_numpy_state, numpy_state, restart_count
from ..training.common import seed_everything
from ..training.pool import OpponentPool
from .config import PPOConfig
from .model import ActorCritic
from .rollout import Rollouts
from .workers import Collected, concat_batches

#: Seconds between two looks at the run's stop request while the workers play.
STOP_POLL_S = 0.5


@ray.remote(**ACTOR_OPTIONS)
class PPOWorker:
    """One rollout worker: its network and pool copies and its `Rollouts`."""

    def __init__(self, cfg: PPOConfig, rules: Rules, arch: dict[str, int], worker_id: int, run_seed: int) -> None:
        os.environ["OPENBLAS_NUM_THREADS"] = "1"
        torch.set_num_threads(1)
        self.restarts = restart_count()
        seed = actor_seed(run_seed, worker_id, self.restarts)
        seed_everything(seed)
        self.net = ActorCritic(**arch)
        self.net.requires_grad_(False)
        self.pool = OpponentPool(cfg.pool_size)
        self.version, self.pool_ids = -1, None
        self.arch, self.cfg, self.rules, self.seed = arch, cfg, rules, seed
        self.rollouts: Rollouts | None = None  # made once the pool has arrived

    def collect(self, version: int, weights: dict[str, np.ndarray], pool: dict[str, Any],
                decisions: int) -> Collected:
        """Load the weights and pool when they changed, then collect `decisions` decisions."""
        if version != self.version:
            load_numpy_state(self.net, weights)
            self.version = version
        if pool["ids"] != self.pool_ids:
            self.pool.load(pool, self.net)
            self.pool_ids = pool["ids"]
        if self.rollouts is None:
            self.rollouts = Rollouts(self.cfg, self.rules, self.net, self.pool, seed=self.seed)
        before = self.rollouts.frames
        batch = self.rollouts.collect(decisions)
        finished, self.rollouts.finished = self.rollouts.finished, []
        return Collected(batch, finished, self.rollouts.frames - before)

    def info(self) -> dict[str, int]:
        """This worker's process id and restart count (for tests and diagnostics)."""
        return {"pid": os.getpid(), "restarts": self.restarts}


class RayWorkers:
    """The learner's side of `cfg.actors` Ray rollout workers (`workers.Workers`)."""

    def __init__(self, cfg: PPOConfig, rules: Rules, net: ActorCritic, pool: OpponentPool, seed: int,
                 arch: dict[str, int]) -> None:
        self.net, self.pool, self.version = net, pool, 0
        self._pool_ref: tuple[list[int], Any] = ([], None)
        self.actors = [PPOWorker.remote(cfg, rules, arch, i, seed) for i in range(cfg.actors)]

    def _pool(self) -> Any:
        """The pool in the object store, put again only when its snapshots changed."""
        ids = self.pool.ids
        if ids != self._pool_ref[0] or self._pool_ref[1] is None:
            self._pool_ref = (ids, ray.put(self.pool.state(as_numpy=True)))
        return self._pool_ref[1]

    def collect(self, decisions: int, stop: Callable[[], bool] = lambda: False) -> Collected | None:
        self.version += 1
        weights, pool = ray.put(numpy_state(self.net)), self._pool()
        share = math.ceil(decisions / len(self.actors))
        calls = [a.collect.remote(self.version, weights, pool, share) for a in self.actors]
        while len(ray.wait(calls, num_returns=len(calls), timeout=STOP_POLL_S)[0]) < len(calls):
            if stop():  # the calls in flight end with the workers (`close`)
                return None
        parts: list[Collected] = ray.get(calls)
        return Collected(concat_batches([p.batch for p in parts]), [g for p in parts for g in p.finished],
                         sum(p.frames for p in parts))

    def rng_state(self) -> str | None:
        return None

    def close(self) -> None:
        """End the workers (no call is in flight between updates)."""
        for actor in self.actors:
            ray.kill(actor, no_restart=True)
