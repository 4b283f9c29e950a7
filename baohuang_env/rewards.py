"""Rewards from deal scores: the one place a seat's score becomes its return, for the envs
(`reward_mode=` of `raw_env` and `BaohuangGymEnv`) and the trainers (`reward_mode:` of their
configs) alike.

"score": the seat's deal score (zero-sum under every preset but qingdao's team scores),
times `scale`; "win": +1, -1 or 0 by the sign of that score (its side won, lost or drew).
"""

from __future__ import annotations

#: The reward modes, in the order error messages list them.
REWARD_MODES = ("score", "win")


def check_reward_mode(mode: str) -> str:
    """`mode` itself when it is a reward mode; otherwise ValueError listing the modes."""
    if mode not in REWARD_MODES:
        raise ValueError(f"reward_mode {mode!r} is not supported; use one of {list(REWARD_MODES)}")
    return mode


def reward(score: int | float, mode: str, scale: float = 1) -> float:
    """The return of a seat that scored `score` in a deal: `score * scale` in mode "score",
    the sign of `score` (+1, -1 or 0) in mode "win". With the default scale an integer score
    gives an integer reward (the AEC env's rewards stay ints)."""
    if mode == "score":
        return score * scale
    if mode == "win":
        return int(score > 0) - int(score < 0)
    check_reward_mode(mode)
    raise AssertionError("unreachable")  # check_reward_mode raised


__all__ = ["REWARD_MODES", "check_reward_mode", "reward"]
