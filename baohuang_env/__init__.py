"""Baohuang (保皇): a five-player, four-deck Shandong card game as an RL environment.

The rules engine (`Game`, `Rules`, the action table) is pure Python + numpy and imports
nothing else: `from baohuang_env import Game, get_rules` works without PettingZoo,
Gymnasium or torch. The adapters load on first use: the PettingZoo AEC environment is
`baohuang_env.env(...)` / `raw_env(...)`, and the Gymnasium single-agent view is
registered as `Baohuang-v0` when Gymnasium is installed (with a native vector env:
`gymnasium.make_vec("Baohuang-v0", N, vectorization_mode="vector_entry_point")`). Many games
at once: `baohuang_env.batched.games.BatchedGames`, whose array engine plays the play phase on
kernels compiled with Numba (imported only there).
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

#: The release of the `baohuang-rl` distribution (pyproject.toml reads it from here).
__version__ = "0.1.0"

from .actions import (
    DECISIONS,
    FIRST_PLAY,
    LAYOUT_VERSION,
    PASS,
    ActionTable,
    Play,
    action_table,
    beats,
    format_play,
    parse_play,
)
from .agent import Agent, make_agent, register_agent
from .game import Game, GameResult, IllegalActionError
from .rules import PRESETS, Rules, get_rules

#: Names served lazily by `__getattr__`: the adapters over the engine, which need PettingZoo
#: and Gymnasium.
_ADAPTERS = {"env": "aec_env", "raw_env": "aec_env", "BaohuangGymEnv": "gym_env", "BaohuangVectorEnv": "gym_vector"}

__all__ = [
    "DECISIONS", "FIRST_PLAY", "LAYOUT_VERSION", "PASS", "PRESETS",
    "ActionTable", "Agent", "BaohuangGymEnv", "BaohuangVectorEnv", "Game", "GameResult", "IllegalActionError", "Play",
    "Rules",
    "action_table", "beats", "env", "format_play", "get_rules", "make_agent", "parse_play", "raw_env",
    "register_agent",
]


def __getattr__(name: str) -> Any:
    module = _ADAPTERS.get(name)
    if module is None:
        raise AttributeError(f"module 'baohuang_env' has no attribute {name!r}")
    return getattr(import_module(f".{module}", __name__), name)


def _register() -> None:
    """Register the envs with Gymnasium's and PettingZoo's registries where they are
    installed (the entry points are strings: no adapter is imported until an env is made)."""
    try:
        import gymnasium
    except ImportError:  # the engine works without it
        pass
    else:
        if "Baohuang-v0" not in gymnasium.registry:
            gymnasium.register("Baohuang-v0", entry_point="baohuang_env.gym_env:BaohuangGymEnv",
                               vector_entry_point="baohuang_env.gym_vector:BaohuangVectorEnv")
    try:
        import pettingzoo
    except ImportError:
        pass
    else:
        if "baohuang/baohuang-v0" not in pettingzoo.aec_registry:
            pettingzoo.register("aec", "baohuang/baohuang-v0", entry_point="baohuang_env:env")


_register()
