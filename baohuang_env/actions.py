"""The action table: every action of a rule set, built once, and vectorized legality.

Layout of the single `Discrete(N)` action space (stable: checkpoints depend on it):

    id 0                      PASS
    ids 1 .. len(DECISIONS)   role-phase decisions, in the order of `DECISIONS`
    FIRST_PLAY ..             plays. A play is (rank, n, small, big, special): n >= 0 cards of
                              one ordinary rank plus `small` small jokers, `big` big jokers and
                              (generic216 only) `special` = 0 or 1 special card SP (特画).
                              Plays with n >= 1 come first, ordered by rank (low to high),
                              then n (1..16), then small (0..4), then big (0..4), then special
                              (0..1, only in a deck with SP); then the jokers-only plays
                              (24, or 49 with SP) in the same joker order.
    first_call ..             the calls of a calling preset (docs/rules.md §3.5, §3.7): CALL of
                              each ordinary rank x suit (♣ ♦ ♥ ♠), rank-major, then CALL SJ and
                              CALL BJ where jokers may be called. Absent in the other presets.

Decks without SP (168, 165, and 216 without SP) share one play layout per rank list, so the
168-card table (4036 actions: jj, weihai, lianzhong_simple, qingdao) is unchanged by the
presets. generic216: 10,449 plays, first call 10,461, 10,515 actions.

Because the play block is a dense (rank, n, jokers) grid, "which plays can this hand make"
is one broadcast AND of two small lookup tables written straight into the mask, and "which
plays beat the previous one" is a precomputed row per previous play (docs/rules.md §4.3's
positional rule, or §4.7's roasting rule, vectorized). With SP the table is 2.6x longer and
only plays of equal size can beat each other, so the rows are stored per size group. No
Python loop runs over plays.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache, cached_property

import numpy as np

from .cards import COPIES_PER_JOKER, COPIES_PER_RANK, SUITS, CardKinds, card_kinds
from .rules import Rules

#: Bump when the meaning of any action id changes; checkpoints record it. (The SP and call
#: blocks of the new presets extend the layout without moving any id of the other presets.)
LAYOUT_VERSION = 1

PASS = 0
#: Role-phase decisions (docs/rules.md §3.9). NO answers any yes/no prompt and also means
#: "hidden" in the declaration round (§3.8), so that declining reveals nothing.
DECISIONS = (
    "ACCEPT",  # keep the emperor card (登基)
    "ABDICATE",  # pass the emperor card to the upper seat (让位)
    "DECLINE",  # weihai: a holder of both marked cards declines the throne
    "NO",  # "no" / hidden guard / hidden solo / do not grab, rebel, kick
    "OPEN_SOLO",  # 明独: the emperor declares he plays alone, openly
    "OPEN_GUARD",  # 明保: the guard reveals himself
    "GRAB",  # 抢独: grab the solo
    "REBEL",  # 造反
    "KICK",  # 踢
    "SURRENDER",  # 投降 (qingdao)
    "APPLY_WIND",  # 申请接风 (qingdao)
)
DECISION_ID = {name: 1 + i for i, name in enumerate(DECISIONS)}
FIRST_PLAY = 1 + len(DECISIONS)

#: Full-width answer rows an SP table keeps cached (10,515 bytes each).
_ANSWER_ROWS = 4096
#: Rows per chunk in batched masks (bounds the temporary gathered rows; 1024 measured fastest).
_BATCH_CHUNK = 1024
MAX_SMALL = COPIES_PER_JOKER
MAX_BIG = COPIES_PER_JOKER
MAX_SPECIAL = 1
#: (small, big) combinations of a deck without SP; a deck with SP has twice as many.
_JOKER_COMBOS = (MAX_SMALL + 1) * (MAX_BIG + 1)


class Play(tuple):
    """A play as a named 5-tuple (rank, n, small, big, special); rank is None for jokers
    only, `special` (the SP card of generic216) is 0 unless given."""

    __slots__ = ()

    def __new__(cls, rank: str | None, n: int, small: int, big: int, special: int = 0) -> Play:
        return super().__new__(cls, (rank, n, small, big, special))

    rank = property(lambda self: self[0])
    n = property(lambda self: self[1])
    small = property(lambda self: self[2])
    big = property(lambda self: self[3])
    special = property(lambda self: self[4])

    @property
    def size(self) -> int:
        return self[1] + self[2] + self[3] + self[4]

    def __repr__(self) -> str:
        return f"Play({format_play(self)!r})"


def _as_play(play: tuple) -> Play:
    """A `Play` from a Play or a plain 4- or 5-tuple."""
    return play if type(play) is Play else Play(*play)


@dataclass(frozen=True, eq=False)
class ActionTable:
    """All actions of one rule set as parallel numpy arrays (index = play index, not id)."""

    kinds: CardKinds
    rank: np.ndarray  # (P,) kind index of the ordinary rank, -1 for jokers-only plays
    n: np.ndarray  # (P,) ordinary cards
    small: np.ndarray  # (P,) small jokers
    big: np.ndarray  # (P,) big jokers
    special: np.ndarray  # (P,) special cards SP (all 0 in a deck without SP)
    counts: np.ndarray  # (P, K) cards of each kind the play uses
    ge: np.ndarray  # (P, K + 1) ge[p, v] = cards of the play with kind >= v (ge[:, K] = 0)
    size: np.ndarray  # (P,) total cards
    #: The call block (docs/rules.md §3.5, §3.7): (kind index, suit index into cards.SUITS) per call.
    calls: tuple[tuple[int, int], ...] = ()
    _legal: dict = field(default_factory=dict, init=False, repr=False)  # roasting -> tables

    # --- sizes -----------------------------------------------------------------
    @property
    def num_plays(self) -> int:
        return int(self.rank.size)

    @property
    def num_calls(self) -> int:
        return len(self.calls)

    @property
    def first_call(self) -> int:
        """Action id of the first call (= num_actions when the rules have no calls)."""
        return FIRST_PLAY + self.num_plays

    @property
    def num_actions(self) -> int:
        return FIRST_PLAY + self.num_plays + len(self.calls)

    @property
    def joker_combos(self) -> int:
        """(small, big[, special]) combinations: 25, or 50 in a deck with SP."""
        return _JOKER_COMBOS * (1 + self.kinds.special)

    @property
    def grid_plays(self) -> int:
        """Plays with at least one ordinary card (the dense rank x n x jokers grid)."""
        return self.kinds.num_ranks * COPIES_PER_RANK * self.joker_combos

    # --- id <-> play ----------------------------------------------------------------
    def play_index(self, rank: int, n: int, small: int, big: int, special: int = 0) -> int:
        """Index into the play block of a play given by kind index of its rank (-1 if none)."""
        j = small * (MAX_BIG + 1) + big
        if self.kinds.special:
            j = 2 * j + special
        if n == 0:
            return self.grid_plays + j - 1
        return (rank * COPIES_PER_RANK + n - 1) * self.joker_combos + j

    def action_id_of(self, rank: int, n: int, small: int, big: int, special: int = 0) -> int:
        """Action id of a play given by the kind index of its rank (ignored when n == 0)."""
        return FIRST_PLAY + self.play_index(rank, n, small, big, special)

    def action_id(self, play: tuple) -> int:
        """Action id of a `Play` (or a plain (rank, n, small, big[, special]) tuple); raises
        ValueError when the play cannot exist in this deck."""
        rank, n, small, big, special = _as_play(play)
        raw = tuple(play)  # repr of the plain tuple: format_play cannot show an invalid play
        if not (0 <= small <= MAX_SMALL and 0 <= big <= MAX_BIG and 0 <= n <= COPIES_PER_RANK):
            raise ValueError(f"no such play {raw}: at most 16 of a rank and 4 of each joker")
        if special not in (0, 1) or (special and not self.kinds.special):
            raise ValueError(f"no such play {raw}: special (SP) is 0 or 1, and exists only in a deck with SP "
                             "(generic216)")
        if n + small + big + special == 0:
            raise ValueError("a play has at least one card")
        if (n == 0) != (rank is None):
            raise ValueError(f"play {raw}: give a rank exactly when n > 0")
        r = -1 if rank is None else self.kinds.index(rank)
        if r >= self.kinds.num_ranks:
            raise ValueError(f"play {raw}: jokers are counted in small/big/special, not as the rank")
        return FIRST_PLAY + self.play_index(r, n, small, big, special)

    def play(self, action: int) -> Play:
        """The `Play` of a play action id."""
        p = action - FIRST_PLAY
        if not 0 <= p < self.num_plays:
            what = f" is a call ({self.describe(action)})" if self.is_call(action) else ""
            raise ValueError(f"action {action}{what} is not a play (plays are ids {FIRST_PLAY}..{self.first_call - 1})")
        r = int(self.rank[p])
        return Play(None if r < 0 else self.kinds.ranks[r], int(self.n[p]), int(self.small[p]), int(self.big[p]),
                    int(self.special[p]))

    # --- calls --------------------------------------------------------------------------
    def is_call(self, action: int) -> bool:
        return self.first_call <= action < self.num_actions

    def call_id(self, kind: int | str, suit: int = 0) -> int:
        """Action id of CALL(kind, suit); `kind` is a kind index or name ("K", "SJ"), `suit`
        an index into `cards.SUITS` (0 for a joker). Raises ValueError when not callable."""
        k = self.kinds.index(kind) if isinstance(kind, str) else int(kind)
        try:
            return self.first_call + self._call_index[(k, int(suit))]
        except KeyError:
            jokers = self.num_calls > len(SUITS) * self.kinds.num_ranks
            what = ("ordinary ranks x suits 0..3" + (", SJ and BJ (suit 0)" if jokers else "") if self.calls
                    else "nothing (these rules have no call round)")
            raise ValueError(f"no call of ({kind!r}, suit {suit}) in this table; callable: {what}") from None

    def call_of(self, action: int) -> tuple[int, int]:
        """(kind index, suit index) of a call action id."""
        if not self.is_call(action):
            raise ValueError(f"action {action} is not a call (calls are ids {self.first_call}..{self.num_actions - 1})")
        return self.calls[action - self.first_call]

    @cached_property
    def _call_index(self) -> dict[tuple[int, int], int]:
        return {c: i for i, c in enumerate(self.calls)}

    def describe(self, action: int) -> str:
        """Human-readable name of any action id: "pass", a decision name, card notation, or
        "CALL ♠K" / "CALL BJ"."""
        if action == PASS:
            return "pass"
        if 1 <= action < FIRST_PLAY:
            return DECISIONS[action - 1]
        if self.is_call(action):
            k, s = self.calls[action - self.first_call]
            name = self.kinds.names[k]
            return f"CALL {name}" if k >= self.kinds.num_ranks else f"CALL {SUITS[s]}{name}"
        return format_play(self.play(action))

    # --- legality --------------------------------------------------------------------
    def tables(self, rules: Rules) -> _LegalityTables:
        """The lookup tables of these rules (built once per table and roasting mode)."""
        t = self._legal.get(rules.roasting)
        if t is None:
            t = self._legal[rules.roasting] = _LegalityTables(self, rules.roasting)
        return t

    @property
    def _tables(self) -> _LegalityTables:  # the standard (non-roasting) tables
        t = self._legal.get(False)
        if t is None:
            t = self._legal[False] = _LegalityTables(self, False)
        return t

    def beats_row(self, prev: int, rules: Rules | None = None) -> np.ndarray:
        """Bool (P,): which plays beat play index `prev` (docs/rules.md §4.3; §4.7 when the
        rules roast). Without rules: the standard comparison."""
        t = self.tables(rules) if rules is not None else self._tables
        return t.beats[prev, FIRST_PLAY:FIRST_PLAY + self.num_plays].view(bool)

    def play_beats(self, prev: int, play: int, rules: Rules) -> bool:
        """Does play index `play` beat play index `prev` under the rules? (One lookup: the
        engine's check of a single action, cheaper than a whole `beats_row`.)"""
        return bool(self.tables(rules).beats[prev, FIRST_PLAY + play])

    def legal_mask(self, hand: list[int], prev: int, rules: Rules) -> np.ndarray:
        """Legal actions (int8, N) of a seat in the play phase.

        `hand` holds the seat's card counts as Python ints; `prev` is the play index to
        beat, or -1 when leading (then PASS is illegal). Built from per-rank byte blocks
        joined in one call, plus one vector AND with the cached "beats" row when following.
        """
        t = self._legal.get(rules.roasting) or self.tables(rules)
        R, ns, nb = self.kinds.num_ranks, hand[self.kinds.sj], hand[self.kinds.bj]
        j = min(ns, MAX_SMALL) * (MAX_BIG + 1) + min(nb, MAX_BIG)
        blocks = t.rank_blocks[j]
        prefix = t.prefix_follow if prev >= 0 else t.prefix_lead
        jokers_only = t.jokers_only[j] if rules.jokers_only_plays or not any(hand[:R]) else t.no_jokers_only
        sixes = hand[0]
        if rules.hold_sixes and sixes:
            # 6s only as the whole remaining hand (§4.5): rank 6's block is empty, or holds
            # just "all the 6s" when nothing else (or, where allowed, only jokers) is left
            ranks = hand[1:R]
            six_block = t.six_block(sixes, ns, nb, rules) if not any(ranks) else None
            raw = b"".join((prefix, six_block or t.zero_block, *map(blocks.__getitem__, ranks), jokers_only))
        else:
            raw = b"".join((prefix, *map(blocks.__getitem__, hand[:R]), jokers_only))
        mask = np.frombuffer(bytearray(raw), dtype=np.int8)
        if prev >= 0:
            mask &= t.beats[prev]
        return mask

    def legal_masks_batch(
        self, hands: np.ndarray, prevs: np.ndarray, rules: Rules, out: np.ndarray | None = None
    ) -> np.ndarray:
        """Legal play-phase actions of many seats at once, with array ops over the batch.

        `hands` (B, K) card counts, `prevs` (B,) play index to beat or -1 when leading.
        Returns int8 (B, N), written into `out` when given.
        """
        hands = np.asarray(hands)
        prevs = np.asarray(prevs)
        B = hands.shape[0]
        if out is None:
            out = np.empty((B, self.num_actions), dtype=np.int8)
        for lo in range(0, B, _BATCH_CHUNK):
            hi = min(lo + _BATCH_CHUNK, B)
            self._legal_masks_chunk(hands[lo:hi], prevs[lo:hi], rules, out[lo:hi])
        return out

    def _legal_masks_chunk(self, hands: np.ndarray, prevs: np.ndarray, rules: Rules, out: np.ndarray) -> None:
        t = self.tables(rules)
        B = hands.shape[0]
        R, g = self.kinds.num_ranks, self.grid_plays
        j = (np.minimum(hands[:, self.kinds.sj], MAX_SMALL) * (MAX_BIG + 1)
             + np.minimum(hands[:, self.kinds.bj], MAX_BIG)).astype(np.intp)
        grid = out[:, FIRST_PLAY:FIRST_PLAY + g].reshape(B, R, g // R)
        # intp before multiplying: int8 hands would overflow (6 x 25 > 127)
        np.take(t.block_table, hands[:, :R].astype(np.intp) * _JOKER_COMBOS + j[:, None], axis=0, out=grid)
        out[:, FIRST_PLAY + g:] = t.jokers_only_table[j]
        if not rules.jokers_only_plays:  # jokers alone only from a hand without rank cards
            out[hands[:, :R].any(axis=1), FIRST_PLAY + g:] = 0
        out[:, :FIRST_PLAY] = 1  # cleared or kept by the beats row below
        if rules.hold_sixes:
            six = hands[:, 0].astype(np.intp)
            rows = np.flatnonzero(six)
            if rows.size:
                grid[rows, 0] = 0
                only = rows[hands[rows, :R].sum(axis=1) == six[rows]]
                ns = np.minimum(hands[only, self.kinds.sj], MAX_SMALL)
                nb = np.minimum(hands[only, self.kinds.bj], MAX_BIG)
                if rules.six_no_jokers:
                    keep = (ns + nb) == 0
                    only, ns, nb = only[keep], ns[keep] * 0, nb[keep] * 0
                grid[only, 0, (six[only] - 1) * _JOKER_COMBOS + ns * (MAX_BIG + 1) + nb] = 1
        # row P of `beats` is "leading": no pass, any play; rows < P answer that play
        rows = np.where(prevs >= 0, prevs, self.num_plays)
        np.bitwise_and(out, t.beats[rows], out=out)


class _SpecialActionTable(ActionTable):
    """The table of a deck with the special card SP (generic216): joker combinations are
    (small, big, special), and "beats" rows are stored per size group (see `_group_beats`).
    A separate class so that the 168-card path above keeps its speed, branch-free."""

    def _joker_index(self, hand) -> int:
        k = self.kinds
        return (min(hand[k.sj], MAX_SMALL) * (MAX_BIG + 1) + min(hand[k.bj], MAX_BIG)) * 2 + min(hand[k.sp], 1)

    def beats_row(self, prev: int, rules: Rules | None = None) -> np.ndarray:
        t = self.tables(rules) if rules is not None else self._tables
        row = np.zeros(self.num_actions, dtype=np.int8)
        cols = t.group_cols[t.group_of[prev]]
        row[cols] = t.beats_local[prev, :cols.size]
        return row[FIRST_PLAY:FIRST_PLAY + self.num_plays].view(bool)

    def play_beats(self, prev: int, play: int, rules: Rules) -> bool:
        t = self.tables(rules)
        return t.group_of[prev] == t.group_of[play] and bool(t.beats_local[prev, t.group_pos[play]])

    def legal_mask(self, hand: list[int], prev: int, rules: Rules) -> np.ndarray:
        t = self._legal.get(rules.roasting) or self.tables(rules)
        R = self.kinds.num_ranks
        j = self._joker_index(hand)
        blocks = t.rank_blocks[j]
        jokers_only = t.jokers_only[j] if rules.jokers_only_plays or not any(hand[:R]) else t.no_jokers_only
        prefix = t.prefix_follow if prev >= 0 else t.prefix_lead
        mask = np.frombuffer(bytearray(b"".join((prefix, *map(blocks.__getitem__, hand[:R]), jokers_only))),
                             dtype=np.int8)
        if prev >= 0:
            mask &= t.answer_row(prev, self.num_actions)
        return mask

    def _legal_masks_chunk(self, hands: np.ndarray, prevs: np.ndarray, rules: Rules, out: np.ndarray) -> None:
        if not out.flags.c_contiguous:  # the flat indexing below needs one block of memory
            buf = np.empty(out.shape, dtype=np.int8)
            self._legal_masks_chunk(hands, prevs, rules, buf)
            out[...] = buf
            return
        t = self.tables(rules)
        B, N = hands.shape[0], self.num_actions
        k, jc = self.kinds, self.joker_combos
        R, g = k.num_ranks, self.grid_plays
        j = ((np.minimum(hands[:, k.sj], MAX_SMALL) * (MAX_BIG + 1) + np.minimum(hands[:, k.bj], MAX_BIG)) * 2
             + np.minimum(hands[:, k.sp], 1)).astype(np.intp)
        grid = out[:, FIRST_PLAY:FIRST_PLAY + g].reshape(B, R, g // R)
        np.take(t.block_table, hands[:, :R].astype(np.intp) * jc + j[:, None], axis=0, out=grid)
        out[:, FIRST_PLAY + g:] = t.jokers_only_table[j]
        if not rules.jokers_only_plays:  # jokers alone only from a hand without rank cards
            out[hands[:, :R].any(axis=1), FIRST_PLAY + g:] = 0
        out[:, :FIRST_PLAY] = 0
        follow = np.flatnonzero(prevs >= 0)
        if follow.size:
            # per size group: keep the group's available plays that beat the row's play, clear
            # the rest (flat indices: much faster than 2-D fancy indexing)
            flat_out = out.reshape(-1)
            p = prevs[follow]
            group = t.group_array[p]
            kept = []
            for g in np.unique(group).tolist():
                sel = group == g
                cols = t.group_cols[g]
                flat = (follow[sel] * N)[:, None] + cols
                kept.append((flat, flat_out[flat] & t.beats_local[p[sel], :cols.size]))
            out[follow] = 0
            for flat, vals in kept:
                flat_out[flat] = vals
            out[follow, PASS] = 1


class _LegalityTables:
    """Lookup tables for `ActionTable.legal_mask` (built once per table and roasting mode)."""

    def __init__(self, table: ActionTable, roasting: bool = False) -> None:
        special = table.kinds.special
        if roasting and special:
            raise ValueError("roasting (烤牌, docs/rules.md §4.7) is defined for decks without the special card SP; "
                             "use roasting=False with generic216 (special_card=True)")
        jc = table.joker_combos
        counts = np.arange(COPIES_PER_RANK + 1)
        n_ok = np.arange(1, COPIES_PER_RANK + 1)[None, :] <= counts[:, None]  # (17, 16)
        # joker combinations (small, big[, special]), the last component fastest
        dims = (MAX_SMALL + 1, MAX_BIG + 1, 2) if special else (MAX_SMALL + 1, MAX_BIG + 1)
        combos = np.array(np.unravel_index(np.arange(jc), dims)).T  # (jc, 2 or 3)
        joker_ok = np.all(combos[None, :, :] <= combos[:, None, :], axis=2)  # [held, play]
        # block[c, j] = availability of the 16 x jc plays of one rank held c times, jokers j
        block = n_ok[:, None, :, None] & joker_ok[None, :, None, :]
        self.block_table = block.reshape(-1, COPIES_PER_RANK * jc).astype(np.int8)
        self.rank_blocks = [[bytes(block[c, j].astype(np.int8)) for c in counts] for j in range(jc)]
        # the jokers-only plays, then zeros for the call block (calls are not plays)
        calls = np.zeros((jc, table.num_calls), dtype=np.int8)
        self.jokers_only_table = np.concatenate([joker_ok[:, 1:].astype(np.int8), calls], axis=1)
        self.jokers_only = [bytes(row) for row in self.jokers_only_table]
        self.no_jokers_only = bytes(jc - 1 + table.num_calls)
        self.zero_block = bytes(COPIES_PER_RANK * jc)
        self.prefix_lead = bytes(FIRST_PLAY)
        self.prefix_follow = b"\x01" + bytes(FIRST_PLAY - 1)
        if special:
            self.group_array, self.group_cols, self.beats_local = _group_beats(table)
            self.group_of = self.group_array.tolist()  # Python ints: faster for one play
            pos = np.zeros(table.num_plays, dtype=np.intp)  # each play's column within its group
            for cols in self.group_cols:
                pos[cols - FIRST_PLAY] = np.arange(cols.size)
            self.group_pos = pos.tolist()
            self._answer_rows: dict[int, np.ndarray] = {}
        else:
            self.beats = _beats_matrix(table, roasting)
        self._six_blocks: dict[tuple[int, int, int], bytes] = {}

    def answer_row(self, prev: int, num_actions: int) -> np.ndarray:
        """SP decks: the full-width row "PASS, or a play that beats `prev`", built from the
        play's size group on first use and cached (at most `_ANSWER_ROWS` rows, about 40 MB),
        so that a follow mask costs one AND, as with the full matrix of the other decks."""
        row = self._answer_rows.get(prev)
        if row is None:
            if len(self._answer_rows) >= _ANSWER_ROWS:
                self._answer_rows.clear()
            row = np.zeros(num_actions, dtype=np.int8)
            cols = self.group_cols[self.group_of[prev]]
            row[cols] = self.beats_local[prev, :cols.size]
            row[PASS] = 1
            self._answer_rows[prev] = row
        return row

    def six_block(self, sixes: int, ns: int, nb: int, rules: Rules) -> bytes | None:
        """Block of rank 6 when the hand holds no other rank: only "all the 6s" (plus all
        jokers where 6s may carry them), or None when the jokers must still go first."""
        if rules.six_no_jokers:
            if ns + nb:
                return None
            ns = nb = 0
        key = (sixes, ns, nb)
        if key not in self._six_blocks:
            blk = bytearray(COPIES_PER_RANK * _JOKER_COMBOS)
            blk[(sixes - 1) * _JOKER_COMBOS + ns * (MAX_BIG + 1) + nb] = 1
            self._six_blocks[key] = bytes(blk)
        return self._six_blocks[key]


def _positional(prev_ge: np.ndarray, cand_ge: np.ndarray) -> np.ndarray:
    """[prev, cand] bool: the positional rule of §4.3 for plays of equal size, vectorized:
    c beats p iff for every card kind v, #(cards of c above v) >= #(cards of p at or above v)."""
    return np.all(cand_ge[None, :, 1:] >= prev_ge[:, None, :-1], axis=2)


def _beats_matrix(table: ActionTable, roasting: bool) -> np.ndarray:
    """beats[p, a] = 1 when action a answers play index p: PASS, or a play that beats p;
    the extra row beats[P] allows every play and no pass (leading), for batched masks.
    Call columns are 0.

    Standard rule: only plays of equal size can beat each other, so the matrix is filled one
    size group at a time. Roasting (§4.7) then replaces the rows of the plays with a joker.
    """
    P = table.num_plays
    beats = np.zeros((P + 1, table.num_actions), dtype=np.int8)
    beats[:P, PASS] = 1
    beats[P, FIRST_PLAY:FIRST_PLAY + P] = 1  # the extra last row stands for "leading": any play, no pass
    for size in np.unique(table.size):
        group = np.flatnonzero(table.size == size)
        beats[np.ix_(group, FIRST_PLAY + group)] = _positional(table.ge[group], table.ge[group])
    if roasting:
        rows = np.flatnonzero((table.small > 0) | (table.big > 0))
        for lo in range(0, rows.size, 512):
            chunk = rows[lo:lo + 512]
            beats[chunk, FIRST_PLAY:FIRST_PLAY + P] = _roasting_rows(table, chunk)
    return beats


def _roasting_rows(table: ActionTable, prevs: np.ndarray) -> np.ndarray:
    """[prev, cand] bool for previous plays that hold a joker: docs/rules.md §4.7 in closed form.

    P's b_p BJs are beaten x by 2 BJ each and y = b_p - x by 3 SJ; its s_p SJs u by 1 BJ and
    v = s_p - u by 2 SJ; C's leftover must equal P's n_p rank cards in count (r_c > r_p when
    both have rank cards). Equal leftover count fixes x + u = D = 3 b_p + 2 s_p + n_p - |C|;
    the BJ and SJ budgets then bound x: such an x exists iff lo <= hi below.
    """
    i16 = np.int16
    bp, sp, np_ = (a[prevs, None].astype(i16) for a in (table.big, table.small, table.n))
    rp = table.rank[prevs, None].astype(i16)
    bc, sc, nc, rc = (a[None, :].astype(i16) for a in (table.big, table.small, table.n, table.rank))
    d = 3 * bp + 2 * sp + np_ - table.size[None, :].astype(i16)
    lo = np.maximum(np.maximum(d - sp, 3 * bp + 2 * sp - 2 * d - sc), 0)
    hi = np.minimum(np.minimum(bp, d), bc - d)
    return (lo <= hi) & ((nc == 0) | (np_ == 0) | (rc > rp))


def _group_beats(table: ActionTable) -> tuple[np.ndarray, list[np.ndarray], np.ndarray]:
    """The "beats" rows of a deck with SP, stored per size group (10,449 plays would need a
    110 MB full matrix; these need 7 MB): play p is in group `group_of[p]`, whose action ids
    are `group_cols[group]`, and `beats_local[p, i]` says whether the play with action id
    `group_cols[group_of[p]][i]` beats p (zero-padded to the largest group)."""
    groups = [np.flatnonzero(table.size == s) for s in np.unique(table.size)]
    group_of = np.zeros(table.num_plays, dtype=np.intp)
    beats_local = np.zeros((table.num_plays, max(g.size for g in groups)), dtype=np.int8)
    for i, group in enumerate(groups):
        group_of[group] = i
        beats_local[group, :group.size] = _positional(table.ge[group], table.ge[group])
    cols = [FIRST_PLAY + g for g in groups]
    for a in (group_of, beats_local, *cols):
        a.flags.writeable = False
    return group_of, cols, beats_local


@cache
def _build_plays(kinds: CardKinds) -> tuple[np.ndarray, ...]:
    R, K = kinds.num_ranks, kinds.num_kinds
    t_max = MAX_SPECIAL if kinds.special else 0
    r, n, s, b, t = np.meshgrid(
        np.arange(R), np.arange(1, COPIES_PER_RANK + 1), np.arange(MAX_SMALL + 1), np.arange(MAX_BIG + 1),
        np.arange(t_max + 1), indexing="ij",
    )
    js, jb, jt = np.meshgrid(np.arange(MAX_SMALL + 1), np.arange(MAX_BIG + 1), np.arange(t_max + 1), indexing="ij")
    js, jb, jt = js.ravel()[1:], jb.ravel()[1:], jt.ravel()[1:]  # drop the empty play
    rank = np.concatenate([r.ravel(), np.full(js.size, -1)]).astype(np.int8)
    nn = np.concatenate([n.ravel(), np.zeros(js.size, int)]).astype(np.int8)
    small = np.concatenate([s.ravel(), js]).astype(np.int8)
    big = np.concatenate([b.ravel(), jb]).astype(np.int8)
    special = np.concatenate([t.ravel(), jt]).astype(np.int8)
    counts = np.zeros((rank.size, K), dtype=np.int8)
    has_rank = rank >= 0
    counts[np.flatnonzero(has_rank), rank[has_rank]] = nn[has_rank]
    counts[:, kinds.sj] = small
    counts[:, kinds.bj] = big
    if kinds.special:
        counts[:, kinds.sp] = special
    ge = np.zeros((rank.size, K + 1), dtype=np.int8)
    ge[:, :K] = np.cumsum(counts[:, ::-1], axis=1)[:, ::-1]
    size = counts.sum(axis=1).astype(np.int8)
    for a in (rank, nn, small, big, special, counts, ge, size):
        a.flags.writeable = False
    return rank, nn, small, big, special, counts, ge, size


@cache
def _build_table(kinds: CardKinds, calls: bool = False, jokers_callable: bool = False) -> ActionTable:
    call_list: list[tuple[int, int]] = []
    if calls:
        call_list = [(r, s) for r in range(kinds.num_ranks) for s in range(len(SUITS))]
        if jokers_callable:
            call_list += [(kinds.sj, 0), (kinds.bj, 0)]
    cls = _SpecialActionTable if kinds.special else ActionTable
    return cls(kinds, *_build_plays(kinds), calls=tuple(call_list))


def action_table(rules: Rules) -> ActionTable:
    """The action table of a rule set, built once per (card kinds, calls, jokers callable)
    and cached: every preset on the 168- or 165-card deck without calls shares one table."""
    calls = rules.guard_selection == "call_triple"
    return _build_table(card_kinds(rules), calls, calls and rules.jokers_callable)


# --- plays without a table: comparison and notation ---------------------------------


def _cards_desc(play: Play, kinds: CardKinds) -> list[int]:
    rank, n, small, big, special = play
    if special and not kinds.special:
        raise ValueError(f"{tuple(play)} has the special card SP, which this deck does not have (generic216 only)")
    out = [kinds.sp] * special + [kinds.bj] * big + [kinds.sj] * small
    if n:
        out += [kinds.index(rank)] * n
    return out


def _standard_beats(p: list[int], c: list[int]) -> bool:
    return len(p) == len(c) and all(x > y for x, y in zip(c, p, strict=True))


def _roasting_beats(p: Play, c: Play, kinds: CardKinds) -> bool:
    """docs/rules.md §4.7 as written: some split of P's BJs (x by 2 BJ, y by 3 SJ) and SJs (u by
    1 BJ, v by 2 SJ) fits C's jokers, and C's leftover beats P's rank part by §4.3."""
    for x in range(p.big + 1):
        for u in range(p.small + 1):
            y, v = p.big - x, p.small - u
            need_big, need_small = 2 * x + u, 3 * y + 2 * v
            if need_big > c.big or need_small > c.small:
                continue
            rest = _cards_desc(Play(c.rank, c.n, c.small - need_small, c.big - need_big), kinds)
            if _standard_beats(_cards_desc(Play(p.rank, p.n, 0, 0), kinds) if p.n else [], rest):
                return True
    return False


def beats(previous: tuple, candidate: tuple, rules: Rules) -> bool:
    """Does `candidate` beat `previous`? Standard rule (docs/rules.md §4.3): same card count, and
    sorted high to low every card of the candidate is strictly greater than the previous card
    at its place. Where the rules roast (§4.7), a previous play with a joker is instead
    answered by the roasting rule."""
    kinds = card_kinds(rules)
    p, c = _as_play(previous), _as_play(candidate)
    if rules.roasting and p.small + p.big + p.special:
        if kinds.special:
            raise ValueError("roasting (docs/rules.md §4.7) is defined for decks without the special card SP")
        return _roasting_beats(p, c, kinds)
    return _standard_beats(_cards_desc(p, kinds), _cards_desc(c, kinds))


_RANK_SYMBOL = {"10": "T"}
_SYMBOL_RANK = {"T": "10", "1": "10", "SPECIAL": "SP"}


def format_play(play: tuple) -> str:
    """Card notation: rank cards repeated, then jokers high to low, joined by '+': "888+SJ",
    "BJ+SJ+SJ", "2222+SP"."""
    rank, n, small, big, special = _as_play(play)
    parts = []
    if n:
        parts.append(_RANK_SYMBOL.get(rank, rank) * n)
    parts += ["SP"] * special + ["BJ"] * big + ["SJ"] * small
    return "+".join(parts)


_TOKEN = re.compile(r"(SPECIAL|SP|BJ|SJ|10|[2-9TJQKA])(?:[x*](\d+))?", re.IGNORECASE)
_RANKS_168 = CardKinds(("6", "7", "8", "9", "10", "J", "Q", "K", "A", "2"))


def parse_play(text: str, rules: Rules | None = None) -> Play | None:
    """Parse card notation into a `Play`; "pass" (or "p", "-") gives None.

    Accepts "888+SJ", "888 SJ", "BJ+SJ+SJ", "TTT" or "10 10 10" for tens, "8x5" for five
    8s, and "SP" for generic216's special card. Without `rules` the deck is the 168-card one.
    Raises ValueError with the reason on anything else.
    """
    s = text.strip()
    if s.lower() in ("pass", "p", "-", "pass."):
        return None
    if not s:
        raise ValueError("empty play; type cards like 888+SJ, or 'pass'")
    kinds = card_kinds(rules) if rules is not None else _RANKS_168
    compact = re.sub(r"[\s+,]", "", s)
    counts: dict[str, int] = {}
    pos = 0
    while pos < len(compact):
        m = _TOKEN.match(compact, pos)
        if not m:
            raise ValueError(
                f"cannot read {compact[pos:]!r} in {text!r}; use ranks {'/'.join(kinds.ranks)} "
                "(T or 10 for ten), SJ, BJ" + (", SP" if kinds.special else "") + ", e.g. 888+SJ or 8x5"
            )
        sym = m.group(1).upper()
        name = _SYMBOL_RANK.get(sym, sym)
        count = int(m.group(2)) if m.group(2) else 1
        if count == 0:
            raise ValueError(f"{m.group(0)!r} in {text!r} has no cards; a play has at least one card")
        counts[name] = counts.get(name, 0) + count
        pos = m.end()
    small, big, special = counts.pop("SJ", 0), counts.pop("BJ", 0), counts.pop("SP", 0)
    if special and not kinds.special:
        raise ValueError(f"{text!r}: the special card SP is not in this deck (only generic216 has it)")
    if len(counts) > 1:
        raise ValueError(f"{text!r} mixes ranks {sorted(counts)}; a play has one rank plus jokers")
    for name in counts:
        if name not in kinds.ranks:
            raise ValueError(f"rank {name!r} is not in this deck; ranks are {list(kinds.ranks)}")
    rank, n = next(iter(counts.items())) if counts else (None, 0)
    if n > COPIES_PER_RANK or small > MAX_SMALL or big > MAX_BIG or special > MAX_SPECIAL:
        raise ValueError(f"{text!r} has more cards than the deck: at most 16 of a rank, 4 SJ, 4 BJ, 1 SP")
    return Play(rank, n, small, big, special)
