"""The run around a trainer's loop, written once for DMC and PPO: its directory and
TensorBoard writer, resuming from a checkpoint, the counters, the clock (time and frame
budget; log, checkpoint and evaluation cadence) and the final save.

A trainer reads top to bottom:

    run = open_run(cfg, resume, load=..., counters=MyCounters(), check=..., log=log)
    ... build networks; if run.checkpoint: load their states ...
    clock = RunClock(cfg, run.counters, frames=lambda: ...)
    while not clock.done():
        ... play, learn, count run.counters.updates ...
        clock.tick()
        if clock.due("log"): print(clock.progress("algo", clock.frame_rate(), "loss ..."))
        if clock.due("checkpoint"): run.save(payload())
        if clock.due("eval"):
            with clock.evaluating(): evaluate()  # not training time: off the budget
    return run.finish(payload(), "[algo] done: ...", log)
"""

from __future__ import annotations

import math
import os
import sys
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from .checkpoint import save_checkpoint
from .config import RunConfig, config_from_dict, config_to_dict, save_config
from .training import export_model, seed_everything

CHECKPOINT_NAME = "checkpoint.pt"
MODEL_NAME = "model.pt"  # weights only (no optimizer state): small enough to ship
#: The clock's events and the config knob that sets each one's period.
EVENTS = ("log", "checkpoint", "eval")


@dataclass
class Counters:
    """How far a run has come; saved in every checkpoint and continued on resume. A trainer
    adds its own counts in a subclass."""

    frames: int = 0  # environment steps in training games (every decision, forced or not)
    updates: int = 0
    elapsed_s: float = 0.0  # training time over all resumes: what total_minutes budgets
    eval_s: float = 0.0  # evaluation time during training over all resumes, not in elapsed_s


C = TypeVar("C", bound=Counters)


class FrameRate:
    """Frames per second between successive readings."""

    def __init__(self, frames: int, now: float) -> None:
        self.frames, self.time = frames, now

    def __call__(self, frames: int, now: float) -> float:
        rate = (frames - self.frames) / max(now - self.time, 1e-9)
        self.frames, self.time = frames, now
        return rate


class RunClock:
    """The budget and cadences of a run, in training time: wall time less the time spent in
    `evaluating()`. The budget (`total_minutes` of training time over all resumes,
    `total_frames`) ends the run at whichever comes first; `due(event)` says when to log
    (`log_seconds`), checkpoint (`checkpoint_minutes`) and evaluate (`eval_minutes`, 0: never
    during training). `counters.elapsed_s` follows the training time and `counters.eval_s`
    the evaluation time, each over all resumes."""

    def __init__(self, cfg: RunConfig, counters: Counters, frames: Callable[[], int] | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.counters, self.total_frames, self._frames, self._clock = counters, cfg.total_frames, frames, clock
        self.budget_s = cfg.total_minutes * 60 if cfg.total_minutes > 0 else math.inf
        self.every = {"log": cfg.log_seconds, "checkpoint": cfg.checkpoint_minutes * 60,
                      "eval": cfg.eval_minutes * 60 if cfg.eval_minutes > 0 else math.inf}
        self._excluded = 0.0  # wall seconds of this session that are not training time
        self.now = self._training_time()
        self.start = self.now - counters.elapsed_s
        self.last = dict.fromkeys(EVENTS, self.now)
        self._log_rate = FrameRate(counters.frames, self.now)

    def _training_time(self) -> float:
        return self._clock() - self._excluded

    def tick(self) -> float:
        """Read the training time (what `due` compares against) and, when the clock was given
        a `frames` reader, the frame count; `counters.elapsed_s` and `.frames` follow them."""
        self.now = self._training_time()
        self.counters.elapsed_s = self.now - self.start
        if self._frames is not None:
            self.counters.frames = self._frames()
        return self.now

    def done(self) -> bool:
        """Is the budget spent? Ticks, then compares the frames with total_frames and the
        training time with total_minutes."""
        self.tick()
        over_frames = self.total_frames > 0 and self.counters.frames >= self.total_frames
        return over_frames or self.counters.elapsed_s >= self.budget_s

    def due(self, event: str) -> bool:
        """Has `event`'s period of training time passed since it last happened (as of the last
        tick)? When it has, its period starts again now."""
        if self.now - self.last[event] < self.every[event]:
            return False
        self.last[event] = self.now
        return True

    @contextmanager
    def evaluating(self) -> Iterator[None]:
        """The time spent inside is evaluation, not training: it is added to
        `counters.eval_s` and neither spends the budget nor counts towards any cadence (the
        next evaluation is `eval_minutes` of training after this one)."""
        begin = self._clock()
        try:
            yield
        finally:
            spent = self._clock() - begin
            self._excluded += spent
            self.counters.eval_s += spent

    @property
    def remaining_s(self) -> float:
        """Training time left in the budget."""
        return max(self.budget_s - self.counters.elapsed_s, 0.0)

    def frame_rate(self) -> float:
        """Frames per second of training time since the last call (the first: since the clock
        started)."""
        return self._log_rate(self.counters.frames, self.now)

    def minutes(self) -> str:
        """Which time is which, for the progress and final lines: "1.0 min training + 0.3 min
        evaluating"."""
        c = self.counters
        return f"{c.elapsed_s / 60:.1f} min training + {c.eval_s / 60:.1f} min evaluating"

    def write_minutes(self, writer: Any, step: int) -> None:
        """TensorBoard's `charts/train_minutes` (the budget's figure) and `charts/eval_minutes`."""
        writer.add_scalar("charts/train_minutes", self.counters.elapsed_s / 60, step)
        writer.add_scalar("charts/eval_minutes", self.counters.eval_s / 60, step)

    def progress(self, tag: str, fps: float, details: str) -> str:
        """The progress line: training and evaluation time, frames, `fps`, updates, `details`,
        training time left (under a time budget)."""
        c = self.counters
        left = f"  ~{self.remaining_s / 60:.1f} min of training left" if math.isfinite(self.budget_s) else ""
        return (f"[{tag}] {self.minutes()}  frames {c.frames:,}  {fps:,.0f} frames/s  "
                f"updates {c.updates}  {details}{left}")


def make_run_dir(cfg: RunConfig) -> Path:
    """A new `runs_dir/baohuang-<preset>__<exp_name>__<seed>__<time>` folder."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    path = Path(cfg.runs_dir) / f"baohuang-{cfg.preset}__{cfg.exp_name}__{cfg.seed}__{stamp}"
    path.mkdir(parents=True, exist_ok=False)
    return path


def checkpoint_path(resume: str | os.PathLike) -> Path:
    """`--resume` takes a run directory or a checkpoint file."""
    path = Path(resume)
    return path / CHECKPOINT_NAME if path.is_dir() else path


def start_run(cfg: RunConfig, run_dir: Path | None) -> tuple[Path, Any]:
    """Create the run directory (unless resuming into `run_dir`), write the resolved config
    there, and open the TensorBoard writer with the config under its text tab."""
    from torch.utils.tensorboard import SummaryWriter

    if run_dir is None:
        run_dir = make_run_dir(cfg)
    save_config(cfg, run_dir / "config.yaml")
    writer = SummaryWriter(str(run_dir))
    writer.add_text("hyperparameters", "|param|value|\n|-|-|\n" + "\n".join(
        f"|{k}|{v}|" for k, v in config_to_dict(cfg).items()))
    return run_dir, writer


@dataclass
class Run:
    """An open run: where it writes, its TensorBoard writer, its counters, and the checkpoint
    it resumed from (None for a new run)."""

    dir: Path
    writer: Any
    counters: Counters
    checkpoint: dict[str, Any] | None = field(default=None, repr=False)

    @property
    def checkpoint_file(self) -> Path:
        return self.dir / CHECKPOINT_NAME

    def save(self, payload: dict[str, Any]) -> None:
        """Write the training checkpoint (atomically)."""
        save_checkpoint(self.checkpoint_file, payload)

    def finish(self, payload: dict[str, Any], summary: str, log=sys.stderr) -> Path:
        """The final checkpoint and its playing copy `model.pt`; prints `summary` and where the
        checkpoint is, closes TensorBoard and returns the run directory."""
        self.save(payload)
        export_model(self.checkpoint_file, self.dir / MODEL_NAME, force=True)  # its own playing copy
        print(f"{summary}; checkpoint {self.checkpoint_file}", file=log, flush=True)
        self.writer.close()
        return self.dir


def open_run(cfg: RunConfig, resume: str | os.PathLike | None, load: Callable[[Path], dict[str, Any]],
             counters: C, check: Callable[[dict[str, Any], Any, Path], None] | None = None,
             log=sys.stderr) -> Run:
    """Start a new run, or resume one from `resume` (a run directory or checkpoint file).

    Resuming: `load(path)` reads the checkpoint (and refuses one for other rules or another
    algorithm); `check(checkpoint, saved_config, path)` may refuse it for the config (network
    sizes); the run continues in the checkpoint's folder with its counters. Either way the
    resolved config is written to the run directory, TensorBoard is opened, and the global
    generators are seeded with `cfg.seed + counters.updates` (a resumed run then restores
    the checkpoint's RNG states itself, with `training.set_rng_state`).
    """
    ckpt = run_dir = None
    if resume is not None:
        path = checkpoint_path(resume)
        ckpt = load(path)
        if check is not None:
            with warnings.catch_warnings():  # a config saved under old key names is not the user's to fix
                warnings.simplefilter("ignore", FutureWarning)
                saved = config_from_dict(type(cfg), ckpt["config"], source=str(path))
            check(ckpt, saved, path)
        run_dir = path.parent
        counters = type(counters)(**ckpt["counters"])
    run_dir, writer = start_run(cfg, run_dir)
    seed_everything(cfg.seed + counters.updates)
    if ckpt is not None:
        print(f"resumed {run_dir} at {counters.frames} frames, {counters.updates} updates", file=log)
    return Run(run_dir, writer, counters, ckpt)
