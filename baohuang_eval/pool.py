"""Running many pairs' games over worker processes: chunks of deals, a progress line, and
the per-worker cache of agents; the studies' chunks of deals (`run_chunks`).

Specs, never agent objects, travel to the workers, which build the agents themselves
(`SpecSeats`) and keep them for the whole evaluation (keyed by a run token, so a checkpoint
rewritten between two evaluations is loaded again). Workers start with "spawn": a forked
child of a process that has used torch's thread pool (any checkpoint agent) can hang on its
first torch call. Every chunk's records come back in submission order, so the results do
not depend on the number of workers or the chunking.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import time
import uuid
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, ProcessPoolExecutor, wait
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
    with ProcessPoolExecutor(max_workers=workers, mp_context=start_method()) as pool:
        futures = [pool.submit(work, chunk) for chunk in chunks]
        for fut, chunk in zip(futures, chunks, strict=True):
            out.append(fut.result())
            progress.add(len(chunk) * games_per_deal)
    return out


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


def play_pairs(pairs: Sequence[tuple[str, str]], rules: Rules, seeds: tuple[int, ...], protocol: Protocol,
               workers: int, replay_dir: str | os.PathLike | None, log: TextIO | None,
               mp_context: Any = None) -> tuple[list[PairGames], float]:
    """Play every pair (specs A, B) on `seeds` under `protocol`, over `workers` processes
    (in this process when 1); returns the pair results and the wall time. Replays go into
    `replay_dir/<index>-<A>-vs-<B>/`."""
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
    chunks: dict[int, list[list]] = {i: [] for i in range(len(pairs))}
    seconds = [0.0] * len(pairs)
    try:
        if workers == 1:
            for i, job in jobs:
                t = time.perf_counter()
                chunks[i].append(_run_job(job))
                seconds[i] += time.perf_counter() - t
                progress.add(len(job[5]) * per_deal)
        else:
            with ProcessPoolExecutor(max_workers=workers, mp_context=start_method(mp_context)) as pool:
                _run_in_pool(pool, jobs, chunks, progress, per_deal)
            # pool time is shared: split it in proportion to games
            seconds = [progress.seconds / len(pairs)] * len(pairs)
    finally:
        progress.close()
        _WORKER.update(token=None, rules=None, seats={})
    results = [protocol.pair_result(a, b, [r for c in chunks[i] for r in c], seconds[i])
               for i, (a, b) in enumerate(pairs)]
    return results, progress.seconds


def _run_in_pool(pool: Executor, jobs: list, chunks: dict, progress: Progress, per_deal: int) -> None:
    futures = {pool.submit(_run_job, job): (n, i, len(job[5])) for n, (i, job) in enumerate(jobs)}
    ordered: dict[int, list] = {}
    pending = set(futures)
    while pending:
        done, pending = wait(pending, return_when=FIRST_COMPLETED)
        for fut in done:
            n, i, count = futures[fut]
            ordered[n] = fut.result()  # re-raises a worker's error here
            progress.add(count * per_deal)
    for n, (i, _) in enumerate(jobs):
        chunks[i].append(ordered[n])


__all__ = ["JOB_GAMES", "Progress", "chunk_size", "play_pairs", "run_chunks", "start_method"]
