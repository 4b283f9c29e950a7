"""The agent interface and the registry that builds agents from names.

An agent spec is a string: a registered name ("random", "autoplay", ...) or "kind:arg"
(e.g. "dmc:runs/x/checkpoint.pt" once a trainer registers its kind). Specs, not objects,
travel to worker processes, so every agent can be rebuilt anywhere from its spec.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, runtime_checkable

import numpy as np

from baohuang_env.rules import Rules


@runtime_checkable
class Agent(Protocol):
    """Chooses an action for one seat from what that seat may see.

    `observation` is the seat's float32 vector (`baohuang_env.encoding.Encoder`), and
    `action_mask` the int8 mask of legal actions; the result must be a legal action id.
    Agents may also define `reset(seed)`, called at the start of each game.
    """

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int: ...


#: kind -> factory(arg, rules, seed). `arg` is the text after "kind:" (None without one).
AgentFactory = Callable[[str | None, Rules, int | None], Agent]
AGENT_KINDS: dict[str, AgentFactory] = {}


def register_agent(kind: str, factory: AgentFactory) -> None:
    """Make `make_agent(kind)` / `make_agent("kind:arg")` build agents with `factory`."""
    AGENT_KINDS[kind] = factory


def make_agent(spec: str, rules: Rules, seed: int | None = None) -> Agent:
    """Build an agent from its spec. Raises ValueError listing the known kinds."""
    kind, _, arg = spec.partition(":")
    if kind not in AGENT_KINDS:
        raise ValueError(f"unknown agent {spec!r}; available agents: {sorted(AGENT_KINDS)} "
                         "(checkpoint agents are written kind:path)")
    return AGENT_KINDS[kind](arg or None, rules, seed)
