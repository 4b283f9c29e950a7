"""The opponent pool: past snapshots of the learner that training games play against (the
`opponent_mix` entry `opponents.SNAPSHOTS`), one owner for both trainers.

`OpponentPool` is the learner's pool, `size` snapshots at most (the oldest leaves first),
saved in checkpoints (`state`, `load`) and drawn from uniformly (`draw`: what
`training_games.TrainingGames` calls for a snapshot game). A Ray backend ships it to its
actors as numpy arrays (`state(as_numpy=True)`), put again only when its ids changed.

A snapshot's `net` is any `torch.nn.Module` (PPO: its actor-critic); its `id` is the
trainer's label of when it was taken, distinct within a pool.
"""

from __future__ import annotations

import copy
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from .ray_backend import numpy_state


@dataclass
class Snapshot:
    """A frozen copy of the learner in the opponent pool."""

    id: int  # when it was taken, in the trainer's count (PPO: the update)
    net: torch.nn.Module


class OpponentPool:
    """Past policies of the learner, oldest first; the oldest leaves when the pool is full."""

    def __init__(self, size: int, snapshots: Iterable[Snapshot] = ()) -> None:
        self.size = size
        self.snapshots: deque[Snapshot] = deque(snapshots, maxlen=size)

    def add(self, net: torch.nn.Module, id: int) -> Snapshot:
        """A frozen copy of `net` joins the pool as snapshot `id` (the oldest leaves a full pool)."""
        snap = Snapshot(id, _clone(net))
        self.snapshots.append(snap)
        return snap

    def draw(self, rng: np.random.Generator) -> Snapshot:
        """A snapshot drawn uniformly with `rng` (the opponent of a new snapshot game)."""
        return self.snapshots[int(rng.integers(len(self.snapshots)))]

    @property
    def ids(self) -> list[int]:
        return [s.id for s in self.snapshots]

    def state(self, as_numpy: bool = False) -> dict[str, Any]:
        """The snapshots' ids and weights, oldest first: torch tensors (for checkpoints), or
        numpy arrays with `as_numpy` (what a Ray backend puts in the object store: read
        without a copy on the same node). `load` reads either."""
        weights = numpy_state if as_numpy else (lambda net: net.state_dict())
        return {"ids": self.ids, "models": [weights(s.net) for s in self.snapshots]}

    def load(self, state: dict[str, Any], template: torch.nn.Module) -> None:
        """Replace the snapshots by those of `state` (`state()`'s), each a copy of `template`
        with the saved weights."""
        self.snapshots.clear()
        for sid, weights in zip(state["ids"], state["models"], strict=True):
            net = _clone(template)
            net.load_state_dict({k: torch.as_tensor(np.array(v)) if isinstance(v, np.ndarray) else v
                                 for k, v in weights.items()})  # object-store arrays are read-only: copied
            self.snapshots.append(Snapshot(int(sid), net))

    def __len__(self) -> int:
        return len(self.snapshots)


def _clone(net: torch.nn.Module) -> torch.nn.Module:
    """A frozen copy of `net` (its own memory, no gradients, eval mode)."""
    twin = copy.deepcopy(net)
    twin.requires_grad_(False)
    twin.eval()
    return twin


__all__ = ["OpponentPool", "Snapshot"]
