"""The measurement scripts of experiments/ (not installed: loaded from their files)."""

from __future__ import annotations

import importlib.util
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _bench_compare():
    spec = importlib.util.spec_from_file_location("bench_compare", ROOT / "experiments" / "bench_compare.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_bench_compare_keeps_the_best_of_each_figure_and_the_ratio():
    bc = _bench_compare()

    def report(rate: float, us: float) -> dict:
        return {**dict.fromkeys(bc.RATES, rate), **dict.fromkeys(bc.TIMES, us)}

    summary = bc.summarize([report(100, 2.0), report(120, 1.5)], [report(90, 1.0), report(110, 3.0)])
    assert summary["env_steps_per_s"] == {"old": 120, "new": 110, "new_over_old": 0.917}
    assert summary["mask_us_per_call_lead"] == {"old": 1.5, "new": 1.0, "new_over_old": 0.667}
    assert set(summary) == {*bc.RATES, *bc.TIMES}


def test_bench_compare_refuses_a_checkout_without_the_project_installed(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        _bench_compare().main([str(tmp_path), str(ROOT)])
    assert exit_info.value.code == 2
    assert f"{tmp_path} has no .venv/bin/baohuang" in capsys.readouterr().err


def test_main_job_seeds_refuses_a_checkout_without_the_project_installed(tmp_path):
    done = subprocess.run(["bash", str(ROOT / "experiments" / "main_job_seeds.sh"), str(tmp_path), str(tmp_path)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=30)
    assert done.returncode == 2 and f"{tmp_path} has no .venv/bin/baohuang" in done.stderr
