"""Advice: per-decision action features that a DMC network may read beside each action's
static row (`agents.action_features`), computed from the acting seat's observation alone.

Why: the static row says what an action is (its cards, its rank), not what it does to this
hand at this table. The scripted bot already computes the most useful such facts, and a
network starting from them learns where to deviate from the bot (residual learning over a
scripted policy) instead of rediscovering card tracking from scratch. Which advice a run
uses is a config choice (`DMCConfig.advice`) that its checkpoint records, so a trained agent
always computes the same columns it was trained with.

"heuristic" advice, one column each (`HEURISTIC_COLUMNS`):

* `advised`: 1 on the action the heuristic bot (`agents.heuristic.HeuristicAgent`) would take;
* `nobeat`: for a play, the bot's card-tracking estimate of the chance that no seat that may
  beat it can beat it (0 for pass and role decisions);
* `goes_out`: the play empties my hand;
* `breaks_group`: the play takes some but not all of my cards of its rank;
* `kept`: the share of my hand I keep after the action;
* `groups_after`: the kinds of cards I still hold after it, over the number of kinds.

Everything is read from the observation (through `SeatView`) and the action mask; no hidden
card is used, so an agent acting on advice sees only what its seat may see.
"""

from __future__ import annotations

import numpy as np

from baohuang_env.actions import FIRST_PLAY, action_table
from baohuang_env.rules import Rules

from .heuristic import HeuristicAgent
from .view import SeatView

#: Advice kinds a run may choose ("none": the static rows only).
ADVICE_KINDS = ("none", "heuristic")
HEURISTIC_COLUMNS = ("advised", "nobeat", "goes_out", "breaks_group", "kept", "groups_after")


def advice_size(kind: str) -> int:
    """Columns that advice `kind` appends to every action row."""
    check_advice(kind)
    return len(HEURISTIC_COLUMNS) if kind == "heuristic" else 0


def check_advice(kind: str) -> None:
    if kind not in ADVICE_KINDS:
        raise ValueError(f"advice must be one of {', '.join(ADVICE_KINDS)}; got {kind!r}")


class HeuristicAdvice:
    """The "heuristic" advice columns of the legal actions of one decision."""

    size = len(HEURISTIC_COLUMNS)

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.bot = HeuristicAgent(rules)
        t = action_table(rules)
        self._plays_end = FIRST_PLAY + t.num_plays
        self._size = t.size.astype(np.int64)
        self._n = t.n.astype(np.int64)
        self._rank = np.maximum(t.rank.astype(np.int64), 0)
        self._counts = t.counts.astype(np.int64)
        self._num_kinds = t.kinds.num_kinds

    def rows(self, observation: np.ndarray, mask: np.ndarray, legal: np.ndarray) -> np.ndarray:
        """(len(legal), size) float32: the advice of each legal action id in `legal`."""
        out = np.zeros((legal.size, self.size), dtype=np.float32)
        out[:, 0] = legal == self.bot.act(observation, mask)
        is_play = (legal >= FIRST_PLAY) & (legal < self._plays_end)
        if not is_play.any():
            out[:, 4] = 1.0
            return out
        v = SeatView(observation, self.rules)
        hand = v.hand
        held = max(int(hand.sum()), 1)
        plays = legal[is_play] - FIRST_PLAY
        size, n = self._size[plays], self._n[plays]
        out[is_play, 1] = self.bot.nobeat(v, plays)
        out[is_play, 2] = size == held
        out[is_play, 3] = (n > 0) & (n < hand[self._rank[plays]])
        out[:, 4] = 1.0
        out[is_play, 4] = (held - size) / held
        after = hand[None, :] - self._counts[plays]
        out[is_play, 5] = np.count_nonzero(after, axis=1) / self._num_kinds
        out[~is_play, 5] = np.count_nonzero(hand) / self._num_kinds
        return out


def make_advice(kind: str, rules: Rules) -> HeuristicAdvice | None:
    """The advice of `kind` for these rules, or None for "none"."""
    check_advice(kind)
    return HeuristicAdvice(rules) if kind == "heuristic" else None


__all__ = ["ADVICE_KINDS", "HEURISTIC_COLUMNS", "HeuristicAdvice", "advice_size", "check_advice", "make_advice"]
