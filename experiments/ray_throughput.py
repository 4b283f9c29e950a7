"""DMC training throughput of the local and the Ray backend, with 1 and 2 actors, measured
interleaved, and the per-frame costs behind a scaling estimate (docs/training.md, "Scaling
out on Ray"). Prints one JSON object.

    pip install -e ".[ray]"
    python experiments/ray_throughput.py --seconds 30 --rounds 2

Each round trains `configs/dmc_quick.yaml` once per setting (local/ray x 1/2 actors, the
order rotated every round) for `--seconds` of training time; a setting's rate is the mean
of its progress lines' frames/s after the first `--warmup` lines (actors starting up). One
Ray instance on 127.0.0.1 serves every Ray run, so Ray's start is not in the figures.
Then three costs per frame:

* actor: 1 / (frames/s of the local backend with 1 actor);
* transport: one Ray actor call returning one chunk of `unroll_length` rows (what a DMC
  actor sends), received and turned into tensors by the learner, per frame of that chunk;
* learner: one regression step on a batch, per frame that batch stands for.
"""

from __future__ import annotations

import argparse
import io
import json
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "configs" / "dmc_quick.yaml"
SETTINGS = [("local", 1), ("ray", 1), ("local", 2), ("ray", 2)]
FPS = re.compile(r"\s([\d,]+) frames/s")


def window_rates(log_text: str, warmup: int) -> list[float]:
    """The frames/s of each progress line of a training log, the first `warmup` lines left out."""
    rates = [float(m.group(1).replace(",", "")) for m in FPS.finditer(log_text)]
    return rates[warmup:]


def run_once(backend: str, actors: int, seconds: float, warmup: int, runs_dir: str) -> dict[str, Any]:
    """Train one setting; its steady frames/s and the run's counters."""
    import torch

    from agents.training.config import load_config
    from agents.dmc.config import DMCConfig
    from agents.dmc.trainer import CHECKPOINT_NAME, train

    cfg = load_config(DMCConfig, CONFIG, [f"backend={backend}", f"actors={actors}", f"total_minutes={seconds / 60}",
                                          "eval_minutes=0", "log_seconds=2", "checkpoint_minutes=1000",
                                          f"runs_dir={runs_dir}"])
    log = io.StringIO()
    run_dir = train(cfg, log=log)
    rates = window_rates(log.getvalue(), warmup)
    counters = torch.load(run_dir / CHECKPOINT_NAME, weights_only=True)["counters"]
    return {"fps": statistics.mean(rates) if rates else 0.0, "windows": len(rates), "frames": counters["frames"],
            "rows": counters["rows"], "updates": counters["updates"]}


def learner_cost(repeats: int = 30) -> dict[str, float]:
    """Seconds of one DMC regression step on a dmc_quick batch (batch_slots x unroll_length rows)."""
    import torch

    from agents.nets.action_features import ActionFeatures
    from agents.training.config import load_config
    from agents.dmc.config import DMCConfig
    from agents.nets.networks import ActionScorer
    from baohuang_env.observation import observation_layout

    cfg = load_config(DMCConfig, CONFIG, [])
    rules = cfg.build_rules()
    obs_size, action_size = observation_layout(rules).size, ActionFeatures(rules).size
    net = ActionScorer(obs_size, action_size, cfg.hidden, cfg.head)
    opt = torch.optim.Adam(net.parameters(), lr=cfg.learning_rate)
    rows = cfg.batch_slots * cfg.unroll_length
    obs, act, target = torch.rand(rows, obs_size), torch.rand(rows, action_size), torch.rand(rows)
    torch.set_num_threads(1)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        loss = torch.nn.functional.mse_loss(net(obs, act), target)
        opt.zero_grad()
        loss.backward()
        opt.step()
        times.append(time.perf_counter() - start)
    return {"s_per_update": statistics.median(times), "rows_per_update": rows}


def transport_cost(calls: int = 200) -> dict[str, float]:
    """Seconds of one Ray actor call that returns one DMC chunk, the learner's conversion included."""
    import numpy as np
    import ray
    import torch

    from agents.nets.action_features import ActionFeatures
    from agents.training.config import load_config
    from agents.dmc.config import DMCConfig
    from baohuang_env.observation import observation_layout

    cfg = load_config(DMCConfig, CONFIG, [])
    rules = cfg.build_rules()
    features = torch.from_numpy(ActionFeatures(rules).table.copy())
    T, obs_size = cfg.unroll_length, observation_layout(rules).size

    @ray.remote(num_cpus=1)
    class Sender:
        def __init__(self) -> None:
            self.chunk = [(0, np.random.rand(T, obs_size).astype(np.float32), np.arange(T, dtype=np.int64),
                           np.random.rand(T).astype(np.float32))]

        def rollout(self) -> tuple[list, int]:
            return self.chunk, T

    sender = Sender.remote()
    ray.get(sender.rollout.remote())
    start = time.perf_counter()
    for _ in range(calls):
        chunks, _ = ray.get(sender.rollout.remote())
        for _net, o, ids, target in chunks:
            torch.from_numpy(np.array(o)), features[torch.from_numpy(np.array(ids))], torch.from_numpy(np.array(target))
    spent = (time.perf_counter() - start) / calls
    ray.kill(sender)
    return {"s_per_chunk_call": spent, "rows_per_chunk": T}


def summarize(results: dict[str, list[dict[str, Any]]], learner: dict[str, float], transport: dict[str, float],
              ) -> dict[str, Any]:
    """Medians per setting, and the per-frame costs and the scaling estimate they give."""
    median = {k: round(statistics.median(r["fps"] for r in runs), 1) for k, runs in results.items()}
    frames = sum(r["frames"] for runs in results.values() for r in runs)
    rows = sum(r["rows"] for runs in results.values() for r in runs)
    frames_per_row = frames / rows if rows else float("nan")  # forced steps are frames but not rows
    actor_s = 1 / median["local-1"] if median.get("local-1") else float("nan")
    ray_s = 1 / median["ray-1"] if median.get("ray-1") else float("nan")
    transport_s = transport["s_per_chunk_call"] / (transport["rows_per_chunk"] * frames_per_row)
    learner_s = learner["s_per_update"] / (learner["rows_per_update"] * frames_per_row)
    return {
        "fps_median": median,
        "ray_over_local": {n: round(median[f"ray-{n}"] / median[f"local-{n}"], 3) for n in (1, 2)
                           if median.get(f"local-{n}")},
        "ray_overhead_us_per_frame_1_actor": round((ray_s - actor_s) * 1e6, 1),
        "frames_per_row": round(frames_per_row, 3),
        "actor_us_per_frame": round(actor_s * 1e6, 1),
        "transport_us_per_frame": round(transport_s * 1e6, 2),
        "learner_us_per_frame": round(learner_s * 1e6, 2),
        "learner_capacity_fps": round(1 / learner_s),
        "actors_to_saturate_learner": round(actor_s / (learner_s + transport_s), 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=30.0, help="training seconds per run (default 30)")
    parser.add_argument("--rounds", type=int, default=2, help="interleaved rounds (default 2)")
    parser.add_argument("--warmup", type=int, default=2, help="progress lines (2 s each) left out per run")
    args = parser.parse_args(argv)
    if args.seconds <= 0 or args.rounds < 1 or args.warmup < 0:
        parser.error("--seconds must be positive, --rounds >= 1, --warmup >= 0")
    try:
        import ray
    except ImportError:
        print('error: Ray is not installed; pip install -e ".[ray]"', file=sys.stderr)
        return 2
    ray.init(num_cpus=2, include_dashboard=False, _node_ip_address="127.0.0.1", log_to_driver=False)
    try:
        results: dict[str, list[dict[str, Any]]] = {f"{b}-{n}": [] for b, n in SETTINGS}
        with tempfile.TemporaryDirectory() as runs_dir:
            for r in range(args.rounds):
                for backend, actors in SETTINGS[r % len(SETTINGS):] + SETTINGS[:r % len(SETTINGS)]:
                    out = run_once(backend, actors, args.seconds, args.warmup, runs_dir)
                    results[f"{backend}-{actors}"].append(out)
                    print(f"round {r + 1} {backend}-{actors}: {out['fps']:.0f} frames/s", file=sys.stderr, flush=True)
        learner, transport = learner_cost(), transport_cost()
    finally:
        ray.shutdown()
    print(json.dumps({"seconds": args.seconds, "rounds": args.rounds, "runs": results, "learner": learner,
                      "transport": transport, **summarize(results, learner, transport)}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
