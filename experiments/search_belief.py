"""How close a search's worlds are to the true deal, per sampler: a JSON line per setting.

For each `search:...` setting, plays `--games` deals (seeds from `--deal-seed`) with the base
policy at every seat and, at every decision with a choice of one seat (rotating over the deals),
draws that seat's worlds as the search would (`SearchAgent.worlds`, its kept worlds carried from
one decision to the next) and compares them with the true game:

* `guard_right`: while the guard card is hidden from the seat among several candidate seats,
  the share of worlds that give it to its true holder (`guard_decisions`: such decisions);
* `cards_right`: the share of the other seats' cards now in hand that the world puts in the
  right seat (the cards a seat has shown are pinned to it in every world, so no sampler scores
  0), per phase of the deal too (`by_phase`, `agents.search.PHASES`);
* `ms`: the mean milliseconds of drawing a decision's worlds on one core.

The samplers: `prior` (the deal's prior), `informed` (the heuristic's guard belief), `policy`
(weighted by the others' moves under the base policy, `agents/play_belief.py`), `uniform`.

    python experiments/search_belief.py --games 10 search:w=16:sampler=prior \\
        search:w=16:sampler=informed search:w=16:sampler=policy:tau=0.03
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
from threadpoolctl import threadpool_limits

from agents.search import PHASES, SearchAgent, SearchSettings, phase
from baohuang_env.agent import act_in_game, forced_move
from baohuang_env.game import Game
from baohuang_env.infostate import encoder_of, info_state
from baohuang_env.rules import get_rules


def measure(specs: list[str], preset: str, games: int, deal_seed: int) -> list[dict]:
    """A row per spec (module docstring); the settings see the same decisions of the same deals."""
    rules = get_rules(preset)
    agents = [SearchAgent(rules, SearchSettings.parse(s.removeprefix("search").lstrip(":")), seed=0) for s in specs]
    base, encode = agents[0].base, encoder_of(rules).encode
    guard = [[] for _ in specs]
    cards = [{label: [] for label, _ in PHASES} for _ in specs]
    ms = [[] for _ in specs]
    for k in range(games):
        game, seat = Game(rules, seed=deal_seed + k), k % 5
        for agent in agents:
            agent.reset(deal_seed + k)
        while not game.is_over:
            if game.current_player == seat and forced_move(game.legal_mask()) is None:
                info = info_state(game, seat)
                others = [s for s in range(5) if s != seat]
                truth = np.array([game.hand(s) for s in others])
                bucket = phase(sum(game.cards_left))
                for i, agent in enumerate(agents):
                    t0 = time.perf_counter()
                    worlds = agent.worlds(info)
                    ms[i].append(1000 * (time.perf_counter() - t0))
                    if len(info.guard_seats) > 1:
                        guard[i] += [w.roles.guard_card_seat == game.roles.guard_card_seat for w in worlds]
                    cards[i][bucket] += [np.minimum([w.hand(s) for s in others], truth).sum() / truth.sum()
                                         for w in worlds]
            game.step(act_in_game(base, game, game.current_player, encode))
    rows = []
    for i, spec in enumerate(specs):
        every = [x for xs in cards[i].values() for x in xs]
        rows.append({"spec": spec, "preset": preset, "games": games, "deal_seed": deal_seed,
                     "guard_right": round(float(np.mean(guard[i])), 4) if guard[i] else None,
                     "guard_worlds": len(guard[i]), "cards_right": round(float(np.mean(every)), 4),
                     "by_phase": {label: round(float(np.mean(xs)), 4) if xs else None
                                  for label, xs in cards[i].items()},
                     "ms": round(float(np.mean(ms[i])), 1), "decisions": len(ms[i])})
    return rows


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("specs", nargs="+", help="search settings, e.g. search:w=16:sampler=policy:tau=0.03")
    p.add_argument("--preset", default="jj")
    p.add_argument("--games", type=int, default=10)
    p.add_argument("--deal-seed", type=int, default=21_000_000,
                   help="the first deal's seed (default 21000000, the tuning range)")
    args = p.parse_args(argv)
    with threadpool_limits(1):
        for row in measure(args.specs, args.preset, args.games, args.deal_seed):
            print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
