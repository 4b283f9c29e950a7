"""The recipe measured piece by piece (issue 37, point 2): each variant of an ablation
(`experiments/ablation_run.sh`, one run per variant in ROOT/<variant>/, its model kept as
`snapshots/model_<MINUTES>.pt`) against the heuristic and head to head against the base run,
team protocol on the same tuning deals.

    python experiments/ablation_table.py runs/ablation --minutes 50 --deals 1000 --deal-seed 21000000

Each comparison is one `baohuang eval --protocol team` whose report lands under `--evals`
(default ROOT/eval); one already there on this deal set is read, not played again, so the
command resumes. Prints one JSON line per variant (frames, updates, the two duplicate win rates
with their 95% intervals, the mean points per deal against the base) and the Markdown table of
docs/training.md.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from scaling_curve import HEURISTIC, compare, counters, rate  # a sibling script, not a package

BASE = "base"


def models(root: Path, minutes: str) -> dict[str, Path]:
    """Variant -> its `snapshots/model_<minutes>.pt`, for each variant that has one (base first)."""
    found = {path.parents[2].name: path for path in root.glob(f"*/*/snapshots/model_{minutes}.pt")}
    if BASE not in found:
        raise SystemExit(f"no {root}/{BASE}/RUN/snapshots/model_{minutes}.pt: the base run is what the others "
                         "are measured against")
    return {BASE: found.pop(BASE), **dict(sorted(found.items()))}


def row(variant: str, path: Path, base: Path, args: argparse.Namespace) -> dict:
    c = counters(path)
    spec = f"dmc:{path}"
    out = {"variant": variant, "frames": c["frames"], "updates": c["updates"],
           "vs_heuristic": rate(compare(spec, HEURISTIC, args, name=f"{variant}_vs_heuristic"))}
    if variant != BASE:
        result = compare(spec, f"dmc:{base}", args, name=f"{variant}_vs_{BASE}")
        d = result["diff"]
        out["vs_base"] = {**rate(result), **{f"points{end}": None if d[k] is None else round(d[k], 2)
                                             for end, k in (("", "mean"), ("_low", "low"), ("_high", "high"))}}
    return out


def percent(r: dict) -> str:
    return f"{100 * r['rate']:.1f}% [{100 * r['low']:.1f}, {100 * r['high']:.1f}]"


def markdown(rows: list[dict]) -> str:
    lines = ["| variant | frames | updates | against the heuristic | head to head against the base |",
             "|---|---:|---:|---|---|"]
    for r in rows:
        vs_base = r.get("vs_base")
        h2h = ""
        if vs_base:
            interval = "" if vs_base["points_low"] is None else \
                f" [{vs_base['points_low']:+.2f}, {vs_base['points_high']:+.2f}]"
            h2h = f"{percent(vs_base)}, {vs_base['points']:+.2f}{interval} per deal"
        lines.append(f"| {r['variant']} | {r['frames'] / 1e6:.1f} M | {r['updates']:,} | "
                     f"{percent(r['vs_heuristic'])} | {h2h} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("root", type=Path, help="the ablation's folder (ROOT/<variant>/<run>/snapshots/)")
    p.add_argument("--minutes", default="50", help="which snapshot: model_<MINUTES>.pt, as the runs wrote it")
    p.add_argument("--deals", type=int, default=1000)
    p.add_argument("--deal-seed", type=int, default=21_000_000, help="first deal seed (tuning deals by default)")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--evals", type=Path, help="where the reports are (default ROOT/eval)")
    args = p.parse_args(argv)
    args.evals = args.evals or args.root / "eval"
    args.evals.mkdir(parents=True, exist_ok=True)
    found = models(args.root, args.minutes)
    rows = [row(variant, path, found[BASE], args) for variant, path in found.items()]
    for r in rows:
        print(json.dumps(r), flush=True)
    print(markdown(rows))


if __name__ == "__main__":
    main()
