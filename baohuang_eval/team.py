"""The team protocol: side duplicate, the card play of a whole side.

Why: in the seat protocol a focal agent always has copies of its opponent as teammates (a
focal emperor plays with a B guard, a focal rebel with two B rebels), so even a perfect agent
cannot win most of its games. The team protocol is the analogue of DouZero's
landlord-vs-peasants evaluation: one agent plays every seat of one side.

How: for each deal the role phase is answered by the auto-play bot
(`baohuang_env.autoplay.AutoPlayAgent`: accept, or call the lowest triple; declare nothing),
so the sides follow from the cards alone (a deal that ends void is left out): in jj the
emperor is the first holder of the emperor card, the guard the holder of the guard card (when
that is the emperor it is a hidden solo, a side of one). No agent acts in the role phase, so
role decisions are not evaluated. The play phase is then played twice from that position:
game "A" with A at every seat of the emperor's side and B at every rebel seat, game "B" the
reverse: 2 games per deal and pair.

Records: one `TeamRecord` per game, whose score is the emperor's score, the result of the
emperor's side (won > 0, drew 0, lost < 0). An agent's "side result" is that score when it
played the emperor's side and minus it when it played the rebels, so > 0 always means its
side won.

Statistics of A against B (all at 95%): side win rates overall and per side (Wilson), the
mean side result (Student t), the duplicate win rate (wins + ½ draws) / games
(`DuplicateStats`), and the paired difference per deal d = emperor's score with A on the
emperor's side - with B on it (the sum of A's two side results), which also makes one league
match per deal. The agent at seat q of the game (deal, composition c) gets the seed
`agent_seed(deal, emperor seat, "team-" + c, q)`.
"""

from __future__ import annotations

import typing
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from baohuang_env.autoplay import AutoPlayAgent
from baohuang_env.cards import NUM_SEATS
from baohuang_env.game import ROLE, Game
from baohuang_env.replay import write_json_atomic
from baohuang_env.roles import SIDES
from baohuang_env.rules import Rules

from .play import Seats, Table, agent_seed, file_slug, game_agents, play_games
from .protocol import COMPOSITIONS, PairGames, Protocol
from .stats import CONFIDENCE, DuplicateStats, PairedStats, Stats, paired_stats

EMPEROR_SIDE, REBEL_SIDE = SIDES
#: Rows of a side table, in report order.
TEAM_ROWS = ("overall", *SIDES)


@dataclass(frozen=True)
class TeamRecord:
    """One game of the team protocol: one agent at every seat of the emperor's side, the
    other at every rebel seat, roles fixed by the auto-play answers."""

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
class TeamPairResult(PairGames):
    """All games of one pair (A, B) under the team protocol (`records_a`: the games with A
    on the emperor's side)."""

    a: str
    b: str
    records: list[TeamRecord]  # in schedule order: deal, composition
    seconds: float = 0.0

    def side_results(self, composition: str) -> list[tuple[str, int]]:
        """(side played, side result) of agent A (composition "A") or B ("B") in every game."""
        return [(EMPEROR_SIDE if r.composition == composition else REBEL_SIDE, r.side_result(composition))
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
            "a": self.a, "b": self.b, "deals": self.deals, "games": len(self.records), "seconds": self.seconds,
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


def default_roles_many(rules: Rules, deals: Sequence[int]) -> list[Game]:
    """Each deal of `deals` after a role phase answered by the auto-play bot: accept the throne
    (in the calling presets, call the lowest triple), declare nothing. So in jj the first
    holder of the emperor card is emperor, the guard-card holder is guard (a hidden solo when
    that is the emperor), and each game stands at the emperor's first lead. In a calling
    preset a deal may end void (nobody could be forced to call): its game is over. The role
    phases are played at once (`play_games`); a game's `actions` are its role-phase answers,
    what a game played from there replays as its opening."""
    auto = AutoPlayAgent(rules)  # it keeps no state: one for every seat of every deal
    tables = (Table(deal, [auto] * NUM_SEATS, ["autoplay"] * NUM_SEATS, f"deal {deal}, role phase by the auto-play "
                    "bot", until=_role_phase_over) for deal in deals)
    return [typing.cast(Game, played.game) for played in play_games(rules, tables)]


def _role_phase_over(game: Game) -> bool:
    return game.phase != ROLE


def default_roles(rules: Rules, deal: int) -> Game:
    """The deal `deal` after the auto-play bot's role phase (`default_roles_many` of one deal)."""
    return default_roles_many(rules, [deal])[0]


class TeamProtocol(Protocol):
    """Side duplicate: one agent on the whole emperor's side against the other on the rebel
    seats, then swapped; roles fixed by the auto-play answers."""

    name = "team"
    report_name = "team-duplicate"  # the report's protocol.name, which readers of report.json check
    version = 1
    games_per_deal = len(COMPOSITIONS)
    tables_key = "sides"
    progress_label = "eval (team)"

    def play_chunk(self, rules: Rules, a: str, b: str, seats_a: Seats, seats_b: Seats, seeds: Sequence[int],
                   replay_dir: Path | None) -> list[TeamRecord]:
        """Per deal, the role phase with the auto-play answers (all deals at once), then the
        play phase twice from there, A on the emperor's side and then B (all games at once)."""
        starts = [start for start in default_roles_many(rules, seeds) if not start.is_over]  # void: no play
        schedule = [(start, comp) for start in starts for comp in COMPOSITIONS]
        played = play_games(rules, _tables(a, b, seats_a, seats_b, schedule), records=replay_dir is not None)
        records = []
        for (start, comp), game in zip(schedule, played, strict=True):
            emp_name, reb_name = (a, b) if comp == "A" else (b, a)
            deal, emperor, guard = start.seed, start.emperor, start.guard
            res = game.result
            records.append(TeamRecord(emp_name, reb_name, deal, comp, emperor, guard, res.places[emperor],
                                      res.places[guard], int(res.scores[emperor])))
            if replay_dir is not None:
                write_json_atomic(replay_dir / f"d{deal}-team{comp}-{file_slug(emp_name)}-emperor-side.json",
                                  game.record)
        return records

    def pair_result(self, a: str, b: str, records: list, seconds: float = 0.0) -> TeamPairResult:
        return TeamPairResult(a, b, records, seconds)

    def agent_tables(self, agents: Sequence[str], pairs: Sequence[PairGames]) -> dict[str, dict[str, Stats]]:
        """Per agent, its side statistics over all its games."""
        sides: dict[str, list[tuple[str, int]]] = {a: [] for a in agents}
        for p in pairs:
            sides.setdefault(p.a, []).extend(p.side_results("A"))
            sides.setdefault(p.b, []).extend(p.side_results("B"))
        return {a: team_table(r) for a, r in sides.items()}

    def duplicate_rates(self, tables: dict[str, dict[str, Stats]]) -> dict[str, DuplicateStats]:
        """Each agent's duplicate win rate over all its games."""
        return {a: DuplicateStats.of(t["overall"].wins, t["overall"].draws, t["overall"].games)
                for a, t in tables.items()}

    def describe(self, pairing: str) -> dict[str, Any]:
        return {
            "name": self.report_name, "version": self.version,
            "games_per_deal_per_pair": self.games_per_deal,
            "roles": "role phase answered by the auto-play bot (accept, or call the lowest triple; declare "
                     "nothing; void deals left out): in jj emperor = first holder of the emperor card, guard = "
                     "holder of the guard card (the emperor himself: a hidden solo, a side of one); no agent "
                     "acts in the role phase",
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
            "pairs": pairing,
        }


def _tables(a: str, b: str, seats_a: Seats, seats_b: Seats, schedule: Sequence[tuple[Game, str]]
            ) -> Iterator[Table]:
    """The game of each (start, composition) of `schedule`: the start's role phase replayed,
    then the composition's emperor-side agent at the emperor's and guard's seats and the
    other at the rebel seats, each seeded by `agent_seed` with the emperor's seat."""
    for start, comp in schedule:
        deal, emperor, side = start.seed, start.emperor, (start.emperor, start.guard)
        emp_seats, reb_seats = (seats_a, seats_b) if comp == "A" else (seats_b, seats_a)
        emp_name, reb_name = (a, b) if comp == "A" else (b, a)
        sides = [emp_seats if q in side else reb_seats for q in range(NUM_SEATS)]
        agents = game_agents(sides, [agent_seed(deal, emperor, f"team-{comp}", q) for q in range(NUM_SEATS)])
        names = [emp_name if q in side else reb_name for q in range(NUM_SEATS)]
        yield Table(deal, agents, names, f"deal {deal}, team game with {emp_name!r} on the emperor's side",
                    opening=start.actions)


#: The team protocol.
TEAM = TeamProtocol()

__all__ = ["TEAM", "TEAM_ROWS", "TeamPairResult", "TeamProtocol", "TeamRecord", "default_roles",
           "default_roles_many", "team_paired_difference", "team_table"]
