"""The variance of DMC's regression targets with and without the per-deal baseline, as JSON.

Plays `--games` training games of the kickstart recipe (`configs/dmc_kickstart.yaml`: its
opponent mix, epsilon and rewards; past its teacher's frames, so the learner's seats play the
network's own moves) with the networks of a DMC checkpoint (`dmc:PATH`, by default the shipped
agent), once per `target_baseline` ("none", "sibling"), through the DMC actor's own collector
(`agents.dmc.actor.Collector`, inline), and reports over the staged learner decisions the
variance of the raw Monte-Carlo returns and of the targets the learner would regress on (the
returns themselves under "none"; the returns less the sibling game's return at the same seat
under "sibling"), and in sibling mode the correlation of a decision's return with its baseline
(the target's variance is lower than the return's only when it is above one half). In sibling
mode only the games whose sibling ended too are staged: `games` counts those. Both modes start
from the same seed; their deals differ (sibling mode draws half as many). `--epsilon` replaces
the recipe's exploration rate.

    python experiments/target_variance.py --games 300
"""

from __future__ import annotations

import argparse
import json
import queue

import numpy as np

from agents.dmc.actor import CHUNK_FIELDS, Collector
from agents.dmc.agent import DMCAgent, dmc_compatibility
from agents.dmc.config import TARGET_BASELINES, DMCConfig, checkpoint_networks
from agents.files.checkpoint import load_checkpoint
from agents.training.config import load_config

RECIPE = "configs/dmc_kickstart.yaml"
DEFAULT_SPEC = "dmc:agents/pretrained/dmc_kickstart_jj.pt"


def collect(spec: str, baseline: str, games: int, seed: int, games_at_once: int,
            epsilon: float | None = None) -> dict[str, float]:
    """Play at least `games` staged games with `spec`'s networks under `baseline` (and
    `epsilon`, when given); the figures of their learner decisions."""
    kind, _, path = spec.partition(":")
    if kind != "dmc" or not path:
        raise SystemExit(f"{spec!r} is not a DMC checkpoint spec (dmc:PATH)")
    rules = load_config(DMCConfig, RECIPE).build_rules()
    arch = load_checkpoint(path, expect=dmc_compatibility(rules))["arch"]  # the layout the collector must build
    cfg = load_config(DMCConfig, RECIPE, [
        "actors=0", f"games_per_actor={games_at_once}", "unroll_length=1000000000", "teacher=", "teacher_frames=0",
        f"target_baseline={baseline}", f"networks={checkpoint_networks(arch)}", f"advice={arch.get('advice', 'none')}",
        f"hidden={arch['hidden']}", f"head={arch['head']}", *([f"epsilon={epsilon}"] if epsilon is not None else [])])
    agent = DMCAgent.from_checkpoint(path, rules)
    collector = Collector(cfg, rules, agent.nets, {}, [queue.Queue()], queue.Queue(), None, seed=seed,
                          blocking=False)
    ended = 0
    while ended - len(collector.siblings or ()) < games:
        ended += collector.step()[0]
    rows = [row for net in collector.staging for row in net]
    target = np.array([row[CHUNK_FIELDS.index("target")] for row in rows])
    ret = np.array([row[CHUNK_FIELDS.index("return")] for row in rows])
    out = {"games": ended - len(collector.siblings or ()), "decisions": len(rows),
           "return_mean": round(float(ret.mean()), 4), "return_var": round(float(ret.var()), 4),
           "target_mean": round(float(target.mean()), 4), "target_var": round(float(target.var()), 4)}
    if collector.siblings is not None:
        out["return_baseline_corr"] = round(float(np.corrcoef(ret, ret - target)[0, 1]), 4)
    return out


def measure(spec: str, games: int, seed: int, games_at_once: int,
            epsilon: float | None = None) -> dict[str, dict[str, float]]:
    """`collect` under each `target_baseline`."""
    return {baseline: collect(spec, baseline, games, seed, games_at_once, epsilon) for baseline in TARGET_BASELINES}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("spec", nargs="?", default=DEFAULT_SPEC, help=f"the networks (default {DEFAULT_SPEC})")
    parser.add_argument("--games", type=int, default=300, help="staged games per mode")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--games-at-once", type=int, default=32, help="games stepped together")
    parser.add_argument("--epsilon", type=float, help="exploration rate (default: the recipe's)")
    args = parser.parse_args(argv)
    out = measure(args.spec, args.games, args.seed, args.games_at_once, args.epsilon)
    ratio = out["sibling"]["target_var"] / out["none"]["target_var"]
    print(json.dumps({"spec": args.spec, "recipe": RECIPE, "seed": args.seed, "epsilon": args.epsilon, **out,
                      "target_var_sibling_over_none": round(ratio, 3)}, indent=1))


if __name__ == "__main__":
    main()
