"""The DMC trainer's config: one dataclass, loaded from YAML (`configs/dmc_*.yaml`).

The defaults are the recommended learning recipe (what `configs/dmc_quick.yaml` trains with:
one shared network, the win rewards, learning rate 0.001) as pure self-play, so
`baohuang train dmc` without `--config` trains it too; the prior knowledge `dmc_quick` adds
(the heuristic's `advice`, its `teacher` kickstart, heuristic opponents) is each config's
choice. Checkpoints keep the layout they were trained with: one written
before `networks` existed holds per-role networks (`checkpoint_networks`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from ..nets.advice import check_advice
from ..training.config import NON_NEGATIVE, POSITIVE, PROBABILITY, RunConfig, check_bounds
from ..training.opponents import SELF, SNAPSHOTS, check_opponent_mix
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

    ALGO: ClassVar[str] = "dmc"
    exp_name: str = "dmc"
    """Name of the experiment, part of the run directory name."""
    reward_mode: str = "win"
    """As `RunConfig.reward_mode`; DMC's default is "win", measured better than "score" on a
    short budget (docs/training.md, "Measured")."""
    actors: int = 2
    """Actor processes (backend "local"; 0 runs the actor inline in the learner: deterministic,
    for tests), or Ray actors (backend "ray", at least 1)."""
    games_per_actor: int = 128
    """Games each actor plays at once on the batched engine: every turn the learner's
    decisions of all of them are scored in one network call (measured: `baohuang bench
    --actors`)."""
    epsilon: float = 0.05
    """Exploration: an actor plays a uniformly random legal action with this probability."""
    networks: str = "shared"
    """"shared" (the default): one network for every role; it reads the role from the
    observation, so every seat's decisions train it (about five times the data of the
    emperor's or the guard's network), which learns faster on a short budget.
    "per_role": one Q network per role (emperor, guard, rebel, solo), DouZero's layout."""
    opponent_mix: dict[str, float] = field(default_factory=lambda: {SELF: 1.0})
    """Weights of each training game's opponent: "self" (the learner at all five seats),
    "snapshots" (a past learner drawn from the opponent pool: `snapshot_minutes`,
    `pool_size`) or any agent spec ("heuristic", "greedy", "dmc:path" ...), e.g.
    `opponent_mix=self=0.6,snapshots=0.2,heuristic=0.2`. Against an opponent the learner
    plays the role phase, then one side (emperor's or rebels', 50/50,
    `opponents.opponent_seats`) and the opponent the other; only the learner's decisions are
    trained on."""
    snapshot_minutes: float = 5.0
    """With "snapshots" in `opponent_mix`: a copy of the learner's networks joins the opponent
    pool every this many minutes of training time (the budget's minutes, over all resumes).
    The first is taken when the run starts, so the pool is never empty while games need one."""
    pool_size: int = 8
    """With "snapshots" in `opponent_mix`: snapshots kept in the pool (the oldest leaves first).
    The actors play them greedily in Q, with the run's `advice`."""
    advice: str = "none"
    """Per-decision action features the network reads beside each action's static row
    (`agents.nets.advice`): "none", or "heuristic" (the heuristic bot's choice, its odds that a
    play is not beaten, and what the play leaves of my hand). The checkpoint records it, so
    a trained agent computes the same columns when it plays."""
    teacher: str = ""
    """Kickstarting: an agent spec ("heuristic", "dmc:path" ...) whose moves the learner's
    seats play, ε-greedy around them, for each actor's first `teacher_frames / actors`
    frames. The network regresses on those games' returns as on its own, so it starts
    from the teacher's action values (one step of policy improvement over the teacher once
    the actors play its argmax). Empty: the learner plays from the first game."""
    teacher_frames: int = 0
    """Frames (all actors together) played with the `teacher`'s moves before the learner's: every
    game starting before them is taught, none after (a gradual hand-over was measured no better
    with λ-returns and removed: docs/training.md, "The recipe, piece by piece")."""
    teacher_margin: float = 0.0
    """Margin of the supervised loss on the teacher's decisions (DQfD's large-margin loss,
    with one other legal move drawn per decision): relu(Q(s, other) + margin - Q(s, teacher's
    move)), added with weight 1 while taught rows arrive, so the network ranks the teacher's
    move first even where the ε-greedy games rarely try the others. 0: regression only."""
    init_from: str = ""
    """Warm start: a DMC checkpoint (or playing copy) whose network weights a new run starts
    from, e.g. agents/pretrained/dmc_jj.pt; it must have this run's layout (`networks`,
    `hidden`, `head`) and rules. The optimizer starts afresh. Empty: random weights. A
    resumed run ignores it (it continues from its own checkpoint)."""
    target_lambda: float = 0.9
    """λ of the regression targets (`agents.dmc.targets`): 1, each learner decision is
    regressed on its seat's Monte-Carlo return; below 1, on the λ-return over that seat's
    decisions in the game, which bootstraps from the network's Q of the seat's next moves
    (as computed when the actor chose them): less variance, some bias (docs/training.md,
    "Lower-variance targets"). In [0, 1]. 0.9 (half the targets' variance) learns faster:
    measured stronger after the main job's 7.5 minutes, even with 1 after 50 (docs/training.md,
    "The recipe, piece by piece")."""
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
        default; likewise `target_lambda` 1 (Monte-Carlo returns) for a config from before that
        key, whose default is 0.9 now. A `teacher_schedule` (a key removed since) is dropped when
        it was the hard switch that remains; a run that handed over gradually cannot resume
        (ValueError)."""
        config = {"networks": checkpoint_networks(ckpt["arch"]), "target_lambda": 1.0, **ckpt["config"]}
        schedule = config.pop("teacher_schedule", "switch")
        if schedule != "switch":
            raise ValueError(f"this checkpoint was trained with teacher_schedule={schedule!r}, an option removed "
                             "since (the kickstart's hand-over is a hard switch); it still plays as an agent, "
                             "but resuming its training needs a release that has the option")
        return config

    def validate(self) -> None:
        super().validate()
        network_names(self.networks)
        check_advice(self.advice)
        check_opponent_mix(self.opponent_mix)
        check_bounds(self, {
            "actors": NON_NEGATIVE, "games_per_actor": POSITIVE, "epsilon": PROBABILITY,
            "target_lambda": PROBABILITY, "snapshot_minutes": POSITIVE, "pool_size": POSITIVE,
            "teacher_frames": NON_NEGATIVE, "teacher_margin": NON_NEGATIVE, "unroll_length": POSITIVE,
            "slots_per_role": POSITIVE, "batch_slots": POSITIVE, "learning_rate": NON_NEGATIVE,
            "max_grad_norm": POSITIVE, "hidden": POSITIVE, "head": POSITIVE})
        if self.batch_slots > self.slots_per_role // 2:
            raise ValueError(f"batch_slots ({self.batch_slots}) must be at most half of slots_per_role "
                             f"({self.slots_per_role}) so actors never starve")
        if (self.teacher_frames > 0) != bool(self.teacher):
            raise ValueError(f"teacher={self.teacher!r} with teacher_frames={self.teacher_frames}: set both "
                             "(an agent spec and a positive frame count) or neither")
        if self.backend == "ray" and self.actors < 1:
            raise ValueError(f"backend=ray needs actors >= 1 (the Ray actors that play), got {self.actors}")

    @property
    def uses_pool(self) -> bool:
        """Whether training games play snapshots of the learner (and the run keeps a pool)."""
        return self.opponent_mix.get(SNAPSHOTS, 0) > 0

    def opponent_specs(self) -> list[str]:
        """The agent specs the actors build: opponent_mix's (all but "self" and "snapshots")
        and the teacher."""
        specs = [k for k, w in self.opponent_mix.items() if k not in (SELF, SNAPSHOTS) and w > 0]
        return [*specs, self.teacher] if self.teacher and self.teacher not in specs else specs
