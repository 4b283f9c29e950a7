"""`baohuang bench --actors`: frames/s of one DMC actor by how many games it plays at once.

A DMC actor (`agents.dmc.actor.Collector`) plays `games_per_actor` games on the batched
engine and scores the learner's decisions of all of them in one network call per turn. This
bench times one collector in this process (BLAS and torch limited to one thread, as in an
actor process; the inline actor of `actors=0`, whose full buffer slots are handed back at
once, so no learner is needed) for each recipe and each K, the recipes and sizes interleaved
over `rounds` rounds, and reports the best rate of each, with each K's ratio to K = 1 (one
game at a time) from the same run, and the network's own time per legal action it scored
(`NumpyScorer.score_ids`, timed inside the actor over every round; none where the teacher
plays every learner decision).

Recipes (the README main job's and pure self-play), each a list of config overrides:
* `main_job_taught`: `configs/dmc_quick.yaml` while its teacher frames last (the heuristic
  plays the learner's seats, its advice is computed, 80% of the games against the heuristic);
* `main_job_own`: the same recipe after the teacher frames (the network plays);
* `self_play`: no advice, no teacher, the learner at every seat.
The networks are freshly initialised (seeded); a trained network plays other games, so
compare rates within a run, not with a training run's `charts/SPS`.
"""

from __future__ import annotations

import time
from typing import Any

#: recipe -> (config overrides on dmc_quick, whether the teacher frames are spent)
RECIPES: dict[str, tuple[list[str], bool]] = {
    "main_job_taught": ([], False),
    "main_job_own": ([], True),
    "self_play": (["advice=none", "teacher=", "teacher_frames=0", "opponent_mix=self=1"], False),
}
ACTOR_SIZES = (1, 8, 32, 128)


class _NetworkClock:
    """Seconds spent in an agent's scorers and the legal actions they scored."""

    def __init__(self, agent) -> None:
        self.seconds, self.actions = 0.0, 0
        for scorer in agent.scorers:
            scorer.score_ids = self._timed(scorer.score_ids)

    def _timed(self, score_ids):
        def timed(*args, **kwargs):
            t0 = time.perf_counter()
            q = score_ids(*args, **kwargs)
            self.seconds += time.perf_counter() - t0
            self.actions += len(q)
            return q

        return timed

    def us_per_action(self) -> float | None:
        return self.seconds / self.actions * 1e6 if self.actions else None


def _collector(recipe: str, games: int, seed: int):
    """(`play()` -> frames, the network's clock): one receive of an inline actor (`LocalActors`
    with actors=0: its collector plays until a game ends, the full slots are handed back at
    once) of `recipe` playing `games` games."""
    import torch

    from agents.training.config import load_config
    from agents.dmc.agent import action_row_size
    from agents.dmc.config import DMCConfig
    from agents.dmc.local_actors import LocalActors
    from agents.dmc.model import network_names
    from agents.nets.networks import ActionScorer
    from baohuang_env.observation import observation_layout
    from baohuang_env.rules import get_rules

    overrides, spent = RECIPES[recipe]
    cfg = load_config(DMCConfig, "dmc_quick", [*overrides, f"games_per_actor={games}", "actors=0"])
    rules = get_rules(cfg.preset)
    obs_size, row_size = observation_layout(rules).size, action_row_size(rules, cfg.advice)
    torch.manual_seed(seed)
    nets = [ActionScorer(obs_size, row_size, cfg.hidden, cfg.head) for _ in network_names(cfg.networks)]
    actors = LocalActors(cfg, rules, nets, cfg.teacher_frames if spent else 0, seed, obs_size, row_size)

    def play() -> int:
        before = actors.frames()
        actors.receive()
        return actors.frames() - before

    return play, _NetworkClock(actors.collector.agent)


def _rate(play, seconds: float) -> float:
    play()  # warm-up: lookup tables, the first games
    frames, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        frames += play()
    return frames / (time.perf_counter() - t0)


def run_actor_bench(seconds: float = 5.0, rounds: int = 2, seed: int = 0, sizes=ACTOR_SIZES,
                    recipes=tuple(RECIPES), log=None) -> dict[str, Any]:
    """{recipe: {"frames_per_s": {K: best rate}, "ratio_to_one_game": {K: ratio},
    "network_us_per_action": {K: µs or None}}}, plus the settings; every (recipe, K) is timed
    once per round, in the same order each round."""
    import torch
    from threadpoolctl import threadpool_limits

    threadpool_limits(1)
    torch.set_num_threads(1)
    players = {(r, k): _collector(r, k, seed) for r in recipes for k in sizes}
    best: dict[tuple[str, int], float] = {}
    for i in range(rounds):
        for key, (play, _clock) in players.items():
            rate = _rate(play, seconds)
            best[key] = max(best.get(key, 0.0), rate)
            if log:
                print(f"round {i + 1}/{rounds} {key[0]} K={key[1]}: {rate:,.0f} frames/s", file=log, flush=True)
    report: dict[str, Any] = {"seconds": seconds, "rounds": rounds, "threads": 1}
    for r in recipes:
        rates = {k: best[(r, k)] for k in sizes}
        one = rates.get(1)
        report[r] = {"frames_per_s": rates,
                     "ratio_to_one_game": {k: v / one for k, v in rates.items()} if one else {},
                     "network_us_per_action": {k: players[(r, k)][1].us_per_action() for k in sizes}}
    return report


__all__ = ["ACTOR_SIZES", "RECIPES", "run_actor_bench"]
