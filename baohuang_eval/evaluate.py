"""The entry points: `evaluate_pair` (A against B), `evaluate_against` (a live agent object
against a spec, in this process) and `evaluate_agents` (a list of agents, paired by
`make_pairs`, into a `Report`). Each takes the protocol by name ("seat" or "team") and looks
it up here, once (`get_protocol`).

Nothing here writes files (but replays, when asked): `baohuang_eval.writers.write_report`
writes a report. Ctrl-C during `evaluate_agents` raises `EvaluationInterrupted`, which carries
the partial report of the deals finished.
"""

from __future__ import annotations

import itertools
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

from baohuang_env.agent import Agent
from baohuang_env.rules import Rules

from .deals import DealSet, check_seeds
from .play import ObjectSeats, SpecSeats, validate_specs
from .pool import PairsInterrupted, Progress, play_pairs
from .protocol import PairGames, Protocol
from .report import Report
from .seat import SEAT
from .team import TEAM

#: The protocols by the name users give: "seat" (duplicate rotation, the default) and
#: "team" (side duplicate).
PROTOCOLS: dict[str, Protocol] = {p.name: p for p in (SEAT, TEAM)}
#: How `evaluate_agents` pairs a list of agents (see `make_pairs`).
PAIRINGS = ("consecutive", "all", "first")


class EvaluationInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped `evaluate_agents`; `report` is the partial report of the deals finished
    (`Report.partial`), for the caller to write."""

    def __init__(self, report: Report) -> None:
        super().__init__("evaluation interrupted")
        self.report = report


def get_protocol(protocol: str | Protocol) -> Protocol:
    """The protocol called `protocol` (a protocol object is returned as is)."""
    if isinstance(protocol, Protocol):
        return protocol
    try:
        return PROTOCOLS[protocol]
    except (KeyError, TypeError):
        raise ValueError(f"protocol must be one of {list(PROTOCOLS)}, got {protocol!r}") from None


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


def evaluate_pair(spec_a: str, spec_b: str, rules: Rules, seeds: Sequence[int], workers: int = 1,
                  replay_dir: str | os.PathLike | None = None, log: TextIO | None = None,
                  mp_context: Any = None, protocol: str | Protocol = "seat") -> PairGames:
    """A against B over `seeds` under `protocol`: "seat" (duplicate rotation, a `PairResult`)
    or "team" (side duplicate, a `TeamPairResult`).

    `result.paired` says whether A beats B; `result.table_a` / `table_b` hold the focal
    statistics (seat) or the side statistics (team; `result.duplicate` is A's duplicate win
    rate). Workers start with "spawn" unless `mp_context` (a name or a multiprocessing
    context) says otherwise.
    """
    proto = get_protocol(protocol)
    validate_specs([spec_a, spec_b], rules)
    [result], _ = play_pairs([(spec_a, spec_b)], rules, check_seeds(seeds, "deal seeds"), proto, workers,
                             replay_dir, log, mp_context)
    return result


def evaluate_against(agent: Agent, opponent: str, rules: Rules, seeds: Sequence[int], name: str = "agent",
                     replay_dir: str | os.PathLike | None = None, log: TextIO | None = None,
                     protocol: str | Protocol = "seat") -> PairGames:
    """An in-process agent object (A, called `name`) against the agent `opponent` (B, a
    spec) under `protocol`, in this process: for evaluating a live model.

    The object plays every seat of side A at once (the four non-focal seats, or every seat
    of a team side), so it must not keep per-seat state between `act` calls (a feed-forward
    policy is fine). The games are played many at once (`play_games`): an object with
    `reset(seed)` gives every game a shallow copy of itself, reset before the game
    (`ObjectSeats`), so its per-game state must live in what `reset` sets anew.
    `result.paired.mean > 0` means the object scored better.
    """
    proto = get_protocol(protocol)
    if not callable(getattr(agent, "act", None)):
        raise ValueError("evaluate_against needs an agent object with act(observation, action_mask)")
    validate_specs([opponent], rules)
    seeds = check_seeds(seeds, "deal seeds")
    progress = Progress(len(seeds) * proto.games_per_deal, log)
    records = proto.play_chunk(rules, name, opponent, ObjectSeats(agent), SpecSeats(opponent, rules), seeds,
                               Path(replay_dir) if replay_dir is not None else None)
    progress.add(len(records))
    progress.close()
    return proto.pair_result(name, opponent, records, progress.seconds)


def evaluate_agents(specs: Sequence[str], rules: Rules | DealSet, seeds: Sequence[int] | None = None,
                    pairs: str = "consecutive", workers: int = 2, replay_dir: str | os.PathLike | None = None,
                    log: TextIO | None = sys.stderr, mp_context: Any = None,
                    protocol: str | Protocol = "seat",
                    resolve: Callable[[str, Rules], dict[str, Any]] | None = None) -> Report:
    """Evaluate a list of agents pairwise (`make_pairs`) on a deal set; returns a `Report`
    (write it with `write_report`).

    Give either `rules` and `seeds`, or a `DealSet` as `rules` (and no seeds). `protocol` is
    "seat" (duplicate rotation) or "team" (side duplicate). `resolve(spec, rules)` says what a
    spec resolved to (`agents.files.provenance.resolve_spec`: file and sha256), recorded in the
    report; this layer cannot know it, the agent kinds being registered above it. Ctrl-C
    raises `EvaluationInterrupted` with the partial report.
    """
    proto = get_protocol(protocol)
    if isinstance(rules, DealSet):
        if seeds is not None:
            raise ValueError("give seeds either in the DealSet or as `seeds`, not both")
        deals = rules
    else:
        if seeds is None:
            raise ValueError("evaluate_agents needs the deal seeds")
        deals = DealSet(rules, check_seeds(seeds, "deal seeds"))
    specs = list(specs)
    if pairs not in PAIRINGS:
        raise ValueError(f"pairs must be one of {list(PAIRINGS)}, got {pairs!r}")
    if len(specs) < 2:
        raise ValueError(f"give at least two agents to compare, got {specs}")
    if len(set(specs)) != len(specs):
        raise ValueError(f"list each agent once; got {specs}")
    validate_specs(specs, deals.rules)
    resolved = {spec: resolve(spec, deals.rules) for spec in specs} if resolve is not None else {}
    started = time.strftime("%Y-%m-%dT%H:%M:%S")
    try:
        results, seconds = play_pairs(make_pairs(specs, pairs), deals.rules, deals.seeds, proto, workers,
                                      replay_dir, log, mp_context)
    except PairsInterrupted as stop:
        raise EvaluationInterrupted(Report(specs, deals, stop.results, pairs,
                                           _timing(started, stop.results, stop.seconds, workers), proto,
                                           partial=True, resolved=resolved)) from None
    return Report(specs, deals, results, pairs, _timing(started, results, seconds, workers), proto,
                  resolved=resolved)


def _timing(started: str, results: Sequence[PairGames], seconds: float, workers: int) -> dict[str, Any]:
    """The timing section of a report."""
    games = sum(len(p.records) for p in results)
    return {"started": started, "seconds": seconds, "games": games,
            "games_per_s": games / seconds if seconds > 0 else None, "workers": workers}


__all__ = ["PAIRINGS", "PROTOCOLS", "EvaluationInterrupted", "evaluate_against", "evaluate_agents",
           "evaluate_pair", "get_protocol", "make_pairs"]
