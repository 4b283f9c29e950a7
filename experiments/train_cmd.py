"""`baohuang train dmc --config configs/dmc_quick.yaml [key=value ...] [--resume RUN]`.

Trains, then evaluates the final networks against the config's scripted bots on a fixed,
held-out duplicate deal set, with both evaluation protocols (docs/evaluation.md), and prints
the tables.
"""

from __future__ import annotations

import sys


def add_parser(sub) -> None:
    p = sub.add_parser("train", help="train an agent (dmc) with self-play")
    p.add_argument("algo", choices=["dmc"], help="training algorithm")
    p.add_argument("--config", help="YAML config (see configs/); defaults when omitted")
    p.add_argument("--resume", help="run directory or checkpoint to continue")
    p.add_argument("--no-eval", action="store_true", help="skip the final evaluation table")
    p.add_argument("--workers", type=int, default=2, help="processes for the final evaluation")
    p.add_argument("overrides", nargs="*", metavar="key=value", help="config overrides, e.g. total_minutes=2")


def main(args) -> int:
    from agents.config import load_config
    from agents.dmc.config import DMCConfig
    from agents.dmc.trainer import MODEL_NAME, train
    from agents.evaluate import evaluate_agents, format_markdown, validate_specs
    from baohuang_env import get_rules

    cfg = load_config(DMCConfig, args.config, args.overrides)
    rules = get_rules(cfg.preset)
    if not args.no_eval or cfg.eval_minutes > 0:
        validate_specs(cfg.eval_opponents, rules)  # a typo in the bots fails now, not after training
    run_dir = train(cfg, resume=args.resume)
    if args.no_eval:
        return 0
    spec = f"dmc:{run_dir / MODEL_NAME}"
    seeds = list(range(cfg.eval_deal_seed, cfg.eval_deal_seed + cfg.final_eval_deals))
    # team: the agent plays a whole side against the bot's side (the headline win rate);
    # seat: the agent in one seat among four copies of the bot, every seat of every deal
    for protocol in ("team", "seat"):
        print(f"evaluating {spec} ({protocol} protocol) on {len(seeds)} held-out duplicate deals against "
              f"{', '.join(cfg.eval_opponents)} ...", file=sys.stderr, flush=True)
        report = evaluate_agents([spec, *cfg.eval_opponents], rules, seeds, pairs="first", workers=args.workers,
                                 out_dir=run_dir / f"eval-{protocol}", protocol=protocol)
        print(format_markdown(report))
    return 0
