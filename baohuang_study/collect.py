"""Self-play games of one agent with every play-phase decision recorded: what the deciding
seat saw (its observation, its candidates for the guard), what it believed (the agent's own
`guard_belief`, its hidden activations `state_features`, where it has them) and the hidden
truth (the guard's relative seat), plus the team-play events of `teamplay`.

Games are played by `baohuang_eval.play.play_games`, the evaluation's driver (a chunk's
games at once on the batched engine), with every seat's agent wrapped in a recorder; the
table's watch hands it the live game before each move. Seat agents and their seeds come from
`baohuang_eval` (`SpecSeats`, `agent_seed`); with `roles="auto"` the role phase is answered
by the auto-play bot (`baohuang_eval.team.default_roles_many`, as in the team protocol) and
replayed as each game's opening, with `roles="agents"` the agent plays it too (declarations
happen). Deal chunks run over worker processes (spawn), results in submission order.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import partial
from typing import Any, TextIO

import numpy as np

from agents.guard_belief import guard_candidates, guard_label
from agents.view import SeatView
from baohuang_env.actions import FIRST_PLAY, PASS
from baohuang_env.cards import NUM_SEATS
from baohuang_env.game import PLAY, Game, GameResult
from baohuang_env.knowledge import EMPEROR, REBEL, own_role
from baohuang_env.rules import Rules
from baohuang_eval.play import SpecSeats, Table, agent_seed, game_agents, play_games
from baohuang_eval.pool import Progress, chunk_size, run_chunks
from baohuang_eval.team import default_roles_many

#: How the role phase is answered: by the auto-play bot (roles fixed by the cards), or by
#: the agent itself.
ROLE_MODES = ("auto", "agents")


@dataclass
class Decisions:
    """Column arrays, one row per recorded decision of an emperor or a rebel (roles fixed,
    not a solo): `deal`, `seat`, `observer` ("emperor" / "rebel"), `progress` (share of the
    cards played, 0..1), `revealed` (the guard is public), `label` (the guard's relative
    seat), `candidates` (N, 5), `guard_plays` (plays the guard had made), `obs` (N, O), and
    `own` (N, 5) / `features` (N, H) when the agent has them."""

    deal: np.ndarray
    seat: np.ndarray
    observer: np.ndarray
    progress: np.ndarray
    revealed: np.ndarray
    label: np.ndarray
    candidates: np.ndarray
    guard_plays: np.ndarray
    obs: np.ndarray
    own: np.ndarray | None = None
    features: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.label)

    def select(self, rows: np.ndarray) -> Decisions:
        """The rows `rows` (a bool mask or indices)."""
        return Decisions(**{k: (None if v is None else v[rows]) for k, v in vars(self).items()})


@dataclass
class GameLog:
    """One game's roles, result and team-play events (`teamplay`)."""

    deal: int
    emperor: int
    guard: int
    emperor_score: int
    open_guard: bool
    reveal_progress: float | None  # share of cards played when the guard became public (0: before play)
    guard_plays_at_reveal: int | None
    # follow decisions with a legal play: (seat's role, trick owner's role, played?)
    follows: list[tuple[str, str, bool]] = field(default_factory=list)


def _rows(rows: list[dict[str, Any]]) -> Decisions:
    if not rows:
        raise ValueError("no decisions were recorded (every deal void or a solo?); give more deals")
    cols = {k: np.array([r[k] for r in rows]) for k in rows[0] if rows[0][k] is not None}
    return Decisions(**{"own": None, "features": None, **cols})


class _Recorder:
    """Wraps a seat's agent: acts, and leaves what it saw with its game's recorder, which
    records the decision once the table's watch shows it the live game."""

    uses_observation = True

    def __init__(self, agent: Any, owner: _GameRecorder) -> None:
        self.agent, self.owner = agent, owner

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        action = int(self.agent.act(observation, mask))
        self.owner.seen = (self.agent, observation, mask)
        return action


class _GameRecorder:
    """The decisions and events of one game, from `start` (where its agents take over)."""

    def __init__(self, start: Game) -> None:
        self.deal = start.seed
        self.rows: list[dict[str, Any]] = []
        self.total = float(sum(start.cards_left)) or 1.0
        self.guard_plays = 0
        self.log = GameLog(self.deal, -1, -1, 0, False, None, None)
        self.seen: tuple[Any, np.ndarray, np.ndarray] | None = None  # the last decision's agent, obs, mask

    def watch(self, game: Game, seat: int, action: int) -> None:
        """The table's watch: record the decision just made at `seat` in `game` (not yet stepped)."""
        agent, obs, mask = self.seen
        if game.phase != PLAY:
            return
        if self.log.reveal_progress is None and game.public_guard >= 0:
            self.log.reveal_progress = float(sum(game.total_played)) / self.total
            self.log.guard_plays_at_reveal = self.guard_plays
        role = own_role(game, seat)
        if game.top >= 0 and mask[FIRST_PLAY:].any():
            self.log.follows.append((role, own_role(game, game.top_player), action != PASS))
        if seat == game.guard and action >= FIRST_PLAY:
            self.guard_plays += 1
        if role not in (EMPEROR, REBEL) or game.guard == game.emperor:
            return
        view = SeatView(obs, game.rules)
        self.rows.append({
            "deal": self.deal, "seat": seat, "observer": role,
            "progress": float(sum(game.total_played)) / self.total,
            "revealed": game.public_guard >= 0, "label": guard_label(game, seat),
            "candidates": guard_candidates(view), "guard_plays": self.guard_plays,
            "obs": np.asarray(obs, dtype=np.float32),
            "own": agent.guard_belief(obs) if hasattr(agent, "guard_belief") and _has_belief(agent) else None,
            "features": agent.state_features(obs) if hasattr(agent, "state_features") else None,
        })

    def finish(self, res: GameResult) -> GameLog:
        log = self.log
        log.emperor, log.guard = res.emperor, res.guard
        log.emperor_score = int(res.scores[res.emperor]) if res.emperor >= 0 else 0
        log.open_guard = bool(res.open_guard)
        return log


def _has_belief(agent: Any) -> bool:
    """Learned agents have a belief only when trained with the guard-belief head."""
    return getattr(agent, "has_guard_head", True)


def _starts(rules: Rules, seeds: list[int], roles: str) -> list[Game]:
    """Where each deal's agents take over: after the auto-play role phase, or at the deal."""
    return default_roles_many(rules, seeds) if roles == "auto" else [Game(rules, seed=deal) for deal in seeds]


def collect_chunk(spec: str, rules_dict: dict[str, Any], seeds: list[int], roles: str,
                  seats: SpecSeats | None = None) -> tuple[list[dict[str, Any]], list[GameLog]]:
    """Self-play games of `spec` on `seeds`, all at once: (decision rows, game logs). Void deals
    are left out."""
    rules = Rules.from_dict(rules_dict)
    seats = seats or SpecSeats(spec, rules)
    starts = [start for start in _starts(rules, seeds, roles) if not start.is_over]
    recorders = [_GameRecorder(start) for start in starts]

    def tables() -> Iterator[Table]:
        for start, rec in zip(starts, recorders, strict=True):
            deal, focal = start.seed, max(start.emperor, 0)
            agents = game_agents([seats] * NUM_SEATS, [agent_seed(deal, focal, "team-A", q) for q in range(NUM_SEATS)])
            yield Table(deal, [_Recorder(agent, rec) for agent in agents], [spec] * NUM_SEATS,
                        f"deal {deal}, study self-play of {spec!r}", opening=start.actions, watch=rec.watch)

    rows: list[dict[str, Any]] = []
    logs = []
    for rec, played in zip(recorders, play_games(rules, tables()), strict=True):
        rows += rec.rows
        if played.result.emperor >= 0:  # not void
            logs.append(rec.finish(played.result))
    return rows, logs


def collect(spec: str, rules: Rules, seeds: tuple[int, ...], roles: str = "auto", workers: int = 1,
            log: TextIO | None = None, label: str = "study") -> tuple[Decisions, list[GameLog]]:
    """Self-play of `spec` on every deal of `seeds`, over `workers` processes."""
    if roles not in ROLE_MODES:
        raise ValueError(f"roles must be one of {ROLE_MODES}, got {roles!r}")
    size = chunk_size(len(seeds), workers)
    chunks = [list(seeds[k:k + size]) for k in range(0, len(seeds), size)]
    progress = Progress(len(seeds), log, f"{label} {spec}")
    try:
        parts = run_chunks(partial(collect_chunk, spec, rules.to_dict(), roles=roles), chunks, workers, progress,
                           seats=SpecSeats(spec, rules))
    finally:
        progress.close()
    rows = [row for part_rows, _ in parts for row in part_rows]
    logs = [game for _, part_logs in parts for game in part_logs]
    return _rows(rows), logs


__all__ = ["ROLE_MODES", "Decisions", "GameLog", "collect", "collect_chunk"]
