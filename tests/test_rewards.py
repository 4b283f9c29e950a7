"""`baohuang_env.rewards`: the one score-to-reward function of the envs and the trainers."""

from __future__ import annotations

import numpy as np
import pytest

from baohuang_env.rewards import REWARD_MODES, check_reward_mode, reward


def test_score_mode_scales_and_win_mode_takes_the_sign():
    assert REWARD_MODES == ("score", "win")
    for score in (-24, -3, -1, 0, 1, 2, 24):
        assert reward(score, "score") == score and type(reward(score, "score")) is int
        assert reward(score, "score", 0.125) == score * 0.125
        assert reward(score, "win") == (score > 0) - (score < 0)
        assert type(reward(score, "win")) is int
        assert reward(score, "win", 0.125) == reward(score, "win")  # the scale is for scores only


def test_numpy_scores_give_plain_numbers():
    for score in np.array([-6, 0, 6], dtype=np.int64):
        assert reward(score, "win") in (-1, 0, 1) and type(reward(score, "win")) is int
        assert reward(score, "score", 0.5) == float(score) * 0.5


def test_unknown_modes_are_refused_with_the_modes_listed():
    assert check_reward_mode("win") == "win"
    for bad in ("points", "Score", ""):
        with pytest.raises(ValueError, match=r"reward_mode .* is not supported; use one of \['score', 'win'\]"):
            check_reward_mode(bad)
        with pytest.raises(ValueError, match="reward_mode"):
            reward(3, bad)


def test_envs_and_trainer_configs_use_it():
    """The envs' `reward_mode=` and the trainers' `reward_mode:` both go through this module
    (same modes, same message); the old trainer key `objective` still loads."""
    import warnings

    from agents.training.config import load_config
    from agents.dmc.config import DMCConfig
    from agents.ppo.config import PPOConfig
    from baohuang_env.aec_env import raw_env
    from baohuang_env.gym_env import BaohuangGymEnv

    for make in (lambda m: raw_env(reward_mode=m), lambda m: BaohuangGymEnv(reward_mode=m),
                 lambda m: load_config(DMCConfig, None, [f"reward_mode={m}"])):
        assert make("win").reward_mode == "win"
        with pytest.raises(ValueError, match=r"reward_mode 'points' is not supported; use one of"):
            make("points")
    assert load_config(PPOConfig).reward_mode == "win" and load_config(DMCConfig).reward_mode == "win"
    with pytest.warns(FutureWarning, match=r"'objective' is deprecated; call it 'reward_mode'"):
        assert load_config(PPOConfig, None, ["objective=score"]).reward_mode == "score"
    with pytest.raises(ValueError, match="old name of 'reward_mode'"), warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        load_config(DMCConfig, None, ["objective=win", "reward_mode=win"])
