"""The run around a trainer's loop, written once for DMC and PPO: its directory (made afresh,
locked while a process trains in it) and TensorBoard writer, resuming from a checkpoint
(with the run's own config: `resume_config`, `MID_RUN_KEYS`), the counters, the clock (time
and frame budget; log, checkpoint and evaluation cadence) the final save, and stopping on
Ctrl-C or SIGTERM (`StopSignals`: the loop ends, the actors stop, a checkpoint is written and
`RunInterrupted` says where the run is and how to resume it).

A trainer reads top to bottom:

    with open_run(cfg, resume, load=..., counters=MyCounters(), log=log) as run:
        ... build networks; if run.checkpoint: load their states ...
        with children_ignore_ctrl_c():  # baohuang_eval.pool
            ... start the actor processes ...
        clock = RunClock(cfg, run.counters, frames=lambda: ..., stop=run.stop)
        while not clock.done():  # done on Ctrl-C too
            ... play, learn, count run.counters.updates ...
            clock.tick()
            if clock.due("log"): print(clock.progress("algo", clock.frame_rate(), "loss ..."))
            if clock.due("checkpoint"): run.save(payload())
            if clock.due("eval"):
                with clock.evaluating(): evaluate()  # not training time: off the budget
        ... stop the actors ...
        return run.finish(payload(), "N frames, M updates in ...", log)  # raises RunInterrupted after Ctrl-C
"""

from __future__ import annotations

import fcntl
import math
import os
import shlex
import signal
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from baohuang_env.replay import atomic_path, fresh_folder

from ..files.checkpoint import checkpoint_kind, load_checkpoint, save_checkpoint
from .config import RunConfig, config_from_dict, config_to_dict, load_config, save_config
from .common import export_model, seed_everything

CHECKPOINT_NAME = "checkpoint.pt"
MODEL_NAME = "model.pt"  # weights only (no optimizer state): small enough to ship
PID_NAME = "trainer.pid"  # the pid of the process training in the run directory, while one does
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
R = TypeVar("R", bound=RunConfig)

#: The config keys a resumed run may change (by `--config` or key=value on top of the run's
#: own config): the budget (how much longer to train), the cadences (how often to log,
#: checkpoint and evaluate), the evaluations (which bots, how many deals: what is reported,
#: not what is learned) and the workers (how many processes or threads do the work, and where: backend).
#: None of them changes what the networks learn from or what the checkpoint holds. Every
#: other key does, or names the run: the rules, rewards, network sizes, optimizer,
#: exploration, opponents, seeds, the evaluation deal set (curves before and after a resume
#: must be measured on the same deals) and protocol, the run's name and folder. Changing one
#: of those mid-run would quietly continue the checkpoint as another experiment, so a
#: resume refuses it (start a new run instead).
MID_RUN_KEYS = frozenset({
    "total_minutes", "total_frames",
    "log_seconds", "checkpoint_minutes", "eval_minutes",
    "eval_opponents", "eval_deals", "final_eval_deals",
    "actors", "torch_threads", "backend", "ray_address", "device",
})


#: The signals that stop a run with a checkpoint: Ctrl-C, and what `kill`, schedulers and
#: container runtimes send.
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
#: How the stop line names each signal.
SIGNAL_WORDS = {signal.SIGINT: "Ctrl-C (SIGINT)", signal.SIGTERM: "SIGTERM"}


def _in_main_thread() -> bool:
    """Signal handlers can be set only from the main thread (a trainer run from another
    thread, as a library call, keeps Python's defaults)."""
    return threading.current_thread() is threading.main_thread()


class StopSignals:
    """Ctrl-C (SIGINT) and SIGTERM while a run trains. The first asks the run to stop: the
    learner loop ends at its next clock reading (`RunClock.done`), the actors stop and
    `Run.finish` writes the checkpoint, then raises `RunInterrupted`. A second aborts at once,
    as the signal would have without this (SIGINT: KeyboardInterrupt; SIGTERM: death); the
    run keeps its last checkpoint (checkpoints are written atomically)."""

    def __init__(self) -> None:
        self.signum: int | None = None  # the first stop signal received
        self._previous: dict[int, object] = {}

    @property
    def requested(self) -> bool:
        return self.signum is not None

    def install(self) -> None:
        if not _in_main_thread():
            return
        for sig in STOP_SIGNALS:
            self._previous[sig] = signal.signal(sig, self._handle)

    def restore(self) -> None:
        """Python's handlers (or whichever were set before `install`) again."""
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)
        self._previous.clear()

    def _handle(self, signum: int, frame: object) -> None:
        if self.signum is None:
            self.signum = signum
            return
        previous = self._previous.get(signum, signal.SIG_DFL)
        self.restore()
        if callable(previous):
            previous(signum, frame)
        elif previous == signal.SIG_DFL:
            signal.raise_signal(signum)


class RunInterrupted(KeyboardInterrupt):
    """A run stopped by a signal after writing its checkpoint (`Run.finish` printed where and
    how to resume). `exit_code` is the shell's convention for death by that signal: 130 for
    SIGINT, 143 for SIGTERM."""

    def __init__(self, run_dir: Path, signum: int) -> None:
        super().__init__(f"{run_dir}: stopped by {SIGNAL_WORDS.get(signum, signal.Signals(signum).name)}")
        self.run_dir, self.signum, self.exit_code = run_dir, signum, 128 + signum


@contextmanager
def stop_handlers_kept() -> Iterator[None]:
    """The stop signals' handlers as they were before, whatever code inside sets (`ray.init`
    sets a SIGTERM handler that exits at once, which would lose a run's checkpoint)."""
    if not _in_main_thread():
        yield
        return
    before = {sig: signal.getsignal(sig) for sig in STOP_SIGNALS}
    try:
        yield
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)


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
    the evaluation time, each over all resumes. With `stop` (the run's `StopSignals`), a
    Ctrl-C or SIGTERM ends the run too."""

    def __init__(self, cfg: RunConfig, counters: Counters, frames: Callable[[], int] | None = None,
                 clock: Callable[[], float] = time.monotonic, stop: StopSignals | None = None) -> None:
        self.counters, self.total_frames, self._frames, self._clock = counters, cfg.total_frames, frames, clock
        self._stop = stop
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

    def stopping(self) -> bool:
        """Was the run asked to stop (Ctrl-C, SIGTERM)? Cheap: a loop inside an iteration (a
        rollout) may ask it every step, so that a stop never waits for a whole iteration."""
        return self._stop is not None and self._stop.requested

    def done(self) -> bool:
        """Is the budget spent, or the run asked to stop? Ticks, then compares the frames with
        total_frames and the training time with total_minutes."""
        self.tick()
        over_frames = self.total_frames > 0 and self.counters.frames >= self.total_frames
        return over_frames or self.counters.elapsed_s >= self.budget_s or self.stopping()

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
    """A new `runs_dir/baohuang-<preset>__<exp_name>__<seed>__<time>` folder (with a -2, -3 ...
    suffix when a run of the same name and seed started in the same second took that one)."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    return fresh_folder(cfg.runs_dir, f"baohuang-{cfg.preset}__{cfg.exp_name}__{cfg.seed}__{stamp}")


def checkpoint_path(resume: str | os.PathLike) -> Path:
    """`--resume` takes a run directory or a checkpoint file."""
    path = Path(resume)
    return path / CHECKPOINT_NAME if path.is_dir() else path


def existing_checkpoint(resume: str | os.PathLike, algo: str) -> Path:
    """The checkpoint `--resume` names, refused (ValueError) when there is none: a run
    directory without one never wrote one (it was killed, or stopped twice, before its first
    checkpoint), which the message says, with the command that starts it again."""
    path = checkpoint_path(resume)
    if path.is_file():
        return path
    config = path.parent / "config.yaml"
    if path.name == CHECKPOINT_NAME and config.is_file():
        again = f"baohuang train {algo} --config {shlex.quote(str(config))}" if algo else f"--config {config}"
        raise ValueError(f"cannot resume {path.parent}: that run never wrote a checkpoint (it was ended before "
                         f"its first one), so there is nothing to continue. Start it again with: {again}")
    raise ValueError(f"cannot resume {resume}: there is no checkpoint {path}")


class RunLock:
    """An exclusive OS lock (`flock`) on a run directory, held while a process trains in it,
    so that two trainers never write one run's checkpoint. The kernel releases it when the
    process ends, however it ends (kill -9 too), so a lock is never stale. The directory
    itself is locked, so taking the lock (or failing to) creates no file; the holder's pid
    goes to `trainer.pid` once it starts training, for the message another process gets."""

    def __init__(self, run_dir: Path) -> None:
        self.dir, self._fd, self._wrote_pid = run_dir, None, False
        self._fd = os.open(run_dir, os.O_RDONLY)
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self.release()
            holder = self._holder()
            raise ValueError(f"cannot train in {run_dir}: another process{holder} is training in it; "
                             "wait for it to finish, or stop it, then resume") from None

    def _holder(self) -> str:
        """" (pid N)" for the recorded holder when that process is alive, else ""."""
        try:
            pid = int((self.dir / PID_NAME).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return ""
        try:
            os.kill(pid, 0)
        except ProcessLookupError:  # a pid left by a killed trainer
            return ""
        except PermissionError:  # alive, another user's
            pass
        return f" (pid {pid})"

    def record_pid(self) -> None:
        """Write this process's pid to the run directory (once training starts there)."""
        with atomic_path(self.dir / PID_NAME) as tmp:
            Path(tmp).write_text(f"{os.getpid()}\n", encoding="utf-8")
        self._wrote_pid = True

    def release(self) -> None:
        """Remove the pid file (if this process wrote it) and let the directory go."""
        if self._fd is None:
            return
        if self._wrote_pid:
            (self.dir / PID_NAME).unlink(missing_ok=True)
        os.close(self._fd)
        self._fd = None

    def __del__(self) -> None:  # a trainer that raised: its lock goes with it
        self.release()


def start_run(cfg: RunConfig, lock: RunLock) -> Any:
    """Start training in the locked run directory: record the pid, write the resolved config
    there, and open the TensorBoard writer with the config under its text tab."""
    from torch.utils.tensorboard import SummaryWriter

    lock.record_pid()
    save_config(cfg, lock.dir / "config.yaml")
    writer = SummaryWriter(str(lock.dir))
    writer.add_text("hyperparameters", "|param|value|\n|-|-|\n" + "\n".join(
        f"|{k}|{v}|" for k, v in config_to_dict(cfg).items()))
    return writer


@dataclass
class Run:
    """An open run: where it writes, its TensorBoard writer, its counters, the checkpoint it
    resumed from (None for a new run), the lock it holds on its directory, and the name of its
    trainer (`RunConfig.ALGO`). As a context manager it also stops on Ctrl-C and SIGTERM
    (`stop`: installed on entry) and lets everything go on exit, however the run ends."""

    dir: Path
    writer: Any
    counters: Counters
    lock: RunLock = field(repr=False)
    checkpoint: dict[str, Any] | None = field(default=None, repr=False)
    algo: str = ""
    stop: StopSignals = field(default_factory=StopSignals, repr=False)

    @property
    def checkpoint_file(self) -> Path:
        return self.dir / CHECKPOINT_NAME

    def __enter__(self) -> Run:
        self.stop.install()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def save(self, payload: dict[str, Any]) -> None:
        """Write the training checkpoint (atomically)."""
        save_checkpoint(self.checkpoint_file, payload)

    def resume_command(self) -> str:
        """The command that continues this run."""
        return f"baohuang train {self.algo} --resume {shlex.quote(str(self.dir))}"

    def finish(self, payload: dict[str, Any], summary: str, log=sys.stderr) -> Path:
        """The final checkpoint and its playing copy `model.pt`; prints one line, `[algo] done:
        <summary>` and where the checkpoint is, closes TensorBoard, lets the run directory go
        and returns it. A run stopped by a signal says instead that it stopped, where, and the
        command that resumes it, then raises `RunInterrupted`."""
        self.save(payload)
        export_model(self.checkpoint_file, self.dir / MODEL_NAME, force=True)  # its own playing copy
        tag = f"[{self.algo}] " if self.algo else ""
        if self.stop.signum is None:
            print(f"{tag}done: {summary}; checkpoint {self.checkpoint_file}", file=log, flush=True)
        else:
            print(f"{tag}stopped by {SIGNAL_WORDS[self.stop.signum]} after {summary}; checkpoint "
                  f"{self.checkpoint_file}; resume with: {self.resume_command()}", file=log, flush=True)
        self.close()
        if self.stop.signum is not None:
            raise RunInterrupted(self.dir, self.stop.signum)
        return self.dir

    def close(self) -> None:
        """Close TensorBoard, restore the signal handlers and let the run directory go (again: nothing)."""
        self.writer.close()
        self.stop.restore()
        self.lock.release()


def _saved_config(cls: type[R], ckpt: dict[str, Any], path: Path) -> R:
    """The config a checkpoint was trained with."""
    with warnings.catch_warnings():  # a config saved under old key names is not the user's to fix
        warnings.simplefilter("ignore", FutureWarning)
        return config_from_dict(cls, cls.trained_config(ckpt), source=f"the config in {path}")


def _check_resumable(ckpt: dict[str, Any], path: Path) -> None:
    """Refuse a playing copy, saying what it is and what to resume from instead."""
    if checkpoint_kind(ckpt) == "training":
        return
    algo = ckpt.get("compat", {}).get("algo")
    plays = f" (as the agent {algo}:{path})" if algo else ""
    beside = path.parent / CHECKPOINT_NAME
    instead = (f"Resume from the run directory {path.parent} or its {beside}" if beside.is_file()
               else f"Resume from the run directory that wrote it (or that directory's {CHECKPOINT_NAME})")
    raise ValueError(f"cannot resume {path}: it is a playing copy (a run's {MODEL_NAME} or an export: the "
                     f"networks without the optimizer and random-number states training continues from); "
                     f"it plays{plays} but cannot continue training. {instead} instead")


def check_mid_run_changes(saved: RunConfig, cfg: RunConfig, path: Path) -> dict[str, tuple[Any, Any]]:
    """Refuse `cfg` for resuming the run of `saved` (its config) when it changes a key outside
    MID_RUN_KEYS, naming each such key with the run's value and the one asked for. Returns the
    accepted changes, key -> (the run's value, the new one)."""
    have, want = config_to_dict(saved), config_to_dict(cfg)
    changed = {k: (have.get(k), v) for k, v in want.items() if have.get(k) != v}
    refused = [k for k in changed if k not in MID_RUN_KEYS]
    if refused:
        what = "".join(f"\n  {k} is {changed[k][0]!r} in the run, asked {changed[k][1]!r}" for k in refused)
        allowed = ", ".join(k for k in want if k in MID_RUN_KEYS)
        raise ValueError(f"cannot resume {path} with a different config:{what}\nOnly {allowed} may change "
                         "mid-run: every other key decides what the run learns (rules, rewards, networks, "
                         "optimizer, opponents, seeds, deal sets) or names it, so the checkpoint cannot go on "
                         "under another value. Drop that change (a resumed run starts from its own config) "
                         "or start a new run")
    return changed


def resume_config(cls: type[R], resume: str | os.PathLike, path: str | os.PathLike | None = None,
                  overrides: list[str] | None = None, *, algo: str) -> R:
    """The config to resume `resume` (a run directory or its checkpoint) with: the run's own,
    with the YAML file at `path` and the `key=value` overrides on top (only MID_RUN_KEYS may
    differ from the run's). The run's config is the one its checkpoint records: that is the
    config the saved networks and optimizer were trained with, and a checkpoint file carries
    it wherever it is copied; the run directory's config.yaml is a readable copy of it.

    Refused (ValueError): a playing copy, a checkpoint of another algorithm than `algo`, a
    change of a key that cannot change mid-run."""
    file = existing_checkpoint(resume, algo)
    ckpt = load_checkpoint(file)
    have = ckpt.get("compat", {}).get("algo")
    if have != algo:
        hint = f"; resume it with its own trainer ({have})" if have else ""
        raise ValueError(f"cannot resume {file} as a {algo} run: it is a {have or 'non-' + algo} checkpoint, "
                         f"not a {algo} one{hint}")
    _check_resumable(ckpt, file)
    saved = _saved_config(cls, ckpt, file)
    cfg = load_config(cls, path, overrides, base=config_to_dict(saved))
    check_mid_run_changes(saved, cfg, file)
    return cfg


def open_run(cfg: RunConfig, resume: str | os.PathLike | None, load: Callable[[Path], dict[str, Any]],
             counters: C, log=sys.stderr) -> Run:
    """Start a new run, or resume one from `resume` (a run directory or checkpoint file), and
    say which in a first line naming the run directory.

    Either way the run directory is locked for this process (`RunLock`: a second trainer in
    it is refused). Resuming: `load(path)` reads the checkpoint (and refuses one for other
    rules or another algorithm); a playing copy is refused, and so is a `cfg` that differs
    from the checkpoint's config in a key outside MID_RUN_KEYS; the run continues in the
    checkpoint's folder with its counters. A refused resume changes nothing in the run
    directory. Then the resolved config is written there, TensorBoard is opened, and the
    global generators are seeded with `cfg.seed + counters.updates` (a resumed run then
    restores the checkpoint's RNG states itself, with `training.set_rng_state`). Enter the
    returned `Run` (`with`) to stop on Ctrl-C with a checkpoint.
    """
    tag = f"[{cfg.ALGO}] " if cfg.ALGO else ""
    if resume is None:
        lock, ckpt = RunLock(make_run_dir(cfg)), None
    else:
        path = existing_checkpoint(resume, cfg.ALGO)
        lock = RunLock(path.parent)
        try:
            ckpt = load(path)
            _check_resumable(ckpt, path)
            changes = check_mid_run_changes(_saved_config(type(cfg), ckpt, path), cfg, path)
            counters = type(counters)(**ckpt["counters"])
        except BaseException:
            lock.release()
            raise
    writer = start_run(cfg, lock)
    seed_everything(cfg.seed + counters.updates)
    if ckpt is None:
        print(f"{tag}run {lock.dir} (Ctrl-C stops it with a checkpoint to resume from)", file=log, flush=True)
    else:
        changed = ", ".join(f"{k} {old!r} -> {new!r}" for k, (old, new) in changes.items())
        print(f"{tag}resumed {lock.dir} at {counters.frames} frames, {counters.updates} updates"
              + (f" ({changed})" if changed else ""), file=log, flush=True)
    return Run(lock.dir, writer, counters, lock, ckpt, algo=cfg.ALGO)
