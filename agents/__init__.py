"""Agents: anything with `act(observation, action_mask) -> int`.

Scripted baselines live here (`random`, `autoplay`), beside the trainers that will come.
`make_agent(name, rules)` builds one by name.
"""

from .base import Agent, make_agent
from .scripted import AutoPlayAgent, RandomAgent

__all__ = ["Agent", "AutoPlayAgent", "RandomAgent", "make_agent"]
