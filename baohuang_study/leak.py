"""The hidden-information audit (`baohuang study leak`): nothing a seat may not see reaches
its observation or its action mask.

(a) Resampling. At sampled decisions in played games of each seat, everything that seat
cannot see is redrawn by the engine's sampler (`baohuang_env.resample.resample`: the other
seats' dealt hands and the hidden guard card's seat drawn consistently with what the seat saw,
then dealt and replayed through the engine), and the seat's observation (by `observe`) and
mask must come out byte-identical. The sampler itself accepts only draws the encoder cannot
tell apart, so with the encoder a leak shows as a decision where no draw is found (a failure
here) and, over many decisions, as a guard card that never moves (tests/test_resample.py).

The games are played by the heuristic, random and auto-play bots in turn (`AUDIT_AGENTS`),
a few at once through the evaluation's driver (`baohuang_eval.play.play_games`), each
audited with its own RNG; a quarter of all decisions are audited, 4 resamples each.

(b) Probe at the first decision. A logistic probe on the raw observation at each seat's
first play decision (emperor and rebels, guard hidden; roles by the auto-play answers)
predicts the guard's seat; trained on half the deals, its top-1 accuracy on the others must
lie within 2 standard errors of the base rate (1/4, 1/3; the SE over deals, whose rows are
not independent: `metrics.chance_test`).
"""

from __future__ import annotations

import itertools
import multiprocessing
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any, TextIO

import numpy as np

from agents.guard_belief import guard_candidates, guard_label
from agents.view import SeatView
from baohuang_env.agent import make_agent
from baohuang_env.autoplay import AutoPlayAgent
from baohuang_env.cards import NUM_SEATS
from baohuang_env.encoding import Encoder
from baohuang_env.game import PLAY, Game
from baohuang_env.resample import ResampleError, guard_seats, resample
from baohuang_env.rules import PRESETS, Rules, get_rules
from baohuang_env.seeds import EVAL_SEED_START
from baohuang_eval.play import Table, play_games
from baohuang_eval.pool import Progress, start_method

from .metrics import belief_scores, chance_test
from .probe import probe_beliefs, split_by_deal
from .report import figure, fmt, png_bytes

#: An observation function: (game, seat) -> vector (Encoder.encode, or a test's leaky one).
Observe = Callable[[Game, int], np.ndarray]


def audit_state(game: Game, viewer: int, observe: Observe, rng: np.random.Generator, times: int) -> list[str]:
    """Resample `times` times at a decision of `viewer`; the differences found (empty: none)."""
    obs = observe(game, viewer).tobytes()
    mask = game.legal_mask().tobytes()
    found = []
    for _ in range(times):
        try:
            g = resample(game, viewer, rng)
        except ResampleError as e:
            found.append(str(e))
            continue
        if g.current_player != viewer:
            found.append(f"the prompt went to seat {g.current_player}, not {viewer}")
        elif observe(g, viewer).tobytes() != obs:
            found.append("observation differs")
        elif g.legal_mask().tobytes() != mask:
            found.append("action mask differs")
    return found


#: The bots whose games the audit samples, in turn: the heuristic plays like a player, the
#: random bot reaches every declaration, the auto-play bot declares nothing (the guard stays
#: hidden longest).
AUDIT_AGENTS = ("heuristic", "random", "autoplay")


#: Audited games played at once, at most; `audit_preset` plays one per 2,000 resamples asked
#: for (a game gives a few hundred), so that all but the last few games run to their end.
AUDIT_ROWS = 16


def audit_preset(rules: Rules, resamples: int, observe: Observe | None = None,
                 agents: Sequence[str] = AUDIT_AGENTS, seed: int = 0, per_decision: int = 4,
                 log: TextIO | None = None) -> dict[str, Any]:
    """At least `resamples` resamples (`per_decision` at each sampled decision) over games of
    `agents` in turn under `rules`: {resamples, decisions, games, failures, examples,
    decisions_with_hidden_guard}. (The progress line counts resamples as "games".)

    The games (deals `seed`, `seed` + 1, ...) are played a few at a time (`play_games`, up to
    `AUDIT_ROWS`), one bot at all five seats of each; a game's sampled decisions and resamples
    come from its own RNG (seeded by `seed` and the deal), so they do not depend on the games
    beside it. Once `resamples` are reached the games in progress stop."""
    observe = observe or Encoder(rules).encode
    tally = {"resamples": 0, "decisions": 0, "games": 0, "failures": 0, "examples": [],
             "decisions_with_hidden_guard": 0}
    progress = Progress(resamples, log, f"leak {rules.preset} resamples")

    def enough(_game: Game | None = None) -> bool:
        """The resamples are reached (also every table's `until`)."""
        return tally["resamples"] >= resamples

    def watcher(deal: int) -> Callable[[Game, int, int], None]:
        rng = np.random.default_rng([seed, deal])

        def watch(game: Game, seat: int, _action: int) -> None:
            if enough() or rng.random() >= 0.25:  # a quarter of the decisions, spread over the game
                return
            found = audit_state(game, seat, observe, rng, per_decision)
            tally["decisions_with_hidden_guard"] += len(guard_seats(game, seat)) > 1
            tally["failures"] += len(found)
            if found and len(tally["examples"]) < 5:
                tally["examples"].append(f"deal {deal}, step {len(game.actions)}, seat {seat}: {found[0]}")
            tally["resamples"] += per_decision
            tally["decisions"] += 1
            progress.add(per_decision)
        return watch

    def tables() -> Iterator[Table]:
        for deal in itertools.count(seed):
            if enough():
                return
            spec = agents[tally["games"] % len(agents)]
            tally["games"] += 1
            bot = make_agent(spec, rules, deal)
            yield Table(deal, [bot] * NUM_SEATS, [spec] * NUM_SEATS, f"deal {deal}, leak audit",
                        watch=watcher(deal), until=enough)

    play_games(rules, tables(), rows=min(AUDIT_ROWS, max(1, resamples // 2000)))
    progress.close()
    return tally


def first_decisions(rules: Rules, seeds: Sequence[int], observe: Observe | None = None) -> dict[str, np.ndarray]:
    """Each non-guard seat's first play decision per deal (roles by the auto-play answers, solo
    and void deals left out): observation, candidates, label, deal. The auto-play bot plays
    every seat of every deal, the deals at once (`play_games`); a deal's game stops once its
    decisions are taken."""
    enc = Encoder(rules)
    observe = observe or enc.encode
    auto = AutoPlayAgent(rules)  # it keeps no state: one for every seat of every deal
    per_deal: list[list[tuple]] = [[] for _ in seeds]

    def table(k: int, deal: int) -> Table:
        seen: set[int] = set()

        def watch(game: Game, seat: int, _action: int) -> None:
            if game.phase == PLAY and seat != game.guard and seat not in seen and game.public_guard < 0:
                seen.add(seat)
                per_deal[k].append((observe(game, seat), guard_candidates(SeatView(enc.encode(game, seat), rules)),
                                    guard_label(game, seat), deal))

        def until(game: Game) -> bool:
            return game.phase == PLAY and (game.guard == game.emperor or len(seen) == NUM_SEATS - 1)

        return Table(deal, [auto] * NUM_SEATS, ["autoplay"] * NUM_SEATS, f"deal {deal}, first decisions",
                     watch=watch, until=until)

    play_games(rules, (table(k, deal) for k, deal in enumerate(seeds)))
    rows = [row for deal_rows in per_deal for row in deal_rows]
    return {k: np.array([row[i] for row in rows]) for i, k in enumerate(("obs", "candidates", "label", "deal"))}


def first_decision_probe(rules: Rules, seeds: Sequence[int], observe: Observe | None = None) -> dict[str, Any]:
    """The probe at the first decision (module docstring, b): its test scores and whether
    its top-1 is at chance (within 2 SE of the base rate)."""
    d = first_decisions(rules, seeds, observe)
    if len(d["label"]) < 20:
        return {"n": len(d["label"]), "at_chance": None, "note": "too few decisions with a hidden guard"}
    train = split_by_deal(d["deal"])
    p = probe_beliefs(d["obs"], d["label"], d["candidates"], train, d["deal"])
    test = ~train
    s = belief_scores(p[test], d["label"][test], d["candidates"][test])
    s.pop("reliability")
    return {**s, **chance_test(p[test], d["label"][test], d["candidates"][test], d["deal"][test])}


def audit_and_probe(name: str, resamples: int, deals: int, seed: int, agents: Sequence[str],
                    log: TextIO | None = None) -> dict[str, Any]:
    """Both checks of one preset: {"audit": ..., "probe": ...} (the probe on deals from
    EVAL_SEED_START + seed)."""
    rules = get_rules(name)
    audit = audit_preset(rules, resamples, agents=agents, seed=seed, log=log)
    start = EVAL_SEED_START + seed
    return {"audit": audit, "probe": first_decision_probe(rules, range(start, start + deals))}


def leak_study(presets: Sequence[str], resamples: int, deals: int, seed: int = 0,
               agents: Sequence[str] = AUDIT_AGENTS, workers: int = 1, log: TextIO | None = None) -> dict[str, Any]:
    """The audit of every preset in `presets` (names of `baohuang_env.rules.PRESETS`), one
    preset per worker process when `workers` > 1 (then a line per finished preset)."""
    bad = [p for p in presets if p not in PRESETS]
    if bad:
        raise ValueError(f"unknown presets {bad}; known: {list(PRESETS)}")
    if workers < 1:
        raise ValueError(f"--workers must be at least 1, got {workers}")
    out: dict[str, Any] = {"study": "leak", "resamples_per_preset": resamples, "probe_deals": deals,
                           "agents": list(agents), "presets": {}}
    if workers == 1:
        for name in presets:
            out["presets"][name] = audit_and_probe(name, resamples, deals, seed, agents, log)
    else:
        ctx = start_method(multiprocessing.get_context("spawn"))
        with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
            futures = {name: pool.submit(audit_and_probe, name, resamples, deals, seed, list(agents))
                       for name in presets}
            for name, fut in futures.items():
                out["presets"][name] = fut.result()
                if log is not None:
                    print(f"leak {name}: {out['presets'][name]['audit']['failures']} failures", file=log, flush=True)
    out["passed"] = all(p["audit"]["failures"] == 0 and p["probe"].get("at_chance") is not False
                        for p in out["presets"].values())
    return out


def to_markdown(result: dict[str, Any]) -> str:
    lines = ["# Hidden-information audit", "",
             f"Resampling: at least {result['resamples_per_preset']} resamples per preset (games of "
             f"{', '.join(result['agents'])} in turn); probe at the first decision on {result['probe_deals']} deals "
             "(half to train, half to test).", "",
             "| preset | resamples | decisions | with hidden guard | failures | probe n | probe top-1 "
             "(base) | excess ± SE | within 2 SE |", "|---|---|---|---|---|---|---|---|---|"]
    for name, p in result["presets"].items():
        a, q = p["audit"], p["probe"]
        lines.append(f"| {name} | {a['resamples']} | {a['decisions']} | {a['decisions_with_hidden_guard']} | "
                     f"{a['failures']} | {q.get('n')} | {fmt(q.get('top1'))} ({fmt(q.get('base_top1'))}) | "
                     f"{fmt(q.get('excess'))} ± {fmt(q.get('se'))} | {q.get('at_chance')} |")
    lines += ["", f"**{'PASSED' if result['passed'] else 'FAILED'}**"]
    for name, p in result["presets"].items():
        lines += [f"* {name}: {e}" for e in p["audit"]["examples"]]
    return "\n".join(lines) + "\n"


def plot(result: dict[str, Any]) -> bytes:
    """Probe top-1 at the first decision per preset, with the base rate and its 2-SE band."""
    fig, (ax,) = figure(1, 1, width=7.0)
    names = [n for n, p in result["presets"].items() if p["probe"].get("top1") is not None]
    for i, n in enumerate(names):
        q = result["presets"][n]["probe"]
        band = 2 * q["se"]
        ax.bar(i, q["top1"], color="tab:blue")
        ax.errorbar(i, q["base_top1"], yerr=band, color="k", capsize=6, fmt="_")
    ax.set(xticks=range(len(names)), xticklabels=names, ylim=(0, 1), ylabel="probe top-1 (bar); base ± 2 SE",
           title="guard probe at the first decision")
    return png_bytes(fig)


__all__ = ["audit_and_probe", "audit_preset", "audit_state", "first_decision_probe", "first_decisions",
           "leak_study", "plot", "to_markdown"]
