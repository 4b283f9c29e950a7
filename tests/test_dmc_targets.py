"""DMC's regression targets: the staged rows of the default collector are pinned, and the
learner logs the variance of its batches' targets."""

from __future__ import annotations

import hashlib
import queue

import numpy as np
import torch

from agents.dmc.actor import CHUNK_FIELDS, Collector
from agents.dmc.config import DMCConfig
from agents.dmc.trainer import train
from agents.nets.action_features import ActionFeatures
from agents.nets.networks import ActionScorer
from agents.training.config import load_config
from agents.training.curves import read_scalars
from baohuang_env import get_rules
from baohuang_env.observation import observation_layout

RULES = get_rules("jj")
TINY = ["actors=0", "unroll_length=100000", "slots_per_role=8", "batch_slots=2", "hidden=32", "head=16"]


def _collector(*extra: str, seed: int = 3) -> Collector:
    """An inline collector whose slots never fill (staged rows stay readable), seeded nets."""
    cfg = load_config(DMCConfig, None, [*TINY, *extra])
    torch.manual_seed(0)
    nets = [ActionScorer(observation_layout(RULES).size, ActionFeatures(RULES).size, cfg.hidden, cfg.head)]
    return Collector(cfg, RULES, nets, {}, [queue.Queue()], queue.Queue(), None, seed=seed, blocking=False)


#: The default collector's staged rows as of commit d81bd7c: their count, a digest of every
#: field, and the collector's next draw. Epsilon 1: every learner move is drawn, so the figures
#: pin the draws, not the float arithmetic of a network.
BEFORE = (1119, "f7508855d7cddc4d", 0.8062153310270436)


def test_the_default_stages_the_same_rows_as_before_with_the_return_as_target():
    collector = _collector("games_per_actor=4", "opponent_mix=self=1,greedy=1", "epsilon=1", seed=5)
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
