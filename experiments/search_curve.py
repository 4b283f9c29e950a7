"""Strength against time per decision of `search` settings: one point per (setting,
opponent), the search's team duplicate win rate (95% CI) against that opponent over the
milliseconds of a searched decision on one core.

    python experiments/search_cost.py --games 20 search:w=4:m=2 search:w=8:m=3 > costs.jsonl
    baohuang eval --agents search:w=4:m=2 pretrained heuristic --pairs first --protocol team \\
        --deals 300 --deal-seed 23000000 --out runs/search/w4
    ...
    python experiments/search_curve.py --costs costs.jsonl runs/search/w4 ... --out docs/search_curve.png

Reads `search_cost.py`'s JSON lines and the evaluations' `report.json` (team protocol, the
search agent first in every pair); a setting is matched to its cost by its full spec
(`SearchSettings.spec`). Prints the points as JSON and draws them, one line per opponent.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from agents.search import SearchSettings
from baohuang_eval.team import TeamProtocol


def full_spec(spec: str) -> str:
    """`spec` with every setting written out, as `search_cost.py` prints it."""
    return SearchSettings.parse(spec.partition(":")[2]).spec


def points(costs: dict[str, dict], report: dict) -> list[dict]:
    """One point per pair of a team-protocol report whose first agent searches."""
    if (report.get("protocol") or {}).get("name") != TeamProtocol.report_name:
        raise SystemExit("search_curve.py reads team-protocol reports (baohuang eval --protocol team)")
    out = []
    for pair in report["pairs"]:
        if not pair["a"].startswith("search"):
            continue
        spec = full_spec(pair["a"])
        if spec not in costs:
            raise SystemExit(f"no cost line for {pair['a']} ({spec}): run search_cost.py for it")
        rate, cost = pair["duplicate_win_rate_a"], costs[spec]
        out.append({"search": pair["a"], "opponent": pair["b"], "deals": pair["paired_difference"]["n"],
                    "duplicate_win_rate": round(rate["rate"], 4), "low": round(rate["low"], 4),
                    "high": round(rate["high"], 4), "ms_per_searched_decision": round(cost["ms_p50"], 1),
                    "ms_per_decision": round(cost["ms_per_decision"], 1),
                    "searched_share": round(cost["searched_share"], 3)})
    return out


def draw(rows: list[dict], out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for opponent in sorted({r["opponent"] for r in rows}):
        mine = sorted((r for r in rows if r["opponent"] == opponent), key=lambda r: r["ms_per_searched_decision"])
        x = [r["ms_per_searched_decision"] for r in mine]
        y = [100 * r["duplicate_win_rate"] for r in mine]
        err = [[100 * (r["duplicate_win_rate"] - r["low"]) for r in mine],
               [100 * (r["high"] - r["duplicate_win_rate"]) for r in mine]]
        ax.errorbar(x, y, yerr=err, marker="o", capsize=3, label=f"against {opponent}")
        for r in mine:
            ax.annotate(r["search"].removeprefix("search:"), (r["ms_per_searched_decision"],
                        100 * r["duplicate_win_rate"]), textcoords="offset points", xytext=(4, 4), fontsize=7)
    ax.axhline(50, color="grey", lw=0.8, ls="--")
    ax.set_xscale("log")
    plain = matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}")  # 30, not 3 x 10^1
    ax.xaxis.set_major_formatter(plain)
    ax.xaxis.set_minor_formatter(plain)
    ax.set_xlabel("ms per searched decision on one core (median)")
    ax.set_ylabel("team duplicate win rate (%), 95% CI")
    ax.legend()
    fig.tight_layout()
    fig.savefig(out, dpi=110)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("reports", nargs="+", type=Path, help="folders of baohuang eval --protocol team (report.json)")
    p.add_argument("--costs", type=Path, required=True, help="search_cost.py's JSON lines")
    p.add_argument("--out", type=Path, help="the figure (PNG); none: print the points only")
    args = p.parse_args(argv)
    costs = {}
    for line in args.costs.read_text().splitlines():
        if line.strip():
            row = json.loads(line)
            costs[row["spec"]] = row
    rows = [pt for folder in args.reports for pt in points(costs, json.loads((folder / "report.json").read_text()))]
    for row in rows:
        print(json.dumps(row))
    if args.out:
        draw(rows, args.out)


if __name__ == "__main__":
    main()
