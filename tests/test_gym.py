"""The single-agent Gymnasium view `Baohuang-v0`: env_checker, illegal actions,
masks, seeding, learner seats, opponents, reward modes and argument errors."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import baohuang_env  # noqa: F401  (registers Baohuang-v0)
from agents import AutoPlayAgent, RandomAgent
from baohuang_env import PASS, IllegalActionError, get_rules
from baohuang_env.cards import NUM_SEATS
from baohuang_env.encoding import Encoder
from baohuang_env.gym_env import BaohuangGymEnv

RULES = get_rules("jj")


def _play_episode(env, seed: int, policy_seed: int = 0, on_step=None):
    """Reset with `seed`; the learner plays uniformly random legal actions. Returns the
    list of (obs, reward, terminated, truncated, info) after reset and every step."""
    rng = np.random.default_rng(policy_seed)
    obs, info = env.reset(seed=seed)
    out = [(obs, 0.0, False, False, info)]
    terminated = truncated = False
    while not (terminated or truncated):
        if on_step is not None:
            on_step(env, obs, info)
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        obs, reward, terminated, truncated, info = env.step(action)
        out.append((obs, reward, terminated, truncated, info))
    return out


def test_check_env_passes_on_the_registered_env():
    env = gymnasium.make("Baohuang-v0")
    check_env(env.unwrapped)
    env.close()


def test_spaces_derive_from_the_encoder():
    env = BaohuangGymEnv()
    enc = Encoder(env.rules)
    assert env.observation_space.shape == (enc.size,)
    assert env.observation_space.dtype == np.float32
    assert env.action_space.n == enc.table.num_actions
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    assert info["action_mask"].dtype == np.int8 and info["action_mask"].shape == (env.action_space.n,)


# --------------------------------------------------------------------------- masks


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_info_mask_and_action_masks_agree_and_hold_only_pass_at_the_end(seed):
    env = BaohuangGymEnv(learner_seat="random")
    checked = []

    def check(env, obs, info):
        assert env.observation_space.contains(obs)
        masks = env.action_masks()
        assert masks.dtype == bool
        np.testing.assert_array_equal(info["action_mask"].astype(bool), masks)
        assert masks.any()  # while the episode runs it is the learner's turn
        assert env.game.current_player == env.learner == info["seat"]
        np.testing.assert_array_equal(masks, env.game.legal_mask().astype(bool))
        checked.append(env.game.phase)

    steps = _play_episode(env, seed, on_step=check)
    obs, reward, terminated, truncated, info = steps[-1]
    assert terminated and not truncated
    assert reward == env.game.result.scores[env.learner]
    assert env.observation_space.contains(obs)
    assert np.flatnonzero(env.action_masks()).tolist() == [PASS]  # what a next-step autoreset ignores
    assert np.flatnonzero(info["action_mask"]).tolist() == [PASS]
    assert "role" in checked and "play" in checked


def test_action_masks_are_empty_when_it_is_not_the_learners_turn():
    env = BaohuangGymEnv()
    env.reset(seed=4)
    env.game.step(int(env.game.legal_actions()[0]))  # move the game on behind the env's back
    assert env.game.current_player != env.learner
    assert not env.action_masks().any()


# --------------------------------------------------------------------------- illegal actions and the end


def _an_illegal_action(info) -> int:
    return int(np.flatnonzero(info["action_mask"] == 0)[0])


def test_illegal_action_terminates_with_illegal_reward():
    env = BaohuangGymEnv(illegal_reward=-30.0)
    obs, info = env.reset(seed=3)
    actions_before = list(env.game.actions)
    obs2, reward, terminated, truncated, info2 = env.step(_an_illegal_action(info))
    assert terminated and not truncated
    assert reward == -30.0
    assert info2["illegal_action"] is True
    assert env.game.actions == actions_before  # the game was left as it was
    np.testing.assert_array_equal(obs2, obs)
    assert np.flatnonzero(info2["action_mask"]).tolist() == [PASS] == np.flatnonzero(env.action_masks()).tolist()
    with pytest.raises(RuntimeError, match="reset"):
        env.step(int(np.flatnonzero(info["action_mask"])[0]))


def test_illegal_play_in_the_play_phase_terminates():
    env = BaohuangGymEnv()
    _, info = env.reset(seed=5)
    rng = np.random.default_rng(0)
    while env.game.phase != "play":
        _, _, _, _, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
    _, reward, terminated, _, info = env.step(_an_illegal_action(info))
    assert terminated and reward == -25.0 and info["illegal_action"] is True


def test_illegal_action_raises_in_raise_mode():
    env = BaohuangGymEnv(illegal_action="raise")
    _, info = env.reset(seed=3)
    before = list(env.game.actions)
    with pytest.raises(IllegalActionError):
        env.step(_an_illegal_action(info))
    assert env.game.actions == before
    # the episode goes on after the error
    _, reward, terminated, _, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert not terminated and reward == 0.0 and "illegal_action" not in info


def test_step_after_the_end_raises():
    env = BaohuangGymEnv()
    _play_episode(env, seed=6)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    _, info = env.reset(seed=7)  # and reset starts a new one
    assert info["action_mask"].any()


# --------------------------------------------------------------------------- rewards


@pytest.mark.parametrize("reward_mode", ["score", "win"])
def test_reward_is_zero_until_the_end_then_the_learners_score(reward_mode):
    values = set()
    for seed in range(8):
        env = BaohuangGymEnv(reward_mode=reward_mode, learner_seat="random")
        steps = _play_episode(env, seed)
        assert all(r == 0.0 and not t for _, r, t, _, _ in steps[:-1])
        _, reward, terminated, _, info = steps[-1]
        assert terminated
        score = env.game.result.scores[env.learner]
        assert info["scores"] == env.game.result.scores
        assert info["roles"] == env.game.result.roles
        expected = score if reward_mode == "score" else float(np.sign(score))
        assert reward == expected and isinstance(reward, float)
        values.add(reward)
    if reward_mode == "win":
        assert values <= {-1.0, 0.0, 1.0} and len(values) >= 2


# --------------------------------------------------------------------------- seeding and seats


def _trajectory(env, seed: int) -> list[tuple]:
    return [(o.tobytes(), r, t, info["action_mask"].tobytes(), info["seat"])
            for o, r, t, _, info in _play_episode(env, seed, policy_seed=seed)]


def test_same_seed_same_trajectory():
    opponents = ["random", "autoplay", "random", "random"]
    a = _trajectory(BaohuangGymEnv(opponents=opponents, learner_seat="random"), 11)
    b = _trajectory(BaohuangGymEnv(opponents=opponents, learner_seat="random"), 11)
    assert a == b
    c = _trajectory(BaohuangGymEnv(opponents=opponents, learner_seat="random"), 12)
    assert a != c


def test_reset_with_the_same_seed_replays_on_the_same_env():
    env = BaohuangGymEnv(opponents="random")
    assert _trajectory(env, 21) == _trajectory(env, 21)


def test_random_learner_seat_covers_every_seat():
    env = BaohuangGymEnv(learner_seat="random")
    seats = set()
    for seed in range(40):
        _, info = env.reset(seed=seed)
        assert info["seat"] == env.learner
        assert env.game.current_player == env.learner
        seats.add(env.learner)
    assert seats == set(range(NUM_SEATS))


@pytest.mark.parametrize("seat", range(NUM_SEATS))
def test_fixed_learner_seat(seat):
    env = BaohuangGymEnv(learner_seat=seat)
    for o, _, terminated, _, info in _play_episode(env, seed=seat):
        assert info["seat"] == seat
        if not terminated:
            assert env.observation_space.contains(o)


# --------------------------------------------------------------------------- opponents


class SpyAgent:
    """Delegates to the auto-play bot and records which seat it was asked to play."""

    uses_observation = True

    def __init__(self, env_ref: list) -> None:
        self.inner = AutoPlayAgent(RULES)
        self.env_ref = env_ref
        self.seats: set[int] = set()
        self.calls = 0

    def act(self, observation, action_mask):
        env = self.env_ref[0]
        assert observation.shape == env.observation_space.shape
        assert action_mask.any()
        self.seats.add(env.game.current_player)
        self.calls += 1
        return self.inner.act(observation, action_mask)


def test_opponent_agent_objects_play_the_seats_after_the_learner():
    ref: list = []
    spies = [SpyAgent(ref) for _ in range(NUM_SEATS - 1)]
    env = BaohuangGymEnv(opponents=spies, learner_seat=2)
    ref.append(env)
    for seed in range(3):
        _play_episode(env, seed)
    for i, spy in enumerate(spies):
        assert spy.calls > 0
        assert spy.seats == {(2 + 1 + i) % NUM_SEATS}


def test_an_opponent_without_the_agent_protocol_is_refused():
    class NoAct:
        def play(self, observation, action_mask):
            return 0

    with pytest.raises(ValueError, match=r"opponent 2: NoAct is not an agent: it lacks act\(observation, action_mask"):
        BaohuangGymEnv(opponents=["random", "random", NoAct(), "random"])


def test_opponents_by_name_and_mixed_with_objects():
    env = BaohuangGymEnv(opponents=["random", "autoplay", RandomAgent(3), AutoPlayAgent(RULES)])
    assert isinstance(env.opponents[0], RandomAgent)
    assert isinstance(env.opponents[1], AutoPlayAgent)
    steps = _play_episode(env, seed=9)
    assert steps[-1][2]
    env = BaohuangGymEnv(opponents="random")
    assert all(isinstance(a, RandomAgent) for a in env.opponents)
    assert len(env.opponents) == NUM_SEATS - 1


# --------------------------------------------------------------------------- bad arguments


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"preset": "nosuch"}, r"unknown preset 'nosuch'.*jj"),
        ({"reward_mode": "points"}, r"reward_mode 'points'.*score.*win"),
        ({"illegal_action": "ignore"}, r"illegal_action 'ignore'.*terminate.*raise"),
        ({"render_mode": "rgb_array"}, r"render_mode 'rgb_array'.*ansi"),
        ({"learner_seat": 5}, r"learner_seat.*0\.\.4.*random"),
        ({"learner_seat": "any"}, r"learner_seat"),
        ({"opponents": ["random"] * 3}, r"list of 4"),
        ({"opponents": "nosuch"}, r"unknown agent 'nosuch'.*autoplay.*random"),
        ({"hold_sixs": True}, r"unknown rule flag.*hold_sixes"),
    ],
)
def test_bad_arguments_raise_value_error(kwargs, message):
    with pytest.raises(ValueError, match=message):
        BaohuangGymEnv(**kwargs)


def test_make_passes_keyword_arguments():
    env = gymnasium.make("Baohuang-v0", reward_mode="win", learner_seat=3)
    assert env.unwrapped.reward_mode == "win"
    _, info = env.reset(seed=0)
    assert info["seat"] == 3
    with pytest.raises(ValueError, match="reward_mode"):
        gymnasium.make("Baohuang-v0", reward_mode="bad")


def test_render_ansi_returns_the_table():
    env = BaohuangGymEnv(render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert isinstance(text, str) and "Baohuang [jj, play goes counterclockwise]" in text


# --------------------------------------------------------------------------- speed and vector envs


@pytest.mark.parametrize("opponents, encodes_for_opponents", [("autoplay", False), ("random", False),
                                                             ("greedy", True)])
def test_opponents_that_read_only_the_mask_get_no_observation(opponents, encodes_for_opponents):
    """Encoding an observation nobody reads cost 43% of a step: only the learner's
    observations are encoded unless an opponent uses them."""
    env = BaohuangGymEnv(opponents=opponents)
    seats = []
    real = env.encoder.encode
    env.encoder.encode = lambda game, seat: seats.append(seat) or real(game, seat)
    _, info = env.reset(seed=5)
    done = False
    while not done:
        _, _, done, _, info = env.step(int(np.flatnonzero(info["action_mask"])[-1]))
    assert set(seats) - {env.learner} if encodes_for_opponents else set(seats) == {env.learner}


def _masked_sample(rng: np.random.Generator, masks: np.ndarray) -> np.ndarray:
    """One uniformly random legal action per row: the obvious masked sampler."""
    return np.array([rng.choice(np.flatnonzero(row)) for row in masks])


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_make_vec_with_a_masked_sampler_runs_through_next_step_autoresets(mode):
    """Gymnasium's vector wrappers with the default next-step autoreset: the row of an env
    that just ended holds PASS alone (the action its reset ignores), so masked sampling never
    meets an empty row, and the episode after the reset starts afresh."""
    envs = gymnasium.make_vec("Baohuang-v0", num_envs=3, vectorization_mode=mode, opponents="random")
    assert envs.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.NEXT_STEP
    rng = np.random.default_rng(0)
    _, info = envs.reset(seed=[10, 11, 12])
    ended = np.zeros(3, dtype=bool)
    resets = 0
    for _ in range(400):
        assert (info["action_mask"].sum(axis=1) > 0).all()
        for i in np.flatnonzero(ended):
            assert np.flatnonzero(info["action_mask"][i]).tolist() == [PASS]
        before = ended.copy()
        _, reward, terminated, truncated, info = envs.step(_masked_sample(rng, info["action_mask"]))
        assert (reward[before] == 0).all() and not terminated[before].any()  # the reset step
        resets += int(before.sum())
        ended = terminated | truncated
    envs.close()
    assert resets >= 3
