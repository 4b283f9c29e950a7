"""The action table: every action of a rule set, built once, and vectorized legality.

Layout of the single `Discrete(N)` action space (stable: checkpoints depend on it):

    id 0                      PASS
    ids 1 .. len(DECISIONS)   role-phase decisions, in the order of `DECISIONS`
    the rest                  plays. A play is (rank, n, small, big): n >= 0 cards of one
                              ordinary rank plus `small` small jokers and `big` big jokers.
                              Plays with n >= 1 come first, ordered by rank (low to high),
                              then n (1..16), then small (0..4), then big (0..4); then the
                              24 jokers-only plays ordered by small, then big.

Because the play block is a dense (rank, n, small, big) grid, "which plays can this hand
make" is one broadcast AND of two small lookup tables written straight into the mask, and
"which plays beat the previous one" is a precomputed row per previous play (RULES.md §4.3's
positional rule, vectorized over cumulative card counts). No Python loop runs over plays.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

import numpy as np

from .cards import COPIES_PER_JOKER, COPIES_PER_RANK, CardKinds, card_kinds
from .rules import Rules

#: Bump when the meaning of any action id changes; checkpoints record it.
LAYOUT_VERSION = 1

PASS = 0
#: Role-phase decisions (RULES.md §3.9). NO answers any yes/no prompt and also means
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

#: Rows per chunk in batched masks (bounds the temporary gathered rows; 1024 measured fastest).
_BATCH_CHUNK = 1024
MAX_SMALL = COPIES_PER_JOKER
MAX_BIG = COPIES_PER_JOKER
_JOKER_COMBOS = (MAX_SMALL + 1) * (MAX_BIG + 1)


class Play(tuple):
    """A play as a named 4-tuple (rank, n, small, big); rank is None for jokers only."""

    __slots__ = ()

    def __new__(cls, rank: str | None, n: int, small: int, big: int) -> Play:
        return super().__new__(cls, (rank, n, small, big))

    rank = property(lambda self: self[0])
    n = property(lambda self: self[1])
    small = property(lambda self: self[2])
    big = property(lambda self: self[3])

    @property
    def size(self) -> int:
        return self[1] + self[2] + self[3]

    def __repr__(self) -> str:
        return f"Play({format_play(self)!r})"


@dataclass(frozen=True, eq=False)
class ActionTable:
    """All actions of one rule set as parallel numpy arrays (index = play index, not id)."""

    kinds: CardKinds
    rank: np.ndarray  # (P,) kind index of the ordinary rank, -1 for jokers-only plays
    n: np.ndarray  # (P,) ordinary cards
    small: np.ndarray  # (P,) small jokers
    big: np.ndarray  # (P,) big jokers
    counts: np.ndarray  # (P, K) cards of each kind the play uses
    ge: np.ndarray  # (P, K + 1) ge[p, v] = cards of the play with kind >= v (ge[:, K] = 0)
    size: np.ndarray  # (P,) total cards

    # --- sizes -----------------------------------------------------------------
    @property
    def num_plays(self) -> int:
        return int(self.rank.size)

    @property
    def num_actions(self) -> int:
        return FIRST_PLAY + self.num_plays

    @property
    def grid_plays(self) -> int:
        """Plays with at least one ordinary card (the dense rank x n x jokers grid)."""
        return self.kinds.num_ranks * COPIES_PER_RANK * _JOKER_COMBOS

    # --- id <-> play ----------------------------------------------------------------
    def play_index(self, rank: int, n: int, small: int, big: int) -> int:
        """Index into the play block of a play given by kind index of its rank (-1 if none)."""
        if n == 0:
            return self.grid_plays + small * (MAX_BIG + 1) + big - 1
        return ((rank * COPIES_PER_RANK + n - 1) * (MAX_SMALL + 1) + small) * (MAX_BIG + 1) + big

    def action_id_of(self, rank: int, n: int, small: int, big: int) -> int:
        """Action id of a play given by the kind index of its rank (ignored when n == 0)."""
        return FIRST_PLAY + self.play_index(rank, n, small, big)

    def action_id(self, play: Play) -> int:
        """Action id of a `Play`; raises ValueError when the play cannot exist."""
        rank, n, small, big = play
        raw = tuple(play)  # repr of the plain tuple: format_play cannot show an invalid play
        if not (0 <= small <= MAX_SMALL and 0 <= big <= MAX_BIG and 0 <= n <= COPIES_PER_RANK):
            raise ValueError(f"no such play {raw}: at most 16 of a rank and 4 of each joker")
        if n + small + big == 0:
            raise ValueError("a play has at least one card")
        if (n == 0) != (rank is None):
            raise ValueError(f"play {raw}: give a rank exactly when n > 0")
        r = -1 if rank is None else self.kinds.index(rank)
        if r >= self.kinds.num_ranks:
            raise ValueError(f"play {raw}: jokers are counted in small/big, not as the rank")
        return FIRST_PLAY + self.play_index(r, n, small, big)

    def play(self, action: int) -> Play:
        """The `Play` of a play action id."""
        p = action - FIRST_PLAY
        if not 0 <= p < self.num_plays:
            raise ValueError(f"action {action} is not a play (plays are ids {FIRST_PLAY}..{self.num_actions - 1})")
        r = int(self.rank[p])
        return Play(None if r < 0 else self.kinds.ranks[r], int(self.n[p]), int(self.small[p]), int(self.big[p]))

    def describe(self, action: int) -> str:
        """Human-readable name of any action id: "pass", a decision name, or card notation."""
        if action == PASS:
            return "pass"
        if 1 <= action < FIRST_PLAY:
            return DECISIONS[action - 1]
        return format_play(self.play(action))

    # --- legality --------------------------------------------------------------------
    @property
    def _tables(self) -> _LegalityTables:
        return _legality_tables(self)

    def beats_row(self, prev: int) -> np.ndarray:
        """Bool (P,): which plays beat play index `prev` (RULES.md §4.3)."""
        return self._tables.beats[prev, FIRST_PLAY:].view(bool)

    def legal_mask(self, hand: list[int], prev: int, rules: Rules) -> np.ndarray:
        """Legal actions (int8, N) of a seat in the play phase.

        `hand` holds the seat's card counts as Python ints; `prev` is the play index to
        beat, or -1 when leading (then PASS is illegal). Built from per-rank byte blocks
        joined in one call, plus one vector AND with the cached "beats" row when following.
        """
        t = self._tables
        R, ns, nb = self.kinds.num_ranks, hand[self.kinds.sj], hand[self.kinds.bj]
        j = min(ns, MAX_SMALL) * (MAX_BIG + 1) + min(nb, MAX_BIG)
        blocks = t.rank_blocks[j]
        prefix = t.prefix_follow if prev >= 0 else t.prefix_lead
        jokers_only = t.jokers_only[j] if rules.jokers_only_plays else t.no_jokers_only
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
        t = self._tables
        B = hands.shape[0]
        R, g = self.kinds.num_ranks, self.grid_plays
        j = (np.minimum(hands[:, self.kinds.sj], MAX_SMALL) * (MAX_BIG + 1)
             + np.minimum(hands[:, self.kinds.bj], MAX_BIG)).astype(np.intp)
        grid = out[:, FIRST_PLAY:FIRST_PLAY + g].reshape(B, R, g // R)
        # intp before multiplying: int8 hands would overflow (6 x 25 > 127)
        np.take(t.block_table, hands[:, :R].astype(np.intp) * _JOKER_COMBOS + j[:, None], axis=0, out=grid)
        out[:, FIRST_PLAY + g:] = t.jokers_only_table[j] if rules.jokers_only_plays else 0
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


class _LegalityTables:
    """Lookup tables for `ActionTable.legal_mask` (built once per table)."""

    def __init__(self, table: ActionTable) -> None:
        counts = np.arange(COPIES_PER_RANK + 1)
        n_ok = np.arange(1, COPIES_PER_RANK + 1)[None, :] <= counts[:, None]  # (17, 16)
        s = np.arange(MAX_SMALL + 1)
        b = np.arange(MAX_BIG + 1)
        joker_ok = ((s[None, None, :, None] <= s[:, None, None, None])
                    & (b[None, None, None, :] <= b[None, :, None, None])).reshape(len(s), len(b), -1)
        # block[c, j] = availability of the 16 x 25 plays of one rank held c times, jokers j
        block = n_ok[:, None, :, None] & joker_ok.reshape(-1, _JOKER_COMBOS)[None, :, None, :]
        self.block_table = block.reshape(-1, COPIES_PER_RANK * _JOKER_COMBOS).astype(np.int8)
        self.rank_blocks = [[bytes(block[c, j].astype(np.int8)) for c in counts] for j in range(_JOKER_COMBOS)]
        self.jokers_only_table = joker_ok.reshape(_JOKER_COMBOS, _JOKER_COMBOS)[:, 1:].astype(np.int8)
        self.jokers_only = [bytes(row) for row in self.jokers_only_table]
        self.no_jokers_only = bytes(_JOKER_COMBOS - 1)
        self.zero_block = bytes(COPIES_PER_RANK * _JOKER_COMBOS)
        self.prefix_lead = bytes(FIRST_PLAY)
        self.prefix_follow = b"\x01" + bytes(FIRST_PLAY - 1)
        self.beats = _beats_matrix(table)
        self._six_blocks: dict[tuple[int, int, int], bytes] = {}

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


def _beats_matrix(table: ActionTable) -> np.ndarray:
    """beats[p, a] = 1 when action a answers play index p: PASS, or a play that beats p;
    the extra row beats[P] allows every play and no pass (leading), for batched masks.

    Positional rule of §4.3, vectorized: c beats p iff they have the same size and for every
    card kind v, #(cards of c above v) >= #(cards of p at or above v). Only plays of equal
    size can beat each other, so the matrix is filled one size group at a time.
    """
    P = table.num_plays
    beats = np.zeros((P + 1, FIRST_PLAY + P), dtype=np.int8)
    beats[:P, PASS] = 1
    beats[P, FIRST_PLAY:] = 1  # the extra last row stands for "leading": any play, no pass
    for size in np.unique(table.size):
        group = np.flatnonzero(table.size == size)
        above = table.ge[group, 1:]  # (g, K): cards strictly above kind v
        at_or_above = table.ge[group, :-1]
        block = np.all(above[None, :, :] >= at_or_above[:, None, :], axis=2)  # [prev, cand]
        beats[np.ix_(group, FIRST_PLAY + group)] = block
    return beats


@cache
def _legality_tables(table: ActionTable) -> _LegalityTables:
    return _LegalityTables(table)


@cache
def _build_table(kinds: CardKinds) -> ActionTable:
    R, K = kinds.num_ranks, kinds.num_kinds
    r, n, s, b = np.meshgrid(
        np.arange(R), np.arange(1, COPIES_PER_RANK + 1), np.arange(MAX_SMALL + 1), np.arange(MAX_BIG + 1),
        indexing="ij",
    )
    js, jb = np.meshgrid(np.arange(MAX_SMALL + 1), np.arange(MAX_BIG + 1), indexing="ij")
    js, jb = js.ravel()[1:], jb.ravel()[1:]  # drop the empty play
    rank = np.concatenate([r.ravel(), np.full(js.size, -1)]).astype(np.int8)
    nn = np.concatenate([n.ravel(), np.zeros(js.size, int)]).astype(np.int8)
    small = np.concatenate([s.ravel(), js]).astype(np.int8)
    big = np.concatenate([b.ravel(), jb]).astype(np.int8)
    counts = np.zeros((rank.size, K), dtype=np.int8)
    has_rank = rank >= 0
    counts[np.flatnonzero(has_rank), rank[has_rank]] = nn[has_rank]
    counts[:, kinds.sj] = small
    counts[:, kinds.bj] = big
    ge = np.zeros((rank.size, K + 1), dtype=np.int8)
    ge[:, :K] = np.cumsum(counts[:, ::-1], axis=1)[:, ::-1]
    for a in (rank, nn, small, big, counts, ge):
        a.flags.writeable = False
    return ActionTable(kinds, rank, nn, small, big, counts, ge, counts.sum(axis=1).astype(np.int8))


def action_table(rules: Rules) -> ActionTable:
    """The action table of a rule set (built once per deck and cached)."""
    return _build_table(card_kinds(rules))


# --- plays without a table: comparison and notation ---------------------------------


def _cards_desc(play: Play, kinds: CardKinds) -> list[int]:
    rank, n, small, big = play
    out = [kinds.bj] * big + [kinds.sj] * small
    if n:
        out += [kinds.index(rank)] * n
    return out


def beats(previous: Play, candidate: Play, rules: Rules) -> bool:
    """Does `candidate` beat `previous` (RULES.md §4.3)? Same card count, and sorted high to
    low every card of the candidate is strictly greater than the previous card at its place."""
    kinds = card_kinds(rules)
    p, c = _cards_desc(Play(*previous), kinds), _cards_desc(Play(*candidate), kinds)
    return len(p) == len(c) and all(x > y for x, y in zip(c, p, strict=True))


_RANK_SYMBOL = {"10": "T"}
_SYMBOL_RANK = {"T": "10", "1": "10"}


def format_play(play: Play) -> str:
    """Card notation: rank cards repeated, then jokers, joined by '+': "888+SJ", "BJ+SJ+SJ"."""
    rank, n, small, big = play
    parts = []
    if n:
        parts.append(_RANK_SYMBOL.get(rank, rank) * n)
    parts += ["BJ"] * big + ["SJ"] * small
    return "+".join(parts)


_TOKEN = re.compile(r"(BJ|SJ|10|[2-9TJQKA])(?:[x*](\d+))?", re.IGNORECASE)


def parse_play(text: str, rules: Rules | None = None) -> Play | None:
    """Parse card notation into a `Play`; "pass" (or "p", "-") gives None.

    Accepts "888+SJ", "888 SJ", "BJ+SJ+SJ", "TTT" or "10 10 10" for tens, and "8x5" for
    five 8s. Raises ValueError with the reason on anything else.
    """
    s = text.strip()
    if s.lower() in ("pass", "p", "-", "pass."):
        return None
    if not s:
        raise ValueError("empty play; type cards like 888+SJ, or 'pass'")
    kinds = card_kinds(rules) if rules is not None else CardKinds(("6", "7", "8", "9", "10", "J", "Q", "K", "A", "2"))
    compact = re.sub(r"[\s+,]", "", s)
    counts: dict[str, int] = {}
    pos = 0
    while pos < len(compact):
        m = _TOKEN.match(compact, pos)
        if not m:
            raise ValueError(
                f"cannot read {compact[pos:]!r} in {text!r}; use ranks {'/'.join(kinds.ranks)} "
                "(T or 10 for ten), SJ, BJ, e.g. 888+SJ or 8x5"
            )
        sym = m.group(1).upper()
        name = _SYMBOL_RANK.get(sym, sym)
        count = int(m.group(2)) if m.group(2) else 1
        if count == 0:
            raise ValueError(f"{m.group(0)!r} in {text!r} has no cards; a play has at least one card")
        counts[name] = counts.get(name, 0) + count
        pos = m.end()
    small, big = counts.pop("SJ", 0), counts.pop("BJ", 0)
    if len(counts) > 1:
        raise ValueError(f"{text!r} mixes ranks {sorted(counts)}; a play has one rank plus jokers")
    for name in counts:
        if name not in kinds.ranks:
            raise ValueError(f"rank {name!r} is not in this deck; ranks are {list(kinds.ranks)}")
    rank, n = next(iter(counts.items())) if counts else (None, 0)
    if n > COPIES_PER_RANK or small > MAX_SMALL or big > MAX_BIG:
        raise ValueError(f"{text!r} has more cards than the deck: at most 16 of a rank, 4 SJ, 4 BJ")
    return Play(rank, n, small, big)
