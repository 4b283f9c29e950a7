"""DMC actors on Ray (backend "ray"): Ray Core actors, one per `actors`, each playing
self-play games with its own copy of the networks.

The learner keeps two calls queued per actor: `rollout(version, weights)` plays games until
at least one chunk of `unroll_length` rows is staged and returns the chunks (observations,
action rows, targets: numpy, through the object store) with the frames of those games. The
weights are `ray.put` once per version by the learner and passed by reference; an actor loads
them only when the version changed. The learner waits on the calls with `ray.wait`, counts the
frames of the results it receives, and calls the actor again with the newest weights.

Faults: the actors are restarted by Ray (`ray_backend.ACTOR_OPTIONS`); a restarted actor
seeds itself from the run's seed, its id and its restart count (`ray_backend.actor_seed`),
and the call it had in flight runs again there, so the learner only waits a little longer.
A lost call's games never reach the learner, so they are not counted.
"""

from __future__ import annotations

import os

import numpy as np
import ray
import torch

from baohuang_env.rules import Rules

from ..nets.networks import ActionScorer
from ..training.ray_backend import ACTOR_OPTIONS, actor_seed, load_numpy_state, numpy_state, restart_count
from ..training.common import seed_everything
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

    def __init__(self, cfg: DMCConfig, rules: Rules, nets: list[ActionScorer], seed: int, start_frames: int) -> None:
        super().__init__(cfg, rules, nets, None, [], None, None, seed, start_frames=start_frames)
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
        self.collector = _ChunkCollector(cfg, rules, self.nets, seed, start_frames)

    def rollout(self, version: int, weights: list[dict[str, np.ndarray]]) -> tuple[list[RawChunk], int]:
        """Play until at least one chunk is full; (the chunks, the frames of the games played)."""
        if version != self.version:
            for net, state in zip(self.nets, weights, strict=True):
                load_numpy_state(net, state)
            self.version = version
        frames = 0
        while not self.collector.out:
            frames += self.collector.play_game()
        out, self.collector.out = self.collector.out, []
        return out, frames

    def info(self) -> dict[str, int]:
        """This actor's process id and restart count (for tests and diagnostics)."""
        return {"pid": os.getpid(), "restarts": self.restarts}


class RayActors:
    """The learner's side: `cfg.actors` Ray actors, one call in flight each (`Actors`)."""

    def __init__(self, cfg: DMCConfig, rules: Rules, nets: list[ActionScorer], frames: int, seed: int,
                 obs_size: int, action_size: int) -> None:
        self.nets = nets
        self._frames = frames
        self.version = 0
        self.weights = ray.put([numpy_state(n) for n in nets])
        self.stale = False
        self.actors = [DMCActor.remote(cfg, rules, i, seed, obs_size, action_size, frames) for i in range(cfg.actors)]
        self.calls = {a.rollout.remote(self.version, self.weights): a
                      for _ in range(CALLS_PER_ACTOR) for a in self.actors}

    def receive(self) -> list[tuple[int, Chunk]]:
        ready, _ = ray.wait(list(self.calls), num_returns=1, timeout=0.5)
        out = []
        for ref in ready:
            actor = self.calls.pop(ref)
            chunks, frames = ray.get(ref)
            self._frames += frames
            out.extend((net, tuple(torch.from_numpy(np.array(part)) for part in parts)) for net, *parts in chunks)
            if self.stale:  # one put per version, shared by every actor's next call
                self.version += 1
                self.weights = ray.put([numpy_state(n) for n in self.nets])
                self.stale = False
            self.calls[actor.rollout.remote(self.version, self.weights)] = actor
        return out

    def frames(self) -> int:
        return self._frames

    def publish(self) -> None:
        self.stale = True

    def close(self) -> None:
        """Let the calls in flight end (a game or so), then end the actors."""
        ray.wait(list(self.calls), num_returns=len(self.calls), timeout=CLOSE_WAIT_S)
        for actor in self.actors:
            ray.kill(actor, no_restart=True)
