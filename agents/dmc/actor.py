"""Actors: self-play games with ε-greedy DMC agents, writing rows into shared buffers.

Buffers (DouZero's layout): preallocated shared-memory tensors of `slots` x `unroll_length`
rows, the slots partitioned by network (one per role, or the one shared network). An actor
takes a free slot index of a network from that network's free queue, fills it with rows that
network scored, and hands the index to the learner through the full queue; the learner
returns it to the free queue after the update.
"""

from __future__ import annotations

import os
import queue

import numpy as np
import torch

from baohuang_env import Game
from baohuang_env.cards import NUM_SEATS
from baohuang_env.encoding import Encoder
from baohuang_env.rewards import reward
from baohuang_env.rules import Rules
from baohuang_env.seeds import TRAIN_SEED_START

from ..guard_belief import NO_LABEL, guard_label
from ..networks import ActionScorer
from ..training import seed_everything
from .agent import DMCAgent
from .config import DMCConfig
from .model import network_names


def make_buffers(cfg: DMCConfig, obs_size: int, action_size: int) -> dict[str, torch.Tensor]:
    """Shared-memory rows: slot k belongs to network k // cfg.slots_per_role."""
    slots, T = cfg.slots_per_role * len(network_names(cfg.networks)), cfg.unroll_length
    return {
        "obs": torch.zeros(slots, T, obs_size).share_memory_(),
        "action": torch.zeros(slots, T, action_size).share_memory_(),
        "target": torch.zeros(slots, T).share_memory_(),
        "guard": torch.full((slots, T), NO_LABEL, dtype=torch.int64).share_memory_(),  # guard head's labels
    }


class Collector:
    """Plays self-play games and turns them into filled buffer slots."""

    def __init__(self, cfg: DMCConfig, rules: Rules, nets: list[ActionScorer], buffers: dict[str, torch.Tensor],
                 free_queues: list, full_queue, frames, seed: int, blocking: bool = True,
                 should_stop=lambda: False) -> None:
        self.cfg = cfg
        self.blocking = blocking
        self.should_stop = should_stop
        self.rules = rules
        self.encoder = Encoder(self.rules)
        self.agent = DMCAgent(self.rules, nets, epsilon=cfg.epsilon, seed=seed)
        self.features = self.agent.features
        self.buffers, self.free_queues, self.full_queue, self.frames = buffers, free_queues, full_queue, frames
        self.rng = np.random.default_rng(seed)
        self.staging: list[list[tuple[np.ndarray, int, float, int]]] = [[] for _ in nets]

    def play_game(self) -> None:
        """One self-play game; its decisions go to staging, full slots to the learner."""
        game = Game(self.rules, seed=int(self.rng.integers(TRAIN_SEED_START, 2**63 - 1)))
        enc, agent = self.encoder, self.agent
        rows: list[list[tuple[int, np.ndarray, int, int]]] = [[] for _ in range(NUM_SEATS)]  # (net, obs, action, guard)
        steps = 0
        while not game.is_over:
            seat = game.current_player
            mask = game.legal_mask()
            legal = mask.view(bool).nonzero()[0]
            if legal.size == 1:  # forced: nothing to learn, no network call
                game.step(int(legal[0]))
            else:
                obs = enc.encode(game, seat)
                action = agent.act(obs, mask)
                rows[seat].append((agent.network_of(obs), obs, action, guard_label(game, seat)))
                game.step(action)
            steps += 1
        scores = game.result.scores
        for seat in range(NUM_SEATS):
            ret = float(reward(scores[seat], self.cfg.reward_mode, self.cfg.reward_scale))
            for net, obs, action, guard in rows[seat]:
                self.staging[net].append((obs, action, ret, guard))
        with self.frames.get_lock():
            self.frames.value += steps
        for net in range(len(self.staging)):
            while len(self.staging[net]) >= self.cfg.unroll_length and self._flush(net):
                pass

    def _flush(self, net: int) -> bool:
        """Move one slot's worth of staged rows into a free slot; False when none is free
        and `blocking` is off (inline mode: the learner must first consume a batch)."""
        T = self.cfg.unroll_length
        while True:
            try:
                slot = self.free_queues[net].get(block=self.blocking, timeout=1.0 if self.blocking else None)
                break
            except queue.Empty:
                if not self.blocking:
                    return False
                if self.should_stop():  # the learner is done, or died (kill -9): no one to wait for
                    raise SystemExit(0) from None
        chunk, self.staging[net] = self.staging[net][:T], self.staging[net][T:]
        self.buffers["obs"][slot] = torch.from_numpy(np.stack([c[0] for c in chunk]))
        self.buffers["action"][slot] = torch.from_numpy(self.features[[c[1] for c in chunk]])
        self.buffers["target"][slot] = torch.tensor([c[2] for c in chunk])
        self.buffers["guard"][slot] = torch.tensor([c[3] for c in chunk])
        self.full_queue.put((net, slot))
        return True


def actor_process(cfg: DMCConfig, rules: Rules, nets: list[ActionScorer], buffers, free_queues, full_queue,
                  frames, stop, seed: int) -> None:
    """Entry point of an actor process: play until `stop` is set."""
    os.environ["OPENBLAS_NUM_THREADS"] = "1"
    from threadpoolctl import threadpool_limits

    threadpool_limits(1)
    torch.set_num_threads(1)
    seed_everything(seed)
    learner = os.getppid()

    def should_stop() -> bool:
        return stop.is_set() or os.getppid() != learner  # reparented: the learner is gone

    collector = Collector(cfg, rules, nets, buffers, free_queues, full_queue, frames, seed, should_stop=should_stop)
    try:
        while not should_stop():
            collector.play_game()
    except KeyboardInterrupt:
        pass
