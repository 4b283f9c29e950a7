"""`baohuang study`: the hidden-teammate research kit (docs/hidden_team.md).

    baohuang study belief   --agents SPEC... [--deals 400] [--workers 2] [--preset jj] [--out DIR]
    baohuang study crossplay --agents SPEC... [--reference heuristic] [--rebels reference mixed] [--deals 300]
    baohuang study leak     [--presets jj weihai ...] [--resamples 10000] [--deals 2000] [--workers 2]
    baohuang study teamplay --agents SPEC... [--deals 300]
    baohuang study roles    --agents SPEC... [--opponent heuristic] [--deals 500]

Each writes report.json, report.md and report.png into --out (default: a new folder
runs/study/<study>-<timestamp>[-N]), prints the Markdown and shows progress on stderr.
`leak` exits with status 1 when the audit fails. `roles` counts how often each agent takes
each role-phase option at the focal seat of the seat protocol's games (docs/role_models.md).
"""

from __future__ import annotations

import sys

from baohuang_cli.argtypes import positive_int
from baohuang_env.agent import agent_kinds
from baohuang_env.rules import PRESETS, get_rules
from baohuang_env.seeds import EVAL_SEED_START


def _common(p, deals: int) -> None:
    p.add_argument("--deals", type=positive_int, default=deals, help=f"number of deals (default {deals})")
    p.add_argument("--deal-seed", type=int, default=EVAL_SEED_START,
                   help=f"first deal seed; deals use seeds S..S+N-1 (default {EVAL_SEED_START})")
    p.add_argument("--workers", type=positive_int, default=2, help="processes to use (default 2)")
    p.add_argument("--out", help="output folder (default: a new folder runs/study/<study>-<timestamp>[-N])")


def _agents(p) -> None:
    p.add_argument("--agents", nargs="+", metavar="SPEC", required=True,
                   help=f"agent specs: {', '.join(agent_kinds())}, kind:path (dmc:..., ppo:...) "
                        "or python:MODULE:CLASS")
    p.add_argument("--preset", default="jj", help="rule preset (default jj)")


def add_parser(sub) -> None:
    p = sub.add_parser("study", help="hidden-teammate studies: guard belief, cross-play, leak audit, team play; "
                                     "role-answer rates", description=__doc__.split("\n\n")[0])
    studies = p.add_subparsers(dest="study", required=True)
    b = studies.add_parser("belief", help="guard identification: each agent's belief in who the guard is")
    _agents(b)
    _common(b, 400)
    c = studies.add_parser("crossplay", help="emperor from one agent, guard from another, on the same deals")
    _agents(c)
    c.add_argument("--reference", default="heuristic", help="the agent at the rebel seats (default heuristic)")
    c.add_argument("--rebels", nargs="+", choices=("reference", "mixed"), default=["reference", "mixed"],
                   help="rebels from the reference agent and/or from the agents, mixed (default both)")
    _common(c, 300)
    leak = studies.add_parser("leak", help="hidden-information audit: resampling and the first-decision probe")
    leak.add_argument("--presets", nargs="+", choices=list(PRESETS), default=list(PRESETS),
                      help="presets to audit (default all)")
    leak.add_argument("--resamples", type=positive_int, default=10_000,
                      help="resamples per preset, at least (default 10000)")
    leak.add_argument("--deals", type=positive_int, default=2000,
                      help="deals of the first-decision probe per preset (default 2000)")
    leak.add_argument("--seed", type=int, default=0, help="seed of the audited games and the resampling (default 0)")
    leak.add_argument("--workers", type=positive_int, default=2, help="processes, one preset each (default 2)")
    leak.add_argument("--out", help="output folder (default: a new folder runs/study/leak-<timestamp>[-N])")
    t = studies.add_parser("teamplay", help="team-play and signalling statistics from self-play records")
    _agents(t)
    _common(t, 300)
    r = studies.add_parser("roles", help="how often each agent takes each role-phase option, at the focal seat")
    _agents(r)
    r.add_argument("--opponent", default="heuristic", help="the agent at the four other seats (default heuristic)")
    _common(r, 500)


def main(args) -> int:
    from baohuang_study import belief, crossplay, leak, role_rates, teamplay
    from baohuang_study.report import out_folder, write_study

    log = sys.stderr
    if args.study == "leak":
        if args.seed < 0:
            raise ValueError(f"--seed must be non-negative, got {args.seed}")
        module = leak
        result = leak.leak_study(args.presets, args.resamples, args.deals, seed=args.seed, workers=args.workers,
                                 log=log)
    else:
        rules = get_rules(args.preset)
        if args.deal_seed < 0:
            raise ValueError(f"--deal-seed must be non-negative, got {args.deal_seed}")
        seeds = list(range(args.deal_seed, args.deal_seed + args.deals))
        if args.study == "belief":
            module = belief
            result = belief.belief_study(args.agents, rules, seeds, args.workers, log)
        elif args.study == "crossplay":
            module = crossplay
            result = crossplay.crossplay_study(args.agents, rules, seeds, args.reference, args.rebels,
                                               args.workers, log)
        elif args.study == "roles":
            module = role_rates
            result = role_rates.role_rates_study(args.agents, rules, seeds, args.opponent, args.workers, log)
        else:
            module = teamplay
            result = teamplay.teamplay_study(args.agents, rules, seeds, args.workers, log)
    markdown = module.to_markdown(result)
    paths = write_study(out_folder(args.out, args.study), result, markdown, module.plot(result))
    print(markdown)
    print(f"wrote {', '.join(str(p) for p in paths.values())}", file=sys.stderr)
    return 1 if args.study == "leak" and not result["passed"] else 0
