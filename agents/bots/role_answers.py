"""`roles:SPEC`: the role-phase answers of one agent with the heuristic's card play.

`baohuang eval --agents roles:pretrained heuristic --protocol seat` then scores an agent's
role answers alone: both sides play their cards alike (the heuristic's), so the paired
difference is what the role answers are worth (issue 23, item 6; docs/role_models.md).

Which agent moves is read from the observation's phase one-hot
(`baohuang_env.observation.observation_layout`: its `phases` are the rules' role steps, then
"play"; `agents.view.SeatView` reads it the same way): every role step goes to SPEC, the play
phase to `HeuristicAgent(rules)`. Applying for the wind (qingdao's `APPLY_WIND`) is a
play-phase action, so the heuristic answers it (it never applies: in the engine it acts as
a pass).
"""

from __future__ import annotations

import copy

import numpy as np

from baohuang_env.agent import Agent, act_one, make_agent
from baohuang_env.game import PLAY
from baohuang_env.observation import observation_layout
from baohuang_env.rules import Rules

from .heuristic import HeuristicAgent

#: The agent kind of this module.
KIND = "roles"


class PhaseReader:
    """Tells a role-phase observation from a play-phase one, by the phase one-hot."""

    def __init__(self, rules: Rules) -> None:
        layout = observation_layout(rules)
        phase = layout["phase"]
        # the role steps come first in the one-hot, "play" last
        self._role_steps = slice(phase.offset, phase.offset + layout.phases.index(PLAY))

    def in_role_phase(self, observation: np.ndarray) -> bool:
        """The observation is of a role-phase decision (a role step's entry is set)."""
        return bool(observation[self._role_steps].any())


def _given(observation: np.ndarray) -> np.ndarray:
    return observation


def act_on(agent: Agent, observation: np.ndarray, action_mask: np.ndarray) -> int:
    """`agent`'s action with `observation` already at hand: `act_one`'s rule (`NO_OBSERVATION`
    to an agent that reads only the mask) for a wrapper that reads the observation itself."""
    return act_one(agent, action_mask, _given, observation)


class RoleAnswers:
    """`role_agent` answers the role phase, `card_agent` plays the cards (module docstring).

    It reads the phase from the observation, so `uses_observation` is True; a sub-agent that
    reads only the mask still gets `NO_OBSERVATION` (`baohuang_env.agent.act_one`)."""

    uses_observation = True

    def __init__(self, role_agent: Agent, card_agent: Agent, rules: Rules) -> None:
        self.role_agent, self.card_agent = role_agent, card_agent
        self._phases = PhaseReader(rules)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        agent = self.role_agent if self._phases.in_role_phase(observation) else self.card_agent
        return act_on(agent, observation, action_mask)

    def reset(self, seed: int | None = None) -> None:
        """A new game: each sub-agent with `reset` is replaced by a shallow copy of itself
        reset with `seed` (the evaluation copies this agent shallowly for every game, so the
        games must not share a sub-agent's per-game state, its RNG say); a sub-agent without
        `reset` keeps no per-game state and is shared."""
        for name in ("role_agent", "card_agent"):
            agent = getattr(self, name)
            if hasattr(agent, "reset"):
                agent = copy.copy(agent)
                agent.reset(seed)
                setattr(self, name, agent)


def make_role_answers(arg: str | None, rules: Rules, seed: int | None) -> RoleAnswers:
    """The factory of the `roles:SPEC` kind: SPEC's role answers, the heuristic's card play."""
    if not arg:
        raise ValueError("a roles agent needs the agent whose role answers it gives: roles:SPEC, e.g. "
                         "roles:pretrained or roles:dmc:path/to/checkpoint.pt")
    if arg.partition(":")[0] == KIND:
        raise ValueError(f"roles:{arg} nests roles agents; roles:SPEC takes the role answers of an agent "
                         "that plays the role phase itself (roles:pretrained, roles:heuristic ...)")
    return RoleAnswers(make_agent(arg, rules, seed), HeuristicAgent(rules), rules)


__all__ = ["KIND", "PhaseReader", "RoleAnswers", "act_on", "make_role_answers"]
