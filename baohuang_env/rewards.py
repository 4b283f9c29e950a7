"""Rewards from deal scores: the one place a seat's score becomes its return, for the envs
(`reward_mode=` of `raw_env` and `BaohuangGymEnv`) and the trainers (`reward_mode:` of their
configs) alike.

"score": the seat's deal score (zero-sum under every preset but qingdao's team scores),
times `scale`; "win": +1, -1 or 0 by the sign of that score (its side won, lost or drew).

An illegal move that an env answers with a reward (`illegal_move_reward`) never pays better
than the worst legal deal, or an agent that ignores the action mask would learn to play one.
"""

from __future__ import annotations

import numbers
from typing import TYPE_CHECKING

from .scoring import worst_score

if TYPE_CHECKING:
    from .rules import Rules

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


def illegal_move_reward(rules: Rules, mode: str, value: float | None = None) -> float:
    """The reward an env gives the seat whose illegal move ended the game.

    `value=None` (the envs' default) is the worst legal outcome's reward made strictly worse in
    mode "score" (`worst_score(rules) - 1`: -25 for jj, -49 for weihai), and -1 (a loss) in mode
    "win", like PettingZoo's classic envs. An explicit `value` better than the worst legal
    reward is refused with ValueError: it would pay an agent that ignores the mask for playing
    illegal moves (with -1 in score mode, where a legal jj deal against greedy averages -1.1).
    """
    worst = reward(worst_score(rules), check_reward_mode(mode))
    if value is None:
        return float(worst - 1 if mode == "score" else worst)
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or value != value:
        raise ValueError(f"illegal_reward must be a number or None, got {value!r}")
    if value > worst:
        raise ValueError(
            f"illegal_reward={value} pays better than the worst legal outcome of preset {rules.preset!r} "
            f"({worst} in reward_mode {mode!r}), so an agent ignoring the action mask would learn illegal moves; "
            f"give a value <= {worst}, or None for the default {illegal_move_reward(rules, mode)}")
    return float(value)


__all__ = ["REWARD_MODES", "check_reward_mode", "illegal_move_reward", "reward"]
