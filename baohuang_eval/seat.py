"""The seat protocol: duplicate rotation (seeded duplicate deals, as in duplicate bridge).

For a pair (A, B), every deal is played 10 times: for each focal seat s in 0..4, once with A
at s and B at the four other seats (composition "A"), and once with B at s and A at the other
seats (composition "B"). Each agent thus plays every seat's cards of every deal in both
compositions, and therefore every role those cards lead to, so the luck of the deal cancels
out of the comparison.

Records: each game yields one focal record: the focal agent, the deal seed, the focal seat,
the role that seat ended in, its side, its finishing place and its score (win: score > 0,
draw: score == 0).

Statistics (all at 95%):
    * per agent as focal, overall, per side and per role: games, win rate with a Wilson score
      interval, mean score with a Student-t interval;
    * head-to-head, "A beats B": the paired difference d = score(A focal) - score(B focal)
      over the same (deal, seat) pairs, its mean and t interval (A is better when the whole
      interval is above 0), the pairs A won / tied / lost; the league ratings count each
      (deal, seat) as one match.

The agent at seat q in the game (deal, focal seat s, composition c) gets the seed
`agent_seed(deal, s, c, q)`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from baohuang_env.cards import NUM_SEATS
from baohuang_env.replay import write_json_atomic
from baohuang_env.roles import ROLES, SIDES, side_of
from baohuang_env.rules import Rules

from .play import Seats, Table, agent_seed, file_slug, game_agents, play_games
from .protocol import COMPOSITIONS, PairGames, Protocol
from .stats import CONFIDENCE, PairedStats, Stats, paired_stats

#: Rows of a focal table, in report order.
ROWS = ("overall", *SIDES, *ROLES)


@dataclass(frozen=True)
class GameRecord:
    """One focal game of the duplicate rotation."""

    agent: str  # focal agent
    opponent: str  # the agent at the four other seats
    deal: int  # the deal's seed
    seat: int  # focal seat
    composition: str  # "A" (first agent of the pair focal) or "B"
    role: str  # the focal seat's final role (`baohuang_env.roles.ROLES`; "none" in a void deal)
    side: str  # its side: "emperor_side" or "rebel_side" ("none" in a void deal)
    place: int  # finishing place 1..5 (0 in a void deal)
    score: int


def agent_table(records: Sequence[GameRecord]) -> dict[str, Stats]:
    """Rows `ROWS` (overall, per side, per role) of focal statistics."""
    table = {"overall": Stats.of_scores([r.score for r in records])}
    for side in SIDES:
        table[side] = Stats.of_scores([r.score for r in records if r.side == side])
    for role in ROLES:
        table[role] = Stats.of_scores([r.score for r in records if r.role == role])
    return table


def paired_difference(records_a: Sequence[GameRecord], records_b: Sequence[GameRecord]) -> PairedStats:
    """Pair A-focal and B-focal records by (deal, seat); raises ValueError if they differ."""
    by_key = {(r.deal, r.seat): r.score for r in records_b}
    keys = [(r.deal, r.seat) for r in records_a]
    if len(by_key) != len(records_b) or sorted(keys) != sorted(by_key) or len(set(keys)) != len(keys):
        raise ValueError("paired records must cover the same (deal, seat) pairs once each")
    return paired_stats([r.score - by_key[(r.deal, r.seat)] for r in records_a])


@dataclass
class PairResult(PairGames):
    """All focal games of one pair (A, B) under the duplicate rotation."""

    a: str
    b: str
    records: list[GameRecord]  # in schedule order: deal, focal seat, composition
    seconds: float = 0.0

    @cached_property
    def table_a(self) -> dict[str, Stats]:
        """A as focal agent (B at the other seats)."""
        return agent_table(self.records_a)

    @cached_property
    def table_b(self) -> dict[str, Stats]:
        return agent_table(self.records_b)

    @cached_property
    def paired(self) -> PairedStats:
        return paired_difference(self.records_a, self.records_b)

    def differences(self) -> list[int]:
        """Paired differences score(A focal) - score(B focal), in schedule order (deal, seat)."""
        b_scores = {(r.deal, r.seat): r.score for r in self.records_b}
        return [r.score - b_scores[(r.deal, r.seat)] for r in self.records_a]

    def to_dict(self, games: bool = True) -> dict[str, Any]:
        out: dict[str, Any] = {
            "a": self.a, "b": self.b, "deals": self.deals, "games": len(self.records), "seconds": self.seconds,
            "paired_difference": self.paired.to_dict(),
            "focal_a": {row: s.to_dict() for row, s in self.table_a.items()},
            "focal_b": {row: s.to_dict() for row, s in self.table_b.items()},
        }
        if games:  # column-wise, compact enough for tens of thousands of games
            cols = ("deal", "seat", "composition", "role", "place", "score")
            out["records"] = {c: [getattr(r, c) for r in self.records] for c in cols}
        return out


def pair_schedule(seeds: Sequence[int]) -> list[tuple[int, int, str]]:
    """(deal seed, focal seat, composition) of every game of a pair, in order."""
    return [(d, s, c) for d in seeds for s in range(NUM_SEATS) for c in COMPOSITIONS]


class SeatProtocol(Protocol):
    """Duplicate rotation: a focal agent at each seat in turn against four copies of the other."""

    name = "seat"
    version = 1
    games_per_deal = NUM_SEATS * len(COMPOSITIONS)
    tables_key = "focal"
    progress_label = "eval"

    def play_chunk(self, rules: Rules, a: str, b: str, seats_a: Seats, seats_b: Seats, seeds: Sequence[int],
                   replay_dir: Path | None) -> list[GameRecord]:
        """The chunk's games, all at once (`play_games`), one record each in schedule order."""
        schedule = pair_schedule(seeds)
        played = play_games(rules, _tables(a, b, seats_a, seats_b, schedule), records=replay_dir is not None)
        records = []
        for (deal, focal, comp), game in zip(schedule, played, strict=True):
            focal_name, other_name = (a, b) if comp == "A" else (b, a)
            res = game.result
            role = res.roles[focal]
            side = "none" if res.end == "void" else side_of(role)  # a void deal (流局): no side, no score
            records.append(GameRecord(focal_name, other_name, deal, focal, comp, role, side,
                                      res.places[focal], int(res.scores[focal])))
            if replay_dir is not None:
                write_json_atomic(replay_dir / f"d{deal}-s{focal}-{file_slug(focal_name)}-focal.json", game.record)
        return records

    def pair_result(self, a: str, b: str, records: list, seconds: float = 0.0) -> PairResult:
        return PairResult(a, b, records, seconds)

    def agent_tables(self, agents: Sequence[str], pairs: Sequence[PairGames]) -> dict[str, dict[str, Stats]]:
        """Per agent, its focal statistics over all its games."""
        recs: dict[str, list[GameRecord]] = {a: [] for a in agents}
        for p in pairs:
            recs.setdefault(p.a, []).extend(p.records_a)
            recs.setdefault(p.b, []).extend(p.records_b)
        return {a: agent_table(r) for a, r in recs.items()}

    def describe(self, pairing: str) -> dict[str, Any]:
        return {
            "name": "duplicate-rotation", "version": self.version,
            "games_per_deal_per_pair": self.games_per_deal,
            "rotation": "for each deal and focal seat s: A at s with B at the other 4 seats, and B at s "
                        "with A at the other 4 seats",
            "win": "focal score > 0", "draw": "focal score == 0",
            "sides": {side: [r for r in ROLES if side_of(r) == side] for side in SIDES},
            "confidence": CONFIDENCE, "win_rate_interval": "Wilson score",
            "mean_interval": "Student t",
            "head_to_head": "paired difference d = score(A focal) - score(B focal) over the same (deal, seat)",
            "ratings": "openskill PlackettLuce (default mu=25, sigma=25/3), one 1-vs-1 match per paired "
                       "(deal, seat), higher focal score wins, equal is a draw; ordinal = mu - 3 sigma",
            "agent_seeds": "agent_seed(deal, focal seat, composition, seat) via numpy SeedSequence",
            "pairs": pairing,
        }


def _tables(a: str, b: str, seats_a: Seats, seats_b: Seats, schedule: Sequence[tuple[int, int, str]]
            ) -> Iterator[Table]:
    """The game of each (deal, focal seat, composition) of `schedule`: the focal agent at the
    focal seat, the other at the four others, each seeded by `agent_seed`."""
    for deal, focal, comp in schedule:
        focal_seats, other_seats = (seats_a, seats_b) if comp == "A" else (seats_b, seats_a)
        focal_name, other_name = (a, b) if comp == "A" else (b, a)
        sides = [focal_seats if q == focal else other_seats for q in range(NUM_SEATS)]
        agents = game_agents(sides, [agent_seed(deal, focal, comp, q) for q in range(NUM_SEATS)])
        names = [focal_name if q == focal else other_name for q in range(NUM_SEATS)]
        yield Table(deal, agents, names, f"deal {deal}, focal seat {focal}, composition {comp}")


#: The seat protocol.
SEAT = SeatProtocol()

__all__ = [
    "ROWS",
    "SEAT",
    "GameRecord",
    "PairResult",
    "SeatProtocol",
    "agent_table",
    "pair_schedule",
    "paired_difference",
]
