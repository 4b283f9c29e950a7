"""What a search decision costs, on one core: JSON per setting.

For each `search:...` setting, plays `--games` deals (seeds from `--deal-seed`) with the
search agent at one seat (rotating over the deals) and its base policy at the other four, and
times, at every decision of the searching seat that it searches, the search
(`SearchAgent.act_info`) and, apart, building the seat's information state (`info_state`, what
a driver pays before asking). Forced decisions are played without either, and those before the
endgame (`endgame=N`) by the base's move from the observation (`unsearched_move`), so the output
also says how often the agent searches and what a decision costs on average, all of them
counted (`ms_per_decision`), and its play-outs per second of search (`playouts_per_s`: the
(world, candidate) rows played to the end of the deal or scored, over the time the searches
took, `SearchStats`; with `double=1` the re-estimates' play-outs are not counted, their time
is in the milliseconds) with the agent's per-phase counts (`stats`, `SearchStats.to_dict`).
One process, one thread: milliseconds on one core.

    python experiments/search_cost.py --preset jj --games 10 \\
        search:w=4:m=2 search:w=8:m=3 search:w=16:m=3
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from agents.search import SearchAgent, SearchSettings
from baohuang_env.agent import act_in_game, forced_move
from baohuang_env.game import Game
from baohuang_env.infostate import encoder_of, info_state
from baohuang_env.rules import get_rules


def measure(spec: str, preset: str, games: int, deal_seed: int) -> dict:
    """The cost of `spec`'s decisions over `games` deals (module docstring)."""
    if not spec.startswith("search"):
        raise SystemExit(f"{spec!r} is not a search spec (search:KEY=VALUE:...)")
    rules = get_rules(preset)
    agent = SearchAgent(rules, SearchSettings.parse(spec.partition(":")[2]), seed=0)
    base, encode = agent.base, encoder_of(rules).encode
    searched_ms, info_ms, decision_ms, forced = [], [], [], 0
    for k in range(games):
        game, seat = Game(rules, seed=deal_seed + k), k % 5
        agent.reset(deal_seed + k)
        while not game.is_over:
            mask = game.legal_mask()
            actor = game.current_player
            if actor != seat:
                game.step(act_in_game(base, game, actor, encode))
                continue
            if forced_move(mask) is not None:
                forced += 1
                game.step(forced_move(mask))
                continue
            t0 = time.perf_counter()
            move = agent.unsearched_move(encode(game, seat), mask)
            if move is None:
                t1 = time.perf_counter()
                info = info_state(game, seat)
                t2 = time.perf_counter()
                move = agent.act_info(info)
                t3 = time.perf_counter()
                info_ms.append(1000 * (t2 - t1))
                searched_ms.append(1000 * (t3 - t2))
            decision_ms.append(1000 * (time.perf_counter() - t0))
            game.step(move)
    s, d = np.asarray(searched_ms), np.asarray(decision_ms)
    decisions = len(d) + forced
    return {"spec": agent.settings.spec, "preset": preset, "games": games, "deal_seed": deal_seed,
            "decisions": decisions, "searched": len(s), "searched_share": len(s) / max(1, decisions),
            "changed_share": agent.stats.changed / max(1, agent.stats.searched),
            "ms_per_searched_decision": float(s.mean()) if s.size else None,
            "ms_p50": float(np.median(s)) if s.size else None, "ms_p90": float(np.quantile(s, 0.9)) if s.size else None,
            "ms_info_state": float(np.mean(info_ms)) if info_ms else None,
            "ms_per_decision": float(d.sum() / max(1, decisions)),
            "failed_draws": agent.stats.failed, "playouts": agent.stats.playouts,
            "playouts_per_s": agent.stats.playouts / agent.stats.seconds if agent.stats.seconds else None,
            "stats": agent.stats.to_dict()}


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("specs", nargs="+", help="search agent specs, e.g. search:w=8:m=3")
    p.add_argument("--preset", default="jj")
    p.add_argument("--games", type=int, default=10)
    p.add_argument("--deal-seed", type=int, default=20_000_000)
    args = p.parse_args(argv)
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1):
        for spec in args.specs:
            print(json.dumps(measure(spec, args.preset, args.games, args.deal_seed)), flush=True)


if __name__ == "__main__":
    main()
