"""Opponents of the trainers: the opponent mix of training games (`opponent_mix` of DMC and
PPO: which seats an opponent takes, what a mix may hold) and the names opponents have in
TensorBoard: one short tag per agent spec, free of the `/` and `:` a checkpoint's path
brings (a `/` would nest the tag in TensorBoard's tree). Both trainers name every opponent
through `opponent_tag`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import re
from collections.abc import Hashable, Iterable, Mapping
from pathlib import PurePosixPath

import numpy as np

from baohuang_env.agent import Agent, make_agent
from baohuang_env.cards import NUM_SEATS
from baohuang_env.game import Game
from baohuang_env.rules import Rules

if TYPE_CHECKING:
    from baohuang_env.batched.games import RowRoles

#: Opponent-mix entries that are not agent specs: the learner itself at every seat, and a
#: past snapshot of the learner from the pool (`agents.training.pool`).
SELF, SNAPSHOTS = "self", "snapshots"

#: The file names a run writes (`agents.training.run.CHECKPOINT_NAME`, `MODEL_NAME`): they say nothing
#: about which run, so such an opponent is named by its run folder.
RUN_FILE_STEMS = ("checkpoint", "model")


def opponent_tag(spec: str) -> str:
    """A short TensorBoard-safe name for agent spec `spec`: a bot's own name ("greedy"), a
    checkpoint agent's kind and file stem ("dmc:agents/pretrained/dmc_jj.pt" -> "dmc-dmc_jj"),
    or kind and run folder for a run's own files ("ppo:runs/RUN/model.pt" -> "ppo-RUN").
    Only letters, digits, "_", "-" and "." remain."""
    kind, sep, arg = spec.partition(":")
    name = kind
    if sep:
        path = PurePosixPath(arg.replace("\\", "/"))
        stem = path.stem
        if stem in RUN_FILE_STEMS and path.parent.name:
            stem = path.parent.name
        name = f"{kind}-{stem}" if stem else kind
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name)


def check_distinct_tags(key: str, specs: Iterable[str]) -> None:
    """Refuse two opponents of one config key that would share a TensorBoard tag (and so
    write over each other's curves)."""
    seen: dict[str, str] = {}
    for spec in specs:
        tag = opponent_tag(spec)
        if tag in seen and seen[tag] != spec:
            raise ValueError(f"{key}: {seen[tag]!r} and {spec!r} would share the TensorBoard tag {tag!r}; "
                             "give one of the files another name")
        seen[tag] = spec


def check_opponent_mix(mix: Mapping[str, float]) -> None:
    """Refuse an opponent mix without a positive total weight, with a negative weight, or
    whose entries would share a TensorBoard tag. Entries are `SELF`, `SNAPSHOTS` or agent
    specs (checked when the agents are built: `make_agent`)."""
    if not mix or any(w < 0 for w in mix.values()) or sum(mix.values()) <= 0:
        raise ValueError(f"opponent_mix needs non-negative weights with a positive sum, got {dict(mix)}")
    check_distinct_tags("opponent_mix", mix)


class OpponentMix:
    """A checked `opponent_mix` as a draw: each training game's opponent, `SELF`, `SNAPSHOTS`
    or an agent spec, in proportion to its weight."""

    def __init__(self, mix: Mapping[str, float]) -> None:
        self.modes = list(mix)
        weights = np.array([mix[m] for m in self.modes], dtype=np.float64)
        self.p = weights / weights.sum()

    def draw(self, rng: np.random.Generator) -> str:
        return self.modes[int(rng.choice(len(self.modes), p=self.p))]


def seat_bots(cache: dict[Hashable, list[Agent]], key: Hashable, spec: str, rules: Rules,
              rng: np.random.Generator) -> list[Agent]:
    """One agent of `spec` per seat for a new training game: built once per `key` in
    `cache` (games played at once need agents of their own), reset with seeds from `rng`."""
    bots = cache.get(key)
    if bots is None:
        bots = cache[key] = [make_agent(spec, rules, 0) for _ in range(NUM_SEATS)]
    for bot in bots:
        if hasattr(bot, "reset"):
            bot.reset(int(rng.integers(2**31)))
    return bots


def opponent_seats(game: Game | RowRoles, rng: np.random.Generator) -> list[int]:
    """The seats an opponent takes in a training game once the roles are fixed (the play
    phase has begun): the emperor's side or the rebels', 50/50, as in the team evaluation.
    The learner keeps the other side; its role-phase decisions at the opponent's seats are
    not trained on (the result they lead to is the opponent's)."""
    emperor_side = {game.emperor, game.guard}
    learner_emperor = bool(rng.random() < 0.5)
    return [seat for seat in range(NUM_SEATS) if (seat in emperor_side) != learner_emperor]
