"""Team-play and signalling statistics (`baohuang study teamplay`), from self-play records.

Per agent, self-play on the deal set with the agent playing the role phase too (so open
declarations happen; `collect` with roles="agents"), then from the game records:

* **overtaking**: how often a seat that could beat the play on the table beats it when that
  play is its own side's (true roles): the emperor over his guard, the guard over his
  emperor, a rebel over a rebel. A side that knows its partner should rarely do it.
* **blocking**: how often the guard beats a rebel's play when he can (挡牌: taking the lead
  from the rebels for the emperor); next to it, how often rebels beat the emperor's side.
* **reveal timing**: when the guard became public (declared before play, or the guard card
  played, as a share of the cards played) and the emperor's-side win rate per timing bucket.
* **identity leakage**: the rebels' (and the emperor's) belief in the true guard against the
  number of plays the guard has made: the beliefs of the reference probe on the raw
  observation (`belief`: trained on half the deals, read on the other half), and the agent's
  own belief where it has one. A guard who hides well keeps the rebels' curve low.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TextIO

import numpy as np

from baohuang_env.knowledge import EMPEROR, GUARD, REBEL
from baohuang_env.rules import Rules
from baohuang_eval.play import validate_specs
from baohuang_eval.stats import wilson_interval

from .collect import Decisions, GameLog, collect
from .probe import probe_beliefs, split_by_deal
from .report import figure, fmt, png_bytes, short_name

#: Reveal-timing buckets: before play (a declaration), then by share of the cards played.
REVEAL_BUCKETS = ("before play", "first third", "second third", "last third", "never")
#: Guard plays are grouped 0, 1, ..., MAX_PLAYS - 1 and "MAX_PLAYS or more".
MAX_PLAYS = 12
_SIDE = {EMPEROR: "E", GUARD: "E", REBEL: "R"}


def _rate(hits: int, n: int) -> dict[str, Any]:
    lo, hi = wilson_interval(hits, n) if n else (float("nan"), float("nan"))
    return {"n": n, "rate": hits / n if n else float("nan"), "low": lo, "high": hi}


def follow_rates(logs: Sequence[GameLog]) -> dict[str, Any]:
    """Overtaking and blocking rates over the follow decisions that had a legal play."""
    count: dict[tuple[str, str], list[int]] = {}
    for log in logs:
        for role, owner, played in log.follows:
            c = count.setdefault((role, owner), [0, 0])
            c[0] += played
            c[1] += 1

    def rate(pairs: list[tuple[str, str]]) -> dict[str, Any]:
        hits = sum(count.get(p, [0, 0])[0] for p in pairs)
        return _rate(hits, sum(count.get(p, [0, 0])[1] for p in pairs))

    return {
        "overtake_emperor_over_guard": rate([(EMPEROR, GUARD)]),
        "overtake_guard_over_emperor": rate([(GUARD, EMPEROR)]),
        "overtake_rebel_over_rebel": rate([(REBEL, REBEL)]),
        "block_guard_over_rebel": rate([(GUARD, REBEL)]),
        "rebel_over_emperor_side": rate([(REBEL, EMPEROR), (REBEL, GUARD)]),
    }


def reveal_bucket(log: GameLog) -> str:
    if log.reveal_progress is None:
        return "never"
    if log.reveal_progress == 0.0:
        return "before play"
    return REVEAL_BUCKETS[1 + min(int(log.reveal_progress * 3), 2)]


def reveal_timing(logs: Sequence[GameLog]) -> dict[str, Any]:
    """Per timing bucket: games and the emperor's-side win rate (draws count half)."""
    out = {}
    games = [g for g in logs if g.guard != g.emperor]  # solos have no guard to reveal
    for bucket in REVEAL_BUCKETS:
        sel = [g for g in games if reveal_bucket(g) == bucket]
        wins = sum((g.emperor_score > 0) + 0.5 * (g.emperor_score == 0) for g in sel)
        out[bucket] = {**_rate(wins, len(sel)), "share": len(sel) / len(games) if games else float("nan"),
                       "open_guard": sum(g.open_guard for g in sel)}
    return out


def leakage_curves(d: Decisions, beliefs: dict[str, np.ndarray], rows: np.ndarray) -> dict[str, Any]:
    """Mean belief in the true guard per number of guard plays made, per source and observer,
    on `rows` (before the reveal)."""
    plays = np.minimum(d.guard_plays, MAX_PLAYS)
    out: dict[str, Any] = {}
    for name, p in beliefs.items():
        truth = p[np.arange(len(d)), d.label]
        for observer in (REBEL, EMPEROR):
            sel = rows & (d.observer == observer) & ~d.revealed
            curve = []
            for k in range(MAX_PLAYS + 1):
                at = sel & (plays == k)
                curve.append({"plays": k, "n": int(at.sum()),
                              "belief": float(truth[at].mean()) if at.any() else float("nan"),
                              "base": float((1.0 / d.candidates[at].sum(axis=1)).mean()) if at.any()
                              else float("nan")})
            out[f"{name}_{observer}"] = curve
    return out


def teamplay_study(specs: Sequence[str], rules: Rules, seeds: Sequence[int], workers: int = 1,
                   log: TextIO | None = None) -> dict[str, Any]:
    """The team-play statistics of every agent in `specs` (module docstring)."""
    validate_specs(specs, rules)
    result: dict[str, Any] = {"study": "teamplay", "preset": rules.preset, "deals": len(seeds),
                              "first_seed": int(seeds[0]), "agents": {}}
    for spec in specs:
        d, logs = collect(spec, rules, tuple(seeds), "agents", workers, log, "teamplay")
        train = split_by_deal(d.deal)
        fit = train & ~d.revealed
        beliefs = {"probe_observation": probe_beliefs(d.obs, d.label, d.candidates, fit, d.deal)} if fit.any() else {}
        if d.own is not None:
            beliefs["own"] = d.own
        result["agents"][spec] = {
            "games": len(logs), "follows": follow_rates(logs), "reveal": reveal_timing(logs),
            "leakage": leakage_curves(d, beliefs, ~train),
        }
    return result


def to_markdown(result: dict[str, Any]) -> str:
    lines = [f"# Team play and signalling ({result['preset']}, {result['deals']} deals from seed "
             f"{result['first_seed']})", "", "Rates over follow decisions with a legal play, 95% Wilson CIs.", ""]
    for spec, a in result["agents"].items():
        lines += [f"## {spec} ({a['games']} games)", "", "| statistic | n | rate [95% CI] |", "|---|---|---|"]
        for name, r in a["follows"].items():
            lines.append(f"| {name} | {r['n']} | {fmt(r['rate'])} [{fmt(r['low'])}, {fmt(r['high'])}] |")
        lines += ["", "| guard revealed | share of games | emperor's-side win rate [95% CI] | open guard |",
                  "|---|---|---|---|"]
        for bucket, r in a["reveal"].items():
            lines.append(f"| {bucket} | {fmt(r['share'])} | {fmt(r['rate'])} [{fmt(r['low'])}, {fmt(r['high'])}] "
                         f"| {r['open_guard']} |")
        lines += ["", "Belief in the true guard before the reveal, by the guard's plays made (test deals):", "",
                  "| source, observer | " + " | ".join(str(k) for k in range(MAX_PLAYS)) + f" | {MAX_PLAYS}+ |",
                  "|---|" + "---|" * (MAX_PLAYS + 1)]
        for name, curve in a["leakage"].items():
            lines.append(f"| {name} | " + " | ".join(fmt(c["belief"], 2) for c in curve) + " |")
        lines.append("")
    return "\n".join(lines) + "\n"


def plot(result: dict[str, Any]) -> bytes:
    """Per agent: leakage curves, follow rates, win rate by reveal timing."""
    specs = list(result["agents"])
    fig, axes = figure(len(specs), 3, width=4.6)
    for i, spec in enumerate(specs):
        a = result["agents"][spec]
        ax = axes[3 * i]
        for name, curve in a["leakage"].items():
            ax.plot([c["plays"] for c in curve], [c["belief"] for c in curve], marker="o", ms=3, label=name)
        ax.set(title=f"{short_name(spec)}: P(true guard) before reveal", xlabel="guard's plays made", ylim=(0, 1))
        ax.legend(fontsize="x-small")
        ax = axes[3 * i + 1]
        names = list(a["follows"])
        rates = [a["follows"][n]["rate"] for n in names]
        err = [[a["follows"][n]["rate"] - a["follows"][n]["low"] for n in names],
               [a["follows"][n]["high"] - a["follows"][n]["rate"] for n in names]]
        ax.barh(range(len(names)), rates, xerr=err, capsize=3)
        ax.set(yticks=range(len(names)), yticklabels=[n.replace("_", " ") for n in names], xlim=(0, 1),
               title="beat rate when a play was legal")
        ax = axes[3 * i + 2]
        buckets = list(a["reveal"])
        ax.bar(range(len(buckets)), [a["reveal"][b]["rate"] for b in buckets])
        ax.set(xticks=range(len(buckets)), xticklabels=buckets, ylim=(0, 1),
               title="emperor's-side win rate by reveal time")
        ax.tick_params(axis="x", labelsize="x-small", rotation=20)
    return png_bytes(fig)


__all__ = ["MAX_PLAYS", "REVEAL_BUCKETS", "follow_rates", "leakage_curves", "plot", "reveal_timing",
           "teamplay_study", "to_markdown"]
