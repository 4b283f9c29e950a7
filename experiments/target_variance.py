"""The variance of DMC's regression targets under `target_lambda`, as JSON.

Plays `--games` training games of the kickstart recipe (`configs/dmc_kickstart.yaml`: its
opponent mix, epsilon and rewards; no teacher, so the learner's seats play the network's own
moves) with the networks of a DMC checkpoint (`dmc:PATH`, by default the shipped agent),
through the DMC actor's own collector (`agents.dmc.actor.Collector`, inline), which records
each learner decision with the Q of its move as computed when acting. From those games alone
it computes every `--lambdas` target of every learner decision (`agents.dmc.targets`: λ = 1
is the raw Monte-Carlo return) and reports per λ the targets' mean and variance over the
decisions, that variance over the returns', and the mean absolute gap between the target and
the return (a bias indicator: how far the bootstrap moves the target), per seed of
`--seeds`. `--epsilon` replaces the recipe's exploration rate.

    python experiments/target_variance.py --games 300 --seeds 1 2 3
"""

from __future__ import annotations

import argparse
import json
import queue

import numpy as np

from agents.dmc.actor import Collector
from agents.dmc.agent import DMCAgent, dmc_compatibility
from agents.dmc.config import DMCConfig, checkpoint_networks
from agents.dmc.targets import lambda_returns
from agents.files.checkpoint import load_checkpoint
from agents.training.config import load_config
from agents.training.training_games import Table

RECIPE = "configs/dmc_kickstart.yaml"
DEFAULT_SPEC = "dmc:agents/pretrained/dmc_kickstart_jj.pt"
LAMBDAS = (1.0, 0.9, 0.7, 0.5)


class SeatRecorder(Collector):
    """A collector that keeps, for each learner seat of an ended game, the Q values of the
    seat's decisions' moves and the seat's return (`seats`), instead of staging rows; `ended`
    counts the games."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.seats: list[tuple[list[float], float]] = []
        self.ended = 0

    def _stage(self, table: Table, scores) -> None:
        self.ended += 1
        self.seats += [([d.value for d in records], self._return(scores[seat]))
                       for seat, records in enumerate(table.records) if records]


def collect(spec: str, games: int, seed: int, games_at_once: int, epsilon: float | None = None) -> SeatRecorder:
    """Play at least `games` games with `spec`'s networks (and `epsilon`, when given); the
    collector that recorded them."""
    kind, _, path = spec.partition(":")
    if kind != "dmc" or not path:
        raise SystemExit(f"{spec!r} is not a DMC checkpoint spec (dmc:PATH)")
    rules = load_config(DMCConfig, RECIPE).build_rules()
    arch = load_checkpoint(path, expect=dmc_compatibility(rules))["arch"]  # the layout the collector must build
    cfg = load_config(DMCConfig, RECIPE, [
        "actors=0", f"games_per_actor={games_at_once}", "teacher=", "teacher_frames=0",
        f"networks={checkpoint_networks(arch)}", f"advice={arch.get('advice', 'none')}",
        f"hidden={arch['hidden']}", f"head={arch['head']}", *([f"epsilon={epsilon}"] if epsilon is not None else [])])
    agent = DMCAgent.from_checkpoint(path, rules)
    collector = SeatRecorder(cfg, rules, agent.nets, {}, [queue.Queue()], queue.Queue(), None, seed=seed,
                             blocking=False)
    while collector.ended < games:
        collector.step()
    return collector


def figures(seats: list[tuple[list[float], float]], lambdas: tuple[float, ...]) -> dict[str, dict[str, float]]:
    """Per λ, over every decision of `seats` (each seat's Q values and return): the targets'
    mean and variance, that variance over the returns', and the mean |target − return|."""
    returns = np.array([ret for values, ret in seats for _ in values])
    out = {}
    for lam in lambdas:
        target = np.array([g for values, ret in seats for g in lambda_returns(values, ret, lam)])
        out[str(lam)] = {"target_mean": round(float(target.mean()), 4), "target_var": round(float(target.var()), 4),
                         "var_over_returns": round(float(target.var() / returns.var()), 3),
                         "gap_to_return": round(float(np.abs(target - returns).mean()), 4)}
    return out


def measure(spec: str, games: int, seed: int, games_at_once: int, epsilon: float | None = None,
            lambdas: tuple[float, ...] = LAMBDAS) -> dict:
    """`collect`'s games, their counts, and `figures` of their learner decisions."""
    collector = collect(spec, games, seed, games_at_once, epsilon)
    return {"seed": seed, "games": collector.ended, "decisions": sum(len(v) for v, _ret in collector.seats),
            "lambdas": figures(collector.seats, lambdas)}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("spec", nargs="?", default=DEFAULT_SPEC, help=f"the networks (default {DEFAULT_SPEC})")
    parser.add_argument("--games", type=int, default=300, help="games per seed")
    parser.add_argument("--seeds", type=int, nargs="+", default=[1])
    parser.add_argument("--games-at-once", type=int, default=32, help="games stepped together")
    parser.add_argument("--epsilon", type=float, help="exploration rate (default: the recipe's)")
    parser.add_argument("--lambdas", type=float, nargs="+", default=list(LAMBDAS), help="the λ of the targets")
    args = parser.parse_args(argv)
    runs = [measure(args.spec, args.games, seed, args.games_at_once, args.epsilon, tuple(args.lambdas))
            for seed in args.seeds]
    print(json.dumps({"spec": args.spec, "recipe": RECIPE, "epsilon": args.epsilon, "runs": runs}, indent=1))


if __name__ == "__main__":
    main()
