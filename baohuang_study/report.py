"""Writing a study's report: report.json, report.md and report.png in one folder, each
atomically (`baohuang_eval.writers.write_bytes_atomic`: a temporary file, then a rename), in
a new folder of its own by default (`baohuang_env.replay.fresh_folder`)."""

from __future__ import annotations

import io
import json
import math
import os
import time
from pathlib import Path
from typing import Any

from baohuang_env.replay import fresh_folder
from baohuang_eval.writers import write_bytes_atomic


def json_safe(x: Any) -> Any:
    """`x` with NaN and infinities as None and numpy scalars as Python numbers."""
    if isinstance(x, dict):
        return {str(k): json_safe(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [json_safe(v) for v in x]
    if hasattr(x, "item") and not isinstance(x, str):
        x = x.item()
    if isinstance(x, float) and not math.isfinite(x):
        return None
    return x


def out_folder(out: str | os.PathLike | None, study: str) -> Path:
    """`out`, or a new folder runs/study/<study>-<timestamp>[-N]."""
    if out is not None:
        return Path(out)
    return fresh_folder("runs/study", f"{study}-{time.strftime('%Y%m%d-%H%M%S')}")


def figure(rows: int, cols: int, width: float = 5.0, height: float = 3.6):
    """A matplotlib Figure (Agg backend) with a grid of axes: (fig, axes as a flat list)."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width * cols, height * rows), dpi=100)
    axes = [fig.add_subplot(rows, cols, i + 1) for i in range(rows * cols)]
    return fig, axes


def png_bytes(fig) -> bytes:
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    return buf.getvalue()


def write_study(out_dir: str | os.PathLike, data: dict[str, Any], markdown: str, png: bytes) -> dict[str, Path]:
    """Write report.json, report.md and report.png into `out_dir` (created if needed)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = {"json": out / "report.json", "md": out / "report.md", "png": out / "report.png"}
    write_bytes_atomic(paths["json"], json.dumps(json_safe(data), ensure_ascii=False, indent=1).encode("utf-8"))
    write_bytes_atomic(paths["md"], markdown.encode("utf-8"))
    write_bytes_atomic(paths["png"], png)
    return paths


def short_name(spec: str, width: int = 32) -> str:
    """An agent spec short enough for a plot title: kind:<run folder> for a checkpoint."""
    kind, _, path = spec.partition(":")
    if path:
        parts = path.replace("\\", "/").rstrip("/").split("/")
        name = parts[-2] if len(parts) > 1 and parts[-1] in ("model.pt", "checkpoint.pt") else parts[-1]
        spec = f"{kind}:{name}"
    return spec if len(spec) <= width else spec[: width - 1] + "…"


def fmt(x: float | None, digits: int = 3) -> str:
    """A number for a Markdown table ('-' for none)."""
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{digits}f}"


__all__ = ["figure", "fmt", "json_safe", "out_folder", "png_bytes", "short_name", "write_study"]
