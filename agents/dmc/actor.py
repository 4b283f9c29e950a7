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
from typing import NamedTuple

import numpy as np
import torch

from baohuang_env.agent import make_agent
from baohuang_env.rewards import reward
from baohuang_env.rules import Rules

from ..guard_belief import NO_LABEL, guard_label
from ..nets.networks import ActionScorer
from ..training.opponents import SELF, OpponentMix
from ..training.pool import OpponentPool, SharedPool
from ..training.common import seed_everything
from ..training.training_games import Table, TrainingGames, Turn
from .agent import DMCAgent
from .config import DMCConfig
from .model import network_names
from .targets import lambda_returns


#: What one learner decision leaves for the regression, in chunk order: observation, the
#: row of the action taken (`DMCAgent.action_rows`), target (`target_lambda`), guard head's
#: label (`guard_belief.guard_label`), for kickstarting whether the teacher was asked ("taught"),
#: the row of its move ("demo") and of another legal move ("other"), and the seat's
#: Monte-Carlo return (for the logs: what the targets' variance is compared with).
CHUNK_FIELDS = ("obs", "action", "target", "guard", "taught", "demo", "other", "return")


class Decision(NamedTuple):
    """One learner decision as its game's records keep it (`Table.records`) until the game
    ends: the index of the network that scored it, its observation, the row of the move taken,
    the guard head's label, kickstarting's part (taught, demo row, other row: `CHUNK_FIELDS`),
    and `value`, the network's Q of the move taken as computed when acting (what the
    λ-returns of the seat's earlier decisions bootstrap from; NaN for a teacher's move when
    `target_lambda` is 1, where it is never read)."""

    net: int
    obs: np.ndarray
    row: np.ndarray
    guard: int
    taught: bool
    demo: np.ndarray
    other: np.ndarray
    value: float


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
        "return": torch.zeros(slots, T).share_memory_(),
    }


class Collector:
    """Plays training games (`opponent_mix`), `games_per_actor` of them at once on the batched
    engine (`agents.training.training_games`), and turns them into filled buffer slots (the local
    backend's transport; `agents.dmc.ray_actors` overrides `_flush` to return the rows instead).
    Each turn the learner's decisions of all the games are scored in one network call per
    network (`DMCAgent.choose_many`), and each pool snapshot's in one call of its own
    (greedy in its Q: `pool`, the learner's `OpponentPool` inline, a `SharedPool` in actor
    processes, None without "snapshots" in the mix), as are a DMC checkpoint's of the mix
    (`dmc:PATH` or `pretrained:NAME`: one frozen agent for every game, `_frozen_network`).
    `frames`: a shared counter the games' steps are added to, or None. `results` (modes of
    `opponent_mix`, 2): where the games against each opponent are counted (games, learner wins
    with draws ½), shared memory for actor processes; a new array by default. Kickstarting
    (`DMCConfig.teacher`): the learner's seats of a game play the teacher's moves when the game
    starts while this collector's share of the run's frames is under its share of
    `teacher_frames`."""

    def __init__(self, cfg: DMCConfig, rules: Rules, nets: list[ActionScorer], buffers: dict[str, torch.Tensor],
                 free_queues: list, full_queue, frames, seed: int, blocking: bool = True,
                 should_stop=lambda: False, start_frames: int | None = None,
                 pool: OpponentPool | SharedPool | None = None, results: np.ndarray | None = None) -> None:
        self.cfg = cfg
        self.blocking = blocking
        self.should_stop = should_stop
        self.rules = rules
        self.agent = DMCAgent(self.rules, nets, epsilon=cfg.epsilon, seed=seed, advice=cfg.advice)
        self.buffers, self.free_queues, self.full_queue, self.frames = buffers, free_queues, full_queue, frames
        self.rng = np.random.default_rng(seed)
        self.staging: list[list[tuple]] = [[] for _ in nets]  # rows in CHUNK_FIELDS order
        self.teacher = make_agent(cfg.teacher, rules, seed=seed) if cfg.teacher else None  # kickstarting
        # frames this collector has played, counting its share of a resumed run's frames
        # (`start_frames`: the run's frames when it (re)started; the shared counter's by default)
        if start_frames is None:
            start_frames = frames.value if frames is not None else 0
        self.played = start_frames // max(cfg.actors, 1)
        self._no_row = np.zeros(self.agent.row_size, dtype=np.float32)  # demo and other of an untaught row
        mix = OpponentMix(cfg.opponent_mix)
        self.pool, self._snapshot_agents = pool, {}  # snapshot id -> its greedy agent
        self._frozen: dict[str, DMCAgent | None] = {}  # spec of the mix -> its frozen network, if one
        self.games = TrainingGames(rules, cfg.games_per_actor, mix, self.rng,
                                   snapshot=None if pool is None else self._snapshot_agent,
                                   shared=self._frozen_network)
        self.results = np.zeros((len(mix.modes), 2)) if results is None else results
        self._mode = {mode: i for i, mode in enumerate(mix.modes)}  # index in `results`
        # per row: its game plays the teacher's moves
        self.taught = np.full(cfg.games_per_actor, self._teaching())

    @property
    def bots(self) -> dict:
        """The opponents' agents built so far, per (row, spec)."""
        return self.games.bots

    def _teaching(self) -> bool:
        """Whether a game starting now plays the teacher's moves: while the run's frames (this
        collector's times the actors) are under `teacher_frames`."""
        return self.teacher is not None and self.played * max(self.cfg.actors, 1) < self.cfg.teacher_frames

    def _snapshot_agent(self, rng: np.random.Generator) -> DMCAgent:
        """The opponent of a new snapshot game: a snapshot drawn from the pool, as a greedy
        agent reading the learner's action rows (`advice`). One agent per snapshot, kept for
        the `pool_size` newest drawn (ids grow with time: the oldest has left the pool)."""
        snap = self.pool.draw(rng)
        agent = self._snapshot_agents.get(snap.id)
        if agent is None:
            agent = self._snapshot_agents[snap.id] = DMCAgent(self.rules, list(snap.net), advice=self.cfg.advice)
            if len(self._snapshot_agents) > self.cfg.pool_size:
                del self._snapshot_agents[min(self._snapshot_agents)]
        return agent

    def _frozen_network(self, spec: str) -> DMCAgent | None:
        """The one agent that plays a DMC checkpoint of the mix (`dmc:PATH`, `pretrained:NAME`)
        at every game and seat, greedy, its decisions of a turn in one call like a snapshot's
        (one network in memory, not one per game and seat); None for a bot, which
        `TrainingGames` plays per seat."""
        if spec not in self._frozen:
            agent = make_agent(spec, self.rules, seed=0)
            self._frozen[spec] = agent if isinstance(agent, DMCAgent) and not agent.epsilon else None
        return self._frozen[spec]

    def play_game(self) -> int:
        """Step the games until at least one has ended (each `step` moves every game once).
        Returns the frames (engine steps) played."""
        frames = 0
        while True:
            ended, steps = self.step()
            frames += steps
            if ended:
                return frames

    def step(self) -> tuple[int, int]:
        """One move in every game: the learner's decisions go to their game's records, an
        ended game's records to staging, full slots to the learner (when `_flush` finds a
        free one). Returns (games ended, frames played)."""
        turn = self.games.turn()
        if turn.learner.size:
            self._learner_moves(turn)
        for snapshot, rows in turn.snapshots:
            self._snapshot_moves(turn, snapshot, rows)
        ended = self.games.advance(turn)
        steps = self.games.num_games
        for row, table, result in ended:
            self._stage(table, result.scores)
            self._count(table, result.scores)
            self.taught[row] = self._teaching()
        self.played += steps
        if self.frames is not None:
            with self.frames.get_lock():
                self.frames.value += steps
        for net in range(len(self.staging)):
            while len(self.staging[net]) >= self.cfg.unroll_length and self._flush(net):
                pass
        return len(ended), steps

    def _learner_moves(self, turn: Turn) -> None:
        """The moves of the learner's decisions of this turn (`turn.learner`), recorded with
        the row the network reads for them, the teacher's part (taught, demo row, other row)
        and the Q of the move (`Decision`): in a taught game the move is the teacher's
        (ε-greedy), and the rows of its move and of another legal move (uniform) go along for
        the margin loss (with `target_lambda` < 1, the Q of the teacher's moves is one more
        network call over their rows); in the others it is the learner's, all scored in one
        call, which gives their Q too."""
        games, tables, agent = self.games, self.games.tables, self.agent
        rows = turn.learner
        obs = self.games.observe(rows)
        legal, counts = turn.legal_ids(rows)
        masks = turn.masks[rows]
        starts = (np.cumsum(counts) - counts).tolist()
        taught = self.taught[rows]
        choice = np.zeros(rows.size, dtype=np.int64)
        taken = np.empty((rows.size, agent.row_size), dtype=np.float32)  # the row of each decision's move
        values = np.full(rows.size, np.nan, dtype=np.float32)  # the Q of each decision's move
        own = ~taught
        if own.any():  # only the rows of the moves made are built
            choice[own], taken[own], values[own] = agent.choose_many(
                obs[own], masks[own], legal[np.repeat(own, counts)], counts[own], "taken")
        if taught.any():  # the rows of every legal move: the demo and the other are among them
            action_rows = np.empty((len(legal), agent.row_size), dtype=np.float32)
            sel = np.repeat(taught, counts)
            action_rows[sel] = agent.action_rows_many(obs[taught], masks[taught], legal[sel], counts[taught])
        nets = agent.networks_of(obs).tolist()
        untaught = (False, self._no_row, self._no_row)
        picks, extras = [], []  # index in `legal` of each decision's move; the teacher's part
        for i, (a, c, t, k) in enumerate(zip(starts, counts.tolist(), taught.tolist(), choice.tolist(), strict=True)):
            if t:
                demo = int(np.searchsorted(legal[a:a + c], self.teacher.act(obs[i], masks[i])))
                k = int(self.rng.integers(c)) if self.rng.random() < self.cfg.epsilon else demo
                other = int(self.rng.integers(c - 1))
                other += other >= demo  # uniform over the legal moves but the teacher's
                taken[i] = action_rows[a + k]
                extras.append((True, action_rows[a + demo], action_rows[a + other]))
            else:
                extras.append(untaught)
            picks.append(a + k)
        if taught.any() and self.cfg.target_lambda < 1:  # the teacher's moves' Q, for the λ-returns
            values[taught] = agent.row_values(obs[taught], taken[taught])
        for i, (b, seat) in enumerate(zip(rows.tolist(), turn.seats[rows].tolist(), strict=True)):
            tables[b].records[seat].append(Decision(nets[i], obs[i], taken[i], guard_label(games.roles(b), seat),
                                                    *extras[i], float(values[i])))
        turn.actions[rows] = legal[picks]

    def _return(self, score: float) -> float:
        """A seat's Monte-Carlo return for its deal score (`reward_mode`, `reward_scale`)."""
        return float(reward(score, self.cfg.reward_mode, self.cfg.reward_scale))

    def _snapshot_moves(self, turn: Turn, snapshot: DMCAgent, rows: np.ndarray) -> None:
        """A pool snapshot's or a frozen network's decisions of this turn (`rows`), its argmax
        in Q, all scored in one call; nothing is recorded (only the learner's decisions are
        trained on)."""
        legal, counts = turn.legal_ids(rows)
        turn.actions[rows] = snapshot.act_many(self.games.observe(rows), turn.masks[rows], legal, counts)

    def _count(self, table: Table, scores) -> None:
        """An ended game against an opponent that sat at the table (not self-play, not a deal
        ended in the role phase) into `results`: a game, and the learner side's result
        (1 a win, ½ a draw, 0 a loss)."""
        if table.mode == SELF or table.sides_pending:
            return
        self.results[self._mode[table.mode]] += (1.0, np.sign(scores[table.learner_seats[0]]) * 0.5 + 0.5)

    def _stage(self, table: Table, scores) -> None:
        """An ended game's learner decisions to staging, each with its target and its seat's
        Monte-Carlo return: the target is the return (`target_lambda` 1), or the λ-return over
        the seat's decisions in the game (`targets.lambda_returns`)."""
        for seat, records in enumerate(table.records):
            if not records:
                continue
            ret = self._return(scores[seat])
            targets = lambda_returns([d.value for d in records], ret, self.cfg.target_lambda)
            for d, target in zip(records, targets, strict=True):
                self.staging[d.net].append((d.obs, d.row, target, d.guard, d.taught, d.demo, d.other, ret))

    def take_chunk(self, net: int) -> tuple[np.ndarray, ...]:
        """The oldest `unroll_length` staged rows of network `net`, one array per `CHUNK_FIELDS`."""
        T = self.cfg.unroll_length
        chunk, self.staging[net] = self.staging[net][:T], self.staging[net][T:]
        obs, action, target, guard, taught, demo, other, ret = zip(*chunk, strict=True)
        rows = [np.array(part, dtype=np.float32) for part in (obs, action, demo, other)]  # 2-3x np.stack's speed
        return (rows[0], rows[1], np.array(target, dtype=np.float32), np.array(guard, dtype=np.int64),
                np.array(taught, dtype=bool), rows[2], rows[3], np.array(ret, dtype=np.float32))

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
                  frames, stop, seed: int, pool: SharedPool | None, results: torch.Tensor) -> None:
    """Entry point of an actor process: play until `stop` is set. It ignores Ctrl-C (started
    under `baohuang_eval.pool.children_ignore_ctrl_c`): the learner sets `stop` once it stops.
    `pool`: the opponent pool (or None); `results`: this actor's row of the shared results."""
    os.environ["OPENBLAS_NUM_THREADS"] = "1"
    from threadpoolctl import threadpool_limits

    threadpool_limits(1)
    torch.set_num_threads(1)
    seed_everything(seed)
    learner = os.getppid()

    def should_stop() -> bool:
        return stop.is_set() or os.getppid() != learner  # reparented: the learner is gone

    collector = Collector(cfg, rules, nets, buffers, free_queues, full_queue, frames, seed, should_stop=should_stop,
                          pool=pool, results=results.numpy())
    while not should_stop():
        collector.play_game()
