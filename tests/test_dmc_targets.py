"""DMC's regression targets (`target_lambda`, `agents.dmc.targets`): the Monte-Carlo return by
default, staged as before (pinned); below 1, λ-returns over each seat's decisions that
bootstrap from the Q the actor recorded when it chose each move; the learner logs the
variance of its batches' targets, and of their returns under λ < 1."""

from __future__ import annotations

import hashlib
import queue

import numpy as np
import pytest
import torch

from agents.dmc.actor import CHUNK_FIELDS, Collector
from agents.dmc.config import DMCConfig
from agents.dmc.targets import lambda_returns
from agents.dmc.trainer import train
from agents.nets.action_features import ActionFeatures
from agents.nets.networks import ActionScorer
from agents.training.config import load_config
from agents.training.curves import read_scalars
from baohuang_env import get_rules
from baohuang_env.observation import observation_layout

from helpers import load_experiment

RULES = get_rules("jj")
TINY = ["actors=0", "unroll_length=100000", "slots_per_role=8", "batch_slots=2", "hidden=32", "head=16"]


def _collector(*extra: str, seed: int = 3) -> Collector:
    """An inline collector whose slots never fill (staged rows stay readable), seeded nets."""
    cfg = load_config(DMCConfig, None, [*TINY, *extra])
    torch.manual_seed(0)
    nets = [ActionScorer(observation_layout(RULES).size, ActionFeatures(RULES).size, cfg.hidden, cfg.head)]
    return Collector(cfg, RULES, nets, {}, [queue.Queue()], queue.Queue(), None, seed=seed, blocking=False)


def test_target_lambda_is_checked():
    assert load_config(DMCConfig, None, TINY).target_lambda == 0.9
    assert load_config(DMCConfig, None, [*TINY, "target_lambda=0"]).target_lambda == 0.0
    for bad in ("1.5", "-0.1", "nan"):
        with pytest.raises(ValueError, match=r"target_lambda must be in \[0, 1\], got"):
            load_config(DMCConfig, None, [*TINY, f"target_lambda={bad}"])


def test_lambda_returns_by_hand():
    values = [9.0, 0.5, -0.2, 0.8]  # Q of the moves taken at the seat's four decisions (the first is never read)
    # backwards from G_3 = 1: G_2 = .5 * .8 + .5 * 1, G_1 = .5 * -.2 + .5 * .9, G_0 = .5 * .5 + .5 * .35
    assert np.allclose(lambda_returns(values, 1.0, 0.5), [0.425, 0.35, 0.9, 1.0])
    assert np.allclose(lambda_returns(values, -1.0, 0.0), [0.5, -0.2, 0.8, -1.0])  # one-step SARSA
    assert lambda_returns([np.nan, np.nan], 1.0, 1.0) == [1.0, 1.0]  # Monte Carlo: the values are not read
    assert lambda_returns([np.nan], -1.0, 0.3) == [-1.0] and lambda_returns([], 1.0, 0.3) == []


#: The Monte-Carlo collector's staged rows (`target_lambda` 1, the default before 0.9) as of
#: commit d81bd7c: their count, a digest of every field, and the collector's next draw.
#: Epsilon 1: every learner move is drawn, so the figures pin the draws, not the float
#: arithmetic of a network.
BEFORE = (1119, "f7508855d7cddc4d", 0.8062153310270436)


def test_monte_carlo_targets_stage_the_same_rows_as_before_with_the_return_as_target():
    collector = _collector("games_per_actor=4", "opponent_mix=self=1,greedy=1", "epsilon=1", "target_lambda=1",
                           seed=5)
    for _ in range(12):
        collector.play_game()
    count = len(collector.staging[0])
    chunk = dict(zip(CHUNK_FIELDS, collector.take_chunk(0), strict=True))
    digest = hashlib.sha256()
    for name in ("obs", "action", "target", "guard", "taught", "demo", "other"):
        digest.update(np.ascontiguousarray(chunk[name]).tobytes())
    assert (count, digest.hexdigest()[:16], collector.rng.random()) == BEFORE
    np.testing.assert_array_equal(chunk["return"], chunk["target"])


def test_a_short_run_logs_the_targets_variance(tmp_path):
    cfg = load_config(DMCConfig, None, [*TINY, "games_per_actor=4", "unroll_length=16", "eval_minutes=0",
                                        "checkpoint_minutes=100", "total_minutes=5", "total_frames=4000",
                                        "log_seconds=0.01", f"runs_dir={tmp_path}"])
    run_dir = train(cfg)
    target_var = [v for _step, v in read_scalars(run_dir)["charts/target_var"]]
    assert target_var and all(np.isfinite(target_var)) and max(target_var) > 0
    assert (run_dir / "model.pt").is_file()


def _closed_form(values: list[float], ret: float, lam: float) -> list[float]:
    """The λ-return of each decision as a sum: G_t = Σ_k (1 − λ) λ^(k−1) values[t+k] + λ^(n−1−t) ret."""
    n = len(values)
    return [sum((1 - lam) * lam ** (k - 1) * values[t + k] for k in range(1, n - t)) + lam ** (n - 1 - t) * ret
            for t in range(n)]


@pytest.mark.parametrize("extra, taught", [(("opponent_mix=self=1,greedy=1",), False),
                                           (("teacher=greedy", "teacher_frames=1000000"), True)])
def test_staged_lambda_targets_are_the_formula_over_the_recorded_values_and_results(extra, taught):
    collector = _collector("games_per_actor=3", "target_lambda=0.7", *extra)
    log = []
    advance = collector.games.advance

    def logged_advance(turn):
        ended = advance(turn)
        log.extend(ended)
        return ended

    collector.games.advance = logged_advance
    while len(log) < 20:
        collector.step()
    expected = []  # (decision, λ-return, return), independently of the collector
    for _row, table, result in log:
        for seat, records in enumerate(table.records):
            ret = float(np.sign(result.scores[seat]))  # reward_mode "win"
            targets = _closed_form([d.value for d in records], ret, 0.7)
            expected += [(d, target, ret) for d, target in zip(records, targets, strict=True)]
    staged = collector.staging[0]
    assert len(staged) == len(expected)
    for row, (decision, target, ret) in zip(staged, expected, strict=True):
        assert row[0] is decision.obs and row[-1] == ret and np.isclose(row[2], target, rtol=1e-5, atol=1e-6)
        assert decision.taught == taught
    decisions = [d for d, _target, _ret in expected]
    obs, rows = np.stack([d.obs for d in decisions]), np.stack([d.row for d in decisions])
    np.testing.assert_allclose([d.value for d in decisions], collector.agent.row_values(obs, rows),
                               rtol=1e-5, atol=1e-6)  # the Q of the move taken, the teacher's too
    targets, returns = np.array([r[2] for r in staged]), np.array([r[-1] for r in staged])
    assert (np.abs(targets - returns) > 1e-3).mean() > 0.5  # Q of a random network: far from the returns


def test_the_ray_backends_collector_stages_the_same_lambda_targets():
    pytest.importorskip("ray")
    from agents.dmc.ray_actors import _ChunkCollector

    cfg = load_config(DMCConfig, None, [*TINY, "games_per_actor=3", "unroll_length=32", "target_lambda=0.5"])
    torch.manual_seed(0)
    nets = [ActionScorer(observation_layout(RULES).size, ActionFeatures(RULES).size, cfg.hidden, cfg.head)]
    remote = _ChunkCollector(cfg, RULES, nets, seed=3, start_frames=0, pool=None)
    local = Collector(cfg, RULES, nets, {}, [queue.Queue()], queue.Queue(), None, seed=3, blocking=False)
    while not remote.out:
        remote.play_game()
    while len(local.staging[0]) < 32:
        local.play_game()
    net, *chunk = remote.out[0]
    assert net == 0
    for name, a, b in zip(CHUNK_FIELDS, chunk, local.take_chunk(0), strict=True):
        np.testing.assert_array_equal(a, b, err_msg=name)
    assert not np.array_equal(chunk[CHUNK_FIELDS.index("target")], chunk[CHUNK_FIELDS.index("return")])


@pytest.mark.parametrize("lam", [1.0, 0.7])
def test_a_short_run_trains_and_logs_the_targets_variance_and_under_lambda_the_returns(tmp_path, lam):
    cfg = load_config(DMCConfig, None, [*TINY, "games_per_actor=4", "unroll_length=16", "eval_minutes=0",
                                        "checkpoint_minutes=100", "total_minutes=5", "total_frames=4000",
                                        "log_seconds=0.01", f"target_lambda={lam}", f"runs_dir={tmp_path}"])
    run_dir = train(cfg)
    scalars = read_scalars(run_dir)
    target_var = [v for _step, v in scalars["charts/target_var"]]
    assert target_var and all(np.isfinite(target_var)) and max(target_var) > 0
    if lam == 1:
        assert "charts/return_var" not in scalars  # the targets are the returns
    else:
        return_var = [v for _step, v in scalars["charts/return_var"]]
        assert len(return_var) == len(target_var) and all(np.isfinite(return_var)) and target_var != return_var
    assert (run_dir / "model.pt").is_file()


def test_the_variance_script_computes_every_lambdas_targets_from_one_set_of_games():
    tv = load_experiment("target_variance")
    out = tv.measure("dmc:agents/pretrained/dmc_kickstart_jj.pt", games=6, seed=1, games_at_once=4)
    assert out["games"] >= 6 and out["decisions"] > 0 and set(out["lambdas"]) == {"1.0", "0.9", "0.7", "0.5"}
    mc = out["lambdas"]["1.0"]
    assert mc["gap_to_return"] == 0 and mc["var_over_returns"] == 1
    assert all(f["gap_to_return"] > 0 and f["target_var"] > 0 for lam, f in out["lambdas"].items() if lam != "1.0")
