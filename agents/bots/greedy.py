"""`GreedyAgent`: a simple, team-blind baseline that always takes the trick when it cheaply can.

Everything it uses is the observation (through `SeatView`), the action mask and the static
action table. Its rules, in order:

Role phase: declare nothing, with the auto-play defaults of docs/rules.md §7
(`baohuang_env.autoplay.RoleDefaults`): ACCEPT the emperor card; answer NO (hidden guard, hidden
solo, no grab, rebellion, kick or surrender); in the calling presets call the lowest triple,
else abdicate. The bot has no model of any role decision: these defaults serve every preset.

Play phase:

1. **Go out.** If one legal play empties the hand, make it.
2. **Lead the weakest group.** When leading, lead the lowest rank held, the whole group of
   that rank, without jokers (hold-the-sixes makes the 6s illegal until they are all that is
   left, so the mask decides). When only 6s and jokers are left, lead all the jokers at once
   (the 6s must wait for them).
3. **Follow with the cheapest winning play.** Every legal play beats the play to beat, so the
   cheapest one is chosen by, in order: fewest big jokers, fewest small jokers, fewest 2s,
   lowest rank. A BJ, SJ or 2 is therefore never used when a play without it is legal.
4. **Save jokers and 2s.** If even the cheapest winning play uses a joker or a 2, make it only
   when it is worth it: it leaves at most `SPEND_AT` (8) cards in the hand (the end game,
   when taking the lead matters most). Otherwise pass.
5. **Pass** when nothing but pass is legal.

The play-phase rule exists twice: here, reading a seat's observation, for every driver that
gives one; and compiled, in `baohuang_env.batched.kernels` (`_greedy_move`), reading the hand and
mask of a batch row inside the engine's kernel loop (the search's cheap play-outs,
`BatchedGames.play_greedy`), where no observation is built and no Python runs per move. Both
read one set of per-play tables (`greedy_tables`) and one `SPEND_AT`;
tests/test_greedy_kernel.py pins the two choices to each other.
"""

from __future__ import annotations

import numpy as np

from baohuang_env.actions import FIRST_PLAY, PASS, action_table
from baohuang_env.batched.kernels import GREEDY_SPEND_AT, greedy_tables
from baohuang_env.rules import Rules

from baohuang_env.autoplay import RoleDefaults
from ..view import SeatView


class GreedyAgent:
    """Cheapest winning play when following, weakest whole group when leading; saves jokers
    and 2s until the end game. See the module docstring for the exact rules."""

    uses_observation = True

    #: Spend a play with jokers or 2s when following only if it leaves at most this many cards.
    SPEND_AT = GREEDY_SPEND_AT

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        t = action_table(rules)
        self.table = t
        g = greedy_tables(rules)  # lexicographic cheapness: big jokers, small jokers, 2s, rank
        self._cost, self._size, self._rank, self._n = g.cost, g.size, g.rank, g.n
        self._plain, self._precious = g.plain.astype(bool), g.precious.astype(bool)
        self._plays_end = FIRST_PLAY + t.num_plays  # the call block (calling presets) follows the plays
        self.roles = RoleDefaults(rules)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        mask = np.asarray(action_mask)
        plays = np.flatnonzero(mask[FIRST_PLAY:self._plays_end])
        if plays.size == 0:
            if mask[PASS]:  # (never APPLY_WIND)
                return PASS
            return self.roles.choose(observation, mask)
        view = SeatView(observation, self.rules)
        held = int(view.hand.sum())
        out = plays[self._size[plays] == held]
        if out.size:  # rule 1: go out
            return int(out[0]) + FIRST_PLAY
        if not mask[PASS]:  # rule 2: lead the lowest whole group without jokers
            ranks = self._rank[plays]
            whole = plays[self._plain[plays] & (ranks >= 0) & (self._n[plays] == view.hand[np.maximum(ranks, 0)])]
            if whole.size:
                return int(whole[np.argmin(self._cost[whole])]) + FIRST_PLAY
            return int(plays[np.argmax(self._size[plays])]) + FIRST_PLAY  # 6s and jokers: all jokers
        best = int(plays[np.argmin(self._cost[plays])])  # rule 3: cheapest winning play
        if self._precious[best] and held - int(self._size[best]) > self.SPEND_AT:
            return PASS  # rule 4: not worth a joker or a 2 yet
        return best + FIRST_PLAY


__all__ = ["GreedyAgent"]
