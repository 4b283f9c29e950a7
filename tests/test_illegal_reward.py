"""An illegal move never pays better than the worst legal deal (`worst_score`,
`illegal_move_reward`), in the Gymnasium env and in the PettingZoo `env()` alike: otherwise an
agent that ignores the action mask learns to play illegal moves."""

from __future__ import annotations

import numpy as np
import pytest

import baohuang_env
from baohuang_env import get_rules
from baohuang_env.gym_env import BaohuangGymEnv
from baohuang_env.rewards import illegal_move_reward
from baohuang_env.rules import PRESETS
from baohuang_env.scoring import worst_score
from helpers import random_game

#: The worst deal per preset, by hand from docs/rules.md §6: a lost open solo (-24) in the jj
#: scheme; weihai's lost open solo doubled by a kick (-48); qingdao's losing team when the
#: other side took places 1 and 2 (doubled): 0 - 2 - 4 = -6, x 2.
WORST = {"jj": -24, "weihai": -48, "lianzhong_classic": -24, "lianzhong_simple": -24, "qingdao": -12,
         "generic216": -24}


def test_worst_score_of_every_preset():
    assert set(WORST) == set(PRESETS)
    for preset, worst in WORST.items():
        assert worst_score(get_rules(preset)) == worst, preset


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_no_random_game_scores_below_the_worst_score(preset):
    rules = get_rules(preset)
    worst = worst_score(rules)
    lowest = min(min(random_game(rules, seed, seed + 1).result.scores) for seed in range(40))
    assert worst <= lowest


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_the_default_illegal_reward_is_below_every_legal_reward(preset):
    rules = get_rules(preset)
    assert illegal_move_reward(rules, "score") == worst_score(rules) - 1
    assert illegal_move_reward(rules, "win") == -1.0
    assert BaohuangGymEnv(preset=preset).illegal_reward == worst_score(rules) - 1
    assert BaohuangGymEnv(preset=preset, reward_mode="win").illegal_reward == -1.0


def test_gym_env_pays_the_default_for_an_illegal_move():
    env = BaohuangGymEnv()  # jj, reward_mode="score"
    _, info = env.reset(seed=3)
    _, reward, terminated, _, info = env.step(int(np.flatnonzero(info["action_mask"] == 0)[0]))
    assert terminated and info["illegal_action"] and reward == -25.0


@pytest.mark.parametrize("reward_mode", ["score", "win"])
def test_aec_env_pays_the_default_for_an_illegal_move(reward_mode):
    e = baohuang_env.env(reward_mode=reward_mode)
    e.reset(seed=7)
    offender = e.agent_selection
    obs, *_ = e.last()
    e.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
    assert e.rewards[offender] == (-25 if reward_mode == "score" else -1)


@pytest.mark.parametrize("factory", [BaohuangGymEnv, baohuang_env.env])
def test_an_illegal_reward_better_than_the_worst_legal_one_is_refused(factory):
    with pytest.raises(ValueError, match=r"illegal_reward=-1 pays better than the worst legal outcome of "
                                         r"preset 'jj' \(-24 in reward_mode 'score'\).*<= -24.*-25"):
        factory(illegal_reward=-1)
    with pytest.raises(ValueError, match=r"better than the worst legal outcome of preset 'weihai' \(-1 in "
                                         r"reward_mode 'win'\)"):
        factory(preset="weihai", reward_mode="win", illegal_reward=0)
    with pytest.raises(ValueError, match="illegal_reward must be a number or None"):
        factory(illegal_reward="-30")
    factory(illegal_reward=-24)  # as bad as the worst legal deal is allowed
    factory(reward_mode="win", illegal_reward=-1)
