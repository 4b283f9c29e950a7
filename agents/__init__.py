"""The bots and the trained agents: greedy and heuristic scripted bots, DMC and PPO.

Importing this package registers their kinds with `baohuang_env.agent.register_agent`
("greedy", "heuristic", "dmc:PATH", "ppo:PATH"); the env package finds it through its
`baohuang_env.agents` entry point, so `make_agent("heuristic", rules)` works anywhere.
The protocol, the registry, the random bot and the auto-play bot live in `baohuang_env`.
"""

from baohuang_env.agent import AGENT_KINDS, Agent, RandomAgent, make_agent, register_agent
from baohuang_env.autoplay import AutoPlayAgent

from .greedy import GreedyAgent
from .heuristic import HeuristicAgent

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
