"""Masked PPO on Baohuang with RLlib (new API stack), one policy shared by all five seats.

    pip install -e ".[rllib]"        # in a virtualenv of its own: RLlib pins its Gymnasium
    python experiments/rllib_ppo.py --iterations 3

Prints one JSON line per iteration (episodes, mean return, learner losses, actions sampled
so far and how many of them the mask forbade) and a summary line at the end.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any


def _plain(value: Any) -> Any:
    """A metric as JSON can hold it (RLlib reports numpy scalars)."""
    if value is None:
        return None
    value = float(value)
    return int(value) if value.is_integer() else value


def train(iterations: int, batch: int = 1000, env_runners: int = 0, seed: int = 1, preset: str = "jj",
          hidden: tuple[int, ...] = (256, 128)) -> dict[str, Any]:
    """Train for `iterations`; the per-iteration lines go to stdout; returns the summary."""
    import ray

    from agents.training.rllib_env import SHARED_POLICY, shared_policy_config

    config = (shared_policy_config({"preset": preset, "reward_mode": "win"}, env_runners=env_runners, hidden=hidden)
              .training(train_batch_size_per_learner=batch, minibatch_size=min(256, batch), num_epochs=2, lr=3e-4)
              .debugging(seed=seed))
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=max(1, env_runners) + 1, include_dashboard=False, _node_ip_address="127.0.0.1")
    algo = config.build_algo()
    try:
        steps = taken = illegal = 0
        for it in range(1, iterations + 1):
            result = algo.train()
            runners, learner = result.get("env_runners", {}), result.get("learners", {}).get(SHARED_POLICY, {})
            steps = int(runners.get("num_env_steps_sampled_lifetime", steps))
            taken += int(runners.get("actions_taken", 0))  # this iteration's (reduce="sum" per iteration)
            illegal += int(runners.get("illegal_actions", 0))
            line = {"iteration": it, "env_steps": steps, "episodes": runners.get("num_episodes_lifetime"),
                    "actions_taken": taken, "illegal_actions": illegal,
                    "episode_return_mean": runners.get("episode_return_mean"),
                    "policy_loss": learner.get("policy_loss"), "vf_loss": learner.get("vf_loss"),
                    "entropy": learner.get("entropy")}
            print(json.dumps({k: _plain(v) for k, v in line.items()}), flush=True)
        return {"iterations": iterations, "env_steps": steps, "actions_taken": taken, "illegal_actions": illegal}
    finally:
        algo.stop()
        if started:
            ray.shutdown()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--iterations", type=int, default=3, help="training iterations (default 3)")
    parser.add_argument("--batch", type=int, default=1000, help="env steps per iteration (default 1000)")
    parser.add_argument("--env-runners", type=int, default=0, help="RLlib env runners (0: the driver plays)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--preset", default="jj")
    args = parser.parse_args(argv)
    if args.iterations < 1 or args.batch < 1 or args.env_runners < 0:
        parser.error("--iterations and --batch must be positive, --env-runners >= 0")
    try:
        summary = train(args.iterations, args.batch, args.env_runners, args.seed, args.preset)
    except ImportError as err:
        print(f"error: {err}; RLlib is needed: pip install -e \".[rllib]\"", file=sys.stderr)
        return 2
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
