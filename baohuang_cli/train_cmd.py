"""`baohuang train {dmc,ppo} --config configs/<algo>_quick.yaml [key=value ...] [--resume RUN]`.

A resumed run keeps its own config (`agents.training.run.resume_config`): --config and key=value go on
top, and may change only what can change mid-run (`agents.training.run.MID_RUN_KEYS`: the budget, the
cadences, the evaluations, the worker counts).

Trains, then evaluates the final networks against the config's scripted bots on a fixed,
held-out duplicate deal set, with both evaluation protocols (docs/evaluation.md), and prints
the tables. Ctrl-C (or SIGTERM) stops the run with a checkpoint, prints the command that
resumes it and exits with 130 (143), without the evaluation (`agents.training.run.StopSignals`).
"""

from __future__ import annotations

import dataclasses
import sys

from baohuang_cli.argtypes import positive_int

#: algorithm (also its agent kind) -> (config class, train function), imported when used (torch).
ALGOS = {
    "dmc": ("agents.dmc.config:DMCConfig", "agents.dmc.trainer:train"),
    "ppo": ("agents.ppo.config:PPOConfig", "agents.ppo.trainer:train"),
}


def _load(path: str):
    import importlib

    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


def add_parser(sub) -> None:
    p = sub.add_parser("train", help="train an agent (dmc or ppo) with self-play")
    p.add_argument("algo", choices=sorted(ALGOS), help="training algorithm")
    p.add_argument("--config", help="YAML config (see configs/); defaults when omitted; with --resume, "
                                    "on top of the run's own config")
    p.add_argument("--resume", help="run directory (or its checkpoint.pt) to continue, with its own config; "
                                    "the budget, cadences and evaluations may change (key=value)")
    p.add_argument("--no-eval", action="store_true", help="skip the final evaluation table")
    p.add_argument("--workers", type=positive_int, default=2, help="processes for the final evaluation")
    p.add_argument("overrides", nargs="*", metavar="key=value", help="config overrides, e.g. total_minutes=2")


def main(args) -> int:
    from agents.training.run import RunInterrupted

    try:
        return _train(args)
    except RunInterrupted as stopped:  # the run said where it is and how to resume it
        return stopped.exit_code
    except KeyboardInterrupt:  # before the run started, or a second Ctrl-C: no checkpoint written now
        print("baohuang train: aborted by Ctrl-C; a run keeps its last checkpoint", file=sys.stderr)
        return 130


def _config(args, config_cls):
    """The run's config: a resumed run's own with --config and key=value on top
    (MID_RUN_KEYS only), else --config and key=value over the defaults. A key of the other
    trainer's config says which trainer the file is for."""
    from agents.training.config import UnknownKeys, load_config
    from agents.training.run import resume_config

    try:
        if args.resume:
            return resume_config(config_cls, args.resume, args.config, args.overrides, algo=args.algo)
        return load_config(config_cls, args.config, args.overrides)
    except UnknownKeys as err:
        for algo, (other, _) in ALGOS.items():
            fields = {f.name for f in dataclasses.fields(_load(other))}
            if algo != args.algo and set(err.keys) <= fields:
                keys = ", ".join(err.keys)
                are = "is a key" if len(err.keys) == 1 else "are keys"
                raise ValueError(f"{err.source}: {keys} {are} of baohuang train {algo}, not {args.algo}: this looks "
                                 f"like a {algo.upper()} config; use baohuang train {algo}") from None
        raise


def _train(args) -> int:
    from agents.training.run import MODEL_NAME
    from agents.training.common import final_evaluation
    from baohuang_eval import validate_specs

    config_cls, train = (_load(path) for path in ALGOS[args.algo])
    cfg = _config(args, config_cls)
    rules = cfg.build_rules()  # once for the run: training and the final evaluation use these
    if not args.no_eval or cfg.eval_minutes > 0:
        validate_specs(cfg.eval_opponents, rules)  # a typo in the bots fails now, not after training
    opponents = getattr(cfg, "opponent_specs", list)()
    if opponents:
        validate_specs(opponents, rules)
    run_dir = train(cfg, resume=args.resume, rules=rules, log=sys.stderr)  # progress lines on the terminal
    if args.no_eval:
        return 0
    final_evaluation(f"{args.algo}:{run_dir / MODEL_NAME}", cfg, rules, run_dir, workers=args.workers)
    return 0
