"""What a file of this project holds, as one dict (`baohuang info` prints it): a training
checkpoint, a playing copy (a run's model.pt, an export, a shipped agent), a run directory,
or an ONNX graph written by `baohuang export --onnx`.

Every kind reads into the same keys, so a user compares a checkpoint with its export at a
glance: `kind`, `algo`, `preset`, `rules_fingerprint`, `network` (the arch: sizes, the
per-role or shared layout, the advice), `frames`, `updates`, `training_minutes`,
`evaluating_minutes`, `config`, `evaluation` (None when none is recorded), `size_bytes` and
`sha256` (a run directory: its files' sizes together, and None: each file's is under
`files`); a shipped agent adds `shipped` (what it is and how strong), a run directory `files`,
an ONNX graph `onnx` (its inputs, outputs and what the values mean).

The evaluation is the final one `baohuang train` writes beside the run's checkpoint
(`eval-team/report.json`, `eval-seat/report.json`): the trained agent against each opponent,
as the paired mean difference with its 95% interval and the win rate. A checkpoint carries no
evaluation of its own, so a file outside a run directory has none (a shipped agent's `shipped`
line states its measured strength).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from .checkpoint import checkpoint_kind, load_checkpoint, sha256_of
from .onnx_export import INPUTS, ONNX_FORMAT, require_onnx
from ..pretrained import SHIPPED, checkpoint_path
from ..training.run import CHECKPOINT_NAME, MODEL_NAME

#: The final evaluations a run directory may hold, by protocol.
EVAL_FOLDERS = {"team": "eval-team", "seat": "eval-seat"}
#: The kinds of file `describe_file` reads, for its refusals.
WHAT_IS_READ = "training checkpoints, playing copies, run directories and .onnx files from `baohuang export --onnx`"


def describe_file(path: str | os.PathLike) -> dict[str, Any]:
    """What `path` holds (see the module docstring); ValueError saying what it is instead when
    it is none of the kinds above."""
    given = Path(path)
    if given.is_dir():
        return _describe_run(given)
    file = checkpoint_path(given)  # a shipped agent's path as the docs write it, from anywhere
    if not file.is_file():
        raise ValueError(f"{given} does not exist")
    try:
        info = _describe_onnx(file) if file.suffix == ".onnx" else _describe_checkpoint(file)
    except ValueError as err:
        raise ValueError(f"{err} (this reads {WHAT_IS_READ})") from None
    info.update(size_bytes=file.stat().st_size, sha256=sha256_of(file))
    shipped = SHIPPED.get(file.stem)
    if shipped is not None and file.resolve() == shipped.path.resolve():
        info["shipped"] = f"{shipped.spec}: {shipped.about}"
    return info


def _describe_checkpoint(file: Path) -> dict[str, Any]:
    ckpt = load_checkpoint(file)
    kind = checkpoint_kind(ckpt)
    return _summary(file, "training checkpoint" if kind == "training" else "playing copy", ckpt["compat"],
                    ckpt.get("arch", {}), ckpt.get("config", {}), ckpt.get("counters", {}),
                    _evaluation(file.parent))


def _describe_run(folder: Path) -> dict[str, Any]:
    files = {name: folder / name for name in (CHECKPOINT_NAME, MODEL_NAME) if (folder / name).is_file()}
    if not files:
        raise ValueError(f"{folder} is a directory without {CHECKPOINT_NAME} or {MODEL_NAME}: not a run directory "
                         f"(this reads {WHAT_IS_READ})")
    main = next(iter(files.values()))  # the training checkpoint when there is one: it is the newest state
    info = _describe_checkpoint(main)
    info.update(path=str(folder), kind="run directory",
                files={name: {"kind": checkpoint_kind(f), "size_bytes": f.stat().st_size, "sha256": sha256_of(f)}
                       for name, f in files.items()},
                size_bytes=sum(f.stat().st_size for f in folder.rglob("*") if f.is_file()), sha256=None)
    return info


def _describe_onnx(file: Path) -> dict[str, Any]:
    onnx = require_onnx()
    try:
        model = onnx.load(str(file), load_external_data=False)
    except Exception as err:  # protobuf's decode errors have several types
        raise ValueError(f"{file} is not an ONNX model ({type(err).__name__}: {err})") from None
    meta = {p.key: p.value for p in model.metadata_props}
    if meta.get("baohuang_format") != ONNX_FORMAT:
        raise ValueError(f"{file} is an ONNX model, but not one `baohuang export --onnx` wrote (no Baohuang metadata)")
    loaded = {key: json.loads(meta[key]) for key in ("rules", "arch", "config", "counters", "inputs", "outputs")}
    compat = {"algo": meta["algo"], "rules": loaded["rules"], "rules_fingerprint": meta["rules_fingerprint"]}
    info = _summary(file, "onnx graph", compat, loaded["arch"], loaded["config"], loaded["counters"], None)
    info["onnx"] = {"inputs": {k: loaded["inputs"][k] for k in INPUTS}, "outputs": loaded["outputs"],
                    "values": meta["values"], "opset": max(o.version for o in model.opset_import),
                    "source_sha256": meta["source_sha256"]}
    return info


def _summary(file: Path, kind: str, compat: dict[str, Any], arch: dict[str, Any], config: dict[str, Any],
             counters: dict[str, Any], evaluation: list[dict[str, Any]] | None) -> dict[str, Any]:
    """The keys every kind has."""
    return {
        "path": str(file), "kind": kind, "algo": compat.get("algo"),
        "preset": (compat.get("rules") or {}).get("preset"), "rules_fingerprint": compat.get("rules_fingerprint"),
        "network": arch, "frames": counters.get("frames"), "updates": counters.get("updates"),
        "training_minutes": _minutes(counters.get("elapsed_s")), "evaluating_minutes": _minutes(counters.get("eval_s")),
        "config": config, "evaluation": evaluation,
    }


def _minutes(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds / 60, 2)


def _evaluation(folder: Path) -> list[dict[str, Any]] | None:
    """The final evaluations in a run directory (`EVAL_FOLDERS`), one entry per protocol and
    opponent of the trained agent (the report's first agent), or None when there is none."""
    found = []
    for protocol, name in EVAL_FOLDERS.items():
        report_file = folder / name / "report.json"
        if not report_file.is_file():
            continue
        report = json.loads(report_file.read_text(encoding="utf-8"))
        deals = report["deals"]["count"]
        for pair in report["pairs"]:
            if pair["a"] != report["agents"][0]:
                continue
            diff = pair["paired_difference"]
            # team: the duplicate win rate of the agent's side; seat: the focal agent's win rate
            team = protocol == "team"
            rate = pair["duplicate_win_rate_a"]["rate"] if team else pair["focal_a"]["overall"]["win_rate"]
            found.append({"protocol": protocol, "agent": pair["a"], "opponent": pair["b"], "deals": deals,
                          "mean_diff": diff["mean"], "low": diff["low"], "high": diff["high"], "win_rate": rate,
                          "report": str(report_file)})
    return found or None
