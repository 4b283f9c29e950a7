"""experiments/ray_throughput.py's arithmetic (the measurement itself is run by hand: its
figures are in docs/training.md, "Scaling out on Ray")."""

from __future__ import annotations


import pytest

from helpers import load_experiment




def test_window_rates_skip_the_warmup_lines():
    log = ("[dmc] 0.0 min training  frames 0  0 frames/s  updates 0\n"
           "[dmc] 0.1 min training  frames 9,000  4,500 frames/s  updates 3\n"
           "[dmc] 0.1 min training  frames 21,000  6,000 frames/s  updates 9\n")
    assert load_experiment("ray_throughput").window_rates(log, warmup=1) == [4500.0, 6000.0]


def test_summary_costs_per_frame_and_the_learners_limit():
    rt = load_experiment("ray_throughput")
    run = {"frames": 2000, "rows": 1000, "updates": 2, "windows": 3}
    results = {"local-1": [{**run, "fps": 1000.0}], "ray-1": [{**run, "fps": 800.0}],
               "local-2": [{**run, "fps": 2000.0}], "ray-2": [{**run, "fps": 1500.0}]}
    out = rt.summarize(results, {"s_per_update": 0.01, "rows_per_update": 500}, {"s_per_chunk_call": 0.001,
                                                                                 "rows_per_chunk": 50})
    assert out["frames_per_row"] == 2.0
    assert out["actor_us_per_frame"] == 1000.0  # 1 / 1000 frames/s
    assert out["ray_overhead_us_per_frame_1_actor"] == 250.0  # 1/800 - 1/1000 s
    assert out["ray_over_local"] == {1: 0.8, 2: 0.75}
    assert out["learner_us_per_frame"] == 10.0 and out["learner_capacity_fps"] == 100_000  # 0.01 s / 1000 frames
    assert out["transport_us_per_frame"] == 10.0  # 0.001 s / 100 frames
    assert out["actors_to_saturate_learner"] == pytest.approx(50.0)  # 1000 us / (10 + 10) us
