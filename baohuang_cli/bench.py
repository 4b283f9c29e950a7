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
    baohuang bench --batch                  # the batched engine and the native vector env
    baohuang bench --actors                 # a DMC actor's frames/s by games played at once

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


#: Batch sizes of `bench --batch`.
BATCH_SIZES = (1, 16, 256, 1024, 4096)
#: The batch size whose time per phase `bench --batch` reports.
PROFILE_BATCH = 1024
#: Envs of the native-vs-sync vector env comparison, and its interleaved rounds (best of each).
VECTOR_ENVS, VECTOR_ROUNDS = 256, 2


def _until(seconds: float, sweep) -> float:
    """Run sweep() (which returns the game steps it made) until `seconds` have passed, at least
    once, after one untimed warm-up sweep (the first builds lookup tables); returns steps/s."""
    sweep()
    steps, t0 = 0, time.perf_counter()
    while True:
        steps += sweep()
        dt = time.perf_counter() - t0
        if dt >= seconds:
            return steps / dt


def _batched_rate(rules, size: int, seconds: float, seed: int, engine: str) -> float:
    """Game steps/s of `BatchedGames` on `engine` (same-step autoreset: every row acts at every
    step), masks and acting-seat observations made at every step, random legal actions chosen
    over the batch."""
    from baohuang_env.batched.games import BatchedGames, random_legal

    games, rng = BatchedGames(rules, size, autoreset="same_step", engine=engine), np.random.default_rng(seed)
    state = [games.reset(range(seed, seed + size))]

    def sweep() -> int:
        state[0] = games.step(random_legal(state[0].mask, rng))
        return size

    return _until(seconds, sweep)


def _python_loop_rate(rules, size: int, seconds: float, seed: int) -> float:
    """Game steps/s of `size` Games stepped one after another in a plain loop: mask by
    game.legal_mask(), observation by Encoder.encode, a random legal action."""
    from baohuang_env.encoding import Encoder

    encoder, rng = Encoder(rules), random.Random(seed)
    games = [Game(rules, seed=seed + b) for b in range(size)]
    dealt = [seed + size]

    def sweep() -> int:
        for b, game in enumerate(games):
            legal = game.legal_mask().view(bool).nonzero()[0]
            encoder.encode(game, game.current_player)
            game.step(int(legal[rng.randrange(legal.size)]))
            if game.is_over:
                games[b] = Game(rules, seed=dealt[0])
                dealt[0] += 1
        return size

    return _until(seconds, sweep)


def _profile_batch(rules, size: int, seconds: float, seed: int) -> dict[str, Any]:
    """Where a batched game step's time goes: the loop of `BatchedGames.step` written out with
    the same calls (batched.masks.legal_masks, Encoder.encode_many, random_legal, Game.step), each
    phase timed with perf_counter; microseconds per game step and shares of the total."""
    from baohuang_env.batched.masks import legal_masks
    from baohuang_env.batched.games import random_legal
    from baohuang_env.encoding import Encoder

    encoder, rng = Encoder(rules), np.random.default_rng(seed)
    games = [Game(rules, seed=seed + b) for b in range(size)]
    masks = np.empty((size, encoder.table.num_actions), dtype=np.int8)
    obs = np.empty((size, encoder.size), dtype=np.float32)
    spent = dict.fromkeys(("masks", "observations", "choose_actions", "game_step"), 0.0)
    legal_masks(games, out=masks)
    random_legal(masks, np.random.default_rng(seed))  # compiled on first use: not a step's time
    dealt, steps, clock = seed + size, 0, time.perf_counter
    t_start = clock()
    while steps == 0 or clock() - t_start < seconds:
        t0 = clock()
        legal_masks(games, out=masks)
        t1 = clock()
        encoder.encode_many(games, [g.current_player for g in games], obs)
        t2 = clock()
        actions = random_legal(masks, rng).tolist()
        t3 = clock()
        for b, (game, a) in enumerate(zip(games, actions, strict=True)):
            game.step(a)
            if game.is_over:  # the next deal, as a same-step autoreset
                games[b] = Game(rules, seed=dealt)
                dealt += 1
        t4 = clock()
        for name, dt in zip(spent, (t1 - t0, t2 - t1, t3 - t2, t4 - t3), strict=True):
            spent[name] += dt
        steps += size
    total = sum(spent.values())
    return {"batch_size": size, "steps_per_s": steps / total,
            "us_per_game_step": {k: v / steps * 1e6 for k, v in spent.items()},
            "shares": {k: v / total for k, v in spent.items()}}


def _profile_arrays(rules, size: int, seconds: float, seed: int) -> dict[str, Any]:
    """Where a step of the array engine goes: `BatchedGames(engine="arrays").step` with its
    parts timed (perf_counter around each batch call): the play-phase moves (kernel, plus the
    deal-over check of rows whose mover went out), the masks and observations (kernels, plus
    the role-phase rows' own), rows moving into the arrays (their observation templates), new
    deals, choosing the random actions, and the rest (the role phase's moves and bookkeeping)."""
    from baohuang_env.batched.games import BatchedGames, random_legal

    games, rng = BatchedGames(rules, size, autoreset="same_step", engine="arrays"), np.random.default_rng(seed)
    rows, clock = games._rows, time.perf_counter
    spent = dict.fromkeys(("play_moves", "masks", "observations", "rows_to_arrays", "new_deals"), 0.0)

    nested = [0.0]  # time of timed calls inside the running one: counted there, not twice

    def timed(obj, method: str, name: str) -> None:
        inner = getattr(obj, method)

        def wrapper(*args, **kwargs):
            outer, nested[0] = nested[0], 0.0
            t0 = clock()
            try:
                return inner(*args, **kwargs)
            finally:
                dt = clock() - t0
                spent[name] += dt - nested[0]
                nested[0] = outer + dt
        setattr(obj, method, wrapper)

    for obj, method, name in ((rows.arrays, "step", "play_moves"), (rows, "masks", "masks"),
                              (rows, "observe", "observations"), (rows.arrays, "load", "rows_to_arrays"),
                              (rows, "start", "new_deals")):
        timed(obj, method, name)
    step = games.reset(range(seed, seed + size))
    for name in spent:
        spent[name] = 0.0
    choose = total = 0.0
    steps = 0
    while steps == 0 or total < seconds:
        t0 = clock()
        actions = random_legal(step.mask, rng)
        t1 = clock()
        step = games.step(actions)
        t2 = clock()
        choose += t1 - t0
        total += t2 - t0
        steps += size
    spent["choose_actions"] = choose
    spent["role_phase_and_rest"] = total - sum(spent.values())
    return {"batch_size": size, "steps_per_s": steps / total,
            "us_per_game_step": {k: v / steps * 1e6 for k, v in spent.items()},
            "shares": {k: v / total for k, v in spent.items()}}


def _vector_rate(preset: str, mode: str, num_envs: int, seconds: float, seed: int) -> float:
    """Learner steps/s of `gymnasium.make_vec("Baohuang-v0", ...)` with random opponents and
    random legal learner actions; the step that autoresets an env counts no learner step there."""
    import gymnasium

    from baohuang_env.batched.games import random_legal

    envs = gymnasium.make_vec("Baohuang-v0", num_envs=num_envs, vectorization_mode=mode, preset=preset,
                              opponents="random")
    rng = np.random.default_rng(seed)
    state = [envs.reset(seed=seed)[1], np.zeros(num_envs, dtype=bool)]

    def sweep() -> int:
        info, resetting = state
        _obs, _r, terminated, _t, state[0] = envs.step(random_legal(info["action_mask"], rng))
        state[1] = terminated
        return num_envs - int(resetting.sum())

    rate = _until(seconds, sweep)
    envs.close()
    return rate


def run_batch_bench(preset: str = "jj", seconds: float = 3.0, seed: int = 0, sizes=BATCH_SIZES,
                    profile_size: int = PROFILE_BATCH, vector_envs: int = VECTOR_ENVS, log=None) -> dict[str, Any]:
    """`bench --batch`: BatchedGames' steps/s on both engines ("arrays", "games") at each batch
    size beside a plain loop over as many Games (interleaved, size by size), raw_env()'s rate,
    where a step's time goes at `profile_size` on each engine, and the native vector env
    beside "sync" (interleaved rounds, best of each)."""
    import baohuang_env

    def say(msg: str) -> None:
        if log is not None:
            print(msg, file=log, flush=True)

    rules = get_rules(preset)
    report: dict[str, Any] = {"preset": preset, "seconds_per_rate": seconds, "python": platform.python_version(),
                              "numpy": np.__version__, "machine": platform.machine()}
    arrays, games, loop = {}, {}, {}
    for size in sizes:
        say(f"timing BatchedGames (arrays, games) and a plain loop at B={size} ...")
        arrays[str(size)] = _batched_rate(rules, size, seconds, seed, "arrays")
        games[str(size)] = _batched_rate(rules, size, seconds, seed, "games")
        loop[str(size)] = _python_loop_rate(rules, size, seconds, seed)
    report["batched_steps_per_s"] = {"arrays": arrays, "games": games}
    report["python_loop_steps_per_s"] = loop
    report["arrays_over_games"] = {k: arrays[k] / games[k] for k in arrays}
    report["arrays_over_python_loop"] = {k: arrays[k] / loop[k] for k in arrays}
    say("timing raw_env() ...")
    report["raw_env_steps_per_s"], _ = _run_aec(lambda: baohuang_env.raw_env(preset=preset), seconds, seed)
    say(f"timing the parts of a batched step at B={profile_size}, each engine ...")
    report["profile"] = {"arrays": _profile_arrays(rules, profile_size, seconds, seed),
                         "games": _profile_batch(rules, profile_size, seconds, seed)}
    native = sync = 0.0
    for rnd in range(VECTOR_ROUNDS):
        say(f"timing Baohuang-v0 vector envs, native and sync, N={vector_envs}, round {rnd + 1}/{VECTOR_ROUNDS} ...")
        sync = max(sync, _vector_rate(preset, "sync", vector_envs, seconds, seed))
        native = max(native, _vector_rate(preset, "vector_entry_point", vector_envs, seconds, seed))
    report["vector_envs"] = vector_envs
    report["vector_learner_steps_per_s"] = {"native": native, "sync": sync}
    report["native_over_sync"] = native / sync
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
    p.add_argument("--batch", action="store_true",
                   help="bench the batched engine (BatchedGames) at B in 1..4096 beside a plain loop over Games, "
                        "raw_env(), the time per phase, and the native vector env beside 'sync'")
    p.add_argument("--actors", action="store_true",
                   help="bench one DMC actor (frames/s) playing 1, 8, 32 or 128 games at once, for the main "
                        "job's recipe and pure self-play (agents.dmc; needs torch)")
    p.add_argument("--rounds", type=int, default=2, help="--actors: interleaved rounds, best of each (default 2)")
    p.add_argument("--seconds", type=positive_float, default=3.0, help="time per rate measurement (default 3)")
    p.add_argument("--seed", type=int, default=0)


def main(args) -> int:
    if sum([args.batch, args.all_presets, args.actors]) > 1:
        print("baohuang bench: choose one of --batch, --actors and --all-presets", file=sys.stderr)
        return 2
    if args.actors:
        from baohuang_cli.bench_actors import run_actor_bench

        report = run_actor_bench(args.seconds, max(args.rounds, 1), args.seed, log=sys.stderr)
    elif args.batch:
        get_rules(args.preset)
        report = run_batch_bench(args.preset, args.seconds, args.seed, log=sys.stderr)
    elif args.all_presets:
        report = run_all_presets(args.seconds, args.seed, log=sys.stderr)
    else:
        get_rules(args.preset)  # an unknown preset fails here, with the list of presets
        report = run_bench(args.preset, args.seconds, args.seed, log=sys.stderr)
    print(json.dumps(_rounded(report), indent=1, ensure_ascii=False))
    return 0
