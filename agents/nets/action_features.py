"""Action features: what an action does, as a fixed float32 row per action id. The networks
of both trainers (`agents.nets.networks.ActionScorer`) read an action through its row.

Row layout (`ActionFeatures.slices`): is_pass (1), role decision one-hot (11), cards of
the play per kind / copies (K), the play's rank one-hot (ranks), and its size, ordinary
cards, small and big jokers scaled to [0, 1]; in the calling presets one more flag, is_call,
and a call's row shows the called kind in "cards" as three copies and in "rank". The table
is built once from the action table.

Every column depends on the action id alone (what depends on the decision, DMC's advice,
comes after these columns: `agents.nets.advice`), so the acting networks keep their first action
layer over them as a table per action id (`agents.nets.networks.StaticActionLayer`).
"""

from __future__ import annotations

import numpy as np

from baohuang_env.cards import COPIES_PER_JOKER, COPIES_PER_RANK, deck_counts
from baohuang_env.actions import DECISIONS, FIRST_PLAY, PASS, action_table
from baohuang_env.rules import Rules

#: Bump when the row layout changes; checkpoints record it.
ACTION_FEATURE_VERSION = 1
_MAX_PLAY_SIZE = COPIES_PER_RANK + 2 * COPIES_PER_JOKER


class ActionFeatures:
    """`table[action_id]` is the feature row of that action."""

    def __init__(self, rules: Rules) -> None:
        t = action_table(rules)
        K, R = t.kinds.num_kinds, t.kinds.num_ranks
        spec = [("is_pass", 1), ("decision", len(DECISIONS)), ("cards", K), ("rank", R), ("shape", 4)]
        if t.num_calls:
            spec.append(("is_call", 1))
        self.slices, off = [], 0
        for name, n in spec:
            self.slices.append((name, off, n))
            off += n
        self.size = off
        table = np.zeros((t.num_actions, self.size), dtype=np.float32)
        table[PASS, 0] = 1.0
        for i in range(len(DECISIONS)):
            table[1 + i, 1 + i] = 1.0
        plays = slice(FIRST_PLAY, FIRST_PLAY + t.num_plays)
        c0 = 1 + len(DECISIONS)
        copies = deck_counts(rules)
        table[plays, c0:c0 + K] = t.counts / copies
        has_rank = np.flatnonzero(t.rank >= 0)
        table[FIRST_PLAY + has_rank, c0 + K + t.rank[has_rank]] = 1.0
        s0 = c0 + K + R
        table[plays, s0] = t.size / _MAX_PLAY_SIZE
        table[plays, s0 + 1] = t.n / COPIES_PER_RANK
        table[plays, s0 + 2] = t.small / COPIES_PER_JOKER
        table[plays, s0 + 3] = t.big / COPIES_PER_JOKER
        for i, (kind, _suit) in enumerate(t.calls):  # suits never matter after the call
            row = table[t.first_call + i]
            row[c0 + kind] = 3 / copies[kind]
            if kind < R:
                row[c0 + K + kind] = 1.0
            row[-1] = 1.0
        table.flags.writeable = False
        self.table = table

    def decode(self, row: np.ndarray) -> dict[str, np.ndarray]:
        return {name: row[o:o + n] for name, o, n in self.slices}
