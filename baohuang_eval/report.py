"""The `Report` of an evaluation: every pair's results, the per-agent tables, the head-to-head
matrix and the league ratings, and report.json's content (`to_dict`). A report says whether it
is partial (an evaluation stopped by Ctrl-C: each pair's finished deals of those asked) and,
where the caller knows it, what each agent spec resolved to (file, sha256), so that it can be
reproduced after the shipped agents change.

A report only computes; `baohuang_eval.writers.write_report` writes it to files.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from functools import cached_property
from typing import Any

from .deals import DealSet
from .names import display_names
from .protocol import PairGames, Protocol
from .ratings import Rating, rate_league
from .seat import SEAT
from .stats import DuplicateStats, PairedStats, Stats

REPORT_FORMAT = "baohuang-eval-report"
REPORT_VERSION = 1


@dataclass
class Report:
    """An evaluation of several agents under one protocol: every pair's results, per-agent
    tables, ratings."""

    agents: list[str]
    deals: DealSet
    pairs: list[PairGames]
    pairing: str = "consecutive"
    timing: dict[str, Any] = field(default_factory=dict)
    protocol: Protocol = SEAT
    #: True when the evaluation was stopped before every deal was played (`pairs` hold the
    #: finished deals: `PairGames.deals` of `len(deals.seeds)` asked).
    partial: bool = False
    #: spec -> what it resolved to (`agents.files.provenance.resolve_spec`), when the caller said.
    resolved: dict[str, dict[str, Any]] = field(default_factory=dict)

    @cached_property
    def names(self) -> dict[str, str]:
        """spec -> the name tables and plots show (`names.display_names`)."""
        return display_names(self.agents)

    @cached_property
    def tables(self) -> dict[str, dict[str, Stats]]:
        """Per agent, over all its games (against every opponent it met): its focal statistics
        (seat protocol, rows `seat.ROWS`) or its side statistics (team protocol, rows
        `team.TEAM_ROWS`)."""
        return self.protocol.agent_tables(self.agents, self.pairs)

    @cached_property
    def duplicate(self) -> dict[str, DuplicateStats]:
        """Each agent's duplicate win rate over all its games (team protocol; empty for seat)."""
        return self.protocol.duplicate_rates(self.tables)

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

    def to_dict(self, games: bool = True) -> dict[str, Any]:
        """report.json's content (with every game column-wise when `games`)."""
        tables = {a: {row: s.to_dict() for row, s in t.items()} for a, t in self.tables.items()}
        out: dict[str, Any] = {
            "format": REPORT_FORMAT, "version": REPORT_VERSION,
            "protocol": self.protocol.describe(self.pairing),
            "deals": self.deals.describe(),
            "partial": self.partial,
            "deals_asked": len(self.deals.seeds),
            "agents": self.agents,
            "agents_resolved": self.resolved,
            self.protocol.tables_key: tables,
        }
        if self.duplicate:
            out["duplicate_win_rate"] = {a: d.to_dict() for a, d in self.duplicate.items()}
        out.update({
            "pairs": [p.to_dict(games=games) for p in self.pairs],
            "matrix": {a: {b: (m.to_dict() if m else None) for b, m in row.items()}
                       for a, row in self.matrix().items()},
            "ratings": {a: asdict(r) for a, r in sorted(self.ratings.items(), key=lambda kv: -kv[1].ordinal)},
            "timing": self.timing,
        })
        return out


__all__ = ["REPORT_FORMAT", "REPORT_VERSION", "Report"]
