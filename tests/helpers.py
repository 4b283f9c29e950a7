"""Small builders shared by the test modules: hands and plays from card text."""

from __future__ import annotations

from baohuang_env import Play, action_table, get_rules

RULES = get_rules("jj")
TABLE = action_table(RULES)
KINDS = TABLE.kinds


def hand(text: str) -> list[int]:
    """Card counts (12 kinds) from text such as "7 7 SJ", "7x2 9 Q BJ" or "10 T" (T = ten)."""
    counts = [0] * KINDS.num_kinds
    for tok in text.split():
        name, _, n = tok.partition("x")
        counts[KINDS.index("10" if name == "T" else name)] += int(n or 1)
    return counts


def play_id(text: str) -> int:
    """The action id of the play whose cards are written as for `hand`: "7 7 SJ" -> 77+SJ."""
    h = hand(text)
    ranks = [(i, c) for i, c in enumerate(h[: KINDS.num_ranks]) if c]
    assert len(ranks) <= 1, f"{text!r} has more than one rank"
    rank, n = (KINDS.names[ranks[0][0]], ranks[0][1]) if ranks else (None, 0)
    return TABLE.action_id(Play(rank, n, h[KINDS.sj], h[KINDS.bj]))
