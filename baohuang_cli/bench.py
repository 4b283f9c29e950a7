"""`baohuang bench`: speed of the engine, the masks and the environments, as JSON.

Every figure is measured in this one process, one after another, so that rates and ratios
can be compared within a run. Per-call figures (masks) are the best of several repeats over
the states of real games; rates (steps/s) are averages over a timed window. The machines are
shared and noisy: compare figures from the same run, and read `env_fraction_of_ceiling`,
which divides our `env()` rate by the rate of a do-nothing AEC env of the same shape inside
PettingZoo's stock wrappers (measured here too). `gym_learner_steps_per_s` counts the
learner's steps of `Baohuang-v0` (the opponents' moves happen inside them).

    baohuang bench --preset weihai          # one preset
    baohuang bench --all-presets            # every preset, with env() rates as ratios of jj's

`--all-presets` prints one JSON object: the machine, then per preset its report (without the
machine fields), then `env_steps_ratio_to_jj` and `env_games_ratio_to_jj`: each preset's env()
rate divided by jj's, measured again in this run with the presets interleaved over
`RATIO_ROUNDS` rounds (best of each), so that a change of load hits every preset alike.
"""

from __future__ import annotations

import json
import platform
import random
import sys
import time
from typing import Any

import numpy as np

from baohuang_cli.argtypes import positive_float
from baohuang_env import Game, action_table, get_rules
from baohuang_env.game import PLAY
from baohuang_env.rules import PRESETS
from baohuang_env.observation import observation_layout


def _collect_states(rules, games: int, seed: int) -> tuple[list[list[int]], list[int]]:
    """(hand, play to beat) pairs seen by the acting seat in random games (play phase)."""
    rng = random.Random(seed)
    hands, prevs = [], []
    for g in range(games):
        game = Game(rules, seed=seed + g)
        while not game.is_over:
            if game.phase == PLAY:
                hands.append(list(game.hands[game.current_player]))
                prevs.append(game.top)
            legal = game.legal_actions()
            game.step(int(legal[rng.randrange(legal.size)]))
    return hands, prevs


def _best_of(fn, repeat: int) -> float:
    """Fastest of `repeat` timings of fn() (timeit's advice: the others measure the noise)."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def _time_masks(rules, hands, prevs, repeat: int) -> dict[str, float]:
    """Per-call mask times over the (hand, play to beat) pairs of real games, best of `repeat`."""
    table = action_table(rules)
    out: dict[str, float] = {}
    for name, keep in (("lead", lambda p: p < 0), ("follow", lambda p: p >= 0)):
        pairs = [(h, p) for h, p in zip(hands, prevs, strict=True) if keep(p)]
        mask = table.legal_mask

        def run(pairs=pairs, mask=mask):
            for h, p in pairs:
                mask(h, p, rules)

        out[f"mask_us_per_call_{name}"] = _best_of(run, repeat) / len(pairs) * 1e6
    batch = 1024
    H = np.array(hands[:batch], dtype=np.int8)
    P = np.array(prevs[:batch])
    buf = np.empty((len(H), table.num_actions), dtype=np.int8)
    table.legal_masks_batch(H, P, rules, out=buf)
    out["batched_mask_us_per_hand"] = _best_of(lambda: table.legal_masks_batch(H, P, rules, out=buf),
                                               repeat * 4) / len(H) * 1e6
    out["batch_size"] = len(H)
    return out


def _time_engine(rules, seconds: float, seed: int) -> dict[str, float]:
    rng = random.Random(seed)
    steps = games = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        game = Game(rules, seed=seed + games)
        while not game.is_over:
            legal = game.legal_actions()
            game.step(int(legal[rng.randrange(legal.size)]))
            steps += 1
        games += 1
    dt = time.perf_counter() - t0
    return {"engine_steps_per_s": steps / dt, "engine_games_per_s": games / dt, "steps_per_game": steps / games}


def _run_aec(make, seconds: float, seed: int) -> tuple[float, float]:
    """Random legal play through agent_iter/last/step; returns (steps/s, games/s)."""
    env = make()
    rng = random.Random(seed)
    steps = games = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        env.reset(seed=seed + games)
        for _agent in env.agent_iter():
            obs, _rew, term, trunc, _info = env.last()
            if term or trunc:
                action = None
            else:
                legal = obs["action_mask"].view(bool).nonzero()[0]
                action = int(legal[rng.randrange(legal.size)])
            env.step(action)
            steps += 1
        games += 1
    dt = time.perf_counter() - t0
    return steps / dt, games / dt


def _noop_env_factory(obs_size: int, n_actions: int, episode_steps: int):
    """A do-nothing 5-agent AEC env of our shape: the ceiling any AEC env can reach here."""
    from gymnasium import spaces
    from pettingzoo import AECEnv
    from pettingzoo.utils import wrappers

    class NoopEnv(AECEnv):
        metadata = {"name": "noop_v0", "render_modes": [], "is_parallelizable": False}  # noqa: RUF012

        def __init__(self) -> None:
            super().__init__()
            self.possible_agents = [f"player_{i}" for i in range(5)]
            self._space = spaces.Dict({"observation": spaces.Box(0, 1, (obs_size,), np.float32),
                                       "action_mask": spaces.Box(0, 1, (n_actions,), np.int8)})
            self._obs = np.zeros(obs_size, np.float32)
            self._mask = np.zeros(n_actions, np.int8)
            self._mask[:12] = 1

        def observation_space(self, agent):
            return self._space

        def action_space(self, agent):
            return spaces.Discrete(n_actions)

        def observe(self, agent):
            return {"observation": self._obs, "action_mask": self._mask}

        def reset(self, seed=None, options=None):
            self.agents = self.possible_agents[:]
            self.rewards = dict.fromkeys(self.agents, 0)
            self._cumulative_rewards = dict.fromkeys(self.agents, 0)
            self.terminations = dict.fromkeys(self.agents, False)
            self.truncations = dict.fromkeys(self.agents, False)
            self.infos = {a: {} for a in self.agents}
            self.t = 0
            self.agent_selection = self.agents[0]

        def step(self, action):
            if self.terminations[self.agent_selection]:
                return self._was_dead_step(action)
            self._cumulative_rewards[self.agent_selection] = 0
            self.t += 1
            self.agent_selection = self.agents[self.t % 5]
            if self.t >= episode_steps:
                for a in self.agents:
                    self.terminations[a] = True
            self._accumulate_rewards()

    def make():
        e = NoopEnv()
        e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
        e = wrappers.AssertOutOfBoundsWrapper(e)
        return wrappers.OrderEnforcingWrapper(e)

    return make


def _run_gym(preset: str, seconds: float, seed: int) -> float:
    """Learner steps/s of `Baohuang-v0` (default opponents, the auto-play bot), the learner
    playing a random legal action from `info["action_mask"]`."""
    import gymnasium

    env = gymnasium.make("Baohuang-v0", preset=preset)
    rng = random.Random(seed)
    steps = episodes = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        _obs, info = env.reset(seed=seed + episodes)
        done = False
        while not done:
            legal = info["action_mask"].view(bool).nonzero()[0]
            _obs, _r, done, _t, info = env.step(int(legal[rng.randrange(legal.size)]))
            steps += 1
        episodes += 1
    return steps / (time.perf_counter() - t0)


def run_bench(preset: str = "jj", seconds: float = 3.0, seed: int = 0, log=None) -> dict[str, Any]:
    """Measure everything; returns the JSON-ready report."""
    import baohuang_env

    def say(msg: str) -> None:
        if log is not None:
            print(msg, file=log, flush=True)

    rules = get_rules(preset)
    table = action_table(rules)
    t0 = time.perf_counter()
    table.legal_mask([0] * table.kinds.num_kinds, -1, rules)  # build the lookup tables
    build_s = time.perf_counter() - t0
    say("collecting states ...")
    hands, prevs = _collect_states(rules, games=20, seed=seed)
    report: dict[str, Any] = {
        "preset": preset, "num_actions": table.num_actions, "observation_size": observation_layout(rules).size,
        "table_build_s": build_s,
        "python": platform.python_version(), "numpy": np.__version__, "machine": platform.machine(),
    }
    say("timing masks ...")
    report.update(_time_masks(rules, hands, prevs, repeat=5))
    say("timing the bare engine ...")
    report.update(_time_engine(rules, seconds, seed))
    say("timing raw_env() ...")
    report["raw_env_steps_per_s"], _ = _run_aec(lambda: baohuang_env.raw_env(preset=preset), seconds, seed)
    say("timing env() ...")
    report["env_steps_per_s"], report["env_games_per_s"] = _run_aec(
        lambda: baohuang_env.env(preset=preset), seconds, seed)
    say("timing Baohuang-v0 (learner steps, auto-play opponents) ...")
    report["gym_learner_steps_per_s"] = _run_gym(preset, seconds, seed)
    say("timing a no-op AEC env in the same wrappers (the ceiling) ...")
    noop = _noop_env_factory(report["observation_size"], table.num_actions, int(report["steps_per_game"]))
    report["noop_env_steps_per_s"], _ = _run_aec(noop, seconds, seed)
    report["env_fraction_of_ceiling"] = report["env_steps_per_s"] / report["noop_env_steps_per_s"]
    return report


#: Interleaved rounds of env() per preset behind --all-presets' ratios (best of the rounds).
RATIO_ROUNDS = 3
#: Report fields that describe the machine, not the preset (printed once by --all-presets).
MACHINE_FIELDS = ("python", "numpy", "machine")


def run_all_presets(seconds: float = 3.0, seed: int = 0, log=None) -> dict[str, Any]:
    """`run_bench` for every preset (jj first) in this one process; adds each preset's env()
    rates as ratios of jj's."""
    import baohuang_env

    names = ["jj", *sorted(p for p in PRESETS if p != "jj")]
    reports = {}
    for name in names:
        if log is not None:
            print(f"== {name}", file=log, flush=True)
        reports[name] = run_bench(name, seconds, seed, log=log)
    # the ratios: env() of every preset again, interleaved over rounds (best of each), so that
    # a change of machine load during the run hits every preset alike
    steps = {n: 0.0 for n in names}
    games = {n: 0.0 for n in names}
    for rnd in range(RATIO_ROUNDS):
        if log is not None:
            print(f"== env() ratios, round {rnd + 1}/{RATIO_ROUNDS}", file=log, flush=True)
        for name in names:
            s, g = _run_aec(lambda name=name: baohuang_env.env(preset=name), seconds / 2, seed)
            steps[name], games[name] = max(steps[name], s), max(games[name], g)
    first = reports["jj"]
    out: dict[str, Any] = {k: first[k] for k in MACHINE_FIELDS}
    out["seconds_per_rate"] = seconds
    out["presets"] = {n: {k: v for k, v in r.items() if k not in MACHINE_FIELDS} for n, r in reports.items()}
    out["env_steps_per_s_interleaved"] = steps
    out["env_steps_ratio_to_jj"] = {n: steps[n] / steps["jj"] for n in names}
    out["env_games_ratio_to_jj"] = {n: games[n] / games["jj"] for n in names}
    return out


def _rounded(x: Any) -> Any:
    if isinstance(x, float):
        return round(x, 3)
    if isinstance(x, dict):
        return {k: _rounded(v) for k, v in x.items()}
    return x


def add_parser(sub) -> None:
    p = sub.add_parser("bench", help="time masks, engine and envs; prints JSON")
    p.add_argument("--preset", default="jj", help=f"rule preset (default jj): {', '.join(PRESETS)}")
    p.add_argument("--all-presets", action="store_true",
                   help="bench every preset in one run; env() rates also as ratios of jj's")
    p.add_argument("--seconds", type=positive_float, default=3.0, help="time per rate measurement (default 3)")
    p.add_argument("--seed", type=int, default=0)


def main(args) -> int:
    if args.all_presets:
        report = run_all_presets(args.seconds, args.seed, log=sys.stderr)
    else:
        get_rules(args.preset)  # an unknown preset fails here, with the list of presets
        report = run_bench(args.preset, args.seconds, args.seed, log=sys.stderr)
    print(json.dumps(_rounded(report), indent=1, ensure_ascii=False))
    return 0
