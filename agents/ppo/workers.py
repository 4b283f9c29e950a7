"""Where PPO's rollouts are played, behind one interface (`Workers`), so that the learner loop,
checkpoints, TensorBoard and resume are one code for both backends:

* `LocalWorkers` (backend "local"): one `Rollouts` in the learner process;
* `agents.ppo.ray_workers.RayWorkers` (backend "ray"): `actors` Ray rollout workers, each with
  its own `Rollouts`, the weights and the opponent pool sent through the object store.

Each update the learner gets a `Collected`: the batch of learner decisions, the games that
finished, and the frames played for it (the learner counts what it received).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from baohuang_env.rules import Rules

from ..training.pool import OpponentPool
from .config import PPOConfig
from .model import ActorCritic
from .rollout import Batch, Rollouts


@dataclass
class Collected:
    """One update's worth of rollouts."""

    batch: Batch
    finished: list[dict[str, Any]] = field(default_factory=list)  # per finished game (`Rollouts.finished`)
    frames: int = 0  # engine steps played for it


class Workers(Protocol):
    """What the PPO learner needs from whatever plays its games."""

    def collect(self, decisions: int, stop: Callable[[], bool] = lambda: False) -> Collected | None:
        """At least `decisions` learner decisions of finished games, played with the current
        weights; None when `stop()` turned true first (the run is stopping: a Ctrl-C)."""

    def rng_state(self) -> str | None:
        """The rollouts' generator state for the checkpoint (None: the workers seed themselves)."""

    def close(self) -> None:
        """Stop the workers."""


class LocalWorkers:
    """The rollouts in the learner process: they read the learner's network and pool directly."""

    def __init__(self, cfg: PPOConfig, rules: Rules, net: ActorCritic, pool: OpponentPool, seed: int,
                 rng_state: str | None = None) -> None:
        self.rollouts = Rollouts(cfg, rules, net, pool, seed=seed)
        if rng_state is not None:
            self.rollouts.set_rng_state(rng_state)  # games in flight at the checkpoint start anew

    def collect(self, decisions: int, stop: Callable[[], bool] = lambda: False) -> Collected | None:
        before = self.rollouts.frames
        batch = self.rollouts.collect(decisions, stop)
        if batch is None:
            return None
        finished, self.rollouts.finished = self.rollouts.finished, []
        return Collected(batch, finished, self.rollouts.frames - before)

    def rng_state(self) -> str | None:
        return self.rollouts.rng_state()

    def close(self) -> None:
        """Nothing runs apart from the learner."""


def concat_batches(batches: list[Batch]) -> Batch:
    """One batch of the rows of `batches`, in order."""
    names = ("obs", "actions", "counts", "choice", "logp", "value", "adv", "ret", "guard")
    return Batch(**{name: None if any(getattr(b, name) is None for b in batches)
                    else np.concatenate([getattr(b, name) for b in batches]) for name in names})
