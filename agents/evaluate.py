"""Evaluation protocol: what "agent A beats agent B" means, and the code that measures it.

Deal set
    A list of game seeds plus the rules. `deal_range(n, start)` gives seeds start..start+n-1;
    the default start `EVAL_SEED_START` = 1_000_000 lies in the range [0, 2**32) that is
    reserved for evaluation: trainers must draw their training seeds outside it
    (from `TRAIN_SEED_START` = 2**32 upwards), so no evaluation deal is ever trained on.
    A deal set can be saved as a deal file (`write_deals`, `baohuang eval --write-deals`):
    ``{"format": "baohuang-deals", "version": 1, "rules": {...}, "seeds": [...]}``; the
    seeds regenerate every deal exactly (`Game(rules, seed)`).

Two protocols are implemented, chosen with `protocol="seat"` (the default) or `"team"`.

Seat protocol: duplicate rotation (seeded duplicate deals, as in duplicate bridge)
    For a pair (A, B), every deal is played 10 times: for each focal seat s in 0..4, once
    with A at s and B at the four other seats (composition "A"), and once with B at s and A
    at the other seats (composition "B"). Each agent thus plays every seat's cards of every
    deal in both compositions, and therefore every role that those cards lead to, so the
    luck of the deal cancels out of the comparison.

Records (seat protocol)
    Each game yields one focal record: the focal agent, the deal seed, the focal seat, the
    role that seat ended in ("emperor", "guard", "rebel" or "solo"), its side (emperor side =
    emperor, guard or solo; rebel side = rebels), its finishing place, its score, win
    (score > 0) and draw (score == 0).

Statistics of the seat protocol (all at 95%)
    * Per agent as focal, overall, per side and per role: games, win rate with a Wilson
      score interval, mean score with a Student-t interval.
    * Head-to-head, "A beats B": the paired difference d = score(A focal) - score(B focal)
      over the same (deal, seat) pairs, its mean and t interval (A is better when the whole
      interval is above 0), the counts of pairs A won / tied / lost, and the focal win rates
      of A and of B.
    * A head-to-head matrix over every evaluated pair of a list of agents.
    * League ratings with openskill's Plackett-Luce model: each paired (deal, seat)
      comparison is one 1-vs-1 match, won by the agent with the higher focal score (a draw
      when equal), applied in a fixed order (pairs, then deals, then seats); each agent gets
      mu, sigma and the ordinal mu - 3 sigma.

Team protocol: side duplicate (`protocol="team"`)
    What it measures: the card play of a whole side. In the seat protocol a focal agent
    always has copies of its opponent as teammates (a focal emperor plays with a B guard, a
    focal rebel with two B rebels), so even a perfect agent cannot win most of its games and
    the win rates say little about its strength. The team protocol is the analogue of
    DouZero's landlord-vs-peasants evaluation: one agent plays every seat of one side.
    For each deal the role phase is answered with the auto-play defaults of RULES.md §7
    (accept, or call the lowest triple; declare nothing), so the sides follow from the cards
    alone (a deal that ends void is left out): in jj the emperor
    is the first holder of the emperor card, the guard the holder of the guard card (when
    that is the emperor it is a hidden solo, a side of one). Role decisions are therefore not
    evaluated: no agent acts in the role phase. The play phase is then played twice from that
    position: game "A" with A at every seat of the emperor's side and B at every rebel seat,
    game "B" with B on the emperor's side and A on the rebels. 2 games per deal and pair.

Records (team protocol)
    One `TeamRecord` per game: the agent on the emperor's side and on the rebel side, the
    deal, the composition ("A": the pair's A plays the emperor's side, "B": B does), the
    emperor's and the guard's seats and places, and the emperor's score, which is the
    result of the emperor's side: it won when score > 0, drew at 0 and lost below 0 (the
    rebels won). From an agent's point of view its "side result" is the emperor's score when
    it plays the emperor's side and minus that score when it plays the rebels, so that > 0
    always means its side won.

Statistics of the team protocol, A against B (all at 95%)
    * A's side win rate overall (all 2 x deals games) and per side (as emperor side, as
      rebels), each with a Wilson score interval, draws counted separately; likewise for B.
      The mean side result (Student t) is given beside it.
    * Duplicate win rate of A: x / games with x = games A's side won + 0.5 x draws, and the
      Wilson score interval of x successes in `games` trials (a draw counts as half a win).
      Wilson rather than the normal approximation on the per-game values 1 / 0.5 / 0,
      because that one collapses to a zero-width interval when one agent wins every game,
      which is common against weak baselines. It is conservative twice over: a draw is
      given the variance of a coin flip instead of none, and the two games of a deal are
      treated as independent although on duplicate deals they are negatively correlated (a
      deal good for the emperor's side helps A in one game and B in the other). B's
      duplicate win rate and interval are 1 minus A's.
    * Head-to-head: the paired difference per deal d = emperor's score with A on the
      emperor's side - emperor's score with B on it (equivalently the sum of A's two side
      results on that deal), its mean and Student-t interval, the deals A won / tied / lost
      and the verdict, as in the seat protocol; the matrix and the league ratings (one match
      per deal, won by A when d > 0) are built from it.

Seeding
    Agents are built from their spec strings inside the worker processes with
    `make_agent(spec, rules, seed)`; an agent with `reset(seed)` is built once per seat and
    worker and reset before every game, an agent without `reset` is rebuilt for every game.
    The seed of the agent at seat q in the game (deal, focal seat s, composition c) is
    `agent_seed(deal, s, c, q)`; in the team protocol the agent at seat q of the game
    (deal, composition c) gets `agent_seed(deal, emperor seat, "team-" + c, q)`. Results
    depend only on the deal set and the specs, not on the number of workers or the chunking.

Running
    Games run in a `ProcessPoolExecutor` over chunks of deals (specs, never agent objects,
    travel to the workers), straight on `Game` and `Encoder` (not the PettingZoo env). An
    agent that sets `uses_observation = False` (it reads only the mask) gets an empty array
    instead of an encoded observation, which saves over half the time of its games.
    `evaluate_against` plays an in-process agent object (a live model being trained)
    against an opponent spec in this process.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
import sys
import time
import uuid
from collections.abc import Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, ProcessPoolExecutor, wait
from dataclasses import asdict, dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path
from statistics import NormalDist
from typing import Any, TextIO

import numpy as np

from baohuang_env.cards import NUM_SEATS
from baohuang_env.encoding import Encoder
from baohuang_env.game import ROLE, Game, IllegalActionError
from baohuang_env.replay import atomic_path, save_replay
from baohuang_env.rules import Rules, get_rules

from baohuang_env.agent import AGENT_KINDS, Agent, make_agent

#: First seed of the default evaluation deal set.
EVAL_SEED_START = 1_000_000
#: Seeds below this are reserved for evaluation; training seeds must be >= it.
TRAIN_SEED_START = 2**32
DEALS_FORMAT = "baohuang-deals"
DEALS_VERSION = 1
PROTOCOL_VERSION = 1
TEAM_PROTOCOL_VERSION = 1
#: The protocols: "seat" (duplicate rotation, the default) and "team" (side duplicate).
PROTOCOLS = ("seat", "team")
#: Compositions of a pair game: "A" = A at the focal seat, B elsewhere; "B" the reverse.
#: In a team game: "A" = A plays the emperor's side, B the rebels; "B" the reverse.
COMPOSITIONS = ("A", "B")
#: Composition tags that enter the agent seeds (team games get their own).
SEED_TAGS = {"A": 0, "B": 1, "team-A": 2, "team-B": 3}
SIDES = ("emperor_side", "rebel_side")
ROLES = ("emperor", "guard", "solo", "rebel")
#: Rows of a per-agent table, in report order.
ROWS = ("overall", *SIDES, *ROLES)
#: Rows of a per-agent table of the team protocol.
TEAM_ROWS = ("overall", *SIDES)
CONFIDENCE = 0.95
Z95 = NormalDist().inv_cdf(0.5 + CONFIDENCE / 2)


def side_of(role: str) -> str:
    """'emperor_side' for emperor, guard and solo; 'rebel_side' for rebels."""
    return "rebel_side" if role == "rebel" else "emperor_side"


# ----------------------------------------------------------------------------- deal sets
@dataclass(frozen=True)
class DealSet:
    """The deals of an evaluation: a rule set and one game seed per deal."""

    rules: Rules
    seeds: tuple[int, ...]
    source: str = "range"  # "range" or the deal file it was read from

    def to_file_dict(self) -> dict[str, Any]:
        """The deal-file format (see `write_deals`)."""
        return {"format": DEALS_FORMAT, "version": DEALS_VERSION, "rules": self.rules.to_dict(),
                "seeds": list(self.seeds)}

    @property
    def fingerprint(self) -> str:
        """sha256 (16 hex digits) of the rules and seeds: equal fingerprints, equal deals."""
        blob = json.dumps({"rules": self.rules.to_dict(), "seeds": list(self.seeds)}, sort_keys=True)
        return hashlib.sha256(blob.encode()).hexdigest()[:16]

    def describe(self) -> dict[str, Any]:
        """A short description for reports."""
        s = self.seeds
        contiguous = list(s) == list(range(s[0], s[0] + len(s)))
        return {"source": self.source, "count": len(s), "first_seed": s[0], "last_seed": s[-1],
                "contiguous": contiguous, "preset": self.rules.preset, "rules": self.rules.to_dict(),
                "fingerprint": self.fingerprint}


def _check_seeds(seeds: Iterable[Any], where: str) -> tuple[int, ...]:
    out = tuple(seeds)
    if not out:
        raise ValueError(f"{where}: the deal set is empty; give at least one seed")
    bad = [s for s in out if isinstance(s, bool) or not isinstance(s, int | np.integer) or s < 0]
    if bad:
        raise ValueError(f"{where}: seeds must be non-negative integers, got {bad[:3]!r}")
    out = tuple(int(s) for s in out)
    if len(set(out)) != len(out):
        raise ValueError(f"{where}: seeds must be distinct (a repeated deal would count twice)")
    return out


def deal_range(count: int, start: int = EVAL_SEED_START, rules: Rules | None = None) -> DealSet:
    """Deals with seeds start .. start + count - 1."""
    if count < 1:
        raise ValueError(f"--deals must be at least 1, got {count}")
    if start < 0:
        raise ValueError(f"--deal-seed must be non-negative, got {start}")
    return DealSet(rules if rules is not None else get_rules(), tuple(range(start, start + count)))


def write_bytes_atomic(path: str | os.PathLike, data: bytes) -> None:
    """Write `data` to `path` atomically (`baohuang_env.replay.atomic_path`)."""
    with atomic_path(path) as tmp, open(tmp, "wb") as f:
        f.write(data)


def write_deals(path: str | os.PathLike, deals: DealSet) -> None:
    """Save a deal set as a deal file (atomically)."""
    write_bytes_atomic(path, json.dumps(deals.to_file_dict()).encode("utf-8"))


def load_deals(path: str | os.PathLike) -> DealSet:
    """Read a deal file. Raises ValueError naming the file and what is expected."""
    expected = (f'expected a JSON object {{"format": "{DEALS_FORMAT}", "version": {DEALS_VERSION}, '
                '"rules": {...}, "seeds": [...]}, as written by `baohuang eval --write-deals FILE`')
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except OSError as err:
        raise ValueError(f"cannot read deal file {path}: {err.strerror}; {expected}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise ValueError(f"deal file {path} is not valid JSON ({err}); {expected}") from None
    if not isinstance(data, dict) or data.get("format") != DEALS_FORMAT:
        raise ValueError(f"deal file {path} is not a Baohuang deal file; {expected}")
    if data.get("version") != DEALS_VERSION:
        raise ValueError(f"deal file {path} has version {data.get('version')!r}; this code reads "
                         f"version {DEALS_VERSION}")
    if not isinstance(data.get("rules"), dict) or not isinstance(data.get("seeds"), list):
        raise ValueError(f"deal file {path} lacks a 'rules' object or a 'seeds' list; {expected}")
    try:
        rules = Rules.from_dict(data["rules"])
    except (ValueError, TypeError) as err:
        raise ValueError(f"deal file {path} has invalid rules: {err}") from None
    return DealSet(rules, _check_seeds(data["seeds"], f"deal file {path}"), source=str(path))


# ----------------------------------------------------------------------------- statistics
def wilson_interval(wins: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion (z = 1.96 for 95%)."""
    if n <= 0:
        return (math.nan, math.nan)
    p = wins / n
    denom = 1 + z * z / n
    center = (p + z * z / (2 * n)) / denom
    half = z / denom * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    low = 0.0 if wins == 0 else max(0.0, center - half)  # exact ends, not 1e-17 off
    high = 1.0 if wins == n else min(1.0, center + half)
    return (low, high)


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 100_000):
        m2 = 2 * m
        for aa in (m * (b - m) * x / ((a - 1 + m2) * (a + m2)),
                   -(a + m) * (a + b + m) * x / ((a + m2) * (a + 1 + m2))):
            d = 1.0 + aa * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + aa / c
            c = c if abs(c) > tiny else tiny
            delta = d * c
            h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return h


def _betainc(a: float, b: float, x: float) -> float:
    """Regularized incomplete beta function I_x(a, b)."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1) / (a + b + 2):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1 - x) / b


@lru_cache(maxsize=4096)
def t_quantile(p: float, df: int) -> float:
    """Quantile of Student's t distribution with `df` degrees of freedom (p > 0.5)."""
    if df < 1:
        raise ValueError("t_quantile needs df >= 1")
    tail = 2 * (1 - p)  # P(|T| > t) = I_{df/(df+t^2)}(df/2, 1/2)

    def two_sided(t: float) -> float:
        return _betainc(df / 2, 0.5, df / (df + t * t))

    lo, hi = 0.0, 1.0
    while two_sided(hi) > tail:
        hi *= 2
    for _ in range(200):
        mid = (lo + hi) / 2
        if two_sided(mid) > tail:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12 * max(1.0, hi):
            break
    return (lo + hi) / 2


def mean_interval(values: Sequence[float]) -> tuple[float, float, float]:
    """(mean, low, high): the mean with its Student-t interval (nan without enough data)."""
    n = len(values)
    if n == 0:
        return (math.nan, math.nan, math.nan)
    arr = np.asarray(values, dtype=np.float64)
    mean = float(arr.mean())
    if n < 2:
        return (mean, math.nan, math.nan)
    half = t_quantile(0.5 + CONFIDENCE / 2, n - 1) * float(arr.std(ddof=1)) / math.sqrt(n)
    return (mean, mean - half, mean + half)


def _num(x: float) -> float | None:
    """JSON-safe float: nan becomes None."""
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else x


@dataclass(frozen=True)
class GameRecord:
    """One focal game of the duplicate rotation."""

    agent: str  # focal agent
    opponent: str  # the agent at the four other seats
    deal: int  # the deal's seed
    seat: int  # focal seat
    composition: str  # "A" (first agent of the pair focal) or "B"
    role: str  # the focal seat's final role
    side: str  # "emperor_side" or "rebel_side"
    place: int  # finishing place 1..5
    score: int

    @property
    def win(self) -> bool:
        return self.score > 0

    @property
    def draw(self) -> bool:
        return self.score == 0


@dataclass(frozen=True)
class Stats:
    """Focal results of one agent over a set of games (one row of a table)."""

    games: int
    wins: int
    draws: int
    win_rate: float
    win_low: float
    win_high: float
    mean_score: float
    score_low: float
    score_high: float

    @classmethod
    def of(cls, records: Sequence[GameRecord]) -> Stats:
        return cls.of_scores([r.score for r in records])

    @classmethod
    def of_scores(cls, scores: Sequence[float]) -> Stats:
        """From one score per game: win = score > 0, draw = score == 0."""
        n = len(scores)
        wins = sum(x > 0 for x in scores)
        draws = sum(x == 0 for x in scores)
        lo, hi = wilson_interval(wins, n)
        mean, s_lo, s_hi = mean_interval(scores)
        return cls(n, wins, draws, wins / n if n else math.nan, lo, hi, mean, s_lo, s_hi)

    @property
    def losses(self) -> int:
        return self.games - self.wins - self.draws

    def to_dict(self) -> dict[str, Any]:
        return {k: _num(v) for k, v in asdict(self).items()}


def agent_table(records: Sequence[GameRecord]) -> dict[str, Stats]:
    """Rows `ROWS` (overall, per side, per role) of focal statistics."""
    table = {"overall": Stats.of(records)}
    for side in SIDES:
        table[side] = Stats.of([r for r in records if r.side == side])
    for role in ROLES:
        table[role] = Stats.of([r for r in records if r.role == role])
    return table


@dataclass(frozen=True)
class PairedStats:
    """Paired difference d = score(A focal) - score(B focal) over the same (deal, seat)."""

    n: int
    mean: float
    low: float
    high: float
    sd: float
    a_better: int  # pairs with d > 0
    ties: int
    b_better: int

    @property
    def verdict(self) -> str:
        """'A', 'B', or '=' when the 95% interval contains 0."""
        if self.low > 0:
            return "A"
        if self.high < 0:
            return "B"
        return "="

    def reversed(self) -> PairedStats:
        """The same comparison seen from B."""
        return PairedStats(self.n, -self.mean, -self.high, -self.low, self.sd,
                           self.b_better, self.ties, self.a_better)

    def to_dict(self) -> dict[str, Any]:
        return {**{k: _num(v) for k, v in asdict(self).items()}, "verdict": self.verdict}


def paired_difference(records_a: Sequence[GameRecord], records_b: Sequence[GameRecord]) -> PairedStats:
    """Pair A-focal and B-focal records by (deal, seat); raises ValueError if they differ."""
    by_key = {(r.deal, r.seat): r.score for r in records_b}
    keys = [(r.deal, r.seat) for r in records_a]
    if len(by_key) != len(records_b) or sorted(keys) != sorted(by_key) or len(set(keys)) != len(keys):
        raise ValueError("paired records must cover the same (deal, seat) pairs once each")
    return paired_stats([r.score - by_key[(r.deal, r.seat)] for r in records_a])


def paired_stats(d: Sequence[float]) -> PairedStats:
    """Mean, t interval and sign counts of paired differences d (A's value minus B's)."""
    mean, lo, hi = mean_interval(d)
    sd = float(np.std(d, ddof=1)) if len(d) > 1 else math.nan
    return PairedStats(len(d), mean, lo, hi, sd, sum(x > 0 for x in d), sum(x == 0 for x in d),
                       sum(x < 0 for x in d))


class _PairGames:
    """What both protocols' pair results share: the games split by composition ("A": A in
    the seat or side that `table_a` describes), and A's headline figures for logging."""

    records: list

    @cached_property
    def records_a(self) -> list:
        return [r for r in self.records if r.composition == "A"]

    @cached_property
    def records_b(self) -> list:
        return [r for r in self.records if r.composition == "B"]

    @property
    def win_rate(self) -> float:
        """A's win rate over all its games (focal seat or side), for logging."""
        return self.table_a["overall"].win_rate

    @property
    def mean_diff(self) -> float:
        """Mean paired difference: > 0 when A scores better."""
        return self.paired.mean


@dataclass
class PairResult(_PairGames):
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

    protocol = "seat"

    def differences(self) -> list[int]:
        """Paired differences score(A focal) - score(B focal), in schedule order (deal, seat)."""
        b_scores = {(r.deal, r.seat): r.score for r in self.records_b}
        return [r.score - b_scores[(r.deal, r.seat)] for r in self.records_a]

    def to_dict(self, games: bool = True) -> dict[str, Any]:
        out: dict[str, Any] = {
            "a": self.a, "b": self.b, "games": len(self.records), "seconds": self.seconds,
            "paired_difference": self.paired.to_dict(),
            "focal_a": {row: s.to_dict() for row, s in self.table_a.items()},
            "focal_b": {row: s.to_dict() for row, s in self.table_b.items()},
        }
        if games:  # column-wise, compact enough for tens of thousands of games
            cols = ("deal", "seat", "composition", "role", "place", "score")
            out["records"] = {c: [getattr(r, c) for r in self.records] for c in cols}
        return out


# ----------------------------------------------------------------------------- team protocol
@dataclass(frozen=True)
class TeamRecord:
    """One game of the team protocol: one agent at every seat of the emperor's side, the
    other at every rebel seat, roles fixed by the default answers."""

    emperor_agent: str  # the agent at the emperor's (and the guard's) seats
    rebel_agent: str  # the agent at the rebel seats
    deal: int  # the deal's seed
    composition: str  # "A": the pair's A plays the emperor's side; "B": B does
    emperor: int  # the emperor's seat
    guard: int  # the guard's seat; == emperor in a (hidden) solo
    place: int  # the emperor's finishing place 1..5
    guard_place: int  # the guard's finishing place (== place in a solo)
    score: int  # the emperor's score: the result of the emperor's side

    @property
    def solo(self) -> bool:
        return self.emperor == self.guard

    @property
    def win(self) -> bool:
        """The emperor's side won."""
        return self.score > 0

    @property
    def draw(self) -> bool:
        return self.score == 0

    @property
    def loss(self) -> bool:
        """The emperor's side lost: the rebels won."""
        return self.score < 0

    def side_result(self, composition: str) -> int:
        """The result of the side of the pair's `composition` agent ("A" or "B"): the
        emperor's score if it played the emperor's side, minus it if it played the rebels;
        > 0 when that side won."""
        return self.score if composition == self.composition else -self.score


def team_table(results: Sequence[tuple[str, float]]) -> dict[str, Stats]:
    """Rows `TEAM_ROWS` (overall, per side) from (side, side result) per game: win rate =
    share of games the agent's side won (side result > 0), mean = mean side result."""
    table = {"overall": Stats.of_scores([v for _, v in results])}
    for side in SIDES:
        table[side] = Stats.of_scores([v for s, v in results if s == side])
    return table


@dataclass(frozen=True)
class DuplicateStats:
    """Duplicate win rate (wins + 0.5 draws) / games with the 95% Wilson score interval of
    wins + 0.5 draws successes in `games` trials (see the module docstring for why)."""

    games: int
    wins: int
    draws: int
    rate: float
    low: float
    high: float

    @classmethod
    def of(cls, wins: int, draws: int, games: int, z: float = Z95) -> DuplicateStats:
        if games <= 0:
            return cls(games, wins, draws, math.nan, math.nan, math.nan)
        if wins < 0 or draws < 0 or wins + draws > games:
            raise ValueError(f"need 0 <= wins + draws <= games, got {wins} + {draws} of {games}")
        points = wins + 0.5 * draws
        low, high = wilson_interval(points, games, z)
        return cls(games, wins, draws, points / games, low, high)

    def reversed(self) -> DuplicateStats:
        """The same games seen from the other agent (the Wilson interval is symmetric)."""
        losses = self.games - self.wins - self.draws
        return DuplicateStats(self.games, losses, self.draws, 1 - self.rate, 1 - self.high, 1 - self.low)

    def to_dict(self) -> dict[str, Any]:
        return {k: _num(v) for k, v in asdict(self).items()}


def team_paired_difference(records: Sequence[TeamRecord]) -> PairedStats:
    """Per deal, d = emperor's score with A on the emperor's side - with B on it; raises
    ValueError unless every deal has exactly one game of each composition."""
    by_deal: dict[int, dict[str, int]] = {}
    for r in records:
        games = by_deal.setdefault(r.deal, {})
        if r.composition in games or r.composition not in COMPOSITIONS:
            raise ValueError("team records must hold one game of composition 'A' and one of 'B' per deal")
        games[r.composition] = r.score
    if any(len(g) != 2 for g in by_deal.values()):
        raise ValueError("team records must hold one game of composition 'A' and one of 'B' per deal")
    return paired_stats([g["A"] - g["B"] for g in by_deal.values()])


@dataclass
class TeamPairResult(_PairGames):
    """All games of one pair (A, B) under the team protocol."""

    a: str
    b: str
    records: list[TeamRecord]  # in schedule order: deal, composition
    seconds: float = 0.0

    protocol = "team"  # records_a: the games with A on the emperor's side

    def side_results(self, composition: str) -> list[tuple[str, int]]:
        """(side played, side result) of agent A (composition "A") or B ("B") in every game."""
        return [("emperor_side" if r.composition == composition else "rebel_side", r.side_result(composition))
                for r in self.records]

    @cached_property
    def table_a(self) -> dict[str, Stats]:
        """A's side: overall, as emperor's side, as rebels."""
        return team_table(self.side_results("A"))

    @cached_property
    def table_b(self) -> dict[str, Stats]:
        return team_table(self.side_results("B"))

    @cached_property
    def duplicate(self) -> DuplicateStats:
        """A's duplicate win rate over all games (B's is `duplicate.reversed()`)."""
        t = self.table_a["overall"]
        return DuplicateStats.of(t.wins, t.draws, t.games)

    @cached_property
    def paired(self) -> PairedStats:
        return team_paired_difference(self.records)

    def differences(self) -> list[int]:
        """Per deal (in schedule order): emperor's score with A on the emperor's side minus
        with B on it."""
        b_scores = {r.deal: r.score for r in self.records_b}
        return [r.score - b_scores[r.deal] for r in self.records_a]

    def to_dict(self, games: bool = True) -> dict[str, Any]:
        out: dict[str, Any] = {
            "a": self.a, "b": self.b, "games": len(self.records), "seconds": self.seconds,
            "paired_difference": self.paired.to_dict(),
            "duplicate_win_rate_a": self.duplicate.to_dict(),
            "duplicate_win_rate_b": self.duplicate.reversed().to_dict(),
            "side_a": {row: s.to_dict() for row, s in self.table_a.items()},
            "side_b": {row: s.to_dict() for row, s in self.table_b.items()},
            "solo_deals": len({r.deal for r in self.records if r.solo}),
        }
        if games:
            cols = ("deal", "composition", "emperor", "guard", "place", "guard_place", "score")
            out["records"] = {c: [getattr(r, c) for r in self.records] for c in cols}
        return out


AnyPairResult = PairResult | TeamPairResult


@dataclass(frozen=True)
class Rating:
    mu: float
    sigma: float
    ordinal: float  # mu - 3 sigma, the conservative estimate used for ranking


def rate_league(pairs: Sequence[AnyPairResult]) -> dict[str, Rating]:
    """openskill Plackett-Luce ratings from the paired comparisons of every pair.

    Each (deal, seat) of a pair is a 1-vs-1 match: the agent whose focal score is higher
    wins, equal scores are a draw. Matches are applied in order: pairs, deals, seats. In the
    team protocol each deal is one match, won by A when d (`TeamPairResult.differences`) > 0.
    """
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings: dict[str, Any] = {}
    for pair in pairs:
        if pair.a == pair.b:
            continue
        for name in (pair.a, pair.b):
            ratings.setdefault(name, model.rating(name=name))
        for d in pair.differences():
            ranks = [0, 0] if d == 0 else ([0, 1] if d > 0 else [1, 0])
            [[ra], [rb]] = model.rate([[ratings[pair.a]], [ratings[pair.b]]], ranks=ranks)
            ratings[pair.a], ratings[pair.b] = ra, rb
    return {name: Rating(r.mu, r.sigma, r.ordinal()) for name, r in ratings.items()}


# ----------------------------------------------------------------------------- playing
def pair_schedule(seeds: Sequence[int]) -> list[tuple[int, int, str]]:
    """(deal seed, focal seat, composition) of every game of a pair, in order."""
    return [(d, s, c) for d in seeds for s in range(NUM_SEATS) for c in COMPOSITIONS]


def team_schedule(seeds: Sequence[int]) -> list[tuple[int, str]]:
    """(deal seed, composition) of every team-protocol game of a pair, in order: "A" = A on
    the emperor's side, "B" = B on it."""
    return [(d, c) for d in seeds for c in COMPOSITIONS]


def agent_seed(deal: int, focal_seat: int, composition: str, seat: int) -> int:
    """Seed of the agent at `seat` in the game (deal, focal seat, composition). Team games
    pass the emperor's seat as `focal_seat` and "team-A" / "team-B" as `composition`."""
    ss = np.random.SeedSequence([deal, focal_seat, SEED_TAGS[composition], seat, 0xBA0])
    return int(ss.generate_state(1, np.uint32)[0])


def default_roles(rules: Rules, deal: int) -> Game:
    """The deal `deal` after a role phase answered with the auto-play defaults of RULES.md
    §7: accept the throne (in the calling presets, call the lowest triple), declare nothing.
    So in jj the first holder of the emperor card is emperor, the guard-card holder is guard
    (a hidden solo when that is the emperor), and the game stands at the emperor's first
    lead. In a calling preset the deal may end void (nobody could be forced to call)."""
    from baohuang_env.autoplay import AutoPlayAgent

    game = Game(rules, seed=deal)
    auto = AutoPlayAgent(rules)
    encoder = Encoder(rules) if auto.uses_observation else None
    while game.phase == ROLE:
        obs = encoder.encode(game, game.current_player) if encoder is not None else None
        game.step(auto.act(obs, game.legal_mask()))
    return game


class _SpecSeats:
    """Agents of one spec, one per seat; reset per game (rebuilt when they cannot reset)."""

    def __init__(self, spec: str, rules: Rules) -> None:
        self.spec, self.rules = spec, rules
        self.agents: dict[int, Agent] = {}

    def get(self, seat: int, seed: int) -> Agent:
        agent = self.agents.get(seat)
        if agent is None or not hasattr(agent, "reset"):
            agent = self.agents[seat] = make_agent(self.spec, self.rules, seed)
        if hasattr(agent, "reset"):
            agent.reset(seed)
        return agent


class _ObjectSeats:
    """One in-process agent object for every seat of its side (it must not keep per-seat
    state between calls); reset per game if it can."""

    def __init__(self, agent: Agent) -> None:
        self.agent = agent

    def get(self, seat: int, seed: int) -> Agent:
        if hasattr(self.agent, "reset"):
            self.agent.reset(seed)
        return self.agent


#: Given instead of an observation to agents that declare `uses_observation = False` (agents
#: that read only the mask): encoding is over half the cost of a game between such agents.
_NO_OBSERVATION = np.zeros(0, dtype=np.float32)
_NO_OBSERVATION.flags.writeable = False


def _slug(text: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in text)[:60]


def _play_out(game: Game, agents: Sequence[Agent], encoder: Encoder, names: Sequence[str], where: str) -> None:
    """Play `game` to its end, seat q acting with agents[q] (called names[q] in errors)."""
    observes = [ag.uses_observation for ag in agents]
    while not game.is_over:
        seat = game.current_player
        obs = encoder.encode(game, seat) if observes[seat] else _NO_OBSERVATION
        action = agents[seat].act(obs, game.legal_mask())
        try:
            game.step(int(action))
        except IllegalActionError as err:  # plain ValueError: it must cross process bounds
            raise ValueError(f"agent {names[seat]!r} chose an illegal action ({where}): {err}") from None


def _play_chunk(rules: Rules, encoder: Encoder, a: str, b: str, seats_a, seats_b, seeds: Sequence[int],
                replay_dir: Path | None) -> list[GameRecord]:
    records = []
    for deal, focal, comp in pair_schedule(seeds):
        focal_seats, other_seats = (seats_a, seats_b) if comp == "A" else (seats_b, seats_a)
        focal_name, other_name = (a, b) if comp == "A" else (b, a)
        agents = [(focal_seats if q == focal else other_seats).get(q, agent_seed(deal, focal, comp, q))
                  for q in range(NUM_SEATS)]
        game = Game(rules, seed=deal)
        names = [focal_name if q == focal else other_name for q in range(NUM_SEATS)]
        _play_out(game, agents, encoder, names, f"deal {deal}, focal seat {focal}, composition {comp}")
        res = game.result
        role = res.roles[focal]
        records.append(GameRecord(focal_name, other_name, deal, focal, comp, role, side_of(role),
                                  res.places[focal], int(res.scores[focal])))
        if replay_dir is not None:
            save_replay(game, replay_dir / f"d{deal}-s{focal}-{_slug(focal_name)}-focal.json")
    return records


def _play_team_chunk(rules: Rules, encoder: Encoder, a: str, b: str, seats_a, seats_b, seeds: Sequence[int],
                     replay_dir: Path | None) -> list[TeamRecord]:
    """The team protocol on `seeds`: per deal, the role phase with the default answers, then
    the play phase twice from there, A on the emperor's side and then B."""
    records = []
    for deal in seeds:
        start = default_roles(rules, deal)
        if start.is_over:  # a void deal (calling presets): no play to compare
            continue
        emperor, guard = start.emperor, start.guard
        side = (emperor, guard)
        for comp in COMPOSITIONS:
            emp_seats, reb_seats = (seats_a, seats_b) if comp == "A" else (seats_b, seats_a)
            emp_name, reb_name = (a, b) if comp == "A" else (b, a)
            tag = f"team-{comp}"
            agents = [(emp_seats if q in side else reb_seats).get(q, agent_seed(deal, emperor, tag, q))
                      for q in range(NUM_SEATS)]
            names = [emp_name if q in side else reb_name for q in range(NUM_SEATS)]
            game = start.copy()
            _play_out(game, agents, encoder, names, f"deal {deal}, team game with {emp_name!r} on the emperor's side")
            res = game.result
            records.append(TeamRecord(emp_name, reb_name, deal, comp, emperor, guard, res.places[emperor],
                                      res.places[guard], int(res.scores[emperor])))
            if replay_dir is not None:
                save_replay(game, replay_dir / f"d{deal}-team{comp}-{_slug(emp_name)}-emperor-side.json")
    return records


#: Per worker process: the agents built for the current evaluation (keyed by a run token,
#: so a checkpoint rewritten between two evaluations is loaded again).
_WORKER: dict[str, Any] = {"token": None, "rules": None, "encoder": None, "seats": {}}


_PLAYERS = {"seat": _play_chunk, "team": _play_team_chunk}
#: Games per deal and pair of each protocol.
GAMES_PER_DEAL = {"seat": 2 * NUM_SEATS, "team": len(COMPOSITIONS)}


def _check_protocol(protocol: str) -> str:
    if protocol not in PROTOCOLS:
        raise ValueError(f"protocol must be one of {list(PROTOCOLS)}, got {protocol!r}")
    return protocol


def _run_job(job: tuple) -> list[GameRecord] | list[TeamRecord]:
    token, rules_dict, a, b, seeds, replay_dir, protocol = job
    if _WORKER["token"] != token:
        rules = Rules.from_dict(rules_dict)
        _WORKER.update(token=token, rules=rules, encoder=Encoder(rules), seats={})
    rules, cache = _WORKER["rules"], _WORKER["seats"]
    seats_a = cache.setdefault(a, _SpecSeats(a, rules))
    seats_b = cache.setdefault(b, _SpecSeats(b, rules)) if b != a else _SpecSeats(b, rules)
    return _PLAYERS[protocol](rules, _WORKER["encoder"], a, b, seats_a, seats_b, seeds,
                              Path(replay_dir) if replay_dir else None)


class _Progress:
    """`\\r`-refreshed progress line: games done/total, games/s, ETA."""

    def __init__(self, total: int, log: TextIO | None, label: str = "eval") -> None:
        self.total, self.log, self.label = total, log, label
        self.done = 0
        self.t0 = time.perf_counter()

    def add(self, games: int) -> None:
        self.done += games
        if self.log is None:
            return
        dt = time.perf_counter() - self.t0
        rate = self.done / dt if dt > 0 else 0.0
        eta = (self.total - self.done) / rate if rate > 0 else math.inf
        eta_s = "?" if math.isinf(eta) else f"{int(eta) // 60}m{int(eta) % 60:02d}s"
        print(f"\r{self.label}: {self.done}/{self.total} games, {rate:.1f} games/s, ETA {eta_s}   ",
              end="", file=self.log, flush=True)

    def close(self) -> None:
        if self.log is not None:
            print(file=self.log, flush=True)

    @property
    def seconds(self) -> float:
        return time.perf_counter() - self.t0


def validate_specs(specs: Sequence[str], rules: Rules) -> None:
    """Build every spec once, so a typo or a missing checkpoint fails before any game."""
    for spec in specs:
        if not isinstance(spec, str) or not spec:
            raise ValueError(f"agent specs are strings such as 'random'; got {spec!r}")
        try:
            make_agent(spec, rules, 0)
        except ValueError as err:
            if spec.partition(":")[0] not in AGENT_KINDS:
                raise  # make_agent's message lists the known agents
            raise ValueError(f"cannot build agent {spec!r}: {err}; {_accepted()}") from None
        except OSError as err:
            raise ValueError(f"cannot build agent {spec!r}: {err}; {_accepted()}") from None


def _accepted() -> str:
    return f"accepted agents: {sorted(AGENT_KINDS)} (checkpoint agents are written kind:path)"


def _chunk_size(num_deals: int, workers: int) -> int:
    return max(1, min(20, math.ceil(num_deals / (4 * max(1, workers)))))


def _run_pairs(pairs: Sequence[tuple[str, str]], rules: Rules, seeds: Sequence[int], workers: int,
               replay_dir: str | os.PathLike | None, log: TextIO | None,
               mp_context: Any = None, protocol: str = "seat") -> tuple[list[AnyPairResult], float]:
    """Play every pair under `protocol`; returns the results and the wall time."""
    if workers < 1:
        raise ValueError(f"--workers must be at least 1, got {workers}")
    _check_protocol(protocol)
    seeds = _check_seeds(seeds, "deal seeds")
    token = uuid.uuid4().hex
    size = _chunk_size(len(seeds), workers)
    jobs = []
    for i, (a, b) in enumerate(pairs):
        pdir = None
        if replay_dir is not None:
            pdir = str(Path(replay_dir) / f"{i:02d}-{_slug(a)}-vs-{_slug(b)}")
        for k in range(0, len(seeds), size):
            jobs.append((i, (token, rules.to_dict(), a, b, seeds[k:k + size], pdir, protocol)))
    per_game = GAMES_PER_DEAL[protocol]
    label = "eval" if protocol == "seat" else "eval (team)"
    progress = _Progress(len(pairs) * len(seeds) * per_game, log, label)
    chunks: dict[int, list[list[GameRecord]]] = {i: [] for i in range(len(pairs))}
    seconds = [0.0] * len(pairs)
    try:
        if workers == 1:
            for i, job in jobs:
                t = time.perf_counter()
                chunks[i].append(_run_job(job))
                seconds[i] += time.perf_counter() - t
                progress.add(len(job[4]) * per_game)
        else:
            with ProcessPoolExecutor(max_workers=workers, mp_context=mp_context) as pool:
                _run_in_pool(pool, jobs, chunks, progress, per_game)
            # pool time is shared: split it in proportion to games
            seconds = [progress.seconds / len(pairs)] * len(pairs)
    finally:
        progress.close()
        _WORKER.update(token=None, rules=None, encoder=None, seats={})
    result_cls = PairResult if protocol == "seat" else TeamPairResult
    results = [result_cls(a, b, [r for c in chunks[i] for r in c], seconds[i]) for i, (a, b) in enumerate(pairs)]
    return results, progress.seconds


def _run_in_pool(pool: Executor, jobs: list, chunks: dict, progress: _Progress, per_game: int) -> None:
    futures = {pool.submit(_run_job, job): (n, i, len(job[4])) for n, (i, job) in enumerate(jobs)}
    ordered: dict[int, list[GameRecord]] = {}
    pending = set(futures)
    while pending:
        done, pending = wait(pending, return_when=FIRST_COMPLETED)
        for fut in done:
            n, i, count = futures[fut]
            ordered[n] = fut.result()  # re-raises a worker's error here
            progress.add(count * per_game)
    for n, (i, _) in enumerate(jobs):
        chunks[i].append(ordered[n])


def evaluate_pair(spec_a: str, spec_b: str, rules: Rules, seeds: Sequence[int], workers: int = 1,
                  replay_dir: str | os.PathLike | None = None, log: TextIO | None = None,
                  mp_context: Any = None, protocol: str = "seat") -> AnyPairResult:
    """A against B over `seeds` under `protocol` (see the module docstring): "seat" (duplicate
    rotation, a `PairResult`) or "team" (side duplicate, a `TeamPairResult`).

    `result.paired` says whether A beats B; `result.table_a` / `table_b` hold the focal
    statistics (seat) or the side statistics (team; `result.duplicate` is A's duplicate win
    rate). Workers start with "spawn" unless `mp_context` (a name or a multiprocessing
    context) says otherwise.
    """
    _check_protocol(protocol)
    validate_specs([spec_a, spec_b], rules)
    [result], _ = _run_pairs([(spec_a, spec_b)], rules, seeds, workers, replay_dir, log, _ctx(mp_context),
                             protocol)
    return result


def evaluate_against(agent: Agent, opponent: str, rules: Rules, seeds: Sequence[int], name: str = "agent",
                     replay_dir: str | os.PathLike | None = None, log: TextIO | None = None,
                     protocol: str = "seat") -> AnyPairResult:
    """An in-process agent object (A, called `name`) against the agent `opponent` (B, a
    spec) under `protocol`, in this process: for evaluating a live model.

    The object plays every seat of side A at once (the four non-focal seats, or every seat
    of a team side), so it must not keep per-seat state between `act` calls (a feed-forward
    policy is fine); `reset(seed)` is called before each game if it has one.
    `result.paired.mean > 0` means the object scored better.
    """
    _check_protocol(protocol)
    if not callable(getattr(agent, "act", None)):
        raise ValueError("evaluate_against needs an agent object with act(observation, action_mask)")
    validate_specs([opponent], rules)
    seeds = _check_seeds(seeds, "deal seeds")
    progress = _Progress(len(seeds) * GAMES_PER_DEAL[protocol], log)
    records = _PLAYERS[protocol](rules, Encoder(rules), name, opponent, _ObjectSeats(agent),
                                 _SpecSeats(opponent, rules), seeds,
                                 Path(replay_dir) if replay_dir is not None else None)
    progress.add(len(records))
    progress.close()
    result_cls = PairResult if protocol == "seat" else TeamPairResult
    return result_cls(name, opponent, records, progress.seconds)


def _ctx(mp_context: Any) -> Any:
    """Worker processes start with "spawn" by default: a forked child of a process that has
    used torch's thread pool (any checkpoint agent) can hang on its first torch call."""
    import multiprocessing

    if mp_context is None:
        return multiprocessing.get_context("spawn")
    if isinstance(mp_context, str):
        return multiprocessing.get_context(mp_context)
    return mp_context


#: How `evaluate_agents` pairs a list of agents (see `make_pairs`).
PAIRINGS = ("consecutive", "all", "first")


def make_pairs(specs: Sequence[str], pairs: str = "consecutive") -> list[tuple[str, str]]:
    """'consecutive': neighbours in the list (a ladder); 'all': every unordered pair;
    'first': the first agent against each of the others (a checkpoint against baselines)."""
    if pairs == "consecutive":
        return list(itertools.pairwise(specs))
    if pairs == "all":
        return [(a, b) for i, a in enumerate(specs) for b in specs[i + 1:]]
    if pairs == "first":
        return [(specs[0], b) for b in specs[1:]]
    raise ValueError(f"pairs must be one of {list(PAIRINGS)}, got {pairs!r}")


@dataclass
class Report:
    """An evaluation of several agents: every pair's results, per-agent tables, ratings."""

    agents: list[str]
    deals: DealSet
    pairs: list[AnyPairResult]
    pairing: str = "consecutive"
    timing: dict[str, Any] = field(default_factory=dict)
    protocol_name: str = "seat"  # "seat" (pairs are PairResult) or "team" (TeamPairResult)

    @cached_property
    def tables(self) -> dict[str, dict[str, Stats]]:
        """Per agent, over all its games (against every opponent it met): its focal statistics
        (seat protocol, rows `ROWS`) or its side statistics (team protocol, rows `TEAM_ROWS`)."""
        if self.protocol_name == "team":
            sides: dict[str, list[tuple[str, int]]] = {a: [] for a in self.agents}
            for p in self.pairs:
                sides.setdefault(p.a, []).extend(p.side_results("A"))
                sides.setdefault(p.b, []).extend(p.side_results("B"))
            return {a: team_table(r) for a, r in sides.items()}
        recs: dict[str, list[GameRecord]] = {a: [] for a in self.agents}
        for p in self.pairs:
            recs.setdefault(p.a, []).extend(p.records_a)
            recs.setdefault(p.b, []).extend(p.records_b)
        return {a: agent_table(r) for a, r in recs.items()}

    @cached_property
    def duplicate(self) -> dict[str, DuplicateStats]:
        """Team protocol: each agent's duplicate win rate over all its games (empty for seat)."""
        if self.protocol_name != "team":
            return {}
        return {a: DuplicateStats.of(t["overall"].wins, t["overall"].draws, t["overall"].games)
                for a, t in self.tables.items()}

    @cached_property
    def ratings(self) -> dict[str, Rating]:
        return rate_league(self.pairs)

    def head_to_head(self, a: str, b: str) -> PairedStats | None:
        """The paired difference of a against b (either order), None if not played."""
        for p in self.pairs:
            if (p.a, p.b) == (a, b):
                return p.paired
            if (p.a, p.b) == (b, a):
                return p.paired.reversed()
        return None

    def matrix(self) -> dict[str, dict[str, PairedStats | None]]:
        """matrix[a][b]: paired difference of a (row) against b (column)."""
        return {a: {b: (self.head_to_head(a, b) if a != b else None) for b in self.agents} for a in self.agents}

    def protocol(self) -> dict[str, Any]:
        if self.protocol_name == "team":
            return self._team_protocol()
        return {
            "name": "duplicate-rotation", "version": PROTOCOL_VERSION,
            "games_per_deal_per_pair": 2 * NUM_SEATS,
            "rotation": "for each deal and focal seat s: A at s with B at the other 4 seats, and B at s "
                        "with A at the other 4 seats",
            "win": "focal score > 0", "draw": "focal score == 0",
            "sides": {"emperor_side": ["emperor", "guard", "solo"], "rebel_side": ["rebel"]},
            "confidence": CONFIDENCE, "win_rate_interval": "Wilson score",
            "mean_interval": "Student t",
            "head_to_head": "paired difference d = score(A focal) - score(B focal) over the same (deal, seat)",
            "ratings": "openskill PlackettLuce (default mu=25, sigma=25/3), one 1-vs-1 match per paired "
                       "(deal, seat), higher focal score wins, equal is a draw; ordinal = mu - 3 sigma",
            "agent_seeds": "agent_seed(deal, focal seat, composition, seat) via numpy SeedSequence",
            "pairs": self.pairing,
        }

    def _team_protocol(self) -> dict[str, Any]:
        return {
            "name": "team-duplicate", "version": TEAM_PROTOCOL_VERSION,
            "games_per_deal_per_pair": GAMES_PER_DEAL["team"],
            "roles": "role phase answered with the auto-play defaults of RULES.md §7 (accept, or call the "
                     "lowest triple; declare nothing; void deals left out): in jj emperor = first holder of the "
                     "emperor card, guard = holder of the guard card "
                     "(the emperor himself: a hidden solo, a side of one); no agent acts in the role phase",
            "games": "per deal, the play phase twice: composition A = A at every seat of the emperor's side "
                     "and B at every rebel seat; composition B = the reverse",
            "result": "the emperor's score; the emperor's side wins when > 0, draws at 0, loses when < 0",
            "side_result": "from an agent's view: the emperor's score when it plays the emperor's side, "
                           "minus it when it plays the rebels (> 0: its side won)",
            "confidence": CONFIDENCE, "win_rate_interval": "Wilson score",
            "mean_interval": "Student t",
            "duplicate_win_rate": "(wins + 0.5 draws) / games over all games of the agent; Wilson score "
                                  "interval of wins + 0.5 draws successes in games trials (games treated as "
                                  "independent; conservative)",
            "head_to_head": "paired difference per deal d = emperor's score (A on the emperor's side) - "
                            "emperor's score (B on the emperor's side)",
            "ratings": "openskill PlackettLuce (default mu=25, sigma=25/3), one 1-vs-1 match per deal, won by A "
                       "when d > 0, by B when d < 0, a draw when d == 0; ordinal = mu - 3 sigma",
            "agent_seeds": "agent_seed(deal, emperor seat, 'team-A' or 'team-B', seat) via numpy SeedSequence",
            "pairs": self.pairing,
        }

    def to_dict(self, games: bool = True) -> dict[str, Any]:
        tables = {a: {row: s.to_dict() for row, s in t.items()} for a, t in self.tables.items()}
        out: dict[str, Any] = {
            "format": "baohuang-eval-report", "version": 1,
            "protocol": self.protocol(),
            "deals": self.deals.describe(),
            "agents": self.agents,
        }
        if self.protocol_name == "team":
            out["sides"] = tables
            out["duplicate_win_rate"] = {a: d.to_dict() for a, d in self.duplicate.items()}
        else:
            out["focal"] = tables
        out.update({
            "pairs": [p.to_dict(games=games) for p in self.pairs],
            "matrix": {a: {b: (m.to_dict() if m else None) for b, m in row.items()}
                       for a, row in self.matrix().items()},
            "ratings": {a: asdict(r) for a, r in sorted(self.ratings.items(), key=lambda kv: -kv[1].ordinal)},
            "timing": self.timing,
        })
        return out


def evaluate_agents(specs: Sequence[str], rules: Rules | DealSet, seeds: Sequence[int] | None = None,
                    pairs: str = "consecutive", workers: int = 2, replay_dir: str | os.PathLike | None = None,
                    log: TextIO | None = sys.stderr, mp_context: Any = None,
                    out_dir: str | os.PathLike | None = None, protocol: str = "seat") -> Report:
    """Evaluate a list of agents pairwise (`make_pairs`) on a deal set; returns a `Report`.

    Give either `rules` and `seeds`, or a `DealSet` as `rules` (and no seeds). `protocol` is
    "seat" (duplicate rotation) or "team" (side duplicate). With `out_dir`, report.json,
    report.md and report.png are written there (`agents.report`).
    """
    _check_protocol(protocol)
    if isinstance(rules, DealSet):
        if seeds is not None:
            raise ValueError("give seeds either in the DealSet or as `seeds`, not both")
        deals = rules
    else:
        if seeds is None:
            raise ValueError("evaluate_agents needs the deal seeds")
        deals = DealSet(rules, _check_seeds(seeds, "deal seeds"))
    specs = list(specs)
    if pairs not in PAIRINGS:
        raise ValueError(f"pairs must be one of {list(PAIRINGS)}, got {pairs!r}")
    if len(specs) < 2:
        raise ValueError(f"give at least two agents to compare, got {specs}")
    if len(set(specs)) != len(specs):
        raise ValueError(f"list each agent once; got {specs}")
    validate_specs(specs, deals.rules)
    pair_list = make_pairs(specs, pairs)
    started = time.strftime("%Y-%m-%dT%H:%M:%S")
    results, seconds = _run_pairs(pair_list, deals.rules, deals.seeds, workers, replay_dir, log, _ctx(mp_context),
                                  protocol)
    games = sum(len(p.records) for p in results)
    timing = {"started": started, "seconds": seconds, "games": games,
              "games_per_s": games / seconds if seconds > 0 else None, "workers": workers}
    report = Report(specs, deals, results, pairs, timing, protocol)
    if out_dir is not None:
        from .report import write_report

        write_report(report, out_dir)
    return report


def format_markdown(report: Report) -> str:
    """The report as Markdown tables (`agents.report.to_markdown`)."""
    from .report import to_markdown

    return to_markdown(report)
