"""The DMC trainer's config: one dataclass, loaded from YAML (`configs/dmc_*.yaml`)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class DMCConfig:
    """Every knob of `baohuang train dmc`. YAML keys are these field names."""

    exp_name: str = "dmc"
    """Name of the experiment, part of the run directory name."""
    preset: str = "jj"
    """Rule preset to train on."""
    seed: int = 1
    """Seeds Python, numpy and torch in the learner and, offset per actor, in the actors."""
    objective: str = "score"
    """Monte-Carlo target: "score" (the deal score, scaled by reward_scale) or "win" (+1/-1/0)."""
    reward_scale: float = 0.125
    """Multiplies scores before regression (JJ scores span -24..24)."""
    total_minutes: float = 10.0
    """Wall-clock training budget; training stops at whichever of this and total_frames comes first."""
    total_frames: int = 0
    """Stop after this many environment steps (0: no limit)."""
    actors: int = 2
    """Actor processes; 0 runs the actor inline in the learner (deterministic, for tests)."""
    epsilon: float = 0.05
    """Exploration: an actor plays a uniformly random legal action with this probability."""
    unroll_length: int = 64
    """Rows per buffer slot (transitions an actor writes before handing a slot over)."""
    slots_per_role: int = 48
    """Shared buffer slots per role network."""
    batch_slots: int = 8
    """Slots per learner batch: a batch is batch_slots * unroll_length rows of one role."""
    learning_rate: float = 0.0005
    """Adam learning rate."""
    max_grad_norm: float = 10.0
    """Gradient clipping norm."""
    hidden: int = 256
    """Width of the state layers and of the joint state-action layer."""
    head: int = 128
    """Width of the last hidden layer."""
    checkpoint_minutes: float = 2.0
    """Write a checkpoint this often (and always at the end)."""
    eval_minutes: float = 3.0
    """Evaluate against the scripted bots this often (0: only at the end)."""
    eval_opponents: list[str] = field(default_factory=lambda: ["random", "autoplay", "greedy"])
    """Scripted bots to evaluate against (agent specs)."""
    eval_deals: int = 20
    """Duplicate deals of the periodic evaluation (each is 10 games per opponent)."""
    final_eval_deals: int = 100
    """Duplicate deals of the evaluation printed at the end."""
    eval_deal_seed: int = 1_000_000
    """First seed of the evaluation deal set (training deals never use seeds below 2**32)."""
    log_seconds: float = 5.0
    """Progress line and TensorBoard scalars this often."""
    runs_dir: str = "runs"
    """Parent folder of run directories."""

    def validate(self) -> None:
        if self.objective not in ("score", "win"):
            raise ValueError(f"objective must be 'score' or 'win', got {self.objective!r}")
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
        if self.total_minutes <= 0 and self.total_frames <= 0:
            raise ValueError("set total_minutes or total_frames to a positive value")
