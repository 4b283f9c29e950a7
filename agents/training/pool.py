"""The opponent pool: past snapshots of the learner that training games play against (the
`opponent_mix` entry `opponents.SNAPSHOTS`), one owner for both trainers.

* `OpponentPool`: the learner's pool, `size` snapshots at most (the oldest leaves first),
  saved in checkpoints (`state`, `load`) and drawn from uniformly (`draw`: what
  `training_games.TrainingGames` calls for a snapshot game). A Ray backend ships it to its
  actors as numpy arrays (`state(as_numpy=True)`), put again only when its ids changed.
* `SharedPool`: the pool in shared memory for actor processes (DMC's local backend), written
  by the learner (`publish`) and read by the actors (`draw`), never half-written (below).

A snapshot's `net` is any `torch.nn.Module` (PPO: its actor-critic; DMC: a `ModuleList` of
its networks); its `id` is the trainer's label of when it was taken, distinct within a pool.
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

    id: int  # when it was taken, in the trainer's count (PPO: the update; DMC: the snapshot_minutes mark)
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


class SharedPool:
    """An `OpponentPool` for actor processes, through shared memory: `size` preallocated
    copies of the network (slots), which snapshot each slot holds (`ids`, -1: none) and a
    version, made by the learner before the actors start and handed to them when they do.

    The learner's `publish` writes the snapshots new to the pool into slots whose snapshots
    left it and bumps the version; an actor's `draw`, when the version changed, copies the
    snapshots new to it into networks of its own. Both happen under one lock (the version's),
    so a slot is never read while it is written; the actors play only their own copies, so a
    game in progress keeps its snapshot when that leaves the pool. Each actor copies a
    snapshot once: one network copy per snapshot added, a few milliseconds every
    `snapshot_minutes`."""

    def __init__(self, template: torch.nn.Module, size: int, ctx: Any) -> None:
        """`template`: a network of the snapshots' shape; `ctx`: the actors' multiprocessing context."""
        self.slots = [_clone(template).share_memory() for _ in range(size)]
        self.ids = torch.full((size,), -1, dtype=torch.int64).share_memory_()
        self.version = ctx.Value("q", 0)
        self._mine = OpponentPool(size)  # this process's copies (an actor's)
        self._seen = -1  # the version they are of

    def publish(self, pool: OpponentPool) -> None:
        """The learner's side: make the slots hold `pool`'s snapshots, then a new version."""
        with self.version.get_lock():
            held = self.ids.tolist()
            free = [slot for slot, sid in enumerate(held) if sid not in pool.ids]
            for snap in pool.snapshots:
                if snap.id not in held:
                    slot = free.pop(0)
                    self.slots[slot].load_state_dict(snap.net.state_dict())
                    self.ids[slot] = snap.id
            for slot in free:
                self.ids[slot] = -1
            self.version.value += 1

    def draw(self, rng: np.random.Generator) -> Snapshot:
        """An actor's side: a snapshot drawn uniformly from the pool as last published."""
        if self.version.value != self._seen:
            self._sync()
        return self._mine.draw(rng)

    def _sync(self) -> None:
        """This process's copies of the published snapshots, oldest (lowest id) first: the
        ones it has kept, the new ones copied from their slots."""
        with self.version.get_lock():
            self._seen = self.version.value
            kept = {s.id: s for s in self._mine.snapshots}
            held = sorted((sid, slot) for slot, sid in enumerate(self.ids.tolist()) if sid >= 0)
            self._mine = OpponentPool(len(self.slots), [kept.get(sid) or Snapshot(sid, _clone(self.slots[slot]))
                                                        for sid, slot in held])


def _clone(net: torch.nn.Module) -> torch.nn.Module:
    """A frozen copy of `net` (its own memory, no gradients, eval mode)."""
    twin = copy.deepcopy(net)
    twin.requires_grad_(False)
    twin.eval()
    return twin


__all__ = ["OpponentPool", "SharedPool", "Snapshot"]
