"""The bots and the trained agents: greedy and heuristic scripted bots, DMC and PPO, and the
shipped agents.

`register()` registers their kinds with `baohuang_env.agent.register_agent` ("greedy",
"heuristic", "dmc:PATH", "ppo:PATH", "pretrained[:NAME]", and "roles:SPEC": SPEC's role-phase
answers with the heuristic's card play, `agents.bots.role_answers`); importing this package calls it,
and the env package calls it through the `baohuang_env.agents` entry point, so
`make_agent("heuristic", rules)` works anywhere. The protocol, the registry, the random bot
and the auto-play bot live in `baohuang_env`.

Where things live: `bots` (the scripted players and the heuristic's role answers), `view` and
`guard_belief` (what a seat knows, read by bots and networks alike), `nets` (the networks,
action features and heads both trainers learn), `dmc` and `ppo` (the two trainers and their
agents), `training` (what the trainers share around their loops), `files` (checkpoints, the
ONNX export, file info, provenance), `search` with `play_belief` (decision-time search), and
`pretrained` (the shipped agents; with `configs/` and `role_models/`, package data).
"""

from baohuang_env.agent import AGENT_KINDS, Agent, RandomAgent, make_agent, register_agent
from baohuang_env.autoplay import AutoPlayAgent

from .bots.greedy import GreedyAgent
from .bots.heuristic import HeuristicAgent
from .pretrained import make_pretrained
from .bots.role_answers import make_role_answers
from .bots.role_policy import role_choices


def _dmc_agent(arg, rules, seed):
    if not arg:
        raise ValueError("a DMC agent needs its checkpoint: dmc:path/to/checkpoint.pt (or pretrained:NAME)")
    from .dmc.agent import DMCAgent  # torch is imported only when a DMC agent is asked for

    return DMCAgent.from_checkpoint(arg, rules)


def _ppo_agent(arg, rules, seed):
    if not arg:
        raise ValueError("a PPO agent needs its checkpoint: ppo:path/to/model.pt")
    from .ppo.agent import PPOAgent  # torch is imported only when a PPO agent is asked for

    return PPOAgent.from_checkpoint(arg, rules)


def _heuristic_agent(arg, rules, seed):
    """`heuristic` or `heuristic:roles=X`: X is all (default), none (the auto-play role
    defaults) or prompt kinds joined by commas whose fitted models alone are used
    (`agents.bots.role_policy`)."""
    if not arg:
        return HeuristicAgent(rules)
    key, sep, roles = arg.partition("=")
    if key != "roles" or not sep:
        raise ValueError(f"unknown heuristic argument {arg!r}; write heuristic:roles=X with X one of "
                         f"{list(role_choices(rules))}")
    return HeuristicAgent(rules, roles=roles)


def _search_agent(arg, rules, seed):
    from .search import make_search  # the search imports the batched engine (numba) and a DMC base (torch)

    return make_search(arg, rules, seed)


def register() -> None:
    """Register this package's agent kinds (the `baohuang_env.agents` entry point)."""
    register_agent("greedy", lambda arg, rules, seed: GreedyAgent(rules))
    register_agent("heuristic", _heuristic_agent)
    register_agent("dmc", _dmc_agent)
    register_agent("ppo", _ppo_agent)
    register_agent("pretrained", make_pretrained)
    register_agent("roles", make_role_answers)
    register_agent("search", _search_agent)


register()

__all__ = [
    "AGENT_KINDS", "Agent", "AutoPlayAgent", "GreedyAgent", "HeuristicAgent", "RandomAgent", "make_agent",
    "register", "register_agent",
]
