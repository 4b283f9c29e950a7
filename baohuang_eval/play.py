"""Playing evaluation games: the agents that fill a side's seats, their seeds, and one game
played to its end.

Agents are built from spec strings (`make_agent(spec, rules, seed)`), one per seat; an agent
with `reset(seed)` is built once per seat and reset before every game, one without is rebuilt
for every game. `evaluate_against` instead lends one in-process agent object to every seat of
its side (`ObjectSeats`). Games run straight on `Game` and `Encoder`, not the PettingZoo env:
an agent that sets `uses_observation = False` (it reads only the mask) gets an empty array
instead of an encoded observation, which saves over half the time of its games.
"""

from __future__ import annotations

import typing
from collections.abc import Sequence

import numpy as np

from baohuang_env.agent import AGENT_KINDS, NO_OBSERVATION, Agent, make_agent
from baohuang_env.encoding import Encoder
from baohuang_env.game import Game, IllegalActionError
from baohuang_env.rules import Rules

#: Composition tags that enter the agent seeds: "A" / "B" in the seat protocol, and tags of
#: their own for team games, so team games never reuse the seeds of seat games.
SEED_TAGS = {"A": 0, "B": 1, "team-A": 2, "team-B": 3}

def agent_seed(deal: int, focal_seat: int, composition: str, seat: int) -> int:
    """Seed of the agent at `seat` in the game (deal, focal seat, composition). Team games
    pass the emperor's seat as `focal_seat` and "team-A" / "team-B" as `composition`."""
    ss = np.random.SeedSequence([deal, focal_seat, SEED_TAGS[composition], seat, 0xBA0])
    return int(ss.generate_state(1, np.uint32)[0])


class Seats(typing.Protocol):
    """The agents of one side of a pair: `get(seat, seed)` is the agent that plays `seat`
    in the next game, already reset with `seed`."""

    def get(self, seat: int, seed: int) -> Agent: ...


class SpecSeats:
    """Agents of one spec, one per seat; reset per game (rebuilt when they cannot reset)."""

    def __init__(self, spec: str, rules: Rules) -> None:
        self.spec, self.rules = spec, rules
        self.agents: dict[int, Agent] = {}

    def get(self, seat: int, seed: int) -> Agent:
        agent = self.agents.get(seat)
        if agent is None or not hasattr(agent, "reset"):
            agent = self.agents[seat] = make_agent(self.spec, self.rules, seed)
        if hasattr(agent, "reset"):
            agent.reset(seed)
        return agent


class ObjectSeats:
    """One in-process agent object for every seat of its side (it must not keep per-seat
    state between calls); reset per game if it can."""

    def __init__(self, agent: Agent) -> None:
        self.agent = agent

    def get(self, seat: int, seed: int) -> Agent:
        if hasattr(self.agent, "reset"):
            self.agent.reset(seed)
        return self.agent


def play_out(game: Game, agents: Sequence[Agent], encoder: Encoder, names: Sequence[str], where: str) -> None:
    """Play `game` to its end, seat q acting with agents[q] (called names[q] in errors,
    `where` naming the game)."""
    observes = [ag.uses_observation for ag in agents]
    while not game.is_over:
        seat = game.current_player
        obs = encoder.encode(game, seat) if observes[seat] else NO_OBSERVATION
        action = agents[seat].act(obs, game.legal_mask())
        try:
            game.step(int(action))
        except IllegalActionError as err:  # plain ValueError: it must cross process bounds
            raise ValueError(f"agent {names[seat]!r} chose an illegal action ({where}): {err}") from None


def file_slug(text: str) -> str:
    """`text` (an agent spec) made safe for a file or folder name."""
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in text)[:60]


def validate_specs(specs: Sequence[str], rules: Rules) -> None:
    """Build every spec once, so a typo or a missing checkpoint fails before any game."""
    for spec in specs:
        if not isinstance(spec, str) or not spec:
            raise ValueError(f"agent specs are strings such as 'random'; got {spec!r}")
        try:
            make_agent(spec, rules, 0)
        except ValueError as err:
            if spec.partition(":")[0] not in AGENT_KINDS:
                raise  # make_agent's message lists the known agents
            raise ValueError(f"cannot build agent {spec!r}: {err}; {_accepted()}") from None
        except OSError as err:
            raise ValueError(f"cannot build agent {spec!r}: {err}; {_accepted()}") from None


def _accepted() -> str:
    return f"accepted agents: {sorted(AGENT_KINDS)} (checkpoint agents are written kind:path)"


__all__ = [
    "SEED_TAGS", "ObjectSeats", "Seats", "SpecSeats", "agent_seed", "file_slug", "play_out",
    "validate_specs",
]
