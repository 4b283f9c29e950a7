"""Evaluation: what "agent A beats agent B" means, and the code that measures it
(docs/evaluation.md).

Agents are compared on seeded duplicate deals (`deals`) under one of two protocols: "seat",
duplicate rotation (`seat`), or "team", side duplicate (`team`). Games are played from agent
specs, a job's games at once on the batched engine (`play.play_games`), over worker processes
(`pool`); the results become statistics (`stats`), league ratings (`ratings`) and a `Report`
(`report`), which `write_report` (`writers`) saves as report.json, report.md and report.png,
its tables naming agents by `display_names` (`names`). Ctrl-C during `evaluate_agents` raises
`EvaluationInterrupted`, whose `report` holds the deals finished (`Report.partial`).

    report = evaluate_agents(["greedy", "autoplay", "random"], deal_range(2000, rules=rules), pairs="all")
    write_report(report, "runs/eval/x")
    print(to_markdown(report))
"""

from .deals import DealSet, deal_range, load_deals, write_deals
from .evaluate import (
    PAIRINGS,
    PROTOCOLS,
    EvaluationInterrupted,
    evaluate_against,
    evaluate_agents,
    evaluate_pair,
    get_protocol,
    make_pairs,
)
from .play import agent_seed, validate_specs
from .protocol import PairGames, Protocol
from .ratings import Rating, rate_league
from .report import Report
from .seat import SEAT, GameRecord, PairResult
from .stats import DuplicateStats, PairedStats, Stats, mean_interval, t_quantile, wilson_interval
from .team import TEAM, TeamPairResult, TeamRecord
from .names import display_names
from .writers import plot_png, summary_lines, to_markdown, write_report

__all__ = [
    "PAIRINGS", "PROTOCOLS", "SEAT", "TEAM", "DealSet", "DuplicateStats", "EvaluationInterrupted", "GameRecord",
    "PairGames", "PairResult", "PairedStats", "Protocol", "Rating", "Report", "Stats", "TeamPairResult",
    "TeamRecord", "agent_seed", "deal_range", "display_names", "evaluate_against", "evaluate_agents",
    "evaluate_pair", "get_protocol", "load_deals", "make_pairs", "mean_interval", "plot_png", "rate_league",
    "summary_lines", "t_quantile", "to_markdown", "validate_specs", "wilson_interval", "write_deals",
    "write_report",
]
