"""Searching in one phase of the deal at a time: a JSON line per phase.

For each phase of the deal in `agents.search.PHASES` (cards left in all hands together: more
than 120, 120 to 81, 80 to 51, 50 to 0), the search of `--settings` limited to that window
(`endgame=HI:stop=LO`, `windows`):

* its team duplicate result against its base policy (the settings' `base`, default
  `pretrained`) on `--deals` deals from `--deal-seed` (`baohuang_eval.evaluate_agents`, team
  protocol, `--workers` processes): the search's duplicate win rate with its 95% interval
  (`duplicate_win_rate`: rate, low, high) and the mean paired difference d per deal with its 95%
  interval and the deals the search did better, tied and worse (`paired_difference`: mean, low,
  high, a_better, ties, b_better; verdict "A" when the search is better), as in a team report;
* with `double=1`, over `--games` deals of `search_cost.py` (`measure`: the search at one seat,
  its base at the four others, one core): its searched decisions, how often it left the base
  move (`deviation_rate`), the mean re-estimated gain of those deviations with its standard
  error (`gain`, `gain_se`; null under two deviations) and the ms per searched decision (the
  re-estimates' time included).

The deal seeds default to the tuning range (21,000,000 on); the held-out deals the docs quote
results on are from 23,000,000.

    python experiments/search_phases.py --settings w=16:m=3:t=0.1:k=2:batch=4 --deals 100 --games 20
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from types import ModuleType
from typing import TextIO

from threadpoolctl import threadpool_limits

from agents.search import PHASES, SearchSettings, SearchStats
from baohuang_eval import deal_range, evaluate_agents
from baohuang_env.rules import get_rules


def _sibling(name: str) -> ModuleType:
    """experiments/NAME.py, next to this script (the scripts are not a package)."""
    spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name(f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


measure = _sibling("search_cost").measure


def windows() -> list[tuple[str, int, int]]:
    """Each phase of `PHASES` as (label, endgame, stop): the settings that search exactly the
    decisions with more than `stop` and at most `endgame` cards left (the first phase's endgame
    0: no upper bound; the last's stop 0: to the end)."""
    out, above = [], 0
    for label, least in PHASES:
        out.append((label, above, max(0, least - 1)))
        above = least - 1
    return out


def run(settings: str, preset: str, deals: int, deal_seed: int, games: int, workers: int,
        log: TextIO | None = None) -> Iterator[dict]:
    """A row per phase of the deal (module docstring), each as soon as its statistics are in;
    the evaluations' progress goes to `log`."""
    rules = get_rules(preset)
    searching = SearchSettings.parse(settings)
    specs = {label: replace(searching, endgame=hi, stop=lo).spec for label, hi, lo in windows()}
    report = evaluate_agents([searching.base, *specs.values()], deal_range(deals, deal_seed, rules), pairs="first",
                             workers=workers, log=log, protocol="team")
    against = {pair.b: pair for pair in report.pairs}  # the base is A in every pair: seen from the search
    for label, hi, lo in windows():
        pair = against[specs[label]]
        rate, d = pair.duplicate.reversed(), pair.paired.reversed()
        with threadpool_limits(1):
            cost = measure(replace(searching, endgame=hi, stop=lo, double=1).spec, preset, games, deal_seed)
        stats = SearchStats.from_dict(cost["stats"]).phases[label]
        gain = stats.gain()
        yield {"window": label, "endgame": hi, "stop": lo, "spec": specs[label], "opponent": searching.base,
               "deals": d.n, "duplicate_win_rate": rate.to_dict(), "paired_difference": d.to_dict(),
               "games": games, "searched": stats.searched, "deviations": stats.deviations,
               "deviation_rate": round(stats.deviations / stats.searched, 4) if stats.searched else None,
               "reestimates": stats.reestimates, "gain": None if gain is None else round(gain[0], 4),
               "gain_se": None if gain is None else round(gain[1], 4),
               "ms_per_searched_decision": cost["ms_per_searched_decision"]}


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--settings", default="", help="the search's settings without the window, colons between, "
                   "e.g. w=16:m=3:t=0.1:k=2:batch=4 (default: the defaults of agents/search.py)")
    p.add_argument("--preset", default="jj")
    p.add_argument("--deals", type=int, default=100, help="deals of each team evaluation (default 100)")
    p.add_argument("--deal-seed", type=int, default=21_000_000,
                   help="the first deal's seed (default 21000000, the tuning range; held-out deals are from 23000000)")
    p.add_argument("--games", type=int, default=20, help="deals played for the per-phase statistics (default 20)")
    p.add_argument("--workers", type=int, default=2, help="processes of the team evaluations (default 2)")
    args = p.parse_args(argv)
    for row in run(args.settings, args.preset, args.deals, args.deal_seed, args.games, args.workers, sys.stderr):
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
