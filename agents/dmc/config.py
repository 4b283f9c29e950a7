"""The DMC trainer's config: one dataclass, loaded from YAML (`configs/dmc_*.yaml`).

The defaults are the recommended recipe (what `configs/dmc_quick.yaml` trains with: one
shared network, the win rewards, learning rate 0.001), so `baohuang train dmc` without
`--config` trains it too. Checkpoints keep the layout they were trained with: one written
before `networks` existed holds per-role networks (`checkpoint_networks`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..config import RunConfig
from ..opponents import SELF, check_opponent_mix
from .model import network_names

#: The network layout of checkpoints written before the `networks` key existed.
LEGACY_NETWORKS = "per_role"


def checkpoint_networks(arch: dict[str, Any]) -> str:
    """The network layout a checkpoint was trained with, from its `arch` (or its saved config):
    its `networks`, or per-role for a checkpoint from before the key existed, whatever the
    default is today."""
    return arch.get("networks", LEGACY_NETWORKS)


@dataclass
class DMCConfig(RunConfig):
    """Every knob of `baohuang train dmc` (with `RunConfig`'s). YAML keys are these field names."""

    exp_name: str = "dmc"
    """Name of the experiment, part of the run directory name."""
    reward_mode: str = "win"
    """As `RunConfig.reward_mode`; DMC's default is "win", measured better than "score" on a
    short budget (docs/training.md, "Measured")."""
    actors: int = 2
    """Actor processes (backend "local"; 0 runs the actor inline in the learner: deterministic,
    for tests), or Ray actors (backend "ray", at least 1)."""
    epsilon: float = 0.05
    """Exploration: an actor plays a uniformly random legal action with this probability."""
    networks: str = "shared"
    """"shared" (the default): one network for every role; it reads the role from the
    observation, so every seat's decisions train it (about five times the data of the
    emperor's or the guard's network), which learns faster on a short budget.
    "per_role": one Q network per role (emperor, guard, rebel, solo), DouZero's layout."""
    opponent_mix: dict[str, float] = field(default_factory=lambda: {SELF: 1.0})
    """Weights of each training game's opponent: "self" (the learner at all five seats) or
    any agent spec ("heuristic", "greedy", "dmc:path" ...), e.g.
    `opponent_mix=self=0.5,heuristic=0.5`. Against an opponent the learner plays the role
    phase, then one side (emperor's or rebels', 50/50, `opponents.opponent_seats`) and the
    opponent the other; only the learner's decisions are trained on."""
    init_from: str = ""
    """Warm start: a DMC checkpoint (or playing copy) whose network weights a new run starts
    from, e.g. agents/pretrained/dmc_jj.pt; it must have this run's layout (`networks`,
    `hidden`, `head`) and rules. The optimizer starts afresh. Empty: random weights. A
    resumed run ignores it (it continues from its own checkpoint)."""
    unroll_length: int = 64
    """Rows per buffer slot (transitions an actor writes before handing a slot over)."""
    slots_per_role: int = 48
    """Shared buffer slots per network (per role network, or of the one shared network)."""
    batch_slots: int = 8
    """Slots per learner batch: a batch is batch_slots * unroll_length rows of one network."""
    learning_rate: float = 0.001
    """Adam learning rate."""
    max_grad_norm: float = 10.0
    """Gradient clipping norm."""
    hidden: int = 256
    """Width of the state layers and of the joint state-action layer."""
    head: int = 128
    """Width of the last hidden layer."""

    @classmethod
    def trained_config(cls, ckpt: dict[str, Any]) -> dict[str, Any]:
        """The saved config, with the `networks` of the checkpoint's arch when the config
        predates the key: a resumed run reads the layout it was trained with, not today's
        default."""
        return {"networks": checkpoint_networks(ckpt["arch"]), **ckpt["config"]}

    def validate(self) -> None:
        super().validate()
        network_names(self.networks)
        check_opponent_mix(self.opponent_mix, special=(SELF,))
        positive = {"unroll_length": self.unroll_length, "slots_per_role": self.slots_per_role,
                    "batch_slots": self.batch_slots, "hidden": self.hidden, "head": self.head}
        for name, value in positive.items():
            if value <= 0:
                raise ValueError(f"{name} must be positive, got {value}")
        if self.batch_slots > self.slots_per_role // 2:
            raise ValueError(f"batch_slots ({self.batch_slots}) must be at most half of slots_per_role "
                             f"({self.slots_per_role}) so actors never starve")
        if self.actors < 0 or not 0.0 <= self.epsilon <= 1.0:
            raise ValueError("actors must be >= 0 and epsilon in [0, 1]")
        if self.backend == "ray" and self.actors < 1:
            raise ValueError(f"backend=ray needs actors >= 1 (the Ray actors that play), got {self.actors}")
