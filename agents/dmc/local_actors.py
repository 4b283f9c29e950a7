"""The DMC learner's two transports, behind one interface (`Actors`), so that the learner loop,
checkpoints, TensorBoard and resume are one code for both backends:

* `LocalActors` (backend "local"): actor processes of this machine (or one actor inline in
  the learner with actors=0) that read the networks from shared memory and fill shared
  buffer slots (`agents.dmc.actor`);
* `agents.dmc.ray_actors.RayActors` (backend "ray"): Ray actors that get the weights through
  the object store and send their rows back as object refs.

Either way the learner receives chunks of `unroll_length` rows of one network and counts the
frames of the games it received, and the actors count their games against each opponent
(`results`). With "snapshots" in the mix the learner's opponent pool reaches the actors too
(`publish_pool`): through shared memory (`agents.training.pool.SharedPool`) to actor
processes, the learner's pool itself inline, the object store to Ray actors.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import queue
from typing import Protocol

import numpy as np
import torch

from baohuang_env.rules import Rules

from ..nets.networks import ActionScorer
from ..training.pool import OpponentPool, SharedPool
from .actor import CHUNK_FIELDS, Collector, actor_process, make_buffers
from .config import DMCConfig
from .model import network_names

#: One network's rows, ready for the regression: one tensor per `actor.CHUNK_FIELDS`
#: (observations (T, O), action rows (T, A), Monte-Carlo targets (T,), the guard head's
#: labels (T,), kickstarting's taught flags (T,), demo and other rows (T, A), and the seats'
#: Monte-Carlo returns (T,)).
Chunk = tuple[torch.Tensor, ...]


class Actors(Protocol):
    """What the learner needs from its actors, whatever runs them."""

    def receive(self) -> list[tuple[int, Chunk]]:
        """The chunks (network index, rows) that arrived, waiting up to about half a second."""

    def frames(self) -> int:
        """Frames of the run so far (those of a resumed run included) that the learner received."""

    def publish(self) -> None:
        """The networks changed: the actors play with the new weights from now on."""

    def publish_pool(self) -> None:
        """The opponent pool changed: the actors draw their new snapshot games from it."""

    def results(self) -> np.ndarray:
        """Games against each opponent of `opponent_mix` (in its order) that the actors ended
        since they started: (modes, 2), games and learner wins (draws ½)."""

    def close(self) -> None:
        """Stop the actors."""


class LocalActors:
    """Actor processes (spawned) sharing the networks and buffers with the learner, or with
    actors=0 one collector inline, playing a game per `receive` (deterministic, for tests).
    `pool`: the learner's opponent pool, or None."""

    def __init__(self, cfg: DMCConfig, rules: Rules, nets: list[ActionScorer], frames: int, seed: int,
                 obs_size: int, action_size: int, pool: OpponentPool | None = None) -> None:
        ctx = mp.get_context("spawn")
        names = network_names(cfg.networks)
        self.buffers = make_buffers(cfg, obs_size, action_size)
        self.inline = cfg.actors == 0
        self.pool, self.shared_pool = pool, None
        if pool is not None and not self.inline:
            self.shared_pool = SharedPool(torch.nn.ModuleList(nets), cfg.pool_size, ctx)
            self.shared_pool.publish(pool)
        # per actor, per opponent: games, learner wins (`Collector.results`)
        self._results = torch.zeros(max(cfg.actors, 1), len(cfg.opponent_mix), 2, dtype=torch.float64).share_memory_()
        q_factory = queue.Queue if self.inline else ctx.Queue
        self.free_queues = [q_factory() for _ in names]
        self.full_queue = q_factory()
        for net in range(len(names)):
            for k in range(cfg.slots_per_role):
                self.free_queues[net].put(net * cfg.slots_per_role + k)
        self._frames = ctx.Value("q", frames)
        self.stop = ctx.Event()
        self.procs: list = []
        self.collector = None
        if self.inline:
            self.collector = Collector(cfg, rules, nets, self.buffers, self.free_queues, self.full_queue,
                                       self._frames, seed, blocking=False, pool=pool, results=self._results[0].numpy())
            return
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
        for i in range(cfg.actors):
            p = ctx.Process(target=actor_process, daemon=True, args=(
                cfg, rules, nets, self.buffers, self.free_queues, self.full_queue, self._frames, self.stop, seed + i,
                self.shared_pool, self._results[i]))
            p.start()
            self.procs.append(p)

    def receive(self) -> list[tuple[int, Chunk]]:
        items = []
        if self.inline:  # play one game here, then take every slot it filled
            self.collector.play_game()
            while not self.full_queue.empty():
                items.append(self.full_queue.get_nowait())
        else:
            try:
                items.append(self.full_queue.get(timeout=0.5))
            except queue.Empty:
                if not any(p.is_alive() for p in self.procs):
                    raise RuntimeError("all actor processes died; see their errors above") from None
        out = []
        for net, slot in items:
            out.append((net, tuple(self.buffers[k][slot].clone() for k in CHUNK_FIELDS)))
            self.free_queues[net].put(slot)  # copied: the slot can be filled again
        return out

    def frames(self) -> int:
        return self._frames.value

    def publish(self) -> None:
        """Nothing to send: the actors read the networks from shared memory."""

    def publish_pool(self) -> None:
        """Actor processes: the pool into shared memory. Inline: nothing, the collector draws
        from the learner's pool itself."""
        if self.shared_pool is not None:
            self.shared_pool.publish(self.pool)

    def results(self) -> np.ndarray:
        return self._results.sum(dim=0).numpy()

    def close(self) -> None:
        self.stop.set()
        for p in self.procs:
            p.join(timeout=2)
            if p.is_alive():
                p.terminate()
