"""The agent interface shared by scripted bots, trained networks and the evaluation harness."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np

from baohuang_env.rules import Rules


@runtime_checkable
class Agent(Protocol):
    """Chooses an action for one seat from what that seat may see.

    `observation` is the seat's float32 vector (`baohuang_env.encoding.Encoder`), and
    `action_mask` the int8 mask of legal actions; the result must be a legal action id.
    """

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int: ...


def make_agent(name: str, rules: Rules, seed: int | None = None) -> Agent:
    """Build an agent by name: "random" or "autoplay". Raises ValueError listing the names."""
    from .scripted import AutoPlayAgent, RandomAgent

    makers: dict[str, Any] = {
        "random": lambda: RandomAgent(seed),
        "autoplay": lambda: AutoPlayAgent(rules),
    }
    if name not in makers:
        raise ValueError(f"unknown agent {name!r}; available agents: {sorted(makers)}")
    return makers[name]()
