"""Running many pairs' games over worker processes: chunks of deals, a progress line, and
the per-worker cache of agents; the studies' chunks of deals (`run_chunks`).

Specs, never agent objects, travel to the workers, which build the agents themselves
(`SpecSeats`) and keep them for the whole evaluation (keyed by a run token, so a checkpoint
rewritten between two evaluations is loaded again). Workers start with "spawn": a forked
child of a process that has used torch's thread pool (any checkpoint agent) can hang on its
first torch call. Every chunk's records come back in submission order, so the results do
not depend on the number of workers or the chunking.

Ctrl-C: the workers ignore it (the terminal sends it to the whole process group), and this
process, on its KeyboardInterrupt, cancels the chunks not started and ends the workers at once
(`worker_pool`); `play_pairs` then raises `PairsInterrupted` with the results of the chunks
that were finished, for a partial report.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import signal
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO, TypeVar

from baohuang_env.rules import Rules

from .play import SpecSeats, file_slug
from .protocol import PairGames, Protocol


class Progress:
    """`\\r`-refreshed progress line: games done/total, games/s, ETA (silent without `log`)."""

    def __init__(self, total: int, log: TextIO | None, label: str = "eval") -> None:
        self.total, self.log, self.label = total, log, label
        self.done = 0
        self.t0 = time.perf_counter()

    def add(self, games: int) -> None:
        self.done += games
        if self.log is None:
            return
        dt = time.perf_counter() - self.t0
        rate = self.done / dt if dt > 0 else 0.0
        eta = (self.total - self.done) / rate if rate > 0 else math.inf
        eta_s = "?" if math.isinf(eta) else f"{int(eta) // 60}m{int(eta) % 60:02d}s"
        print(f"\r{self.label}: {self.done}/{self.total} games, {rate:.1f} games/s, ETA {eta_s}   ",
              end="", file=self.log, flush=True)

    def close(self) -> None:
        if self.log is not None:
            print(file=self.log, flush=True)

    @property
    def seconds(self) -> float:
        return time.perf_counter() - self.t0


def start_method(mp_context: Any = None) -> Any:
    """The multiprocessing context of the workers: "spawn" unless `mp_context` (a name or a
    context) says otherwise."""
    if mp_context is None:
        return multiprocessing.get_context("spawn")
    if isinstance(mp_context, str):
        return multiprocessing.get_context(mp_context)
    return mp_context


#: Games per job, at least and (unless 20 deals hold more) at most: a job's games play at once
#: (`play_games`), and a batch of a dozen or so plays them slower than one at a time did; a job
#: of more shows progress seldom.
JOB_GAMES = (64, 200)


def chunk_size(num_deals: int, workers: int, games_per_deal: int = 1) -> int:
    """Deals per job: about four jobs per worker, each of `JOB_GAMES` games, `games_per_deal` a
    deal, and up to 20 deals whatever their games (the seat protocol's 10 games a deal: 7 to 20
    deals a job; the team protocol's 2: 32 to 100)."""
    least = math.ceil(JOB_GAMES[0] / games_per_deal)
    most = max(20, math.ceil(JOB_GAMES[1] / games_per_deal))
    return max(1, min(most, max(least, math.ceil(num_deals / (4 * max(1, workers))))))


T = TypeVar("T")


def run_chunks(work: Callable[..., T], chunks: Sequence[list[int]], workers: int, progress: Progress,
               games_per_deal: int = 1, **local: Any) -> list[T]:
    """`work(chunk)` of every chunk of deals, in chunk order, each chunk's games added to
    `progress`: in this process when `workers` is 1, with the keyword arguments `local` (what
    `work` keeps between chunks: its agents), else over `workers` spawned processes, without
    them (`work` must then pickle: a module-level function, or a `functools.partial` of one).
    The studies' chunks of deals run through it."""
    if workers < 1:
        raise ValueError(f"--workers must be at least 1, got {workers}")
    out: list[T] = []
    if workers == 1:
        for chunk in chunks:
            out.append(work(chunk, **local))
            progress.add(len(chunk) * games_per_deal)
        return out
    with worker_pool(workers) as pool:
        futures = submit_all(pool, work, chunks)
        for fut, chunk in zip(futures, chunks, strict=True):
            out.append(fut.result())
            progress.add(len(chunk) * games_per_deal)
    return out


@contextmanager
def children_ignore_ctrl_c() -> Iterator[None]:
    """Processes started inside ignore SIGINT (a disposition kept across fork and exec): the
    terminal sends Ctrl-C to its whole foreground process group, and the workers must neither
    die mid-chunk nor print KeyboardInterrupt tracebacks of their own; this process stops them
    (`worker_pool`). Its own SIGINT is held meanwhile and delivered on exit. Outside the main
    thread (no signal handlers there) it changes nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


@contextmanager
def worker_pool(workers: int, mp_context: Any = None) -> Iterator[ProcessPoolExecutor]:
    """A pool of `workers` spawned processes (`start_method`), shut down on a normal exit.
    On any exception inside, Ctrl-C's KeyboardInterrupt included, the jobs not started are
    cancelled and the workers ended at once, their running jobs lost: waiting for them (what
    the executor's own `with` does) kept Ctrl-C unanswered for the length of a chunk per
    worker, and the queued ones for the whole evaluation."""
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=start_method(mp_context))
    try:
        yield pool
    except BaseException:
        # the executor has no public way to end its workers before Python 3.14 (terminate_workers)
        processes = list((pool._processes or {}).values())
        pool.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            process.terminate()
        raise
    pool.shutdown()


def submit_all(pool: ProcessPoolExecutor, work: Callable[..., T], items: Sequence[Any]) -> list[Future]:
    """`work(item)` of every item submitted to `pool`, in order. The pool starts its workers
    while they are submitted, so they start ignoring Ctrl-C (`children_ignore_ctrl_c`)."""
    with children_ignore_ctrl_c():
        return [pool.submit(work, item) for item in items]


#: Per worker process: the agents built for the current evaluation (keyed by a run token).
_WORKER: dict[str, Any] = {"token": None, "rules": None, "seats": {}}


def _run_job(job: tuple) -> list:
    """One chunk of one pair, in a worker (or in this process with one worker)."""
    token, rules_dict, protocol, a, b, seeds, replay_dir = job
    if _WORKER["token"] != token:
        rules = Rules.from_dict(rules_dict)
        _WORKER.update(token=token, rules=rules, seats={})
    rules, cache = _WORKER["rules"], _WORKER["seats"]
    seats_a = cache.setdefault(a, SpecSeats(a, rules))
    seats_b = cache.setdefault(b, SpecSeats(b, rules)) if b != a else SpecSeats(b, rules)
    return protocol.play_chunk(rules, a, b, seats_a, seats_b, seeds, Path(replay_dir) if replay_dir else None)


class PairsInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped `play_pairs`: `results` holds every pair's games of the chunks that were
    finished (whole deals, so each pair's statistics stay paired; a pair may have none) and
    `seconds` the wall time until then."""

    def __init__(self, results: list[PairGames], seconds: float) -> None:
        super().__init__("evaluation interrupted")
        self.results, self.seconds = results, seconds


def play_pairs(pairs: Sequence[tuple[str, str]], rules: Rules, seeds: tuple[int, ...], protocol: Protocol,
               workers: int, replay_dir: str | os.PathLike | None, log: TextIO | None,
               mp_context: Any = None) -> tuple[list[PairGames], float]:
    """Play every pair (specs A, B) on `seeds` under `protocol`, over `workers` processes
    (in this process when 1); returns the pair results and the wall time. Replays go into
    `replay_dir/<index>-<A>-vs-<B>/`. Ctrl-C stops it at once with `PairsInterrupted`,
    which carries the finished chunks' results."""
    if workers < 1:
        raise ValueError(f"--workers must be at least 1, got {workers}")
    token = uuid.uuid4().hex
    size = chunk_size(len(seeds), workers, protocol.games_per_deal)
    jobs = []
    for i, (a, b) in enumerate(pairs):
        pdir = None
        if replay_dir is not None:
            pdir = str(Path(replay_dir) / f"{i:02d}-{file_slug(a)}-vs-{file_slug(b)}")
        for k in range(0, len(seeds), size):
            jobs.append((i, (token, rules.to_dict(), protocol, a, b, seeds[k:k + size], pdir)))
    per_deal = protocol.games_per_deal
    progress = Progress(len(pairs) * len(seeds) * per_deal, log, protocol.progress_label)
    finished: dict[int, list] = {}  # job number -> its records
    seconds = [0.0] * len(pairs)
    interrupted = False
    try:
        if workers == 1:
            for n, (i, job) in enumerate(jobs):
                t = time.perf_counter()
                finished[n] = _run_job(job)
                seconds[i] += time.perf_counter() - t
                progress.add(len(job[5]) * per_deal)
        else:
            with worker_pool(workers, mp_context) as pool:
                futures = submit_all(pool, _run_job, [job for _, job in jobs])
                for n, records in _as_finished(futures):
                    finished[n] = records
                    progress.add(len(jobs[n][1][5]) * per_deal)
            # pool time is shared: split it in proportion to games
            seconds = [progress.seconds / len(pairs)] * len(pairs)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        progress.close()
        _WORKER.update(token=None, rules=None, seats={})
    results = [protocol.pair_result(a, b, [r for n in sorted(finished) if jobs[n][0] == i for r in finished[n]],
                                    seconds[i])
               for i, (a, b) in enumerate(pairs)]
    if interrupted:
        raise PairsInterrupted(results, progress.seconds)
    return results, progress.seconds


def _as_finished(futures: Sequence[Future]) -> Iterator[tuple[int, Any]]:
    """(index, result) of each future as it finishes; a worker's error is raised here."""
    number = {fut: n for n, fut in enumerate(futures)}
    pending = set(futures)
    while pending:
        done, pending = wait(pending, return_when=FIRST_COMPLETED)
        for fut in done:
            yield number[fut], fut.result()


__all__ = ["JOB_GAMES", "PairsInterrupted", "Progress", "children_ignore_ctrl_c", "chunk_size", "play_pairs",
           "run_chunks", "start_method", "submit_all", "worker_pool"]
