"""DMC actors on Ray (backend "ray"): Ray Core actors, one per `actors`, each playing
self-play games with its own copy of the networks.

The learner keeps two calls queued per actor: `rollout(version, weights, pool)` plays games
until at least one chunk of `unroll_length` rows is staged and returns the chunks
(observations, action rows, targets: numpy, through the object store) with the frames of
those games and their results against each opponent. The weights are `ray.put` once per
version by the learner and passed by reference; an actor loads them only when the version
changed. So is the opponent pool (with "snapshots" in the mix): put again only when its
snapshots changed, loaded by an actor only when their ids differ from its copy's. The learner
waits on the calls with `ray.wait`, counts the frames of the results it receives, and calls
the actor again with the newest weights and pool.

Faults: the actors are restarted by Ray (`ray_backend.ACTOR_OPTIONS`); a restarted actor
seeds itself from the run's seed, its id and its restart count (`ray_backend.actor_seed`),
and the call it had in flight runs again there, so the learner only waits a little longer.
A lost call's games never reach the learner, so they are not counted.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import ray
import torch

from baohuang_env.rules import Rules

from ..nets.networks import ActionScorer
from ..training.ray_backend import ACTOR_OPTIONS, actor_seed, load_numpy_state, numpy_state, restart_count
from ..training.common import seed_everything
from ..training.pool import OpponentPool
from .actor import Collector
from .config import DMCConfig
from .local_actors import Chunk
from .model import network_names

#: A chunk as it travels: network index, then one numpy array per `actor.CHUNK_FIELDS`.
RawChunk = tuple
#: Calls queued per actor: while the learner receives one result, the actor already plays
#: the next call's games (the round trip, about 2 ms here, would otherwise leave it idle).
CALLS_PER_ACTOR = 2
#: Seconds `close` waits for the calls in flight before ending the actors.
CLOSE_WAIT_S = 10.0


class _ChunkCollector(Collector):
    """A collector whose full chunks go to a list instead of shared buffer slots."""

    def __init__(self, cfg: DMCConfig, rules: Rules, nets: list[ActionScorer], seed: int, start_frames: int,
                 pool: OpponentPool | None) -> None:
        super().__init__(cfg, rules, nets, None, [], None, None, seed, start_frames=start_frames, pool=pool)
        self.out: list[RawChunk] = []

    def _flush(self, net: int) -> bool:
        self.out.append((net, *self.take_chunk(net)))
        return True


@ray.remote(**ACTOR_OPTIONS)
class DMCActor:
    """One actor: its networks, its collector, its seed (run seed, id, restart count)."""

    def __init__(self, cfg: DMCConfig, rules: Rules, actor_id: int, run_seed: int, obs_size: int,
                 action_size: int, start_frames: int) -> None:
        os.environ["OPENBLAS_NUM_THREADS"] = "1"
        torch.set_num_threads(1)
        self.restarts = restart_count()
        seed = actor_seed(run_seed, actor_id, self.restarts)
        seed_everything(seed)
        self.nets = [ActionScorer(obs_size, action_size, cfg.hidden, cfg.head) for _ in network_names(cfg.networks)]
        self.version = -1
        self.pool = OpponentPool(cfg.pool_size) if cfg.uses_pool else None
        self.cfg, self.rules, self.seed, self.start_frames = cfg, rules, seed, start_frames
        self.collector: _ChunkCollector | None = None  # made by the first call, which brings the pool

    def rollout(self, version: int, weights: list[dict[str, np.ndarray]],
                pool: dict[str, Any] | None) -> tuple[list[RawChunk], int, np.ndarray]:
        """Play until at least one chunk is full; (the chunks, the frames of the games played,
        their results per opponent: `Collector.results`). `pool`: the opponent pool's
        `state(as_numpy=True)`, or None without one."""
        if version != self.version:
            for net, state in zip(self.nets, weights, strict=True):
                load_numpy_state(net, state)
            self.version = version
        if pool is not None and pool["ids"] != self.pool.ids:
            self.pool.load(pool, torch.nn.ModuleList(self.nets))
        if self.collector is None:  # its games start now: a snapshot game draws from the pool
            self.collector = _ChunkCollector(self.cfg, self.rules, self.nets, self.seed, self.start_frames, self.pool)
        frames = 0
        while not self.collector.out:
            frames += self.collector.play_game()
        out, self.collector.out = self.collector.out, []
        results, self.collector.results = self.collector.results, np.zeros_like(self.collector.results)
        return out, frames, results

    def info(self) -> dict[str, int]:
        """This actor's process id and restart count (for tests and diagnostics)."""
        return {"pid": os.getpid(), "restarts": self.restarts}


class RayActors:
    """The learner's side: `cfg.actors` Ray actors, one call in flight each (`Actors`)."""

    def __init__(self, cfg: DMCConfig, rules: Rules, nets: list[ActionScorer], frames: int, seed: int,
                 obs_size: int, action_size: int, pool: OpponentPool | None = None) -> None:
        self.nets, self.pool = nets, pool
        self._frames = frames
        self._results = np.zeros((len(cfg.opponent_mix), 2))
        self.version = 0
        self.weights = ray.put([numpy_state(n) for n in nets])
        self.stale = False
        self.pool_ref = None if pool is None else ray.put(pool.state(as_numpy=True))
        self.actors = [DMCActor.remote(cfg, rules, i, seed, obs_size, action_size, frames) for i in range(cfg.actors)]
        self.calls = {a.rollout.remote(self.version, self.weights, self.pool_ref): a
                      for _ in range(CALLS_PER_ACTOR) for a in self.actors}

    def receive(self) -> list[tuple[int, Chunk]]:
        ready, _ = ray.wait(list(self.calls), num_returns=1, timeout=0.5)
        out = []
        for ref in ready:
            actor = self.calls.pop(ref)
            chunks, frames, results = ray.get(ref)
            self._frames += frames
            self._results += results
            out.extend((net, tuple(torch.from_numpy(np.array(part)) for part in parts)) for net, *parts in chunks)
            if self.stale:  # one put per version, shared by every actor's next call
                self.version += 1
                self.weights = ray.put([numpy_state(n) for n in self.nets])
                self.stale = False
            self.calls[actor.rollout.remote(self.version, self.weights, self.pool_ref)] = actor
        return out

    def frames(self) -> int:
        return self._frames

    def publish(self) -> None:
        self.stale = True

    def publish_pool(self) -> None:
        """One put of the new pool, shared by every actor's next call."""
        self.pool_ref = ray.put(self.pool.state(as_numpy=True))

    def results(self) -> np.ndarray:
        return self._results.copy()

    def close(self) -> None:
        """Let the calls in flight end (a game or so), then end the actors."""
        ray.wait(list(self.calls), num_returns=len(self.calls), timeout=CLOSE_WAIT_S)
        for actor in self.actors:
            ray.kill(actor, no_restart=True)
