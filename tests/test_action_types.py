"""An action is an integer id: a float or a string is refused with TypeError (`int(1.5)` and
`int("1")` would silently play action 1) in the engine, the AEC raw env and the Gymnasium env;
Python ints, numpy integers and 0-d integer arrays are accepted."""

from __future__ import annotations

import re

import numpy as np
import pytest

from baohuang_env import Game, get_rules
from baohuang_env.aec_env import raw_env
from baohuang_env.game import action_index
from baohuang_env.gym_env import BaohuangGymEnv

NOT_IDS = [1.5, 1.0, "1", True, np.float64(1.0), np.bool_(True), None, [1]]
MESSAGE = r"an action is an integer action id \(a Python or numpy int\), got "


@pytest.mark.parametrize("bad", NOT_IDS, ids=repr)
def test_action_index_refuses_non_integers(bad):
    with pytest.raises(TypeError, match=MESSAGE):
        action_index(bad)


def test_action_index_accepts_integers():
    for good in (1, np.int64(1), np.int8(1), np.uint16(1), np.array(1)):
        assert action_index(good) == 1 and type(action_index(good)) is int


@pytest.mark.parametrize("bad", [1.5, "1", True], ids=repr)
def test_game_step_refuses_non_integers_and_changes_nothing(bad):
    game = Game(get_rules("jj"), seed=1)
    assert 1 in game.legal_actions()
    with pytest.raises(TypeError, match=MESSAGE):
        game.step(bad)
    assert game.actions == []
    game.step(np.int64(1))
    assert game.actions == [1]


#: Non-integer look-alikes of a legal action id `a`.
LOOK_ALIKES = {"a + 0.5": lambda a: a + 0.5, "float": float, "str": str}


@pytest.mark.parametrize("look_alike", LOOK_ALIKES.values(), ids=LOOK_ALIKES.keys())
def test_raw_env_step_refuses_non_integers(look_alike):
    e = raw_env()
    e.reset(seed=1)
    legal = int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0])
    bad = look_alike(legal)
    with pytest.raises(TypeError, match=MESSAGE + re.escape(repr(bad))):
        e.step(bad)
    assert e.game.actions == []
    e.step(np.int64(legal))
    assert e.game.actions == [legal]


@pytest.mark.parametrize("illegal_action", ["terminate", "raise"])
@pytest.mark.parametrize("look_alike", LOOK_ALIKES.values(), ids=LOOK_ALIKES.keys())
def test_gym_env_step_refuses_non_integers(look_alike, illegal_action):
    env = BaohuangGymEnv(illegal_action=illegal_action)
    _, info = env.reset(seed=1)
    before = list(env.game.actions)
    legal = int(np.flatnonzero(info["action_mask"])[0])
    with pytest.raises(TypeError, match=MESSAGE):
        env.step(look_alike(legal))
    assert env.game.actions == before  # neither played nor ended: the episode goes on
    env.step(np.int64(legal))
    assert env.game.actions[len(before)] == legal
