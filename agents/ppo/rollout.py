"""Rollouts: PPO's training games, one batched forward pass per network per turn, against
the learner, bots and the opponent pool (`agents.training.pool`).

`Rollouts` plays `num_games` training games through `agents.training.training_games.TrainingGames`,
the one owner of both trainers' training games: their deals, the opponent mix
(`PPOConfig.opponent_mix`: self-play, a pool snapshot or an agent spec), which side an
opponent takes once the roles are fixed, the forced moves and the scripted bots' moves.
Each turn `Rollouts` decides the rest: the learner's decisions of every game in one forward
pass, and those of each pool snapshot that is playing in one pass of that snapshot's network.
Only the learner's decisions are recorded, at their game's table (`Table.records`), and only
those at the learner's seats are trained on (the opponent's side drops its role-phase records).

Each seat's learner decisions form its own trajectory; its only reward is the deal's result
for that seat, at its last decision (`baohuang_env.rewards.reward`). Advantages are GAE over
the trajectory, computed when the game ends.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from baohuang_env.game import GameResult
from baohuang_env.rewards import reward
from baohuang_env.rules import Rules

from ..nets.action_features import ActionFeatures
from ..guard_belief import guard_label
from ..training.opponents import SELF, OpponentMix
from ..training.pool import OpponentPool
from ..training.training_games import Table, TrainingGames, Turn
from .config import PPOConfig
from .model import ActorCritic, gae


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
    guard: np.ndarray | None = None  # (T,) int64, the guard head's hidden labels (agents.nets.guard_head)

    @property
    def offsets(self) -> np.ndarray:
        return np.cumsum(self.counts) - self.counts

    def __len__(self) -> int:
        return len(self.counts)


class Rollouts:
    """Plays `cfg.num_games` training games of `rules` at once and returns batches of finished
    learner decisions. `games`: the training games (`TrainingGames`); `frames`: every engine
    step, forced ones included; `decisions`: the learner's decisions made (forced ones
    excluded); `finished`: per finished game its mode, the learner's score and its seats'
    (role, score)."""

    def __init__(self, cfg: PPOConfig, rules: Rules, net: ActorCritic, pool: OpponentPool, seed: int) -> None:
        self.cfg = cfg
        self.rules = rules
        self.features = torch.from_numpy(ActionFeatures(self.rules).table.copy())
        self.net, self.pool = net, pool
        self.rng = np.random.default_rng(seed)
        self.frames = 0
        self.decisions = 0
        self.buffer: list[tuple] = []  # (obs, ids, choice, logp, value, adv, ret, guard) per decision
        self.finished: list[dict[str, Any]] = []
        self.games = TrainingGames(rules, cfg.num_games, OpponentMix(cfg.opponent_mix), self.rng,
                                   snapshot=pool.draw)

    def collect(self, decisions: int, stop: Callable[[], bool] = lambda: False) -> Batch | None:
        """Play until at least `decisions` learner decisions of finished games are buffered;
        None when `stop()`, asked before every step, turns true first (the buffer is kept)."""
        while len(self.buffer) < decisions:
            if stop():
                return None
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

    def step(self) -> None:
        """One move in every game: the learner's and each snapshot's decisions in one forward
        pass per network, then every game steps and the ended ones are turned into buffer rows."""
        games = self.games
        turn = games.turn()
        if turn.learner.size:
            self._decide(self.net, turn, turn.learner, record=True)
        for snapshot, rows in turn.snapshots:
            self._decide(snapshot.net, turn, rows, record=False)
        for _row, table, result in games.advance(turn):
            self._finish(table, result)
        self.frames += games.num_games

    @torch.inference_mode()
    def _decide(self, net: ActorCritic, turn: Turn, rows: np.ndarray, record: bool) -> None:
        """Sample `net`'s moves of `rows` into `turn.actions`; with `record`, keep each decision
        (observation, legal ids, choice, its log-probability, the value, the guard's label)
        at its game's table, under the acting seat."""
        obs = self.games.observe(rows)
        ids, counts = turn.legal_ids(rows)
        obs_t = torch.from_numpy(obs)
        dist = net.distribution(obs_t, torch.from_numpy(counts), self.features[torch.from_numpy(ids)])
        choice = dist.sample()
        starts = np.cumsum(counts) - counts
        turn.actions[rows] = ids[starts + choice.numpy()]
        if not record:
            return
        logp = dist.log_prob(choice).tolist()
        value = net.get_value(obs_t).tolist()
        games, tables = self.games, self.games.tables
        for i, (b, a, c, k) in enumerate(zip(rows.tolist(), starts.tolist(), counts.tolist(), choice.tolist(),
                                             strict=True)):
            seat = int(turn.seats[b])
            guard = guard_label(games.roles(b), seat)
            tables[b].records[seat].append((obs[i], ids[a:a + c], k, logp[i], value[i], guard))
        self.decisions += len(rows)

    def _finish(self, table: Table, result: GameResult) -> None:
        """An ended game: GAE over each learner seat's decisions to the buffer, its summary to `finished`."""
        learner_seats = table.learner_seats
        for seat in learner_seats:
            steps = table.records[seat]
            if not steps:
                continue
            rewards = np.zeros(len(steps), dtype=np.float32)
            rewards[-1] = reward(result.scores[seat], self.cfg.reward_mode, self.cfg.reward_scale)
            values = np.array([s[4] for s in steps], dtype=np.float32)
            adv, ret = gae(rewards, values, self.cfg.gamma, self.cfg.gae_lambda)
            for k, (obs, ids, choice, logp, value, guard) in enumerate(steps):
                self.buffer.append((obs, ids, choice, logp, value, adv[k], ret[k], guard))
        self.finished.append({
            "mode": table.mode,
            "score": result.scores[learner_seats[0]] if table.mode != SELF else 0,
            "returns": [(result.roles[s], result.scores[s]) for s in learner_seats],
        })

    # ------------------------------------------------------------------ state
    def rng_state(self) -> str:
        return json.dumps(self.rng.bit_generator.state)

    def set_rng_state(self, state: str) -> None:
        self.rng.bit_generator.state = json.loads(state)
