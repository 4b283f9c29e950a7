"""Learning curves of training runs: the periodic evaluation's duplicate win rate against
each opponent over wall-clock minutes of training, one line per run, one panel per opponent.

    python experiments/learning_curves.py RUN_DIR[=LABEL] ... --out docs/learning_curves.png

Reads each run's TensorBoard events: `eval/winrate_vs_<opponent>` (written at a frame count)
and `charts/train_minutes` (the training time at a frame count, evaluations excluded); a win
rate is placed at the training minutes of its frame count. Runs compared on one figure must
evaluate on the same deals (same `eval_deal_seed`, `eval_deals` and `eval_protocol`): the
script refuses runs whose configs differ there. Also prints, as JSON, each run's curve and the
first minute at which it passed 50% against each opponent (its time to beat that opponent).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

#: The config keys that decide which deals a periodic evaluation plays.
SAME_DEALS_KEYS = ("preset", "eval_deal_seed", "eval_deals", "eval_protocol")


def read_scalars(run_dir: Path) -> dict[str, list[tuple[int, float]]]:
    """Every scalar of the run's TensorBoard events: tag -> [(step, value)], by step."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    scalars: dict[str, dict[int, float]] = {}
    for events in sorted(run_dir.glob("events.out.tfevents.*")):
        acc = EventAccumulator(str(events), size_guidance={"scalars": 0})
        acc.Reload()
        for tag in acc.Tags()["scalars"]:
            scalars.setdefault(tag, {}).update({e.step: e.value for e in acc.Scalars(tag)})
    return {tag: sorted(points.items()) for tag, points in scalars.items()}


def curves(scalars: dict[str, list[tuple[int, float]]]) -> dict[str, list[tuple[float, float]]]:
    """opponent -> [(training minutes, win rate)]: each evaluation placed at the training
    minutes of its frame count (interpolated between the logged minutes)."""
    minutes = scalars.get("charts/train_minutes")
    if not minutes:
        raise ValueError("the run logged no charts/train_minutes")
    steps, mins = np.array([s for s, _ in minutes], float), np.array([m for _, m in minutes], float)
    out = {}
    for tag, points in scalars.items():
        if tag.startswith("eval/winrate_vs_"):
            out[tag.removeprefix("eval/winrate_vs_")] = [
                (round(float(np.interp(step, steps, mins)), 2), round(value, 4)) for step, value in points]
    return out


def time_to_beat(points: list[tuple[float, float]], level: float = 0.5) -> float | None:
    """First training minute at which the win rate was above `level` (None: never)."""
    return next((m for m, w in points if w > level), None)


def run_config(run_dir: Path) -> dict:
    import yaml

    path = run_dir / "config.yaml"
    if not path.is_file():
        raise ValueError(f"{run_dir} has no config.yaml: is it a run directory?")
    return yaml.safe_load(path.read_text())


def plot(runs: dict[str, dict[str, list[tuple[float, float]]]], out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    opponents = sorted({opp for c in runs.values() for opp in c})
    fig, axes = plt.subplots(1, len(opponents), figsize=(5.5 * len(opponents), 4), sharey=True, squeeze=False)
    for ax, opp in zip(axes[0], opponents, strict=True):
        for label, c in runs.items():
            if opp in c:
                m, w = zip(*c[opp], strict=True)
                ax.plot(m, w, marker="o", markersize=3, label=label)
        ax.axhline(0.5, color="grey", linestyle="--", linewidth=1)
        ax.set_title(f"against {opp}")
        ax.set_xlabel("training minutes (2 CPU cores)")
        ax.set_ylim(0, 1)
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("team duplicate win rate")
    axes[0][-1].legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    tmp = out.with_name(out.name + ".tmp.png")
    fig.savefig(tmp, dpi=110)
    plt.close(fig)
    tmp.replace(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", metavar="RUN_DIR[=LABEL]", help="run directories, each with a label")
    parser.add_argument("--out", type=Path, help="PNG to write (default: print the JSON only)")
    args = parser.parse_args(argv)
    runs, deals = {}, {}
    for item in args.runs:
        path, _, label = item.partition("=")
        run_dir = Path(path)
        try:
            cfg = run_config(run_dir)
            runs[label or run_dir.name] = curves(read_scalars(run_dir))
        except ValueError as err:
            parser.error(f"{run_dir}: {err}")
        deals[label or run_dir.name] = {k: cfg.get(k) for k in SAME_DEALS_KEYS}
    if len({json.dumps(d, sort_keys=True) for d in deals.values()}) > 1:
        parser.error("the runs evaluate on different deals, so their curves do not compare: "
                     + "; ".join(f"{k}: {v}" for k, v in deals.items()))
    summary = {label: {"curves": c, "minutes_to_beat": {opp: time_to_beat(p) for opp, p in c.items()}}
               for label, c in runs.items()}
    if args.out:
        plot(runs, args.out)
        summary["png"] = str(args.out)
    json.dump(summary, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
