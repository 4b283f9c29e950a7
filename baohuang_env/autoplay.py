"""The auto-play (托管) policy: the online clients' default bot, and the rules' own answer to
every role-phase prompt (docs/rules.md §7). It is part of the rules: the team evaluation
protocol answers the role phase with it, and it is the Gymnasium view's default opponent.

It needs nothing but the action mask and the action table (and, in the calling presets, the
seat's own card groups from its observation).
"""

from __future__ import annotations

import numpy as np

from .actions import DECISION_ID, FIRST_PLAY, PASS, action_table
from .agent import register_agent
from .observation import observation_layout
from .rules import Rules

ACCEPT = DECISION_ID["ACCEPT"]
ABDICATE = DECISION_ID["ABDICATE"]
NO = DECISION_ID["NO"]


class RoleDefaults:
    """The auto-play answers to every role-phase prompt (docs/rules.md §7 table), which declare
    nothing:

    * ACCEPT the throne (also weihai's decline prompt);
    * call round (叫牌): CALL the triple of the lowest rank (ties by suit ♣ ♦ ♥ ♠, the jokers
      after every rank), never a quad; with no triple ABDICATE (its tribute is forced by the
      rules); in the forced round (逼位) CALL the lowest triple;
    * every other prompt (open/hidden solo, open/hidden guard, grab, rebellion, kick,
      surrender): NO, i.e. hidden solo, hidden guard, no grab, no rebellion, no kick, no
      surrender.

    A triple and a quad are both legal CALLs; only the seat's own card groups (the "my_groups"
    observation slice of the calling presets: copies of each callable suit-rank, in
    `table.calls` order, read back through the observation layout) tell them apart, so
    `needs_observation` is True there.
    """

    def __init__(self, rules: Rules) -> None:
        table = action_table(rules)
        self.first_call, self.num_calls = table.first_call, table.num_calls
        self.needs_observation = self.num_calls > 0
        if self.needs_observation:
            self._layout = observation_layout(rules)

    def choose(self, observation: np.ndarray | None, mask: np.ndarray) -> int:
        """The default decision among the legal ones in `mask` (a role-phase mask)."""
        if mask[ACCEPT]:
            return ACCEPT
        if self.num_calls:
            calls = np.flatnonzero(mask[self.first_call:self.first_call + self.num_calls])
            if calls.size:
                groups = self._layout.read(observation, "my_groups")
                triples = calls[groups[calls] == 3]  # table.calls is already in the tie order
                if triples.size:
                    return int(triples[0]) + self.first_call
                if not mask[ABDICATE]:  # forced round: only triples are offered
                    return int(calls[0]) + self.first_call
        for d in (ABDICATE, NO):
            if mask[d]:
                return d
        legal = np.flatnonzero(mask)
        if legal.size == 0:
            raise ValueError("no legal action in the mask: is it this seat's turn?")
        return int(legal[0])


class AutoPlayAgent:
    """The auto-play (托管) policy of docs/rules.md §7, the online clients' default bot.

    * Role phase: declare nothing (`RoleDefaults`): ACCEPT the throne, call the lowest
      triple or else abdicate in the calling presets, answer NO to everything else (hidden
      guard, hidden solo, no grab, rebellion, kick or surrender).
    * Following: always pass (never APPLY_WIND in qingdao).
    * Leading: the lowest single card it may lead (SP, the special card of generic216, last).
      Under hold-the-sixes a lone 6 is illegal unless it is the whole hand, so this is the
      lowest non-6 card, or all the 6s when only 6s are left; with only jokers left, one
      small joker, else one big joker.

    Everything but a call follows from the mask: the lowest legal single is the lowest card
    it may lead, and when no single is legal (only 6s left) the one legal play is all the
    6s. In the calling presets it reads its card groups from the observation to tell a
    triple from a quad, so `uses_observation` is True there and False elsewhere.
    """

    def __init__(self, rules: Rules) -> None:
        table = action_table(rules)
        kinds = table.kinds
        singles = [table.action_id_of(r, 1, 0, 0) for r in range(kinds.num_ranks)]
        singles += [table.action_id_of(-1, 0, 1, 0), table.action_id_of(-1, 0, 0, 1)]
        if kinds.special:
            singles.append(table.action_id_of(-1, 0, 0, 0, 1))
        self._singles = np.array(singles)  # lowest card first
        self.roles = RoleDefaults(rules)
        self.uses_observation = self.roles.needs_observation

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        mask = np.asarray(action_mask)
        if mask[PASS]:
            return PASS
        if mask[1:FIRST_PLAY].any() or (self.roles.num_calls and mask[self.roles.first_call:].any()):
            return self.roles.choose(observation, mask)
        legal_singles = self._singles[mask[self._singles] != 0]
        if legal_singles.size:
            return int(legal_singles[0])
        legal = np.flatnonzero(mask)
        if legal.size == 0:
            raise ValueError("no legal action in the mask: is it this seat's turn?")
        return int(legal[0])  # only 6s left: the one legal play is all of them


register_agent("autoplay", lambda arg, rules, seed: AutoPlayAgent(rules))
