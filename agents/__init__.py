"""Agents: anything with `act(observation, action_mask) -> int`.

Scripted baselines live here beside the trainers; `make_agent(spec, rules)` builds any of
them from a name such as "random" or "autoplay".
"""

from .base import AGENT_KINDS, Agent, make_agent, register_agent
from .greedy import GreedyAgent
from .heuristic import HeuristicAgent
from .scripted import AutoPlayAgent, RandomAgent

register_agent("random", lambda arg, rules, seed: RandomAgent(seed))
register_agent("autoplay", lambda arg, rules, seed: AutoPlayAgent(rules))
register_agent("greedy", lambda arg, rules, seed: GreedyAgent(rules))
register_agent("heuristic", lambda arg, rules, seed: HeuristicAgent(rules))


def _dmc_agent(arg, rules, seed):
    if not arg:
        raise ValueError("a DMC agent needs its checkpoint: dmc:path/to/checkpoint.pt")
    from .dmc.agent import DMCAgent  # torch is imported only when a DMC agent is asked for

    return DMCAgent.from_checkpoint(arg, rules)


register_agent("dmc", _dmc_agent)


def _ppo_agent(arg, rules, seed):
    if not arg:
        raise ValueError("a PPO agent needs its checkpoint: ppo:path/to/model.pt")
    from .ppo.agent import PPOAgent  # torch is imported only when a PPO agent is asked for

    return PPOAgent.from_checkpoint(arg, rules)


register_agent("ppo", _ppo_agent)

__all__ = [
    "AGENT_KINDS", "Agent", "AutoPlayAgent", "GreedyAgent", "HeuristicAgent", "RandomAgent", "make_agent",
    "register_agent",
]
