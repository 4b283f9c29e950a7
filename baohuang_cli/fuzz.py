"""`baohuang fuzz`: random games with every invariant checked at every step.

Each game i is played from seed `seed + i` by a random legal policy (the same seed drives
the policy), so any failure can be reproduced with `baohuang fuzz --preset P --games 1
--seed S`. Every preset is checked (`--preset`).

Checked after every step: cards are conserved (hands + played + the tribute pile equal the
dealt deck, with the called 4th copy counted as SP once it became one in generic216), the
acting seat's mask is non-empty and equals `legal_actions()`, a random illegal action raises
`IllegalActionError` and changes nothing, observations stay in [0, 1] with the declared size.

At the end: the game ended within its step bound and the replay (through JSON) reproduces
the result, and by how it ended (`GameResult.end`):

* "played": places are 1..5, roles are one emperor (or solo), at most one guard and rebels;
  scores sum to zero, except qingdao, where each seat's score is its team's sum of the
  individual points (which sum to zero); in qingdao exactly four players went out;
* "void" (流局, presets with a void deal): no places, roles "none", emperor = guard = -1,
  every score 0;
* "surrender" (投降, qingdao): no places, the solo emperor -4 and every other seat +1.
"""

from __future__ import annotations

import json
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from baohuang_cli.argtypes import positive_int
from baohuang_env import Game, IllegalActionError, get_rules
from baohuang_env.cards import NUM_SEATS, dealt_counts
from baohuang_env.encoding import Encoder
from baohuang_env.rules import Rules


def step_bound(rules: Rules) -> int:
    """Most steps a deal can take: every role decision, then per card played at most one
    play and four passes, plus four passes closing each trick."""
    role_decisions = 2 * NUM_SEATS + 5 * NUM_SEATS  # two circles of abdication; five rounds of five
    return role_decisions + 2 * 5 * rules.deck_size


def expected_cards(game: Game, dealt: np.ndarray) -> np.ndarray:
    """Cards per kind in hands + played + pile: the dealt deck, except that in generic216 the
    called card's 4th copy counts as SP once it became one."""
    expected = dealt.copy()
    sp = game.kinds.sp
    if sp >= 0 and (sum(h[sp] for h in game.hands) + game.total_played[sp]):
        kind, _ = game.table.call_of(game.called)
        expected[kind] -= 1
        expected[sp] += 1
    return expected


def check_result(game: Game) -> list[str]:
    """The end-of-deal invariants of the module docstring."""
    problems: list[str] = []
    res, rules = game.result, game.rules
    if res.end == "void":
        if not rules.void_deal:
            problems.append("a void deal in rules without one")
        if res.places != [0] * NUM_SEATS or res.roles != ["none"] * NUM_SEATS or res.scores != [0] * NUM_SEATS \
                or res.emperor != -1 or res.guard != -1:
            problems.append(f"void deal with places {res.places}, roles {res.roles}, scores {res.scores}, "
                            f"emperor {res.emperor}, guard {res.guard}")
        return problems
    if res.end == "surrender":
        e = res.emperor
        want = [-4 if s == e else 1 for s in range(NUM_SEATS)]
        if not rules.surrender or res.guard != e or res.scores != want or res.places != [0] * NUM_SEATS:
            problems.append(f"surrender with scores {res.scores} (want {want}), places {res.places}, "
                            f"guard {res.guard}, emperor {e}")
        return problems
    if res.end != "played":
        return [f"unknown end {res.end!r}"]
    if sorted(res.places) != [1, 2, 3, 4, 5]:
        problems.append(f"places {res.places} are not 1..5")
    royal = {res.emperor, res.guard}
    want_roles = ["solo" if s == res.emperor and res.guard == res.emperor else "emperor" if s == res.emperor
                  else "guard" if s == res.guard else "rebel" for s in range(NUM_SEATS)]
    if res.roles != want_roles:
        problems.append(f"roles {res.roles} do not match emperor {res.emperor} and guard {res.guard}")
    if rules.scoring == "qingdao":
        points = res.points if res.points is not None else res.scores
        team = [sum(points[t] for t in range(NUM_SEATS) if (t in royal) == (s in royal)) for s in range(NUM_SEATS)]
        if sum(points) != 0 or res.scores != team:
            problems.append(f"qingdao points {points} do not sum to zero or team scores {res.scores} != {team}")
        out = sum(1 for e in game.log if e[0] == "out")
        if out != NUM_SEATS - 1:
            problems.append(f"qingdao deal ended with {out} players out (four must be)")
    elif sum(res.scores) != 0:
        problems.append(f"scores {res.scores} do not sum to zero")
    return problems


def check_game(rules: Rules, seed: int) -> list[str]:
    """Play one random game; return the invariants it broke (empty when all held)."""
    problems: list[str] = []
    rng = random.Random(seed)
    enc = Encoder(rules)
    dealt = dealt_counts(rules).astype(np.int64)
    game = Game(rules, seed=seed)
    bound = step_bound(rules)
    steps = 0
    while not game.is_over:
        held = np.array(game.hands, dtype=np.int64).sum(axis=0) + np.array(game.pile)
        if not np.array_equal(held + np.array(game.total_played), expected_cards(game, dealt)):
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
        held = np.array(game.hands, dtype=np.int64).sum(axis=0) + np.array(game.pile)
        if not np.array_equal(held + np.array(game.total_played), expected_cards(game, dealt)):
            problems.append("cards not conserved at the end")
        problems += check_result(game)
        replayed = Game.from_replay(json.loads(json.dumps(game.to_replay())))
        if replayed.result != res:
            problems.append("replay did not reproduce the result")
    return problems


def _check_range(args: tuple[dict, int, int]) -> list[tuple[int, list[str]]]:
    rules_dict, start, count = args
    rules = Rules.from_dict(rules_dict)
    return [(s, p) for s in range(start, start + count) if (p := check_game(rules, s))]


def run_fuzz(preset: str, games: int, seed: int, workers: int = 1, log=None) -> list[tuple[int, list[str]]]:
    """Fuzz `games` games from `seed`; returns [(seed, problems)] for every failing game.
    Progress goes to `log` (default: sys.stderr as it is at the call, not at import)."""
    log = sys.stderr if log is None else log
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
    p.add_argument("--games", type=positive_int, default=1000, help="games to play (default 1000)")
    p.add_argument("--preset", default="jj", help="rule preset (default jj); every preset is checked")
    p.add_argument("--seed", type=int, default=0, help="first game seed; game i uses seed + i")
    p.add_argument("--workers", type=positive_int, default=1, help="processes to use (default 1)")


def main(args) -> int:
    failures = run_fuzz(args.preset, args.games, args.seed, args.workers)
    for seed, problems in failures:
        print(f"seed {seed}: " + "; ".join(problems))
        print(f"  reproduce: baohuang fuzz --preset {args.preset} --games 1 --seed {seed}")
    print(json.dumps({"preset": args.preset, "games": args.games, "first_seed": args.seed,
                      "failing_games": len(failures)}))
    return 1 if failures else 0
