"""Strength against training time of one run's snapshots (issue 37, point 1): each snapshot
`snapshots/model_<minutes>.pt` (`experiments/scaling_run.sh` keeps one per stage) against the
heuristic and head to head against the snapshot before it, and the last against the
50-minute one, all team protocol on the same tuning deals.

    python experiments/scaling_curve.py runs/scaling/RUN --deals 1000 --deal-seed 21000000 \\
        --evals runs/scaling_eval --out docs/scaling_curve.png

Each comparison is one `baohuang eval --protocol team` whose report lands under `--evals`; a
comparison already there (any report.json in that tree with the pair on this deal set, e.g.
from an earlier call or from one `--pairs all` evaluation) is read, not played again, so the
command resumes. Prints one JSON line per snapshot (minutes, frames, updates, the two rates
with their 95% intervals) and draws the curve: win rate against the heuristic over minutes of
training, and each snapshot's head-to-head rate against the one before.
"""

from __future__ import annotations

import argparse
import functools
import json
import re
import subprocess
import sys
from pathlib import Path

import torch

from agents.files.checkpoint import sha256_of

HEURISTIC = "heuristic"


def snapshots(run: Path) -> list[tuple[int, Path]]:
    """(minutes, path) of each `snapshots/model_<minutes>.pt`, by minutes."""
    found = []
    for path in (run / "snapshots").glob("model_*.pt"):
        m = re.fullmatch(r"model_(\d+)\.pt", path.name)
        if m:
            found.append((int(m.group(1)), path))
    if not found:
        raise SystemExit(f"no snapshots/model_<minutes>.pt in {run}")
    return sorted(found)


def counters(path: Path) -> dict:
    """Frames, updates and seconds of training a model file records."""
    return torch.load(path, map_location="cpu", weights_only=False)["counters"]


@functools.cache
def _sha256(path: str, mtime_ns: int, size: int) -> str:
    """A file's sha256, hashed once per version of the file (its mtime and size are the key)."""
    return sha256_of(path)


def played_these_files(report: dict) -> bool:
    """False when a model file the report played has changed since (a run trained further under
    the same path): its result is of another agent."""
    for agent in report["agents_resolved"].values():
        file = Path(agent.get("file") or "")
        if agent.get("sha256") and file.is_file():
            stat = file.stat()
            if _sha256(str(file), stat.st_mtime_ns, stat.st_size) != agent["sha256"]:
                return False
    return True


def known_pairs(evals: Path, deals: int, first_seed: int, preset: str | None = None) -> dict[tuple[str, str], dict]:
    """Every pair result of the team reports under `evals` on this deal range (and preset, when
    given) whose model files are still the ones played, by (a, b) (also stored as (b, a) with the
    rate and the points per deal seen from b)."""
    pairs: dict[tuple[str, str], dict] = {}
    for report_file in evals.rglob("report.json"):
        report = json.loads(report_file.read_text())
        d = report["deals"]
        if report.get("partial") or report["protocol"]["name"] != "team-duplicate" \
                or (d["count"], d["first_seed"]) != (deals, first_seed) \
                or preset not in (None, d.get("preset")) or not played_these_files(report):
            continue
        for pair in report["pairs"]:
            pairs[pair["a"], pair["b"]] = {"rate": pair["duplicate_win_rate_a"], "diff": pair["paired_difference"]}
            d = pair["paired_difference"]
            seen_from_b = {**d, **{k: None if d[v] is None else -d[v]  # no interval for one deal
                                   for k, v in (("mean", "mean"), ("low", "high"), ("high", "low"))}}
            pairs[pair["b"], pair["a"]] = {"rate": pair["duplicate_win_rate_b"], "diff": seen_from_b}
    return pairs


def compare(a: str, b: str, args: argparse.Namespace, name: str | None = None, preset: str | None = None) -> dict:
    """The team result of spec `a` against spec `b`: from a report under `--evals`, or played
    into `--evals`/`name` (default: the two file stems, A_vs_B), on `preset` (default: the
    eval's, jj; a report of any preset is read)."""
    pairs = known_pairs(args.evals, args.deals, args.deal_seed, preset)
    if (a, b) not in pairs:
        out = args.evals / (name or f"{Path(a.partition(':')[2]).stem or a}_vs_{Path(b.partition(':')[2]).stem or b}")
        print(f"[eval] {a} against {b}: {args.deals} deals -> {out}", file=sys.stderr, flush=True)
        subprocess.run(["baohuang", "eval", "--agents", a, b, "--protocol", "team", "--deals", str(args.deals),
                        "--deal-seed", str(args.deal_seed), "--workers", str(args.workers), "--out", str(out),
                        *(["--preset", preset] if preset else [])],
                       stdout=subprocess.DEVNULL, check=True)  # the report is in its files; stdout is ours
        pairs = known_pairs(args.evals, args.deals, args.deal_seed, preset)
    return pairs[a, b]


def rate(result: dict) -> dict:
    r = result["rate"]
    return {"rate": round(r["rate"], 4), "low": round(r["low"], 4), "high": round(r["high"], 4),
            "deals": result["diff"]["n"]}


def draw(rows: list[dict], out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    x = [r["minutes"] for r in rows]

    def bars(ax, key, label):
        pts = [(r["minutes"], r[key]) for r in rows if r.get(key)]
        ys = [100 * p["rate"] for _, p in pts]
        err = [[100 * (p["rate"] - p["low"]) for _, p in pts], [100 * (p["high"] - p["rate"]) for _, p in pts]]
        ax.errorbar([m for m, _ in pts], ys, yerr=err, marker="o", capsize=3, label=label)

    bars(left, "vs_heuristic", "against the heuristic")
    for r in rows:
        left.annotate(f"{r['frames'] / 1e6:.0f} M frames", (r["minutes"], 100 * r["vs_heuristic"]["rate"]),
                      textcoords="offset points", xytext=(4, -12), fontsize=7)
    left.set_title("against the heuristic")
    bars(right, "vs_previous", "against the snapshot before")
    bars(right, "vs_50", "against the 50-minute snapshot")
    right.set_title("head to head")
    right.legend(fontsize=8)
    for ax in (left, right):
        ax.axhline(50, color="grey", lw=0.8, ls="--")
        ax.set_xticks(x)
        ax.set_xlabel("minutes of training on 2 cores")
        ax.set_ylabel("team duplicate win rate (%), 95% CI")
    fig.tight_layout()
    fig.savefig(out, dpi=110)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("run", type=Path, help="the run folder (with snapshots/model_<minutes>.pt)")
    p.add_argument("--deals", type=int, default=1000)
    p.add_argument("--deal-seed", type=int, default=21_000_000, help="first deal seed (tuning deals by default)")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--evals", type=Path, help="where the reports are (default RUN/scaling_eval)")
    p.add_argument("--out", type=Path, help="the figure (PNG); none: print the rows only")
    args = p.parse_args(argv)
    args.evals = args.evals or args.run / "scaling_eval"
    args.evals.mkdir(parents=True, exist_ok=True)
    snaps = snapshots(args.run)
    specs = {m: f"dmc:{path}" for m, path in snaps}
    rows, previous = [], None
    for minutes, path in snaps:
        c = counters(path)
        row = {"minutes": minutes, "frames": c["frames"], "updates": c["updates"],
               "vs_heuristic": rate(compare(specs[minutes], HEURISTIC, args))}
        if previous is not None:
            row["vs_previous"] = {"of": previous, **rate(compare(specs[minutes], specs[previous], args))}
        if 50 in specs and minutes > 50 and previous != 50:
            row["vs_50"] = rate(compare(specs[minutes], specs[50], args))
        print(json.dumps(row), flush=True)
        rows.append(row)
        previous = minutes
    if args.out:
        draw(rows, args.out)


if __name__ == "__main__":
    main()
