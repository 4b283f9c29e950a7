"""What an evaluation protocol is: how a pair (A, B) plays a deal set, and what its games
mean. Two protocols implement it: `baohuang_eval.seat.SEAT` (duplicate rotation) and
`baohuang_eval.team.TEAM` (side duplicate); `baohuang_eval.evaluate.get_protocol` finds one
from the name a user types.

Both play every deal in two compositions: "A" (the pair's A at the focal seat, or on the
emperor's side) and "B" (the reverse), so the luck of the cards cancels out of A - B.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from functools import cached_property
from pathlib import Path
from typing import Any

from baohuang_env.rules import Rules

from .play import Seats
from .stats import DuplicateStats, PairedStats, Stats

#: The two compositions of a pair game: "A" = A in the seat or side the protocol studies,
#: B elsewhere; "B" the reverse.
COMPOSITIONS = ("A", "B")


class PairGames(ABC):
    """What both protocols' pair results share: the games split by composition, and A's
    headline figures for logging. Subclasses are dataclasses (a, b, records, seconds) that
    define the tables `table_a` / `table_b`, the paired statistics `paired`, `differences`
    and `to_dict`."""

    a: str
    b: str
    records: list
    seconds: float
    table_a: dict[str, Stats]
    table_b: dict[str, Stats]
    paired: PairedStats

    @cached_property
    def records_a(self) -> list:
        return [r for r in self.records if r.composition == "A"]

    @cached_property
    def records_b(self) -> list:
        return [r for r in self.records if r.composition == "B"]

    @property
    def deals(self) -> int:
        """How many deals the pair played (fewer than asked in an interrupted evaluation)."""
        return len({r.deal for r in self.records})

    @property
    def win_rate(self) -> float:
        """A's win rate over all its games (focal seat or side), for logging."""
        return self.table_a["overall"].win_rate

    @property
    def duplicate_win_rate(self) -> float:
        """A's duplicate win rate over all its games, (wins + ½ draws) / games: the headline
        figure of the reports, and what the trainers log as `eval/winrate_vs_<opponent>`."""
        t = self.table_a["overall"]
        return DuplicateStats.of(t.wins, t.draws, t.games).rate

    @property
    def mean_diff(self) -> float:
        """Mean paired difference: > 0 when A scores better."""
        return self.paired.mean

    @abstractmethod
    def differences(self) -> list[int]:
        """The paired differences (A's result minus B's), one per comparison, in schedule
        order: what the league ratings count as matches."""

    @abstractmethod
    def to_dict(self, games: bool = True) -> dict[str, Any]:
        """The pair's part of report.json (with every game column-wise when `games`)."""


class Protocol(ABC):
    """An evaluation protocol. Subclasses set the class attributes and implement the methods;
    each has one module-level instance (`SEAT`, `TEAM`), which pickles as a reference to it."""

    #: The name users give (`--protocol`, `protocol=`).
    name: str
    #: The version recorded in report.json.
    version: int
    #: Games per deal and pair.
    games_per_deal: int
    #: The report.json key of the per-agent tables.
    tables_key: str
    #: The label of the progress line.
    progress_label: str

    @abstractmethod
    def play_chunk(self, rules: Rules, a: str, b: str, seats_a: Seats, seats_b: Seats, seeds: Sequence[int],
                   replay_dir: Path | None) -> list:
        """Play the pair's games on `seeds` (A's agents from `seats_a`, B's from `seats_b`)
        and return one record per game, in schedule order; save replays into `replay_dir`.
        The games are played at once, through `baohuang_eval.play.play_games`."""

    @abstractmethod
    def pair_result(self, a: str, b: str, records: list, seconds: float = 0.0) -> PairGames:
        """The result of a pair from all its records."""

    @abstractmethod
    def agent_tables(self, agents: Sequence[str], pairs: Sequence[PairGames]) -> dict[str, dict[str, Stats]]:
        """Per agent, its results table over all its games (against every opponent it met)."""

    def duplicate_rates(self, tables: dict[str, dict[str, Stats]]) -> dict[str, DuplicateStats]:
        """Per agent, its duplicate win rate, where the protocol defines one (none here)."""
        return {}

    @abstractmethod
    def describe(self, pairing: str) -> dict[str, Any]:
        """The protocol section of report.json (`pairing`: how the agents were paired)."""

    def __reduce__(self) -> str:
        # pickled (into worker processes) as a reference to the module-level instance
        return self.name.upper()

    def __repr__(self) -> str:
        return f"<{self.name} protocol>"


__all__ = ["COMPOSITIONS", "PairGames", "Protocol"]
