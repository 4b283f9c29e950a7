"""Advice: per-decision action features that a DMC network may read beside each action's
static row (`agents.nets.action_features`), computed from the acting seat's observation alone.

Why: the static row says what an action is (its cards, its rank), not what it does to this
hand at this table. The scripted bot already computes the most useful such facts, and a
network starting from them learns where to deviate from the bot (residual learning over a
scripted policy) instead of rediscovering card tracking from scratch. Which advice a run
uses is a config choice (`DMCConfig.advice`) that its checkpoint records, so a trained agent
always computes the same columns it was trained with.

"heuristic" advice, one column each (`HEURISTIC_COLUMNS`):

* `advised`: 1 on the action the heuristic bot (`agents.bots.heuristic.HeuristicAgent`) would take;
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

from baohuang_env.actions import FIRST_PLAY, ActionTable, action_table
from baohuang_env.rules import Rules

from ..bots.heuristic import HeuristicAgent

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
        # per action id (zeros for every id but the plays'): is a play, cards, size, count and rank
        # of the ranked cards, so that one lookup by the legal ids serves plays and other actions alike
        self._is_play = _per_action(t, np.ones(t.num_plays)).astype(bool)
        self._size = _per_action(t, t.size)
        self._n = _per_action(t, t.n)
        self._rank = _per_action(t, np.maximum(t.rank, 0))
        self._counts = _per_action(t, t.counts)
        self._num_kinds = t.kinds.num_kinds

    def rows(self, observation: np.ndarray, mask: np.ndarray, legal: np.ndarray) -> np.ndarray:
        """(len(legal), size) float32: the advice of each legal action id in `legal`."""
        out = np.zeros((legal.size, self.size), dtype=np.float32)
        action, odds = self.bot.decide(observation, mask)  # odds: the bot's view and model, None without plays
        out[:, 0] = legal == action
        is_play = self._is_play[legal]
        if not is_play.any():
            out[:, 4] = 1.0
            return out
        v = odds.view
        hand = v.hand
        held = max(int(hand.sum()), 1)
        size, n = self._size[legal], self._n[legal]  # 0 for the other actions: they keep the whole hand
        nobeat = np.zeros(legal.size)
        nobeat[is_play] = self.bot.nobeat(v, legal[is_play] - FIRST_PLAY, odds)
        out[:, 1] = nobeat
        out[:, 2] = size == held
        out[:, 3] = (n > 0) & (n < hand[self._rank[legal]])
        out[:, 4] = (held - size) / held
        out[:, 5] = (self._counts[legal] != hand).sum(axis=1) / self._num_kinds
        return out


def _per_action(t: ActionTable, per_play: np.ndarray) -> np.ndarray:
    """int64 `per_play` (one row per play) spread over all action ids, zeros off the plays."""
    out = np.zeros((t.num_actions, *per_play.shape[1:]), dtype=np.int64)
    out[FIRST_PLAY:FIRST_PLAY + t.num_plays] = per_play
    return out


def make_advice(kind: str, rules: Rules) -> HeuristicAdvice | None:
    """The advice of `kind` for these rules, or None for "none"."""
    check_advice(kind)
    return HeuristicAdvice(rules) if kind == "heuristic" else None


__all__ = ["ADVICE_KINDS", "HEURISTIC_COLUMNS", "HeuristicAdvice", "advice_size", "check_advice", "make_advice"]
