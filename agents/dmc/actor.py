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
from baohuang_env.agent import NO_OBSERVATION, Agent, make_agent
from baohuang_env.cards import NUM_SEATS
from baohuang_env.encoding import Encoder
from baohuang_env.game import PLAY
from baohuang_env.rewards import reward
from baohuang_env.rules import Rules
from baohuang_env.seeds import TRAIN_SEED_START

from ..guard_belief import NO_LABEL, guard_label
from ..networks import ActionScorer
from ..opponents import SELF, OpponentMix, opponent_seats, seat_bots
from ..training import seed_everything
from .agent import DMCAgent
from .config import DMCConfig
from .model import network_names


#: What one learner decision leaves for the regression, in chunk order: observation, the
#: row of the action taken (`DMCAgent.action_rows`), Monte-Carlo target, guard head's label
#: (`guard_belief.guard_label`), and for kickstarting whether the teacher was asked
#: ("taught"), the row of its move ("demo") and of another legal move ("other").
CHUNK_FIELDS = ("obs", "action", "target", "guard", "taught", "demo", "other")


def make_buffers(cfg: DMCConfig, obs_size: int, action_size: int) -> dict[str, torch.Tensor]:
    """Shared-memory rows of each `CHUNK_FIELDS`: slot k belongs to network k // cfg.slots_per_role."""
    slots, T = cfg.slots_per_role * len(network_names(cfg.networks)), cfg.unroll_length
    return {
        "obs": torch.zeros(slots, T, obs_size).share_memory_(),
        "action": torch.zeros(slots, T, action_size).share_memory_(),
        "target": torch.zeros(slots, T).share_memory_(),
        "guard": torch.full((slots, T), NO_LABEL, dtype=torch.int64).share_memory_(),  # guard head's labels
        "taught": torch.zeros(slots, T, dtype=torch.bool).share_memory_(),
        "demo": torch.zeros(slots, T, action_size).share_memory_(),
        "other": torch.zeros(slots, T, action_size).share_memory_(),
    }


class Collector:
    """Plays training games (`opponent_mix`) and turns them into filled buffer slots (the local backend's
    transport; `agents.dmc.ray_actors` overrides `_flush` to return the rows instead).
    `frames`: a shared counter the games' steps are added to, or None.
    Kickstarting (`DMCConfig.teacher`): the learner's seats play the teacher's moves while
    this collector's share of the run's frames is under its share of `teacher_frames`."""

    def __init__(self, cfg: DMCConfig, rules: Rules, nets: list[ActionScorer], buffers: dict[str, torch.Tensor],
                 free_queues: list, full_queue, frames, seed: int, blocking: bool = True,
                 should_stop=lambda: False, start_frames: int | None = None) -> None:
        self.cfg = cfg
        self.blocking = blocking
        self.should_stop = should_stop
        self.rules = rules
        self.encoder = Encoder(self.rules)
        self.agent = DMCAgent(self.rules, nets, epsilon=cfg.epsilon, seed=seed, advice=cfg.advice)
        self.buffers, self.free_queues, self.full_queue, self.frames = buffers, free_queues, full_queue, frames
        self.rng = np.random.default_rng(seed)
        self.mix = OpponentMix(cfg.opponent_mix)
        self.bots: dict[str, list[Agent]] = {}  # spec -> one agent per seat, reset per game
        self.staging: list[list[tuple]] = [[] for _ in nets]  # rows in CHUNK_FIELDS order
        # kickstarting: this actor's share of the teacher's frames
        self.teacher = make_agent(cfg.teacher, rules, seed=seed) if cfg.teacher else None
        self.teacher_frames = cfg.teacher_frames // max(cfg.actors, 1)
        # frames this collector has played, counting its share of a resumed run's frames
        # (`start_frames`: the run's frames when it (re)started; the shared counter's by default)
        if start_frames is None:
            start_frames = frames.value if frames is not None else 0
        self.played = start_frames // max(cfg.actors, 1)
        self._no_row = np.zeros(self.agent.row_size, dtype=np.float32)  # demo and other of an untaught row

    def _opponent(self) -> list[Agent] | None:
        """This game's opponent from the mix: None for self-play, else one agent per seat."""
        mode = self.mix.draw(self.rng)
        return None if mode == SELF else seat_bots(self.bots, mode, mode, self.rules, self.rng)

    def play_game(self) -> int:
        """One game against this game's opponent (`DMCConfig.opponent_mix`); the learner's
        decisions go to staging, full slots to the learner (when `_flush` finds a free one).
        Returns the game's frames (engine steps)."""
        game = Game(self.rules, seed=int(self.rng.integers(TRAIN_SEED_START, 2**63 - 1)))
        enc, agent = self.encoder, self.agent
        rows: list[list[tuple]] = [[] for _ in range(NUM_SEATS)]  # (net, obs, action row, guard, taught, demo, other)
        opponent = self._opponent()
        controllers: list[Agent | None] = [None] * NUM_SEATS  # None: the learner
        steps = 0
        while not game.is_over:
            if opponent is not None and game.phase == PLAY:  # roles fixed: the opponent takes a side
                for s in opponent_seats(game, self.rng):
                    controllers[s], rows[s] = opponent[s], []
                opponent = None
            seat = game.current_player
            mask = game.legal_mask()
            legal = mask.view(bool).nonzero()[0]
            bot = controllers[seat]
            if legal.size == 1:  # forced: nothing to learn, no network call
                game.step(int(legal[0]))
            elif bot is not None:
                game.step(int(bot.act(enc.encode(game, seat) if bot.uses_observation else NO_OBSERVATION, mask)))
            else:
                obs = enc.encode(game, seat)
                action, row, taught = self._learner_move(obs, mask, legal)
                rows[seat].append((agent.network_of(obs), obs, row, guard_label(game, seat), *taught))
                game.step(action)
            steps += 1
        scores = game.result.scores
        for seat in range(NUM_SEATS):
            ret = float(reward(scores[seat], self.cfg.reward_mode, self.cfg.reward_scale))
            for net, obs, row, guard, *taught in rows[seat]:
                self.staging[net].append((obs, row, ret, guard, *taught))
        self.played += steps
        if self.frames is not None:
            with self.frames.get_lock():
                self.frames.value += steps
        for net in range(len(self.staging)):
            while len(self.staging[net]) >= self.cfg.unroll_length and self._flush(net):
                pass
        return steps

    def _learner_move(self, obs: np.ndarray, mask: np.ndarray,
                      legal: np.ndarray) -> tuple[int, np.ndarray, tuple[bool, np.ndarray, np.ndarray]]:
        """The move at a learner's seat, the row the network reads for it, and the teacher's
        part (taught, demo row, other row): while this collector's teacher frames last the
        move is the teacher's (ε-greedy), and the rows of its move and of another legal
        move (uniform) go along for the margin loss; after them the move is the learner's."""
        if self.teacher is None or self.played >= self.teacher_frames:
            action, row = self.agent.act_with_row(obs, mask, legal)
            return action, row, (False, self._no_row, self._no_row)
        rows = self.agent.action_rows(obs, mask, legal)
        demo = int(np.searchsorted(legal, self.teacher.act(obs, mask)))
        i = int(self.rng.integers(legal.size)) if self.rng.random() < self.cfg.epsilon else demo
        other = int(self.rng.integers(legal.size - 1))
        other += other >= demo  # uniform over the legal moves but the teacher's
        return int(legal[i]), rows[i], (True, rows[demo], rows[other])

    def take_chunk(self, net: int) -> tuple[np.ndarray, ...]:
        """The oldest `unroll_length` staged rows of network `net`, one array per `CHUNK_FIELDS`."""
        T = self.cfg.unroll_length
        chunk, self.staging[net] = self.staging[net][:T], self.staging[net][T:]
        obs, action, target, guard, taught, demo, other = zip(*chunk, strict=True)
        return (np.stack(obs), np.stack(action), np.array(target, dtype=np.float32), np.array(guard, dtype=np.int64),
                np.array(taught, dtype=bool), np.stack(demo), np.stack(other))

    def _flush(self, net: int) -> bool:
        """Move one slot's worth of staged rows into a free slot; False when none is free
        and `blocking` is off (inline mode: the learner must first consume a batch)."""
        while True:
            try:
                slot = self.free_queues[net].get(block=self.blocking, timeout=1.0 if self.blocking else None)
                break
            except queue.Empty:
                if not self.blocking:
                    return False
                if self.should_stop():  # the learner is done, or died (kill -9): no one to wait for
                    raise SystemExit(0) from None
        for name, part in zip(CHUNK_FIELDS, self.take_chunk(net), strict=True):
            self.buffers[name][slot] = torch.from_numpy(part)
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
