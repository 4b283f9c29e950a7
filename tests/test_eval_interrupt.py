"""Ctrl-C during `baohuang eval`: a real SIGINT to a real subprocess stops it within seconds,
exits 130 without a traceback, and leaves a report marked partial with the deals finished."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

#: 3000 deals of heuristic against greedy: minutes of games, so the SIGINT always lands mid-evaluation.
DEALS = 3000
#: A generous bound on a loaded machine: the pool used to wait for every chunk (minutes).
STOP_WITHIN_S = 15.0


def _sigint_default() -> None:
    """The child starts with Python's Ctrl-C handling even if this test runs where SIGINT is
    ignored (a background job of a non-interactive shell)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class _Reader(threading.Thread):
    """Collects a stream as it comes (the progress line ends in \\r, not \\n)."""

    def __init__(self, stream) -> None:
        super().__init__(daemon=True)
        self.stream, self.chunks = stream, []

    def run(self) -> None:
        for chunk in iter(lambda: self.stream.read1(4096), b""):
            self.chunks.append(chunk)

    @property
    def text(self) -> str:
        return b"".join(self.chunks).decode("utf-8", "replace")


def _games_done(progress: str) -> int:
    """The games counted on the last progress line so far."""
    counts = re.findall(r"eval: (\d+)/\d+ games", progress)
    return int(counts[-1]) if counts else 0


@pytest.mark.slow
@pytest.mark.parametrize("to_group", [True, False], ids=["ctrl-c-to-the-process-group", "sigint-to-the-command"])
def test_ctrl_c_stops_eval_at_once_with_a_partial_report(tmp_path: Path, to_group: bool):
    out = tmp_path / "report"
    cmd = [sys.executable, "-m", "baohuang_cli.cli", "eval", "--agents", "heuristic", "greedy", "--deals", str(DEALS),
           "--deal-seed", "5000", "--workers", "2", "--out", str(out)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                            preexec_fn=_sigint_default)
    stdout, stderr = _Reader(proc.stdout), _Reader(proc.stderr)
    stdout.start()
    stderr.start()
    try:
        deadline = time.monotonic() + 90
        while _games_done(stderr.text) == 0 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)  # until a first chunk is finished, so the partial report has games
        assert proc.poll() is None and _games_done(stderr.text) > 0, stderr.text
        sent = time.monotonic()
        if to_group:  # what a terminal's Ctrl-C does: the command and its workers
            os.killpg(proc.pid, signal.SIGINT)
        else:
            proc.send_signal(signal.SIGINT)
        code = proc.wait(timeout=60)
        took = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    stdout.join(5)
    stderr.join(5)
    assert code == 130, stderr.text
    assert took < STOP_WITHIN_S, f"stopped {took:.1f} s after SIGINT"
    assert "Traceback" not in stderr.text + stdout.text
    assert "stopped by Ctrl-C; the report above is partial" in stderr.text
    assert "**Partial report**" in stdout.text
    report = json.loads((out / "report.json").read_text())
    assert report["partial"] is True and report["deals_asked"] == DEALS
    [pair] = report["pairs"]
    assert 0 < pair["deals"] < DEALS
    assert pair["games"] == 10 * pair["deals"] == len(pair["records"]["deal"])
    assert set(pair["records"]["deal"]) <= set(range(5000, 5000 + DEALS))
    assert "partial" in (out / "report.md").read_text().lower()
    deadline = time.monotonic() + 10  # the workers are gone with it (ended, not left to finish)
    while subprocess.run(["pgrep", "-s", str(proc.pid)], capture_output=True).returncode == 0:
        assert time.monotonic() < deadline, "a worker outlived the command"
        time.sleep(0.2)
