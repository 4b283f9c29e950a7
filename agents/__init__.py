"""Agents: anything with `act(observation, action_mask) -> int`.

Scripted baselines live here beside the trainers; `make_agent(spec, rules)` builds any of
them from a name such as "random" or "autoplay".
"""

from .base import AGENT_KINDS, Agent, make_agent, register_agent
from .scripted import AutoPlayAgent, RandomAgent

register_agent("random", lambda arg, rules, seed: RandomAgent(seed))
register_agent("autoplay", lambda arg, rules, seed: AutoPlayAgent(rules))

__all__ = ["AGENT_KINDS", "Agent", "AutoPlayAgent", "RandomAgent", "make_agent", "register_agent"]
