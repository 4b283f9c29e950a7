"""`baohuang train dmc` without `--config` trains the recommended learning recipe
(`configs/dmc_quick.yaml`'s one shared network, win rewards, learning rate 0.001) as pure
self-play (no advice, no teacher, no bot opponents), while a checkpoint from before the
`networks` key existed is still read with the per-role layout it was trained with."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
import yaml

from agents.files.checkpoint import load_checkpoint
from agents.training.config import config_from_dict, load_config
from agents.dmc.agent import dmc_compatibility
from agents.dmc.config import DMCConfig, checkpoint_networks
from agents.dmc.trainer import CHECKPOINT_NAME, train
from agents.training.run import resume_config
from baohuang_env import get_rules

ROOT = Path(__file__).resolve().parent.parent
#: What a config chooses rather than the learning recipe: the run's name, seed and budget,
#: what and on which deals it is evaluated (which changes no training), and the prior knowledge it is
#: given (the heuristic's advice and kickstart, its training opponents), which the defaults
#: leave out so that `baohuang train dmc` alone is pure self-play DMC.
NOT_RECIPE = {"exp_name", "seed", "total_minutes", "eval_deals", "eval_opponents", "eval_deal_seed",
              "advice", "teacher", "teacher_frames", "opponent_mix"}


def test_the_defaults_are_dmc_quick_s_recipe():
    quick = yaml.safe_load((ROOT / "configs" / "dmc_quick.yaml").read_text(encoding="utf-8"))
    defaults = load_config(DMCConfig)
    assert {"networks", "reward_mode", "learning_rate"} <= set(quick)
    differ = {k: (getattr(defaults, k), v) for k, v in quick.items()
              if k not in NOT_RECIPE and getattr(defaults, k) != v}
    assert differ == {}
    assert (defaults.networks, defaults.reward_mode, defaults.learning_rate) == ("shared", "win", 0.001)
    assert (defaults.advice, defaults.teacher, defaults.teacher_frames, defaults.opponent_mix) == \
        ("none", "", 0, {"self": 1.0})


def test_a_checkpoint_from_before_networks_existed_is_read_as_per_role(tmp_path):
    cfg = load_config(DMCConfig, None, ["networks=per_role", "actors=0", "unroll_length=16", "slots_per_role=8",
                                        "batch_slots=2", "hidden=32", "head=16", "eval_minutes=0",
                                        "log_seconds=1000", "total_frames=300", f"runs_dir={tmp_path}"])
    path = train(cfg) / CHECKPOINT_NAME
    ckpt = torch.load(path, weights_only=True)
    del ckpt["arch"]["networks"], ckpt["config"]["networks"]  # as written before the key existed
    torch.save(ckpt, path)
    loaded = load_checkpoint(path, expect=dmc_compatibility(get_rules("jj")))
    assert checkpoint_networks(loaded["arch"]) == "per_role"
    assert config_from_dict(DMCConfig, DMCConfig.trained_config(loaded)).networks == "per_role"  # not the default
    assert resume_config(DMCConfig, path, algo="dmc").networks == "per_role"  # what `--resume` trains with
    assert sorted(loaded["models"]) == ["emperor", "guard", "rebel", "solo"]


def test_older_checkpoints_resume_with_the_targets_and_hand_over_they_were_trained_with(tmp_path):
    """A config from before `target_lambda` existed trained on Monte-Carlo returns: it resumes
    with 1, not today's default 0.9. One with the removed `teacher_schedule` resumes when that
    was the hard switch that remains, and is refused, saying why, when it was the gradual one."""
    cfg = load_config(DMCConfig, None, ["actors=0", "unroll_length=16", "slots_per_role=8", "batch_slots=2",
                                        "hidden=32", "head=16", "eval_minutes=0", "log_seconds=1000",
                                        "total_frames=300", f"runs_dir={tmp_path}"])
    path = train(cfg) / CHECKPOINT_NAME
    ckpt = torch.load(path, weights_only=True)
    assert ckpt["config"]["target_lambda"] == 0.9
    del ckpt["config"]["target_lambda"]  # as written before the key existed
    for schedule, refused in (("switch", False), ("linear", True)):
        ckpt["config"]["teacher_schedule"] = schedule  # as written while the key existed
        torch.save(ckpt, path)
        if refused:
            with pytest.raises(ValueError, match="teacher_schedule='linear', an option removed since"):
                resume_config(DMCConfig, path, algo="dmc")
        else:
            assert resume_config(DMCConfig, path, algo="dmc").target_lambda == 1.0
