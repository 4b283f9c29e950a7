"""Cross-play (`baohuang study crossplay`): does an emperor still win with a guard he was
not trained with?

Protocol (docs/hidden_team.md): on every deal the role phase is answered by the auto-play
bot (`baohuang_eval.team.default_roles_many`, as in the team protocol; void and solo deals are
left out: a solo has no partner). Then, for every ordered pair (i, j) of the agents, the
play phase is played from that same position with agent i at the emperor's seat, agent j at
the guard's seat and the rebels from a fixed reference agent ("reference" rebels) or, on a
second pass, from the agents themselves, spread over the rebel seats by deal ("mixed"
rebels: rebel seat r of deal d gets agent (d + r) mod n, the same in every cell). Every
cell plays the same deals with the same rebels: duplicate deals.

Figures: per cell, the emperor's-side win rate (Wilson) and mean score (Student t); self-play
SP = the diagonal, cross-play XP = the off-diagonal, split into the same family (agents of
one kind, e.g. DMC seeds) and other families (inter-algorithm); the per-deal paired
difference XP - SP with its t interval, and the ratio XP / SP of the side win rates (as
Hanabi's zero-shot coordination reports XP / SP of scores).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import partial
from typing import Any, TextIO

import numpy as np

from baohuang_env.cards import NUM_SEATS
from baohuang_env.rules import Rules
from baohuang_eval.play import SpecSeats, Table, agent_seed, game_agents, play_games, validate_specs
from baohuang_eval.pool import Progress, chunk_size, run_chunks
from baohuang_eval.stats import Stats, paired_stats
from baohuang_eval.team import default_roles_many

from .report import figure, fmt, png_bytes

#: Who plays the rebels.
REBEL_MODES = ("reference", "mixed")


def family(spec: str) -> str:
    """An agent's family: its kind (dmc, ppo, heuristic ...), so seeds of one recipe group."""
    return spec.partition(":")[0]


def _rebels(specs: Sequence[str], reference: str, mode: str, deal: int) -> list[str]:
    return [reference] * 3 if mode == "reference" else [specs[(deal + r) % len(specs)] for r in range(3)]


def crossplay_chunk(specs: Sequence[str], reference: str, rules_dict: dict[str, Any], seeds: Sequence[int],
                    modes: Sequence[str], cache: dict[str, SpecSeats] | None = None) -> list[tuple]:
    """Every cell's game on each deal, all at once (`play_games`, each game replaying its deal's
    auto-play role phase): (deal, mode, i, j, emperor's score) rows."""
    rules = Rules.from_dict(rules_dict)
    cache = {} if cache is None else cache

    def seats(spec: str) -> SpecSeats:
        return cache.setdefault(spec, SpecSeats(spec, rules))

    starts = [s for s in default_roles_many(rules, seeds) if not s.is_over and s.guard != s.emperor]
    cells = [(start, mode, i, j) for start in starts for mode in modes
             for i in range(len(specs)) for j in range(len(specs))]

    def tables() -> Iterator[Table]:
        for start, mode, i, j in cells:
            deal, emperor, guard = start.seed, start.emperor, start.guard
            names = [""] * NUM_SEATS
            names[emperor], names[guard] = specs[i], specs[j]
            rebel_seats = [q for q in range(NUM_SEATS) if q not in (emperor, guard)]
            for q, spec in zip(rebel_seats, _rebels(specs, reference, mode, deal), strict=True):
                names[q] = spec
            agents = game_agents([seats(name) for name in names],
                                 [agent_seed(deal, emperor, "team-A", q) for q in range(NUM_SEATS)])
            yield Table(deal, agents, names, f"deal {deal}, cross-play emperor {specs[i]!r} guard {specs[j]!r}",
                        opening=start.actions)

    return [(start.seed, mode, i, j, int(played.result.scores[start.emperor]))
            for (start, mode, i, j), played in zip(cells, play_games(rules, tables()), strict=True)]


def _play(specs, reference, rules, seeds, modes, workers, log) -> list[tuple]:
    games = len(specs) ** 2 * len(modes)
    size = chunk_size(len(seeds), workers, games)
    chunks = [list(seeds[k:k + size]) for k in range(0, len(seeds), size)]
    progress = Progress(len(seeds) * games, log, "crossplay")
    try:
        parts = run_chunks(partial(crossplay_chunk, specs, reference, rules.to_dict(), modes=modes), chunks,
                           workers, progress, games, cache={})
    finally:
        progress.close()
    return [row for part in parts for row in part]


def _win_rate(scores: np.ndarray) -> float:
    return float(((scores > 0) + 0.5 * (scores == 0)).mean()) if scores.size else float("nan")


def summarize(specs: Sequence[str], rows: list[tuple], mode: str) -> dict[str, Any]:
    """Matrix and SP / XP figures of one rebel mode from the game rows."""
    n = len(specs)
    deals = sorted({r[0] for r in rows if r[1] == mode})
    index = {d: k for k, d in enumerate(deals)}
    cube = np.zeros((len(deals), n, n))
    for deal, m, i, j, score in rows:
        if m == mode:
            cube[index[deal], i, j] = score
    diag = np.eye(n, dtype=bool)
    fam = np.array([family(s) for s in specs])
    same = (fam[:, None] == fam[None, :]) & ~diag
    other = fam[:, None] != fam[None, :]
    cells = [[Stats.of_scores(cube[:, i, j].tolist()).to_dict() for j in range(n)] for i in range(n)]
    out: dict[str, Any] = {"deals": len(deals), "cells": cells}
    if n < 2 or not deals:
        return out
    groups = {"sp": diag, "xp": ~diag, "xp_same_family": same, "xp_other_family": other}
    for name, sel in groups.items():
        if sel.any():
            per_deal = cube[:, sel]
            out[name] = {"win_rate": _win_rate(per_deal.ravel()), "mean_score": float(per_deal.mean())}
    sp = cube[:, diag].mean(axis=1)
    for name in ("xp", "xp_same_family", "xp_other_family"):
        if name in out:
            xp = cube[:, groups[name]].mean(axis=1)
            out[name]["minus_sp"] = paired_stats((xp - sp).tolist()).to_dict()
            sp_rate = out["sp"]["win_rate"]
            out[name]["ratio_win_rate"] = out[name]["win_rate"] / sp_rate if sp_rate > 0 else float("nan")
    return out


def crossplay_study(specs: Sequence[str], rules: Rules, seeds: Sequence[int], reference: str = "heuristic",
                    modes: Sequence[str] = REBEL_MODES, workers: int = 1, log: TextIO | None = None) -> dict[str, Any]:
    """The cross-play study (see the module docstring)."""
    if len(set(specs)) != len(specs):
        raise ValueError("--agents must be distinct (give each seed's checkpoint once)")
    bad = [m for m in modes if m not in REBEL_MODES]
    if bad or not modes:
        raise ValueError(f"rebel modes must be among {REBEL_MODES}, got {list(modes)}")
    validate_specs([*specs, reference], rules)
    rows = _play(list(specs), reference, rules, tuple(seeds), tuple(modes), workers, log)
    return {"study": "crossplay", "preset": rules.preset, "deals": len(seeds), "first_seed": int(seeds[0]),
            "agents": list(specs), "families": [family(s) for s in specs], "reference": reference,
            "modes": {m: summarize(specs, rows, m) for m in modes}}


def to_markdown(result: dict[str, Any]) -> str:
    specs = result["agents"]
    names = [f"A{k}" for k in range(len(specs))]
    lines = [f"# Cross-play ({result['preset']}, {result['deals']} deals from seed {result['first_seed']})", "",
             "Emperor from the row agent, guard from the column agent; cell = emperor's-side win rate "
             "(wins only) [95% Wilson] (mean score).", ""]
    lines += [f"* {n} = `{s}`" for n, s in zip(names, specs, strict=True)]
    for mode, m in result["modes"].items():
        rebels = f"`{result['reference']}`" if mode == "reference" else "the agents, mixed"
        lines += ["", f"## Rebels: {rebels} ({m['deals']} deals with a guard)", "",
                  "| emperor \\ guard | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
        for i, row in enumerate(m["cells"]):
            cells = [f"{fmt(c['win_rate'], 2)} [{fmt(c['win_low'], 2)}, {fmt(c['win_high'], 2)}] "
                     f"({fmt(c['mean_score'], 2)})" for c in row]
            lines.append(f"| {names[i]} | " + " | ".join(cells) + " |")
        if "sp" in m:
            lines += ["", "| group | win rate (draws ½) | mean score | mean score minus SP per deal [95% CI] "
                      "| XP/SP (win rate) |",
                      "|---|---|---|---|---|", f"| SP (diagonal) | {fmt(m['sp']['win_rate'])} | "
                      f"{fmt(m['sp']['mean_score'])} | - | - |"]
            for g in ("xp", "xp_same_family", "xp_other_family"):
                if g in m:
                    d = m[g]["minus_sp"]
                    lines.append(f"| {g} | {fmt(m[g]['win_rate'])} | {fmt(m[g]['mean_score'])} | "
                                 f"{fmt(d['mean'])} [{fmt(d['low'])}, {fmt(d['high'])}] | "
                                 f"{fmt(m[g]['ratio_win_rate'])} |")
    return "\n".join(lines) + "\n"


def plot(result: dict[str, Any]) -> bytes:
    """One heat map of the emperor's-side win rate per rebel mode."""
    modes = list(result["modes"])
    fig, axes = figure(1, len(modes), width=4.6, height=4.0)
    n = len(result["agents"])
    for ax, mode in zip(axes, modes, strict=True):
        m = np.array([[c["win_rate"] if c["win_rate"] is not None else np.nan for c in row]
                      for row in result["modes"][mode]["cells"]], dtype=float)
        im = ax.imshow(m, vmin=0, vmax=1, cmap="viridis")
        for i in range(n):
            for j in range(n):
                ax.text(j, i, fmt(m[i, j], 2), ha="center", va="center", color="w", fontsize="small")
        ax.set(title=f"emperor-side win rate, rebels: {mode}", xlabel="guard agent", ylabel="emperor agent",
               xticks=range(n), yticks=range(n), xticklabels=[f"A{k}" for k in range(n)],
               yticklabels=[f"A{k}" for k in range(n)])
        fig.colorbar(im, ax=ax, fraction=0.046)
    return png_bytes(fig)


__all__ = ["REBEL_MODES", "crossplay_chunk", "crossplay_study", "family", "plot", "summarize", "to_markdown"]
