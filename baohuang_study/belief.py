"""Guard identification (`baohuang study belief`): how well each agent knows who the guard is.

Protocol (docs/hidden_team.md): per agent, self-play on the deal set with the role phase
answered by the auto-play bot (so the guard holds the guard card and stays hidden until he
plays it; solo deals are left out: there is no partner to find). At every play-phase
decision of the emperor and of each rebel, beliefs over the guard's seat come from:

* `own`: the agent's own belief (`guard_belief`: the heuristic bot's partner inference, a
  learned agent's guard-belief head);
* `probe_features`: a multinomial logistic probe on the agent's hidden activations
  (`state_features`), for learned agents;
* `probe_observation`: the reference, the same probe on the raw observation vector;
* `uniform`: uniform over the observer's candidates (the base rate: 1/4, 1/3).

Probes train on the first half of the deals and every source is scored on the decisions of
the other half. Scores (`metrics.belief_scores`): top-1, log-loss, Brier, 10-bin ECE with a
reliability diagram; overall while the guard is hidden, per observer role, per decile of
game progress (share of the cards played) and after the reveal.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TextIO

import numpy as np

from baohuang_env.rules import Rules
from baohuang_eval.play import validate_specs

from .collect import Decisions, collect
from .metrics import belief_scores, uniform_beliefs
from .probe import probe_beliefs, split_by_deal
from .report import figure, fmt, png_bytes, short_name

OBSERVERS = ("emperor", "rebel")
DECILES = 10


def sources(d: Decisions, train: np.ndarray) -> dict[str, np.ndarray]:
    """Every belief source's (N, 5) beliefs on all of `d`'s rows (probes fit on `train` rows
    while the guard is hidden; no probe when the training deals have no such row, e.g. an
    agent whose guards always declare)."""
    fit = train & ~d.revealed
    out = {}
    if d.own is not None:
        out["own"] = d.own
    if d.features is not None and fit.any():
        out["probe_features"] = probe_beliefs(d.features, d.label, d.candidates, fit, d.deal)
    if fit.any():
        out["probe_observation"] = probe_beliefs(d.obs, d.label, d.candidates, fit, d.deal)
    out["uniform"] = uniform_beliefs(d.candidates)
    return out


def breakdown(d: Decisions, probs: np.ndarray) -> dict[str, Any]:
    """Scores of one source on decisions `d`: hidden (all, per observer, per observer and
    decile), revealed."""
    hidden = ~d.revealed
    decile = np.minimum((d.progress * DECILES).astype(int), DECILES - 1)

    def score(sel: np.ndarray, reliability: bool = False) -> dict[str, Any]:
        s = belief_scores(probs[sel], d.label[sel], d.candidates[sel])
        if not reliability:
            s.pop("reliability", None)
        return s

    out = {"hidden": score(hidden, reliability=True), "revealed": score(d.revealed)}
    for role in OBSERVERS:
        sel = hidden & (d.observer == role)
        out[f"hidden_{role}"] = score(sel, reliability=True)
        out[f"deciles_{role}"] = [score(sel & (decile == k)) for k in range(DECILES)]
    return out


def belief_study(specs: Sequence[str], rules: Rules, seeds: Sequence[int], workers: int = 1,
                 log: TextIO | None = None) -> dict[str, Any]:
    """The guard-identification study of every agent in `specs` (see the module docstring)."""
    validate_specs(specs, rules)
    result: dict[str, Any] = {"study": "belief", "preset": rules.preset, "deals": len(seeds),
                              "first_seed": int(seeds[0]), "agents": {}}
    for spec in specs:
        d, _ = collect(spec, rules, tuple(seeds), "auto", workers, log, "belief")
        train = split_by_deal(d.deal)
        test = d.select(~train)
        result["agents"][spec] = {
            "decisions": len(d), "test_decisions": len(test),
            "train_deals": len(np.unique(d.deal[train])), "test_deals": len(np.unique(test.deal)),
            "sources": {name: breakdown(test, p[~train]) for name, p in sources(d, train).items()},
        }
    return result


def to_markdown(result: dict[str, Any]) -> str:
    lines = [f"# Guard identification ({result['preset']}, {result['deals']} deals from seed "
             f"{result['first_seed']})", "",
             "Test deals only (probes trained on the other half). Hidden guard; base = uniform over the "
             "observer's candidates.", ""]
    for spec, a in result["agents"].items():
        lines += [f"## {spec}", "", f"{a['test_decisions']} test decisions on {a['test_deals']} deals.", "",
                  "| source | observer | n | top-1 (base) | log-loss (base) | Brier (base) | ECE "
                  "| after reveal top-1 |",
                  "|---|---|---|---|---|---|---|---|"]
        for name, s in a["sources"].items():
            for role in OBSERVERS:
                h = s[f"hidden_{role}"]
                if not h.get("n"):
                    continue
                lines.append(f"| {name} | {role} | {h['n']} | {fmt(h['top1'])} ({fmt(h['base_top1'])}) | "
                             f"{fmt(h['log_loss'])} ({fmt(h['base_log_loss'])}) | {fmt(h['brier'])} "
                             f"({fmt(h['base_brier'])}) | {fmt(h['ece'])} | {fmt(s['revealed'].get('top1'))} |")
        lines += ["", "Top-1 per decile of game progress (hidden guard):", "",
                  "| source | observer | " + " | ".join(f"d{k}" for k in range(DECILES)) + " |",
                  "|---|---|" + "---|" * DECILES]
        for name, s in a["sources"].items():
            for role in OBSERVERS:
                cells = [fmt(x.get("top1"), 2) for x in s[f"deciles_{role}"]]
                lines.append(f"| {name} | {role} | " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines) + "\n"


def plot(result: dict[str, Any]) -> bytes:
    """Per agent: top-1 by decile per source and observer; the reliability diagram."""
    specs = list(result["agents"])
    fig, axes = figure(len(specs), 2)
    for i, spec in enumerate(specs):
        acc_ax, rel_ax = axes[2 * i], axes[2 * i + 1]
        for name, s in result["agents"][spec]["sources"].items():
            for role, style in zip(OBSERVERS, ("-", "--"), strict=True):
                ys = [x.get("top1", np.nan) for x in s[f"deciles_{role}"]]
                acc_ax.plot(range(DECILES), ys, style, marker="o", ms=3, label=f"{name} ({role})")
            if name != "uniform":
                bins = [b for b in s["hidden"].get("reliability", []) if b["count"]]
                rel_ax.plot([b["confidence"] for b in bins], [b["accuracy"] for b in bins], marker="o",
                            label=f"{name} (ECE {fmt(s['hidden'].get('ece'))})")
        acc_ax.set(title=f"{short_name(spec)}: top-1 while hidden", xlabel="decile of game progress",
                   ylabel="top-1", ylim=(0, 1), xlim=(-0.3, DECILES - 0.7), xticks=range(DECILES))
        acc_ax.legend(fontsize="x-small")
        rel_ax.plot([0, 1], [0, 1], ":", color="gray")
        rel_ax.set(title="reliability (hidden guard)", xlabel="confidence (top-1 probability)",
                   ylabel="accuracy", xlim=(0, 1), ylim=(0, 1))
        rel_ax.legend(fontsize="x-small")
    return png_bytes(fig)


__all__ = ["belief_study", "breakdown", "plot", "sources", "to_markdown"]
