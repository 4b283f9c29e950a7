"""The native vector env of `Baohuang-v0` (`vectorization_mode="vector_entry_point"`) gives the
same trajectories as Gymnasium's "sync" vector env over BaohuangGymEnv, and keeps the vector API."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode, VectorEnv

import baohuang_env  # noqa: F401  (registers Baohuang-v0)
from baohuang_env import PASS, IllegalActionError
from baohuang_env.gym_vector import BaohuangVectorEnv
from baohuang_env.rules import PRESETS

NATIVE = "vector_entry_point"


def make(mode: str, num_envs: int = 4, **kwargs) -> VectorEnv:
    return gymnasium.make_vec("Baohuang-v0", num_envs=num_envs, vectorization_mode=mode, **kwargs)


def trajectory(envs: VectorEnv, steps: int, seed: int) -> list[tuple]:
    """Reset with `seed`, then random legal learner actions (an illegal id now and then, and a
    reset without a seed halfway, which continues every env's RNG). Returns every result."""
    rng = np.random.default_rng(seed)
    out = [envs.reset(seed=seed)]
    for t in range(steps):
        if t == steps // 2:
            out.append(envs.reset())
        masks = out[-1][-1]["action_mask"]
        actions = np.array([(legal := m.view(bool).nonzero()[0])[rng.integers(legal.size)] for m in masks])
        if t % 41 == 7:
            actions[t % len(actions)] = envs.single_action_space.n - 1  # illegal: ends that episode
        out.append(envs.step(actions))
    envs.close()
    return out


def assert_equal(a, b) -> None:
    """Equal values, dtypes and (for infos) keys, recursively."""
    if isinstance(a, dict):
        assert a.keys() == b.keys()
        for key in a:
            assert_equal(a[key], b[key])
    elif isinstance(a, tuple | list):
        assert len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            assert_equal(x, y)
    elif isinstance(a, np.ndarray):
        assert isinstance(b, np.ndarray) and a.dtype == b.dtype and a.shape == b.shape
        if a.dtype == object:  # e.g. same-step final_obs / final_info: arrays and dicts (None where not ended)
            for x, y in zip(a.ravel(), b.ravel(), strict=True):
                assert_equal(x, y)
        else:
            np.testing.assert_array_equal(a, b)
    else:
        assert type(a) is type(b) and a == b


@pytest.mark.parametrize("opponents", ["random", "autoplay", "greedy", ("greedy", "random", "autoplay", "random")])
@pytest.mark.parametrize("learner_seat", [0, 3, "random"])
def test_native_trajectories_equal_sync(opponents, learner_seat):
    kwargs = {"opponents": opponents if isinstance(opponents, str) else list(opponents), "learner_seat": learner_seat}
    sync = trajectory(make("sync", **kwargs), steps=300, seed=11)
    native = trajectory(make(NATIVE, **kwargs), steps=300, seed=11)
    assert_equal(sync, native)
    ended = sum(int(r[2].sum()) for r in native if len(r) == 5)
    assert ended >= 8  # several autoresets in every run
    assert any("illegal_action" in r[-1] for r in native) and any("scores" in r[-1] for r in native)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_native_equals_sync_with_random_opponents_in_every_preset(preset):
    """Random opponents move in the play phase inside one compiled call per step
    (`BatchedGames.play_random`), each from its own generator, as they move one by one in "sync"."""
    kwargs = {"preset": preset, "opponents": "random", "learner_seat": "random"}
    native = trajectory(make(NATIVE, 6, **kwargs), 250, seed=21)
    assert_equal(trajectory(make("sync", 6, **kwargs), 250, seed=21), native)
    assert sum(int(r[2].sum()) for r in native if len(r) == 5) >= 10


@pytest.mark.parametrize("opponents", ["random", "greedy"])
def test_native_same_step_autoreset_equals_sync(opponents):
    """With `autoreset_mode=SAME_STEP` an ended env starts its next episode within the step,
    its final observation and info in `final_obs` / `final_info`, as SyncVectorEnv does."""
    sync = gymnasium.make_vec("Baohuang-v0", num_envs=4, vectorization_mode="sync", opponents=opponents,
                              vector_kwargs={"autoreset_mode": AutoresetMode.SAME_STEP})
    native = make(NATIVE, opponents=opponents, autoreset_mode=AutoresetMode.SAME_STEP)
    assert native.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    a, b = trajectory(sync, steps=300, seed=5), trajectory(native, steps=300, seed=5)
    assert_equal(a, b)
    finals = [r[-1] for r in b if len(r) == 5 and r[2].any()]
    assert len(finals) >= 8 and all("final_obs" in info and "final_info" in info for info in finals)
    for result in b[1:]:  # every row is a live decision: never PASS alone after an episode
        assert (result[-1]["action_mask"].sum(axis=1) > 0).all()


def test_an_unknown_autoreset_mode_is_refused():
    with pytest.raises(ValueError, match="autoreset_mode must be one of"):
        make(NATIVE, autoreset_mode="disabled")


def test_native_equals_sync_in_a_calling_preset_with_observing_opponents():
    """lianzhong_classic's auto-play opponents read their observation (`uses_observation`)."""
    kwargs = {"preset": "lianzhong_classic", "opponents": "autoplay", "learner_seat": "random",
              "reward_mode": "win"}
    assert_equal(trajectory(make("sync", 3, **kwargs), 200, seed=4), trajectory(make(NATIVE, 3, **kwargs), 200, seed=4))


def test_the_vector_api():
    envs = make(NATIVE, 3, opponents="random")
    assert isinstance(envs.unwrapped, BaohuangVectorEnv) and isinstance(envs, VectorEnv)
    assert envs.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP
    sync = make("sync", 3, opponents="random")
    assert envs.single_observation_space == sync.single_observation_space
    assert envs.observation_space == sync.observation_space and envs.action_space == sync.action_space
    obs, info = envs.reset(seed=[5, 6, 7])
    assert envs.observation_space.contains(obs)
    np.testing.assert_array_equal(envs.action_masks(), info["action_mask"].astype(bool))
    assert info["action_mask"].dtype == np.int8 and info["action_mask"].shape == (3, envs.single_action_space.n)
    obs2, _ = envs.reset(seed=[5, 6, 7])
    np.testing.assert_array_equal(obs, obs2)  # seeded resets repeat
    # unmasked samples are mostly illegal: those episodes end with the illegal reward, PASS alone next
    obs, rewards, terminated, truncated, info = envs.step(envs.action_space.sample())
    assert envs.observation_space.contains(obs) and not truncated.any()
    for i in np.flatnonzero(terminated):
        assert info["illegal_action"][i] and rewards[i] == envs.unwrapped.illegal_reward
        assert np.flatnonzero(info["action_mask"][i]).tolist() == [PASS]
    envs.close()
    sync.close()


def test_illegal_actions_can_raise_and_arguments_are_checked():
    envs = make(NATIVE, 2, opponents="random", illegal_action="raise")
    envs.reset(seed=0)
    with pytest.raises(IllegalActionError):
        envs.step(np.full(2, envs.single_action_space.n - 1))
    with pytest.raises(ValueError, match="learner_seat"):
        make(NATIVE, 2, learner_seat=7)
    with pytest.raises(ValueError, match="one seed per env"):
        make(NATIVE, 2).reset(seed=[1])


def test_a_deal_that_ends_before_the_learner_acts_is_no_episode():
    """qingdao with random opponents: about one deal in twenty ends in the role phase (a
    surrender) before the learner's first decision. Neither env starts an episode on such a
    deal: every reset, and every autoreset, shows the learner a decision."""
    import gymnasium

    from baohuang_env.batched.games import random_legal

    single = gymnasium.make("Baohuang-v0", preset="qingdao", opponents="random", learner_seat="random")
    for seed in range(200):  # seeds 4, 17, 36, ... dealt a surrender before the learner acted
        single.reset(seed=seed)
        assert not single.unwrapped._episode_over and single.unwrapped.game.current_player == single.unwrapped.learner
    envs = gymnasium.make_vec("Baohuang-v0", num_envs=64, vectorization_mode="vector_entry_point",
                              preset="qingdao", opponents="random", learner_seat="random")
    _obs, info = envs.reset(seed=0)
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(400):  # step() refuses an env whose episode ended without an autoreset pending
        _obs, _r, terminated, _t, info = envs.step(random_legal(info["action_mask"], rng))
        ended += int(terminated.sum())
    assert ended > 64
