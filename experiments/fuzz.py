"""`baohuang fuzz`: random games with every invariant checked at every step.

Each game i is played from seed `seed + i` by a random legal policy (the same seed drives
the policy), so any failure can be reproduced with `baohuang fuzz --games 1 --seed S`.
Checked after every step: cards are conserved, the acting seat's mask is non-empty and
equals `legal_actions()`, a random illegal action raises `IllegalActionError` and changes
nothing, observations stay in [0, 1] with the declared size; at the end: the game ended
within its step bound, places are 1..5, scores sum to zero, the replay (through JSON)
reproduces the result.
"""

from __future__ import annotations

import json
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from baohuang_env import Game, IllegalActionError, get_rules
from baohuang_env.cards import deck_counts
from baohuang_env.encoding import Encoder
from baohuang_env.rules import Rules


def step_bound(rules: Rules) -> int:
    """Most steps a deal can take: every role decision, then per card played at most one
    play and four passes, plus four passes closing each trick."""
    role_decisions = 10  # jj: at most 5 abdication decisions + 5 declarations
    return role_decisions + 2 * 5 * rules.deck_size


def check_game(rules: Rules, seed: int) -> list[str]:
    """Play one random game; return the invariants it broke (empty when all held)."""
    problems: list[str] = []
    rng = random.Random(seed)
    enc = Encoder(rules)
    deck = deck_counts(rules).astype(np.int64)
    game = Game(rules, seed=seed)
    bound = step_bound(rules)
    steps = 0
    while not game.is_over:
        held = np.array(game.hands, dtype=np.int64).sum(axis=0)
        if not np.array_equal(held + np.array(game.total_played), deck):
            problems.append(f"step {steps}: cards not conserved")
        mask = game.legal_mask()
        legal = game.legal_actions()
        if legal.size == 0:
            problems.append(f"step {steps}: empty mask for acting seat {game.current_player} in {game.phase}")
            break
        if not np.array_equal(np.flatnonzero(mask), legal):
            problems.append(f"step {steps}: legal_actions disagrees with legal_mask")
        if steps % 7 == 0:
            obs = enc.encode(game, rng.randrange(5))
            if obs.shape != (enc.size,) or obs.min() < 0 or obs.max() > 1:
                problems.append(f"step {steps}: observation out of [0, 1] or wrong size")
            illegal = np.flatnonzero(mask == 0)
            bad = int(illegal[rng.randrange(illegal.size)])
            before = json.dumps(game.to_replay()), [h[:] for h in game.hands], game.current_player
            try:
                game.step(bad)
                problems.append(f"step {steps}: illegal action {bad} was accepted")
                break
            except IllegalActionError:
                after = json.dumps(game.to_replay()), [h[:] for h in game.hands], game.current_player
                if after != before:
                    problems.append(f"step {steps}: a rejected action changed the state")
        game.step(int(legal[rng.randrange(legal.size)]))
        steps += 1
        if steps > bound:
            problems.append(f"game did not end within {bound} steps")
            break
    if game.is_over:
        res = game.result
        if sorted(res.places) != [1, 2, 3, 4, 5]:
            problems.append(f"places {res.places} are not 1..5")
        if sum(res.scores) != 0:
            problems.append(f"scores {res.scores} do not sum to zero")
        replayed = Game.from_replay(json.loads(json.dumps(game.to_replay())))
        if replayed.result != res:
            problems.append("replay did not reproduce the result")
    return problems


def _check_range(args: tuple[dict, int, int]) -> list[tuple[int, list[str]]]:
    rules_dict, start, count = args
    rules = Rules.from_dict(rules_dict)
    return [(s, p) for s in range(start, start + count) if (p := check_game(rules, s))]


def run_fuzz(preset: str, games: int, seed: int, workers: int = 1, log=sys.stderr) -> list[tuple[int, list[str]]]:
    """Fuzz `games` games from `seed`; returns [(seed, problems)] for every failing game."""
    rules = get_rules(preset)
    chunk = 50
    jobs = [(rules.to_dict(), s, min(chunk, seed + games - s)) for s in range(seed, seed + games, chunk)]
    failures: list[tuple[int, list[str]]] = []
    t0 = time.perf_counter()
    done = 0
    with ProcessPoolExecutor(max_workers=workers) if workers > 1 else _Inline() as pool:
        for result, (_, _, count) in zip(pool.map(_check_range, jobs), jobs, strict=True):
            failures += result
            done += count
            print(f"\rfuzz {preset}: {done}/{games} games, {len(failures)} failing, "
                  f"{time.perf_counter() - t0:.0f}s", end="", file=log, flush=True)
    print(file=log)
    return failures


class _Inline:
    """Stand-in for a process pool when running in this process."""

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        return None

    def map(self, fn, items):
        return map(fn, items)


def add_parser(sub) -> None:
    p = sub.add_parser("fuzz", help="play random games and check every invariant")
    p.add_argument("--games", type=int, default=1000)
    p.add_argument("--preset", default="jj")
    p.add_argument("--seed", type=int, default=0, help="first game seed; game i uses seed + i")
    p.add_argument("--workers", type=int, default=1, help="processes to use (default 1)")


def main(args) -> int:
    failures = run_fuzz(args.preset, args.games, args.seed, args.workers)
    for seed, problems in failures:
        print(f"seed {seed}: " + "; ".join(problems))
        print(f"  reproduce: baohuang fuzz --preset {args.preset} --games 1 --seed {seed}")
    print(json.dumps({"preset": args.preset, "games": args.games, "first_seed": args.seed,
                      "failing_games": len(failures)}))
    return 1 if failures else 0
