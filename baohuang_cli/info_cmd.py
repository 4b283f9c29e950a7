"""`baohuang info FILE [--json]`: what a training checkpoint, a playing copy (model.pt, a
shipped agent), a run directory or an exported .onnx file holds: preset and rules
fingerprint, algorithm, network layout, frames, updates, training time, the config, the last
evaluation when one is recorded, size and sha256 (`agents.files.file_info.describe_file`)."""

from __future__ import annotations

import json
import textwrap
from typing import Any


def add_parser(sub) -> None:
    p = sub.add_parser("info", help="print what a checkpoint, model, run directory or .onnx file holds")
    p.add_argument("file", help="checkpoint.pt, model.pt, a shipped agent (agents/pretrained/NAME.pt), a run "
                                "directory, or a .onnx file from `baohuang export --onnx`")
    p.add_argument("--json", action="store_true", help="print the summary as one JSON object")


def main(args) -> int:
    from agents.files.file_info import describe_file

    info = describe_file(args.file)
    print(json.dumps(info, indent=2) if args.json else "\n".join(summary_lines(info)))
    return 0


def summary_lines(info: dict[str, Any]) -> list[str]:
    """The readable form of a `describe_file` dict: a title line, then one labelled line per fact."""
    rows: list[tuple[str, str]] = []
    if "shipped" in info:
        rows.append(("shipped", info["shipped"]))
    rows += [("algorithm", str(info["algo"])), ("preset", str(info["preset"])),
             ("rules fingerprint", str(info["rules_fingerprint"])),
             ("network", ", ".join(f"{k} {v}" for k, v in info["network"].items())),
             ("frames", _count(info["frames"])), ("updates", _count(info["updates"])),
             ("training time", _training_time(info))]
    config = info["config"]
    rows.append(("config", f"{len(config)} keys (values: --json): {', '.join(config)}" if config else "none"))
    rows += [("evaluation", line) for line in _evaluation_lines(info["evaluation"])]
    for name, f in info.get("files", {}).items():
        rows.append(("file", f"{name}: {f['kind']}, {f['size_bytes']:,} bytes, sha256 {f['sha256']}"))
    if "onnx" in info:
        onnx = info["onnx"]
        rows += [("onnx inputs", ", ".join(f"{k} {v}" for k, v in onnx["inputs"].items())),
                 ("onnx outputs", ", ".join(f"{k} {v}" for k, v in onnx["outputs"].items())),
                 ("values", onnx["values"]), ("onnx opset", str(onnx["opset"])),
                 ("exported from", f"a checkpoint with sha256 {onnx['source_sha256']}")]
    rows.append(("size", f"{info['size_bytes']:,} bytes"))
    if info["sha256"]:
        rows.append(("sha256", info["sha256"]))
    width = max(len(label) for label, _ in rows)
    lines = [f"{info['path']}: {info['kind']}"]
    for label, text in rows:
        wrapped = textwrap.wrap(text, 110 - width) or [""]
        lines += [f"  {label:<{width}}  {wrapped[0]}", *(f"  {'':<{width}}  {more}" for more in wrapped[1:])]
    return lines


def _count(value: int | None) -> str:
    return "not recorded" if value is None else f"{value:,}"


def _training_time(info: dict[str, Any]) -> str:
    if info["training_minutes"] is None:
        return "not recorded"
    return f"{info['training_minutes']:.1f} min (and {info['evaluating_minutes'] or 0:.1f} min evaluating during it)"


def _evaluation_lines(evaluation: list[dict[str, Any]] | None) -> list[str]:
    if not evaluation:
        return ["none recorded (`baohuang train` writes one into the run directory at the end)"]
    lines = []
    for e in evaluation:
        interval = "" if e["low"] is None else f" [{e['low']:+.2f}, {e['high']:+.2f}]"
        rate = "n/a" if e["win_rate"] is None else f"{e['win_rate']:.1%}"
        label = "duplicate win rate" if e["protocol"] == "team" else "win rate"
        lines.append(f"{e['protocol']} protocol vs {e['opponent']} on {e['deals']} deals: mean score difference "
                     f"{e['mean_diff']:+.2f}{interval}, {label} {rate}")
    return lines
