"""Learning curves of training runs (`baohuang curves`): what a run's TensorBoard events hold,
placed over its training minutes, as JSON and as one figure for several runs.

Each run's events give:

* the periodic evaluations' duplicate win rate against each opponent (`eval/winrate_vs_<bot>`,
  written at a frame count), one panel per opponent, one line per run;
* the final evaluation's team duplicate win rate (`final_eval/team_win_rate/<bot>`, written
  by `agents.training.common.final_evaluation`), a marker on that opponent's panel;
* the training itself: the losses (`losses/*`) and the frames played, a panel each, so a run
  without periodic evaluations (`eval_minutes=0`) still has curves.

Every value is placed at the training minutes of its frame count (`charts/train_minutes`,
evaluations excluded, interpolated between the logged minutes). Runs whose evaluations are
compared must evaluate on the same deals (same `preset`, `eval_deal_seed`, `eval_deals` and
`eval_protocol`): `read_runs` refuses them otherwise.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

#: The config keys that decide which deals a periodic evaluation plays.
SAME_DEALS_KEYS = ("preset", "eval_deal_seed", "eval_deals", "eval_protocol")
#: The TensorBoard tags read (prefixes end with "/" or "_").
EVAL_PREFIX, FINAL_PREFIX, LOSS_PREFIX = "eval/winrate_vs_", "final_eval/team_win_rate/", "losses/"
MINUTES_TAG = "charts/train_minutes"

Points = list[tuple[float, float]]


@dataclass
class RunCurves:
    """One run's curves, each point (training minutes, value)."""

    evaluations: dict[str, Points] = field(default_factory=dict)  # opponent -> periodic win rates
    final: dict[str, Points] = field(default_factory=dict)  # opponent -> the final evaluation's win rate
    losses: dict[str, Points] = field(default_factory=dict)  # loss tag (after losses/) -> values
    frames: Points = field(default_factory=list)  # frames played

    def summary(self) -> dict[str, Any]:
        """The run's part of the JSON `baohuang curves` prints."""
        return {"curves": self.evaluations,
                "minutes_to_beat": {opp: time_to_beat(p) for opp, p in self.evaluations.items()},
                "final": {opp: p[-1] for opp, p in self.final.items()},
                "frames": int(self.frames[-1][1]) if self.frames else 0,
                "minutes": self.frames[-1][0] if self.frames else 0.0}


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


def run_curves(scalars: dict[str, list[tuple[int, float]]]) -> RunCurves:
    """The curves of one run's scalars, each value placed at the training minutes of its
    frame count (interpolated between the logged minutes)."""
    minutes = scalars.get(MINUTES_TAG)
    if not minutes:
        raise ValueError(f"the run logged no {MINUTES_TAG}: it has no TensorBoard events of a training run")
    steps, mins = np.array([s for s, _ in minutes], float), np.array([m for _, m in minutes], float)

    def placed(points: list[tuple[int, float]]) -> Points:
        return [(round(float(np.interp(step, steps, mins)), 2), round(value, 4)) for step, value in points]

    run = RunCurves(frames=[(round(m, 2), float(s)) for s, m in minutes])
    for tag, points in scalars.items():
        for prefix, into in ((EVAL_PREFIX, run.evaluations), (FINAL_PREFIX, run.final), (LOSS_PREFIX, run.losses)):
            if tag.startswith(prefix):
                into[tag.removeprefix(prefix)] = placed(points)
    return run


def time_to_beat(points: Points, level: float = 0.5) -> float | None:
    """First training minute at which the win rate was above `level` (None: never)."""
    return next((m for m, w in points if w > level), None)


def run_config(run_dir: Path) -> dict[str, Any]:
    """The run's config.yaml; ValueError when `run_dir` is not a run directory."""
    import yaml

    path = run_dir / "config.yaml"
    if not path.is_file():
        raise ValueError(f"{run_dir} has no config.yaml: is it a run directory?")
    return yaml.safe_load(path.read_text())


def read_runs(items: list[str]) -> dict[str, RunCurves]:
    """label -> curves of each `RUN_DIR[=LABEL]` (the label defaults to the folder's name).
    Refuses runs whose periodic evaluations played different deals."""
    runs: dict[str, RunCurves] = {}
    deals: dict[str, dict[str, Any]] = {}
    for item in items:
        path, _, label = item.partition("=")
        run_dir = Path(path)
        label = label or run_dir.name
        cfg = run_config(run_dir)
        try:
            runs[label] = run_curves(read_scalars(run_dir))
        except ValueError as err:
            raise ValueError(f"{run_dir}: {err}") from None
        if runs[label].evaluations:
            deals[label] = {k: cfg.get(k) for k in SAME_DEALS_KEYS}
    if len({json.dumps(d, sort_keys=True) for d in deals.values()}) > 1:
        raise ValueError("the runs evaluate on different deals, so their curves do not compare: "
                         + "; ".join(f"{k}: {v}" for k, v in deals.items()))
    return runs


def plot(runs: dict[str, RunCurves], out: Path) -> None:
    """One figure: a panel per opponent (periodic evaluations as lines, the final evaluation
    as a marker), then the training loss and the frames; written to `out` atomically."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    opponents = sorted({opp for r in runs.values() for opp in (*r.evaluations, *r.final)})
    panels = [*opponents, "loss", "frames"]
    fig = Figure(figsize=(4.5 * len(panels), 4))
    axes = fig.subplots(1, len(panels), squeeze=False)[0]
    colors = {label: f"C{i}" for i, label in enumerate(runs)}
    for ax, opp in zip(axes, opponents, strict=False):
        for label, r in runs.items():
            if opp in r.evaluations:
                ax.plot(*zip(*r.evaluations[opp], strict=True), marker="o", markersize=3, color=colors[label],
                        label=label)
            if opp in r.final:
                ax.plot(*zip(*r.final[opp], strict=True), marker="*", markersize=10, linestyle="none",
                        color=colors[label], label=f"{label} (final)")
        ax.axhline(0.5, color="grey", linestyle="--", linewidth=1)
        ax.set(title=f"against {opp}", ylim=(0, 1), ylabel="team duplicate win rate")
    for label, r in runs.items():
        for name, points in r.losses.items():
            axes[-2].plot(*zip(*points, strict=True), marker="o", markersize=2, color=colors[label],
                          label=f"{label}: {name}")
        if r.frames:
            axes[-1].plot(*zip(*r.frames, strict=True), color=colors[label], label=label)
    axes[-2].set(title="training loss", yscale="log" if any(r.losses for r in runs.values()) else "linear")
    axes[-1].set(title="frames played", ylabel="frames")
    for ax in axes:
        ax.set_xlabel("training minutes")
        ax.grid(alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=7)
    if not opponents:
        fig.suptitle("no evaluations in these runs (eval_minutes=0, --no-eval): training curves only")
    fig.tight_layout()
    tmp = out.with_name(out.name + ".tmp.png")
    fig.savefig(tmp, dpi=110)
    tmp.replace(out)


__all__ = ["SAME_DEALS_KEYS", "RunCurves", "plot", "read_runs", "read_scalars", "run_config", "run_curves",
           "time_to_beat"]
