"""Scripted baselines that need nothing but the action mask and the action table."""

from __future__ import annotations

import numpy as np

from baohuang_env.melds import DECISION_ID, PASS, action_table
from baohuang_env.rules import Rules


class RandomAgent:
    """Uniform over the legal actions."""

    uses_observation = False  # the harness may skip encoding observations for it

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        """Reseed at the start of an episode (the Gymnasium env calls this)."""
        self.rng = np.random.default_rng(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = np.asarray(action_mask).view(bool).nonzero()[0] if action_mask.dtype == np.int8 \
            else np.flatnonzero(action_mask)
        return int(legal[self.rng.integers(legal.size)])


class AutoPlayAgent:
    """The auto-play (托管) policy of RULES.md §7, the online clients' default bot.

    * Role phase: declare nothing: ACCEPT the throne, answer NO (hidden guard, hidden solo).
    * Following: always pass.
    * Leading: the lowest single card it may lead. Under hold-the-sixes a lone 6 is illegal
      unless it is the whole hand, so this is the lowest non-6 card, or all the 6s when only
      6s are left; with only jokers left, one small joker, else one big joker.

    Everything follows from the mask: the lowest legal single is the lowest card it may lead,
    and when no single is legal (only 6s left) the one legal play is all the 6s.
    """

    _ROLE_PREFERENCE = (DECISION_ID["ACCEPT"], DECISION_ID["NO"])
    uses_observation = False  # the mask alone decides

    def __init__(self, rules: Rules) -> None:
        table = action_table(rules)
        kinds = table.kinds
        singles = [table.action_id_of(r, 1, 0, 0) for r in range(kinds.num_ranks)]
        singles += [table.action_id_of(-1, 0, 1, 0), table.action_id_of(-1, 0, 0, 1)]
        self._singles = np.array(singles)  # lowest card first

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        mask = np.asarray(action_mask)
        if mask[PASS]:
            return PASS
        for d in self._ROLE_PREFERENCE:
            if mask[d]:
                return d
        legal_singles = self._singles[mask[self._singles] != 0]
        if legal_singles.size:
            return int(legal_singles[0])
        legal = np.flatnonzero(mask)
        if legal.size == 0:
            raise ValueError("no legal action in the mask: is it this seat's turn?")
        return int(legal[0])  # only 6s left: the one legal play is all of them
