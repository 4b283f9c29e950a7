"""One team-duplicate comparison as one JSON line: agent spec A against spec B on a range of
deals of one preset, read from a report under `--evals` when one is there, else played into
`--evals/NAME` (`experiments/anneal_run.sh` calls it for each of its evaluations).

    python experiments/compare_pair.py dmc:runs/anneal/jj/RUN/model.pt heuristic --preset jj \\
        --deals 1000 --deal-seed 21000000 --evals runs/anneal/jj --name eval_tuning_heuristic

Prints the duplicate win rate of A with its 95% interval and A's mean points per deal.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from scaling_curve import compare, rate  # a sibling script, not a package


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("a", help="agent spec (as `baohuang eval --agents` takes it)")
    p.add_argument("b", help="agent spec of the opponent")
    p.add_argument("--preset", default="jj")
    p.add_argument("--deals", type=int, default=1000)
    p.add_argument("--deal-seed", type=int, default=21_000_000, help="first deal seed (tuning deals by default)")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--evals", type=Path, required=True, help="where the reports are and a new one goes")
    p.add_argument("--name", help="the new report's folder under --evals (default A_vs_B)")
    args = p.parse_args(argv)
    args.evals.mkdir(parents=True, exist_ok=True)
    result = compare(args.a, args.b, args, name=args.name, preset=args.preset)
    print(json.dumps({"eval": args.name, "a": args.a, "b": args.b, "preset": args.preset,
                      "first_seed": args.deal_seed, **rate(result),
                      "points_per_deal": round(result["diff"]["mean"], 3)}))


if __name__ == "__main__":
    main()
