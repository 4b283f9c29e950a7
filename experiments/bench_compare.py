"""`baohuang bench` of two checkouts, interleaved, so that a change's speed is compared under
the same load: each round runs the old checkout's bench and the new one's (alternating which
goes first), and the report keeps the best of each figure over the rounds and their ratio.

    python experiments/bench_compare.py OLD_CHECKOUT NEW_CHECKOUT [--rounds 8] [--seconds 3]

Each checkout runs its own `CHECKOUT/.venv/bin/baohuang` (see experiments/README.md). The
machines are shared and noisy: a do-nothing env of the same code in both checkouts
(`noop_env_steps_per_s`) shows how far the ratios move by load alone.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

#: Rates (higher is better): best = the highest of the rounds.
RATES = ("engine_steps_per_s", "engine_games_per_s", "raw_env_steps_per_s", "env_steps_per_s",
         "noop_env_steps_per_s")
#: Per-call times in µs (lower is better): best = the lowest of the rounds.
TIMES = ("mask_us_per_call_lead", "mask_us_per_call_follow", "batched_mask_us_per_hand")


def summarize(old: list[dict[str, Any]], new: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Best of each figure over the rounds, per checkout, and new/old."""
    out = {}
    for key, best in [*((k, max) for k in RATES), *((k, min) for k in TIMES)]:
        o, n = best(r[key] for r in old), best(r[key] for r in new)
        out[key] = {"old": o, "new": n, "new_over_old": round(n / o, 3)}
    return out


def bench(checkout: Path, seconds: float) -> dict[str, Any]:
    """One `baohuang bench --preset jj` of `checkout`, as its JSON report."""
    done = subprocess.run([str(checkout / ".venv" / "bin" / "baohuang"), "bench", "--preset", "jj",
                           "--seconds", str(seconds)], cwd=checkout, capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("old", type=Path, help="checkout before the change")
    p.add_argument("new", type=Path, help="checkout after the change")
    p.add_argument("--rounds", type=int, default=8, help="interleaved rounds (default 8)")
    p.add_argument("--seconds", type=float, default=3.0, help="time per rate measurement (default 3)")
    args = p.parse_args(argv)
    for checkout in (args.old, args.new):
        if not (checkout / ".venv" / "bin" / "baohuang").exists():
            p.error(f"{checkout} has no .venv/bin/baohuang: install the project there first "
                    "(see experiments/README.md)")
    if args.rounds < 1 or args.seconds <= 0:
        p.error("--rounds must be at least 1 and --seconds positive")
    runs: dict[str, list[dict[str, Any]]] = {"old": [], "new": []}
    for r in range(args.rounds):
        for name in ("old", "new") if r % 2 == 0 else ("new", "old"):
            runs[name].append(bench(getattr(args, name), args.seconds))
        print(f"round {r + 1}/{args.rounds} done", file=sys.stderr, flush=True)
    print(json.dumps({"rounds": args.rounds, "seconds": args.seconds, **summarize(runs["old"], runs["new"])},
                     indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
