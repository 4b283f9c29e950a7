"""How hard the engine's resampler works for a world: JSON per preset.

For each preset, plays deals (seeds `--seed`, `--seed` + 1, ...) by the leak audit's bots in turn
(`baohuang_study.leak.AUDIT_AGENTS`, one bot at all five seats), picks a quarter of the
decisions (by an RNG of its own per deal, so the decisions do not depend on the sampler) until
`--decisions` are picked, and at each draws `--draws` worlds from the deciding seat's
information state (`resample_info`, `tries` as the search and the audit call it; each draw
with an RNG seeded by the deal, the step and the draw). A proposal is one world put to the exact
check (`baohuang_env.resample.advance`, counted by wrapping it); a failure is a
`ResampleError`. Prints {preset, decisions, draws, failures, proposals per accepted world
(mean, p99, max), ms per draw (mean, p50, p99; failures included)}; the time of building the
information state is not counted. One process, one thread.

    nice python experiments/resample_rates.py --decisions 2500 --draws 4
"""

from __future__ import annotations

import argparse
import itertools
import json
import time

import numpy as np

import baohuang_env.resample as resample_module
from baohuang_env.agent import make_agent
from baohuang_env.cards import NUM_SEATS
from baohuang_env.game import Game
from baohuang_env.infostate import info_state
from baohuang_env.resample import ResampleError, resample_info
from baohuang_env.rules import PRESETS, get_rules
from baohuang_eval.play import Table, play_games
from baohuang_study.leak import AUDIT_AGENTS


def decisions(preset: str, wanted: int, seed: int) -> list[tuple[int, Game, int]]:
    """`wanted` decisions (deal, game at the decision, seat) of the audit's bots (module docstring)."""
    rules = get_rules(preset)
    picked: list[tuple[int, Game, int]] = []

    def enough(_game: Game | None = None) -> bool:
        return len(picked) >= wanted

    def watcher(deal: int):
        pick = np.random.default_rng([seed, deal])

        def watch(game: Game, seat: int, _action: int) -> None:
            if not enough() and pick.random() < 0.25:
                picked.append((deal, game.copy(), seat))
        return watch

    def tables():
        for k in itertools.count():
            if enough():
                return
            deal, spec = seed + k, AUDIT_AGENTS[k % len(AUDIT_AGENTS)]
            yield Table(deal, [make_agent(spec, rules, deal)] * NUM_SEATS, [spec] * NUM_SEATS,
                        f"deal {deal}, resample rates", watch=watcher(deal), until=enough)

    play_games(rules, tables(), rows=8)
    return picked


def measure(preset: str, wanted: int, draws: int, seed: int) -> dict:
    """The resampler's effort over `wanted` decisions of `preset` (module docstring)."""
    proposals = [0]
    check = resample_module.advance

    def counted(*args, **kwargs):
        proposals[0] += 1
        return check(*args, **kwargs)

    picked = decisions(preset, wanted, seed)
    per_world, ms, failures, examples = [], [], 0, []
    resample_module.advance = counted
    try:
        for deal, game, seat in picked:
            info = info_state(game, seat)
            for k in range(draws):
                rng = np.random.default_rng([seed, deal, len(game.actions), k])
                proposals[0] = 0
                t0 = time.perf_counter()
                try:
                    resample_info(info, rng)
                    per_world.append(proposals[0])
                except ResampleError as e:
                    failures += 1
                    if len(examples) < 3:
                        examples.append(f"deal {deal} step {len(game.actions)} seat {seat}: {e}")
                ms.append(1000 * (time.perf_counter() - t0))
    finally:
        resample_module.advance = check
    p = np.array(per_world)
    t = np.array(ms)
    return {"preset": preset, "decisions": len(picked), "draws": len(ms), "failures": failures,
            "proposals_mean": round(float(p.mean()), 3), "proposals_p99": round(float(np.percentile(p, 99)), 1),
            "proposals_max": int(p.max()), "ms_mean": round(float(t.mean()), 2),
            "ms_p50": round(float(np.percentile(t, 50)), 2), "ms_p99": round(float(np.percentile(t, 99)), 2),
            "examples": examples}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--presets", nargs="+", choices=list(PRESETS), default=list(PRESETS))
    ap.add_argument("--decisions", type=int, default=2500, help="decisions per preset (default 2500)")
    ap.add_argument("--draws", type=int, default=4, help="worlds drawn per decision (default 4)")
    ap.add_argument("--seed", type=int, default=0, help="first deal seed and seed of the draws (default 0)")
    args = ap.parse_args()
    for preset in args.presets:
        print(json.dumps(measure(preset, args.decisions, args.draws, args.seed)), flush=True)


if __name__ == "__main__":
    main()
