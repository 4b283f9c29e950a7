"""Writers for an evaluation `Report`: report.json, report.md (Markdown tables to paste into a
paper) and report.png (focal win rate per agent and side with 95% Wilson intervals).

Every file is written atomically (a temporary file in the same folder, then a rename).
"""

from __future__ import annotations

import io
import json
import math
import os
from pathlib import Path

from .evaluate import ROWS, PairedStats, PairResult, Report, Stats, write_bytes_atomic

ROW_NAMES = {"overall": "overall", "emperor_side": "emperor side", "rebel_side": "rebel side",
             "emperor": "emperor", "guard": "guard", "solo": "solo", "rebel": "rebel"}


# ----------------------------------------------------------------------------- Markdown
def _cell(text: str) -> str:
    return f"`{text}`".replace("|", "\\|")


def _pct(s: Stats) -> str:
    if s.games == 0:
        return "–"
    return f"{100 * s.win_rate:.1f}% [{100 * s.win_low:.1f}, {100 * s.win_high:.1f}]"


def _mean(mean: float, low: float, high: float, signed: bool = False) -> str:
    if math.isnan(mean):
        return "–"
    f = "+.2f" if signed else ".2f"
    if math.isnan(low):
        return f"{mean:{f}}"
    return f"{mean:{f}} [{low:{f}}, {high:{f}}]"


def _score(s: Stats) -> str:
    return _mean(s.mean_score, s.score_low, s.score_high)


def _verdict(p: PairResult) -> str:
    v = p.paired.verdict
    return f"{_cell(p.a)} better" if v == "A" else f"{_cell(p.b)} better" if v == "B" else "no significant difference"


def _focal_rows(name: str, table: dict[str, Stats]) -> list[str]:
    return [f"| {_cell(name)} | {ROW_NAMES[row]} | {table[row].games} | {_pct(table[row])} | {_score(table[row])} |"
            for row in ROWS if table[row].games or row in ("overall", "emperor_side", "rebel_side")]


FOCAL_HEADER = ["| agent | seats | games | win rate [95% CI] | mean score [95% CI] |", "|---|---|---:|---|---|"]


def to_markdown(report: Report) -> str:
    """The report as Markdown: protocol line, head-to-head, focal tables, matrix, ratings."""
    d = report.deals.describe()
    t = report.timing
    seeds = (f"seeds {d['first_seed']}..{d['last_seed']}" if d["contiguous"] else "seeds from a list")
    source = "" if d["source"] == "range" else f", file `{d['source']}`"
    lines = [
        "# Baohuang evaluation",
        "",
        f"Rules: preset `{d['preset']}`. Deals: {d['count']} ({seeds}{source}; fingerprint `{d['fingerprint']}`). "
        f"Protocol: duplicate rotation v{report.protocol()['version']}, each deal played 10 times per pair "
        "(each agent at each seat, against four copies of the other). Win = focal score > 0. "
        "Intervals are 95%: Wilson for win rates, Student t for means.",
    ]
    if t:
        rate = f", {t['games_per_s']:.0f} games/s" if t.get("games_per_s") else ""
        lines.append(f"Games: {t['games']} in {t['seconds']:.1f} s{rate} on {t['workers']} worker(s).")
    lines += [
        "",
        "## Head-to-head (paired by deal and seat)",
        "",
        "d = score(A focal) − score(B focal) on the same deal and seat.",
        "",
        "| A | B | pairs | mean d [95% CI] | A better / tie / B better | A focal win rate | B focal win rate "
        "| verdict |",
        "|---|---|---:|---|---|---|---|---|",
    ]
    for p in report.pairs:
        ps: PairedStats = p.paired
        lines.append(f"| {_cell(p.a)} | {_cell(p.b)} | {ps.n} | {_mean(ps.mean, ps.low, ps.high, signed=True)} | "
                     f"{ps.a_better} / {ps.ties} / {ps.b_better} | {_pct(p.table_a['overall'])} | "
                     f"{_pct(p.table_b['overall'])} | {_verdict(p)} |")
    for p in report.pairs:
        lines += ["", f"## Focal results: {_cell(p.a)} vs {_cell(p.b)}", "", *FOCAL_HEADER]
        lines += _focal_rows(p.a, p.table_a) + _focal_rows(p.b, p.table_b)
    if len(report.agents) > 2:
        lines += ["", "## Focal results per agent (all its games, against every opponent it met)", "",
                  *FOCAL_HEADER]
        for a in report.agents:
            lines += _focal_rows(a, report.tables[a])
        lines += ["", "## Head-to-head matrix (mean d of row against column, 95% CI)", "",
                  "| | " + " | ".join(_cell(b) for b in report.agents) + " |",
                  "|---|" + "---|" * len(report.agents)]
        for a, row in report.matrix().items():
            cells = ["·" if m is None else _mean(m.mean, m.low, m.high, signed=True) for m in row.values()]
            lines.append(f"| {_cell(a)} | " + " | ".join(cells) + " |")
    lines += ["", "## Ratings (openskill Plackett-Luce, one match per paired deal and seat)", "",
              "| rank | agent | mu | sigma | ordinal (mu − 3σ) |", "|---:|---|---:|---:|---:|"]
    ranked = sorted(report.ratings.items(), key=lambda kv: -kv[1].ordinal)
    for i, (a, r) in enumerate(ranked, 1):
        lines.append(f"| {i} | {_cell(a)} | {r.mu:.2f} | {r.sigma:.2f} | {r.ordinal:.2f} |")
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------- plot
def plot_png(report: Report) -> bytes:
    """Bar chart of focal win rate per agent: overall, emperor side, rebel side, with 95%
    Wilson intervals. Returns PNG bytes (matplotlib Agg backend)."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    groups = ("overall", "emperor_side", "rebel_side")
    agents = report.agents
    fig = Figure(figsize=(max(5.0, 1.6 * len(agents) + 2), 4.0), dpi=120)
    ax = fig.add_subplot()
    width = 0.8 / len(groups)
    for k, row in enumerate(groups):
        xs, ys, lo, hi = [], [], [], []
        for i, a in enumerate(agents):
            s = report.tables[a][row]
            if s.games == 0:
                continue
            xs.append(i + (k - (len(groups) - 1) / 2) * width)
            ys.append(s.win_rate)
            lo.append(s.win_rate - s.win_low)
            hi.append(s.win_high - s.win_rate)
        ax.bar(xs, ys, width, yerr=[lo, hi], capsize=3, label=ROW_NAMES[row])
    ax.set_xticks(range(len(agents)), [a if len(a) <= 24 else a[:21] + "..." for a in agents])
    ax.set_ylim(0, 1)
    ax.set_ylabel("focal win rate (score > 0)")
    title = "Focal win rate with 95% Wilson CI"
    if len(agents) > 2:
        title += " (all games of each agent)"
    ax.set_title(title + f", {report.deals.describe()['count']} deals")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.1), ncol=len(groups), fontsize="small", frameon=False)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    return buf.getvalue()


def write_report(report: Report, out_dir: str | os.PathLike) -> dict[str, Path]:
    """Write report.json, report.md and report.png into `out_dir` (created if needed)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = {"json": out / "report.json", "md": out / "report.md", "png": out / "report.png"}
    write_bytes_atomic(paths["json"], json.dumps(report.to_dict(), ensure_ascii=False).encode("utf-8"))
    write_bytes_atomic(paths["md"], to_markdown(report).encode("utf-8"))
    write_bytes_atomic(paths["png"], plot_png(report))
    return paths
