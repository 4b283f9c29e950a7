"""Rollouts: many games at once, one batched forward pass per step, an opponent pool.

`Rollouts` keeps `num_games` games running. Each step it asks the engine's batch entry point
(`baohuang_env.batch.legal_actions`) for the legal actions of every game's current seat,
steps forced decisions (one legal action) directly, and
decides all the others with one forward pass per network: the learner's, each pool
snapshot's that is playing, and the scripted bots one by one. A finished game is replaced.

Each seat's learner decisions form its own trajectory; its only reward is the deal's result
for that seat, at its last decision (`baohuang_env.rewards.reward`). Advantages are GAE over
the trajectory.

Opponents (`PPOConfig.opponent_mix`): a game is either self-play (the learner at all five
seats) or against one opponent (a pool snapshot or an agent spec): the learner plays the
role phase at every seat, then, once the roles are fixed, one side (the emperor's or the
rebels', 50/50), and the opponent the other side from there on, as in the team evaluation
protocol. Only the learner's decisions on its side are trained on.
"""

from __future__ import annotations

import copy
import json
from collections import deque
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

from baohuang_env import Game
from baohuang_env.agent import NO_OBSERVATION
from baohuang_env.batch import legal_actions
from baohuang_env.cards import NUM_SEATS
from baohuang_env.encoding import Encoder
from baohuang_env.game import PLAY
from baohuang_env.rewards import reward
from baohuang_env.rules import Rules
from baohuang_env.seeds import TRAIN_SEED_START

from ..action_features import ActionFeatures
from ..guard_belief import guard_label
from ..opponents import SELF, SNAPSHOTS, OpponentMix, opponent_seats, seat_bots
from .config import PPOConfig
from .model import ActorCritic, gae



@dataclass
class Snapshot:
    """A frozen copy of the learner in the opponent pool."""

    id: int  # the update at which it was taken
    net: ActorCritic


class OpponentPool:
    """Past policies of the learner; the oldest leaves when the pool is full."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.snapshots: deque[Snapshot] = deque(maxlen=size)

    def add(self, net: ActorCritic, update: int) -> Snapshot:
        snap = Snapshot(update, _clone(net))
        self.snapshots.append(snap)
        return snap

    def state(self) -> dict[str, Any]:
        return {"ids": [s.id for s in self.snapshots], "models": [s.net.state_dict() for s in self.snapshots]}

    def load(self, state: dict[str, Any], template: ActorCritic) -> None:
        self.snapshots.clear()
        for sid, sd in zip(state["ids"], state["models"], strict=True):
            net = _clone(template)
            net.load_state_dict(sd)
            self.snapshots.append(Snapshot(int(sid), net))

    def __len__(self) -> int:
        return len(self.snapshots)


def _clone(net: ActorCritic) -> ActorCritic:
    twin = copy.deepcopy(net)
    twin.requires_grad_(False)
    twin.eval()
    return twin


@dataclass
class Batch:
    """Learner decisions of finished games, ready for a PPO update. Row i's legal actions
    are `actions[offsets[i]:offsets[i] + counts[i]]` and it chose entry `choice[i]` of them."""

    obs: np.ndarray  # (T, O) float32
    actions: np.ndarray  # (L,) int64, legal action ids, row after row
    counts: np.ndarray  # (T,) int64
    choice: np.ndarray  # (T,) int64
    logp: np.ndarray  # (T,) float32, log-probability of the choice when it was made
    value: np.ndarray  # (T,) float32
    adv: np.ndarray  # (T,) float32
    ret: np.ndarray  # (T,) float32
    guard: np.ndarray | None = None  # (T,) int64, the guard head's hidden labels (agents.guard_head)

    @property
    def offsets(self) -> np.ndarray:
        return np.cumsum(self.counts) - self.counts

    def __len__(self) -> int:
        return len(self.counts)


@dataclass
class _Slot:
    game: Game
    mode: str  # SELF, SNAPSHOTS or an agent spec
    opponent: Any = None  # the Snapshot, or the spec's per-seat agents
    sides_pending: bool = False  # an opponent game still in its role phase
    controllers: list[Any] = field(default_factory=lambda: [None] * NUM_SEATS)  # None: the learner
    steps: list[list[tuple]] = field(default_factory=lambda: [[] for _ in range(NUM_SEATS)])


class Rollouts:
    """Plays `cfg.num_games` games of `rules` at once and returns batches of finished learner
    decisions."""

    def __init__(self, cfg: PPOConfig, rules: Rules, net: ActorCritic, pool: OpponentPool, seed: int) -> None:
        self.cfg = cfg
        self.rules = rules
        self.encoder = Encoder(self.rules)
        self.table = self.encoder.table
        self._masks = np.empty((cfg.num_games, self.table.num_actions), dtype=np.int8)  # legal_actions' buffer
        self.features = torch.from_numpy(ActionFeatures(self.rules).table.copy())
        self.net, self.pool = net, pool
        self.rng = np.random.default_rng(seed)
        self.mix = OpponentMix(cfg.opponent_mix)
        self.bots: dict[tuple[int, str], list[Any]] = {}  # (slot, spec) -> per-seat agents
        self.frames = 0  # every engine step, forced ones included
        self.decisions = 0  # learner decisions made (forced ones excluded)
        self.buffer: list[tuple] = []
        self.finished: list[dict[str, Any]] = []  # per finished game: mode, learner result, roles
        self.slots = [self._new_slot(i) for i in range(cfg.num_games)]

    # ------------------------------------------------------------------ games
    def _new_slot(self, index: int) -> _Slot:
        game = Game(self.rules, seed=int(self.rng.integers(TRAIN_SEED_START, 2**63 - 1)))
        mode = self.mix.draw(self.rng)
        slot = _Slot(game, mode)
        if mode == SELF:
            return slot
        slot.sides_pending = True
        if mode == SNAPSHOTS:
            slot.opponent = self.pool.snapshots[int(self.rng.integers(len(self.pool)))]
        else:
            slot.opponent = seat_bots(self.bots, (index, mode), mode, self.rules, self.rng)
        return slot

    def _assign_sides(self, slot: _Slot) -> None:
        """Roles are fixed: the learner keeps one side, the opponent takes the other."""
        for seat in opponent_seats(slot.game, self.rng):
            slot.controllers[seat] = slot.opponent.net if slot.mode == SNAPSHOTS else slot.opponent[seat]
            slot.steps[seat] = []  # its role-phase decisions were the learner's, its game is not
        slot.sides_pending = False

    def _finish(self, index: int) -> None:
        slot = self.slots[index]
        res = slot.game.result
        learner_seats = [s for s in range(NUM_SEATS) if slot.controllers[s] is None]
        for seat in learner_seats:
            steps = slot.steps[seat]
            if not steps:
                continue
            rewards = np.zeros(len(steps), dtype=np.float32)
            rewards[-1] = reward(res.scores[seat], self.cfg.reward_mode, self.cfg.reward_scale)
            values = np.array([s[4] for s in steps], dtype=np.float32)
            adv, ret = gae(rewards, values, self.cfg.gamma, self.cfg.gae_lambda)
            for k, (obs, ids, choice, logp, value, guard) in enumerate(steps):
                self.buffer.append((obs, ids, choice, logp, value, adv[k], ret[k], guard))
        self.finished.append({
            "mode": slot.mode,
            "score": res.scores[learner_seats[0]] if slot.mode != SELF else 0,
            "returns": [(res.roles[s], res.scores[s]) for s in learner_seats],
        })
        self.slots[index] = self._new_slot(index)

    # ------------------------------------------------------------------ stepping
    def collect(self, decisions: int) -> Batch:
        """Play until at least `decisions` learner decisions of finished games are buffered."""
        while len(self.buffer) < decisions:
            self.step()
        rows, self.buffer = self.buffer, []
        counts = np.array([len(r[1]) for r in rows], dtype=np.int64)
        return Batch(
            obs=np.stack([r[0] for r in rows]),
            actions=np.concatenate([r[1] for r in rows]).astype(np.int64),
            counts=counts,
            choice=np.array([r[2] for r in rows], dtype=np.int64),
            logp=np.array([r[3] for r in rows], dtype=np.float32),
            value=np.array([r[4] for r in rows], dtype=np.float32),
            adv=np.array([r[5] for r in rows], dtype=np.float32),
            ret=np.array([r[6] for r in rows], dtype=np.float32),
            guard=np.array([r[7] for r in rows], dtype=np.int64),
        )

    def legal_actions(self) -> list[np.ndarray]:
        """Legal action ids of every game's current seat, from the engine's batch entry point."""
        return legal_actions([s.game for s in self.slots], out=self._masks)

    def step(self) -> None:
        """One decision in every game: forced ones directly, the rest batched per network."""
        legal = self.legal_actions()
        learner: list[int] = []
        by_net: dict[int, tuple[ActorCritic, list[int]]] = {}
        actions: dict[int, int] = {}
        for i, slot in enumerate(self.slots):
            ids = legal[i]
            if ids.size == 1:
                actions[i] = int(ids[0])
                continue
            ctrl = slot.controllers[slot.game.current_player]
            if ctrl is None:
                learner.append(i)
            elif isinstance(ctrl, ActorCritic):
                by_net.setdefault(id(ctrl), (ctrl, []))[1].append(i)
            else:
                seat = slot.game.current_player
                obs = self.encoder.encode(slot.game, seat) if ctrl.uses_observation \
                    else NO_OBSERVATION
                mask = np.zeros(self.table.num_actions, dtype=np.int8)
                mask[ids] = 1
                actions[i] = int(ctrl.act(obs, mask))
        if learner:
            self._decide(self.net, learner, legal, actions, record=True)
        for net, games in by_net.values():
            self._decide(net, games, legal, actions, record=False)
        for i, action in actions.items():
            slot = self.slots[i]
            slot.game.step(action)
            self.frames += 1
            if slot.sides_pending and slot.game.phase == PLAY:
                self._assign_sides(slot)
            if slot.game.is_over:
                self._finish(i)

    @torch.inference_mode()
    def _decide(self, net: ActorCritic, games: list[int], legal: list[np.ndarray], actions: dict[int, int],
                record: bool) -> None:
        seats = [self.slots[i].game.current_player for i in games]
        obs = np.stack([self.encoder.encode(self.slots[i].game, s) for i, s in zip(games, seats, strict=True)])
        ids = [legal[i] for i in games]
        counts = torch.tensor([len(x) for x in ids])
        flat = torch.from_numpy(np.concatenate(ids))
        obs_t = torch.from_numpy(obs)
        dist = net.distribution(obs_t, counts, self.features[flat])
        choice = dist.sample()
        for b, i in enumerate(games):
            actions[i] = int(ids[b][int(choice[b])])
        if not record:
            return
        logp = dist.log_prob(choice).numpy()
        value = net.get_value(obs_t).numpy()
        choice = choice.numpy()
        for b, i in enumerate(games):
            game = self.slots[i].game
            self.slots[i].steps[seats[b]].append((obs[b], ids[b], int(choice[b]), float(logp[b]), float(value[b]),
                                                  guard_label(game, seats[b])))
        self.decisions += len(games)

    # ------------------------------------------------------------------ state
    def rng_state(self) -> str:
        return json.dumps(self.rng.bit_generator.state)

    def set_rng_state(self, state: str) -> None:
        self.rng.bit_generator.state = json.loads(state)
