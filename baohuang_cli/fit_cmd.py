"""`baohuang fit`: fit the heuristic bot's role-phase models of one preset on seeded deals.

    baohuang fit --preset weihai --deals 600 --deal-seed 30000000 --out agents/role_models/weihai.json
    baohuang fit --preset jj --deals 600 --keep-models --out agents/role_models/jj.json

Plays each deal with the heuristic at every seat and every role answer tried out on a copy
(`agents.bots.role_fit`), fits one model per prompt kind and writes the data file (models and
provenance) to --out. `--keep-models` keeps the models of the existing --out file in use and
records the new fit beside them, under "refit" (jj: its models predate the fitter). Progress
goes to stderr. Fit on seeds from 30,000,000 up; the held-out checks use 11,000,000 on.
"""

from __future__ import annotations

import json
import shlex
import sys
import time
from pathlib import Path

from baohuang_cli.argtypes import positive_int
from baohuang_env.rules import PRESETS, get_rules

FIT_SEED_START = 30_000_000


def add_parser(sub) -> None:
    p = sub.add_parser("fit", help="fit the heuristic bot's role-phase models on counterfactual play-outs",
                       description=__doc__.split("\n\n")[0])
    p.add_argument("--preset", default="jj", choices=sorted(PRESETS), help="rule preset (default jj)")
    p.add_argument("--deals", type=positive_int, default=600, help="number of deals (default 600)")
    p.add_argument("--deal-seed", type=int, default=FIT_SEED_START,
                   help=f"first deal seed; deals use seeds S..S+N-1 (default {FIT_SEED_START})")
    p.add_argument("--out", required=True, help="the data file to write (JSON)")
    p.add_argument("--keep-models", action="store_true",
                   help="keep the models of the existing --out file and record this fit under 'refit'")


def main(args) -> int:
    from agents.bots.role_fit import collect, model_data  # (imports the bots only when the command runs)

    rules = get_rules(args.preset)
    out = Path(args.out)
    if args.keep_models and not out.is_file():
        raise ValueError(f"--keep-models needs an existing --out file; {out} is not one")
    start = last = time.monotonic()

    def progress(done: int, samples: int) -> None:
        nonlocal last
        now = time.monotonic()
        if now - last >= 10 or done == args.deals:
            last = now
            print(f"fit {args.preset}: {done}/{args.deals} deals, {samples} samples, "
                  f"{now - start:.0f} s", file=sys.stderr, flush=True)

    samples = collect(rules, range(args.deal_seed, args.deal_seed + args.deals), progress)
    command = "baohuang fit " + shlex.join(
        ["--preset", args.preset, "--deals", str(args.deals), "--deal-seed", str(args.deal_seed)]
        + (["--keep-models"] if args.keep_models else []))
    data = model_data(rules, args.deal_seed, args.deals, samples, command)
    if args.keep_models:
        kept = json.loads(out.read_text(encoding="utf-8"))
        kept["refit"] = {"provenance": data["provenance"], "models": data["models"]}
        data = kept
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    used = [k for k, m in data["models"].items() if m["use"]]
    print(f"wrote {out}: {len(samples)} samples; models in use: {', '.join(used) or 'none'}", file=sys.stderr)
    return 0
