"""`baohuang eval`: compare agents on seeded duplicate deals (the protocols: `baohuang_eval`).

    baohuang eval --agents heuristic greedy autoplay random --deals 2000 [--pairs consecutive|all|first]
                  [--protocol seat|team] [--preset jj] [--deal-seed 1000000 | --deal-file FILE]
                  [--workers 2] [--out DIR] [--save-replays DIR]
    baohuang eval --write-deals FILE --deals 2000 [--deal-seed S] [--preset jj]

Writes report.json, report.md and report.png into --out (default: a new folder
runs/eval/<timestamp>, with a -2, -3 ... suffix when another evaluation took that name) and
prints the Markdown summary. `--pairs consecutive` compares neighbours in the list (a ladder),
`all` every pair, `first` the first agent against each of the others. `--protocol seat` (the
default) rotates a focal agent through the seats against four copies of the other (10 games
per deal and pair); `--protocol team` fixes the roles with the default answers and lets one
agent play the whole emperor's side against the other on the rebel seats, then swaps the
sides (2 games per deal and pair). report.json records what each spec resolved to (file,
sha256: `agents.files.provenance.resolve_spec`).

Ctrl-C stops the evaluation at once: the report of the deals finished is written and printed,
marked partial, and the command exits with 130.
"""

from __future__ import annotations

import sys
import time

from baohuang_cli.argtypes import positive_int
from baohuang_env.agent import agent_kinds, available_agents
from baohuang_env.replay import fresh_folder
from baohuang_env.rules import get_rules
from baohuang_env.seeds import EVAL_SEED_START
from baohuang_eval import (
    PAIRINGS,
    PROTOCOLS,
    EvaluationInterrupted,
    Report,
    deal_range,
    evaluate_agents,
    load_deals,
    to_markdown,
    write_deals,
    write_report,
)


def add_parser(sub) -> None:
    p = sub.add_parser("eval", help="compare agents on seeded duplicate deals (seat rotation or team duplicate)",
                       description=__doc__.split("\n\n")[0])
    p.add_argument("--agents", nargs="+", metavar="SPEC",
                   help=f"agent specs, best first for a ladder: {', '.join(agent_kinds())}, kind:path for "
                        "checkpoints, or python:MODULE:CLASS for your own class (docs/agents.md)")
    p.add_argument("--deals", type=positive_int, default=2000, help="number of deals (default 2000)")
    p.add_argument("--deal-seed", type=int, default=EVAL_SEED_START,
                   help=f"first deal seed; deals use seeds S..S+N-1 (default {EVAL_SEED_START})")
    p.add_argument("--deal-file", help="read the deal set (rules and seeds) from a deal file")
    p.add_argument("--write-deals", metavar="FILE", help="write the deal set to FILE (then evaluate if --agents)")
    p.add_argument("--preset", default=None, help="rule preset (default jj; a deal file carries its own)")
    p.add_argument("--pairs", choices=PAIRINGS, default="consecutive",
                   help="consecutive: neighbours in --agents (default); all: every pair; "
                        "first: the first agent against each of the others")
    p.add_argument("--protocol", choices=list(PROTOCOLS), default="seat",
                   help="seat: duplicate rotation, a focal agent against four copies of the other (default); "
                        "team: side duplicate, one agent on the whole emperor's side, the other on the rebels, "
                        "then swapped, roles fixed by the default answers")
    p.add_argument("--workers", type=positive_int, default=2, help="processes to use (default 2)")
    p.add_argument("--out", help="output folder (default: a new folder runs/eval/<timestamp>[-N])")
    p.add_argument("--save-replays", metavar="DIR", help="save every game's replay JSON under DIR")


def main(args) -> int:
    if args.deal_file:
        deals = load_deals(args.deal_file)
        if args.preset is not None and args.preset != deals.rules.preset:
            raise ValueError(f"--preset {args.preset} differs from the deal file's preset {deals.rules.preset!r}; "
                             "drop --preset or use another deal file")
    else:
        deals = deal_range(args.deals, args.deal_seed, get_rules(args.preset or "jj"))
    if args.write_deals:
        write_deals(args.write_deals, deals)
        print(f"wrote {len(deals.seeds)} deals ({deals.rules.preset}, fingerprint {deals.fingerprint}) "
              f"to {args.write_deals}", file=sys.stderr)
        if not args.agents:
            return 0
    if not args.agents:
        raise ValueError(f"give the agents to compare with --agents (e.g. autoplay random); {available_agents()}")
    from agents.files.provenance import resolve_spec

    try:
        report = evaluate_agents(args.agents, deals, pairs=args.pairs, workers=args.workers,
                                 replay_dir=args.save_replays, log=sys.stderr, protocol=args.protocol,
                                 resolve=resolve_spec)
    except EvaluationInterrupted as stop:
        _write(stop.report, args.out)
        finished = ", ".join(f"{p.deals}" for p in stop.report.pairs)
        print(f"baohuang eval: stopped by Ctrl-C; the report above is partial (deals finished of "
              f"{len(deals.seeds)} asked, per pair: {finished})", file=sys.stderr)
        return 130
    except KeyboardInterrupt:  # before any game was played: nothing to report
        print("baohuang eval: stopped by Ctrl-C before any game was played; nothing written", file=sys.stderr)
        return 130
    _write(report, args.out)
    return 0


def _write(report: Report, out: str | None) -> None:
    """Write the report's files into `out` (default: a new folder under runs/eval), print its
    Markdown, then say where the files are."""
    folder = out or fresh_folder("runs/eval", time.strftime("%Y%m%d-%H%M%S"))
    paths = write_report(report, folder)
    print(to_markdown(report))
    print(f"wrote {', '.join(str(p) for p in paths.values())}", file=sys.stderr)
