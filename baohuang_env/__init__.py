"""Baohuang (保皇): a five-player, four-deck Shandong card game as an RL environment.

The rules engine (`Game`, `Rules`, the action table) is pure Python + numpy. The PettingZoo
AEC environment is `baohuang_env.env(...)` / `raw_env(...)`; the Gymnasium single-agent view
is registered as `Baohuang-v0`.
"""

from .game import Game, GameResult, IllegalActionError
from .melds import (
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
from .rules import PRESETS, Rules, get_rules

__all__ = [
    "DECISIONS", "FIRST_PLAY", "LAYOUT_VERSION", "PASS", "PRESETS",
    "ActionTable", "Game", "GameResult", "IllegalActionError", "Play", "Rules",
    "action_table", "beats", "format_play", "get_rules", "parse_play",
]

# The environments (adapters over the pure engine above) and their registrations.
from .aec_env import env, raw_env

__all__ += ["env", "raw_env"]


def _register() -> None:
    import gymnasium
    import pettingzoo

    if "baohuang/baohuang-v0" not in pettingzoo.aec_registry:
        pettingzoo.register("aec", "baohuang/baohuang-v0", entry_point="baohuang_env:env")
    if "Baohuang-v0" not in gymnasium.registry:
        gymnasium.register("Baohuang-v0", entry_point="baohuang_env.gym_env:BaohuangGymEnv")


_register()
