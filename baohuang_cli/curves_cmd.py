"""`baohuang curves RUN[=LABEL] ... [--out FILE]`: learning curves of training runs.

Plots what each run's TensorBoard events hold over its training minutes (`agents.training.curves`): the
periodic evaluations' win rate against each opponent, the final evaluation's, the training
loss and the frames; a run without evaluations gets its training curves and a line saying so.
Writes the PNG (default: RUN/curves.png for one run; several runs need --out) and prints each
run's curves and its first minute above 50% against each opponent as JSON.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def add_parser(sub) -> None:
    p = sub.add_parser("curves", help="learning curves of training runs (win rates, loss, frames) as a PNG",
                       description=__doc__.split("\n\n")[0])
    p.add_argument("runs", nargs="+", metavar="RUN[=LABEL]", help="run directories, each with an optional label")
    p.add_argument("--out", type=Path, help="PNG to write (default: RUN/curves.png for a single run)")


def main(args) -> int:
    from agents.training.curves import plot, read_runs

    if args.out is None and len(args.runs) > 1:
        raise ValueError("several runs go on one figure: say where with --out FILE.png")
    out = args.out or Path(args.runs[0].partition("=")[0]) / "curves.png"
    runs = read_runs(args.runs)
    for label, run in runs.items():
        if not run.evaluations:
            print(f"baohuang curves: {label} has no periodic evaluations (eval_minutes=0); "
                  f"{'its final evaluation and ' if run.final else ''}its training curves are plotted",
                  file=sys.stderr)
    plot(runs, out)
    json.dump({**{label: run.summary() for label, run in runs.items()}, "png": str(out)}, sys.stdout, indent=1)
    print()
    print(f"wrote {out}", file=sys.stderr)
    return 0
