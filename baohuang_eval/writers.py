"""Writers of an evaluation `Report`: report.json, report.md (Markdown tables to paste into a
paper) and report.png (win rate per agent and side with 95% Wilson intervals: focal win rates
in the seat protocol, side win rates in the team protocol).

Tables and plots name agents by `names.display_names` (paths cut short); report.md's header
says which full spec each name stands for, and report.json keeps the full specs. A partial
report (an evaluation stopped by Ctrl-C) says so in its header. `summary_lines` is the few
lines a caller prints after the tables (the training's final evaluation).

Every file is written atomically (a temporary file in the same folder, then a rename).
"""

from __future__ import annotations

import io
import json
import math
import os
from collections.abc import Callable
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from baohuang_env.replay import atomic_path

from .protocol import PairGames, Protocol
from .report import Report
from .seat import ROWS, SEAT
from .stats import DuplicateStats, PairedStats, Stats
from .team import TEAM, TEAM_ROWS

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


def _dup(d: DuplicateStats) -> str:
    if d.games == 0:
        return "–"
    return f"{100 * d.rate:.1f}% [{100 * d.low:.1f}, {100 * d.high:.1f}]"


def _verdict(p: PairGames, names: Mapping[str, str]) -> str:
    v = p.paired.verdict
    return (f"{_cell(names[p.a])} better" if v == "A" else f"{_cell(names[p.b])} better" if v == "B"
            else "no significant difference")


def _focal_rows(name: str, table: dict[str, Stats]) -> list[str]:
    return [f"| {_cell(name)} | {ROW_NAMES[row]} | {table[row].games} | {_pct(table[row])} | {_score(table[row])} |"
            for row in ROWS if table[row].games or row in ("overall", "emperor_side", "rebel_side")]


FOCAL_HEADER = ["| agent | seats | games | win rate [95% CI] | mean score [95% CI] |", "|---|---|---:|---|---|"]


SIDE_HEADER = ["| agent | side | games | won / drawn / lost | win rate [95% CI] | mean side result [95% CI] |",
               "|---|---|---:|---|---|---|"]


def _side_rows(name: str, table: dict[str, Stats]) -> list[str]:
    return [f"| {_cell(name)} | {ROW_NAMES[row] if row != 'rebel_side' else 'rebels'} | {table[row].games} | "
            f"{table[row].wins} / {table[row].draws} / {table[row].losses} | {_pct(table[row])} | "
            f"{_mean(table[row].mean_score, table[row].score_low, table[row].score_high, signed=True)} |"
            for row in TEAM_ROWS]


def _header(report: Report) -> list[str]:
    d = report.deals.describe()
    t = report.timing
    seeds = (f"seeds {d['first_seed']}..{d['last_seed']}" if d["contiguous"] else "seeds from a list")
    source = "" if d["source"] == "range" else f", file `{d['source']}`"
    deals = f"Rules: preset `{d['preset']}`. Deals: {d['count']} ({seeds}{source}; fingerprint `{d['fingerprint']}`). "
    summary = _LAYOUTS[report.protocol].summary.format(version=report.protocol.version)
    lines = ["# Baohuang evaluation", "", deals + summary]
    if report.partial:
        finished = "; ".join(f"{_cell(report.names[p.a])} vs {_cell(report.names[p.b])}: {p.deals}"
                             for p in report.pairs)
        lines += ["", f"**Partial report**: the evaluation was stopped (Ctrl-C) before it ended; deals finished "
                      f"of the {d['count']} asked: {finished}."]
    long = [(n, s) for s, n in report.names.items() if n != s]
    if long:
        lines += ["", "Agents: " + "; ".join(f"{_cell(n)} is {_cell(s)}" for n, s in long) + "."]
    if t:
        rate = f", {t['games_per_s']:.0f} games/s" if t.get("games_per_s") else ""
        lines.append(f"Games: {t['games']} in {t['seconds']:.1f} s{rate} on {t['workers']} worker(s).")
    return lines


def _matrix_and_ratings(report: Report, per: str) -> list[str]:
    lines = []
    names = report.names
    if len(report.agents) > 2:
        lines += ["", "## Head-to-head matrix (mean d of row against column, 95% CI)", "",
                  "| | " + " | ".join(_cell(names[b]) for b in report.agents) + " |",
                  "|---|" + "---|" * len(report.agents)]
        for a, row in report.matrix().items():
            cells = ["·" if m is None else _mean(m.mean, m.low, m.high, signed=True) for m in row.values()]
            lines.append(f"| {_cell(names[a])} | " + " | ".join(cells) + " |")
    lines += ["", f"## Ratings (openskill Plackett-Luce, one match per {per})", "",
              "| rank | agent | mu | sigma | ordinal (mu − 3σ) |", "|---:|---|---:|---:|---:|"]
    ranked = sorted(report.ratings.items(), key=lambda kv: -kv[1].ordinal)
    for i, (a, r) in enumerate(ranked, 1):
        lines.append(f"| {i} | {_cell(names[a])} | {r.mu:.2f} | {r.sigma:.2f} | {r.ordinal:.2f} |")
    return lines


def _head_to_head_row(p: PairGames, last_rate: str, names: Mapping[str, str]) -> str:
    """A pair's head-to-head row, both protocols: paired difference, counts, A's win rate,
    then the protocol's own rate (B's focal win rate, or A's duplicate win rate), verdict."""
    ps: PairedStats = p.paired
    return (f"| {_cell(names[p.a])} | {_cell(names[p.b])} | {ps.n} | {_mean(ps.mean, ps.low, ps.high, signed=True)} "
            f"| {ps.a_better} / {ps.ties} / {ps.b_better} | {_pct(p.table_a['overall'])} | {last_rate} "
            f"| {_verdict(p, names)} |")


def _team_markdown(report: Report) -> list[str]:
    lines = [
        "",
        "## Head-to-head (team duplicate, paired by deal)",
        "",
        "d = emperor's score with A on the emperor's side − emperor's score with B on it, same deal "
        "(the sum of A's two side results). Duplicate win rate = (games A's side won + ½ draws) / games.",
        "",
        "| A | B | deals | mean d [95% CI] | A better / tie / B better | A side win rate | "
        "A duplicate win rate | verdict |",
        "|---|---|---:|---|---|---|---|---|",
    ]
    names = report.names
    lines += [_head_to_head_row(p, _dup(p.duplicate), names) for p in report.pairs]
    for p in report.pairs:
        solos = len({r.deal for r in p.records if r.solo})
        lines += ["", f"## Side results: {_cell(names[p.a])} vs {_cell(names[p.b])}", "",
                  f"Side result = the emperor's score, negated for the rebels (> 0: the side won). "
                  f"{solos} of {p.paired.n} deals are hidden solos (an emperor's side of one).", "",
                  *SIDE_HEADER]
        lines += _side_rows(names[p.a], p.table_a) + _side_rows(names[p.b], p.table_b)
    if len(report.agents) > 2:
        lines += ["", "## Side results per agent (all its games, against every opponent it met)", "",
                  *SIDE_HEADER]
        for a in report.agents:
            lines += _side_rows(names[a], report.tables[a])
        lines += ["", "| agent | duplicate win rate [95% CI] |", "|---|---|"]
        lines += [f"| {_cell(names[a])} | {_dup(report.duplicate[a])} |" for a in report.agents]
    return lines + _matrix_and_ratings(report, "deal")


def _seat_markdown(report: Report) -> list[str]:
    lines = [
        "",
        "## Head-to-head (paired by deal and seat)",
        "",
        "d = score(A focal) − score(B focal) on the same deal and seat.",
        "",
        "| A | B | pairs | mean d [95% CI] | A better / tie / B better | A focal win rate | B focal win rate "
        "| verdict |",
        "|---|---|---:|---|---|---|---|---|",
    ]
    names = report.names
    lines += [_head_to_head_row(p, _pct(p.table_b["overall"]), names) for p in report.pairs]
    for p in report.pairs:
        lines += ["", f"## Focal results: {_cell(names[p.a])} vs {_cell(names[p.b])}", "", *FOCAL_HEADER]
        lines += _focal_rows(names[p.a], p.table_a) + _focal_rows(names[p.b], p.table_b)
    if len(report.agents) > 2:
        lines += ["", "## Focal results per agent (all its games, against every opponent it met)", "",
                  *FOCAL_HEADER]
        for a in report.agents:
            lines += _focal_rows(names[a], report.tables[a])
    return lines + _matrix_and_ratings(report, "paired deal and seat")


@dataclass(frozen=True)
class _Layout:
    """How the files present one protocol's report."""

    summary: str  # the protocol sentence of report.md ({version}: the protocol's version)
    body: Callable[[Report], list[str]]  # report.md after the header
    plot_ylabel: str
    plot_title: str


_LAYOUTS: dict[Protocol, _Layout] = {
    SEAT: _Layout(
        ("Protocol: duplicate rotation v{version}, each deal played 10 times per pair (each agent "
                         "at each seat, against four copies of the other). Win = focal score > 0. Intervals are "
                         "95%: Wilson for win rates, Student t for means."),
        _seat_markdown, "focal win rate (score > 0)", "Focal win rate with 95% Wilson CI"),
    TEAM: _Layout(
        ("Protocol: team duplicate v{version}: roles fixed by the default answers (accept the "
                         "throne, declare nothing), so the emperor is the first holder of the emperor card and the "
                         "guard the holder of the guard card (a hidden solo if the same); the play phase of each "
                         "deal is played twice per pair, A at every seat of the emperor's side against B at every "
                         "rebel seat, then swapped. A side wins when the emperor's score is > 0 (emperor's side) or "
                         "< 0 (rebels). Intervals are 95%: Wilson for win rates (for duplicate win rates on wins + "
                         "½ draws), Student t for means."),
        _team_markdown, "side win rate (side result > 0)", "Team side win rate, 95% Wilson CI"),
}


def to_markdown(report: Report) -> str:
    """The report as Markdown: protocol line, head-to-head, focal (seat protocol) or side (team
    protocol) tables, matrix, ratings."""
    return "\n".join(_header(report) + _LAYOUTS[report.protocol].body(report)) + "\n"


def summary_lines(report: Report) -> list[str]:
    """One line per pair with its headline figure and 95% interval: A's team duplicate win rate
    against B (team protocol; the figure the docs quote), or A's mean score difference against
    B (seat protocol); "(partial: N of M deals)" where the evaluation was stopped."""
    names, asked = report.names, len(report.deals.seeds)
    lines = []
    for p in report.pairs:
        if report.protocol is TEAM:
            figure = f"team duplicate win rate {_dup(p.duplicate)}"
        else:
            figure = f"seat protocol mean score difference {_mean(p.paired.mean, p.paired.low, p.paired.high, True)}"
        partial = f" (partial: {p.deals} of {asked} deals)" if report.partial else ""
        lines.append(f"{names[p.a]} vs {names[p.b]}: {figure}{partial}")
    return lines


# ----------------------------------------------------------------------------- plot
def plot_png(report: Report) -> bytes:
    """Bar chart of win rate per agent: overall, emperor side, rebel side, with 95% Wilson
    intervals (focal win rate in the seat protocol, side win rate in the team protocol).
    Returns PNG bytes (matplotlib Agg backend)."""
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
    ticks = [report.names[a] for a in agents]
    ax.set_xticks(range(len(agents)), [t if len(t) <= 24 else t[:21] + "..." for t in ticks])
    ax.set_ylim(0, 1)
    layout = _LAYOUTS[report.protocol]
    ax.set_ylabel(layout.plot_ylabel)
    title = layout.plot_title
    if len(agents) > 2:
        title += " (all games of each agent)"
    ax.set_title(title + f", {report.deals.describe()['count']} deals" + (" (partial)" if report.partial else ""))
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.1), ncol=len(groups), fontsize="small", frameon=False)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    return buf.getvalue()


def write_bytes_atomic(path: str | os.PathLike, data: bytes) -> None:
    """Write `data` to `path` atomically (`baohuang_env.replay.atomic_path`)."""
    with atomic_path(path) as tmp, open(tmp, "wb") as f:
        f.write(data)


def write_report(report: Report, out_dir: str | os.PathLike) -> dict[str, Path]:
    """Write report.json, report.md and report.png into `out_dir` (created if needed)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = {"json": out / "report.json", "md": out / "report.md", "png": out / "report.png"}
    write_bytes_atomic(paths["json"], json.dumps(report.to_dict(), ensure_ascii=False).encode("utf-8"))
    write_bytes_atomic(paths["md"], to_markdown(report).encode("utf-8"))
    write_bytes_atomic(paths["png"], plot_png(report))
    return paths


__all__ = ["plot_png", "summary_lines", "to_markdown", "write_bytes_atomic", "write_report"]
