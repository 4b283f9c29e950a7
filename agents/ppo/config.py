"""The PPO trainer's config: one dataclass, loaded from YAML (`configs/ppo_*.yaml`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from ..training.config import NON_NEGATIVE, POSITIVE, PROBABILITY, RunConfig, check_bounds
from ..training.opponents import SELF, SNAPSHOTS, check_opponent_mix


@dataclass
class PPOConfig(RunConfig):
    """Every knob of `baohuang train ppo` (with `RunConfig`'s). YAML keys are these field names."""

    ALGO: ClassVar[str] = "ppo"
    exp_name: str = "ppo"
    """Name of the experiment, part of the run directory name."""
    reward_mode: str = "win"
    """Reward at the end of a deal: "win" (+1/-1/0 by the seat's score sign) or "score" (the
    deal score times reward_scale)."""
    total_frames: int = 0
    """Stop after this many environment steps (0: no limit). When set, the learning-rate
    schedule follows frames rather than time, so runs are reproducible."""

    # --- rollouts ---------------------------------------------------------------------
    num_games: int = 128
    """Games played at once; every step, one batched forward pass decides for all of them."""
    rollout_decisions: int = 8192
    """Learner decisions (non-forced) collected per update."""
    actors: int = 0
    """Rollout workers with backend "ray" (at least 1): each plays num_games games at once
    and collects its share of rollout_decisions. Must be 0 with backend "local", where the
    learner process plays the games itself."""
    opponent_mix: dict[str, float] = field(
        default_factory=lambda: {SELF: 0.5, SNAPSHOTS: 0.2, "random": 0.15, "greedy": 0.15})
    """Weights of each game's opponent: "self" (the learner at all five seats), "snapshots"
    (a past learner from the pool) or any agent spec ("random", "greedy", "dmc:path" ...).
    On the command line: `opponent_mix=self=0.5,greedy=0.3,dmc:agents/pretrained/dmc_jj.pt=0.2`
    (`config.parse_mapping`); in TensorBoard each is named by `opponents.opponent_tag`.
    Against an opponent the learner plays the role phase, then one side (emperor's or
    rebels', 50/50) and the opponent the other; only the learner's decisions are trained on."""
    pool_size: int = 8
    """Snapshots kept in the opponent pool (the oldest goes first); the initial policy is the first."""
    snapshot_every: int = 50
    """Add the current policy to the pool every this many updates (0: never on a schedule)."""
    snapshot_win_rate: float = 0.6
    """Also add a snapshot when the learner's win rate over the last snapshot_window games
    against snapshots reaches this (0: off)."""
    snapshot_window: int = 200
    """Games against snapshots in that win-rate window."""

    # --- the update -------------------------------------------------------------------
    learning_rate: float = 0.0005
    """Adam learning rate at the start."""
    lr_schedule: str = "linear"
    """"constant", or "linear": decays to lr_final_fraction * learning_rate at the end of the budget."""
    lr_final_fraction: float = 0.1
    """Learning rate at the end of a linear schedule, as a fraction of learning_rate."""
    update_epochs: int = 3
    """Passes over each rollout."""
    minibatch_size: int = 2048
    """Decisions per gradient step."""
    gamma: float = 1.0
    """Discount per decision of a seat (the only reward comes at the end)."""
    gae_lambda: float = 0.95
    """GAE lambda."""
    clip_coef: float = 0.2
    """PPO's probability-ratio clip."""
    clip_vloss: bool = True
    """Clip the value update around the rollout's values (by clip_coef)."""
    norm_adv: bool = True
    """Normalise advantages per minibatch."""
    ent_coef: float = 0.01
    """Entropy bonus (masked: illegal actions have no entropy term)."""
    vf_coef: float = 0.5
    """Weight of the value loss."""
    max_grad_norm: float = 0.5
    """Gradient clipping norm."""
    target_kl: float = 0.0
    """Stop an update's epochs early when the approximate KL passes this (0: off)."""

    # --- networks ---------------------------------------------------------------------
    hidden: int = 256
    """Width of the policy's state layers and of its joint state-action layer."""
    head: int = 128
    """Width of the policy's last hidden layer."""
    value_hidden: int = 256
    """Width of the value network's two hidden layers."""
    torch_threads: int = 2
    """Torch threads for the update (rollouts run their small forward passes on one)."""


    def validate(self) -> None:
        super().validate()
        if self.lr_schedule not in ("constant", "linear"):
            raise ValueError(f"lr_schedule must be 'constant' or 'linear', got {self.lr_schedule!r}")
        check_bounds(self, {
            "num_games": POSITIVE, "rollout_decisions": POSITIVE, "actors": NON_NEGATIVE, "pool_size": POSITIVE,
            "snapshot_every": NON_NEGATIVE, "snapshot_win_rate": PROBABILITY, "snapshot_window": POSITIVE,
            "learning_rate": NON_NEGATIVE, "lr_final_fraction": PROBABILITY, "update_epochs": POSITIVE,
            "minibatch_size": POSITIVE, "gamma": (lambda v: 0 < v <= 1, "in (0, 1]"), "gae_lambda": PROBABILITY,
            "clip_coef": POSITIVE, "ent_coef": NON_NEGATIVE, "vf_coef": NON_NEGATIVE, "max_grad_norm": POSITIVE,
            "target_kl": NON_NEGATIVE, "hidden": POSITIVE, "head": POSITIVE, "value_hidden": POSITIVE,
            "torch_threads": POSITIVE})
        check_opponent_mix(self.opponent_mix)
        if self.backend == "ray" and self.actors < 1:
            raise ValueError(f"backend=ray needs actors >= 1 (the Ray rollout workers), got {self.actors}")
        if self.backend == "local" and self.actors != 0:
            raise ValueError(f"actors={self.actors} needs backend=ray: with backend=local the learner process "
                             "plays the games (actors must be 0)")

    def opponent_specs(self) -> list[str]:
        """The agent specs of opponent_mix (everything but "self" and "snapshots")."""
        return [k for k, w in self.opponent_mix.items() if k not in (SELF, SNAPSHOTS) and w > 0]
