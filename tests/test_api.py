"""The PettingZoo AEC environment: PettingZoo's own API, seed and render
tests, pickling, registration, spaces and masks, rewards, illegal actions, constructor errors,
and an RLCard-style determinism test under global-RNG noise."""

from __future__ import annotations

import hashlib
import pickle
import random
import re

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, render_test, seed_test

import baohuang_env
from baohuang_env import IllegalActionError
from baohuang_env.aec_env import raw_env
from baohuang_env.cards import NUM_SEATS
from baohuang_env.encoding import Encoder

AGENTS = [f"player_{i}" for i in range(NUM_SEATS)]


def _legal(mask: np.ndarray) -> np.ndarray:
    return np.flatnonzero(mask)


def _play_random_game(env, seed: int, check_step=None) -> None:
    """Reset with `seed` and play uniformly random legal actions (own RNG) to the end.
    `check_step(env)` runs before every action while the game is on."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    while not all(env.terminations.values()):
        if check_step is not None:
            check_step(env)
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(rng.choice(_legal(mask))))


# --------------------------------------------------------------------------- PettingZoo's tests


def test_pettingzoo_api_test():
    api_test(baohuang_env.env(), num_cycles=1000)


def test_pettingzoo_seed_test():
    seed_test(baohuang_env.env, num_cycles=500)


def test_pettingzoo_render_test():
    render_test(lambda render_mode: baohuang_env.env(render_mode=render_mode))


def test_metadata_and_agents():
    e = baohuang_env.env()
    md = e.metadata
    assert md["name"] == "baohuang_v0"
    assert md["is_parallelizable"] is False
    assert "ansi" in md["render_modes"]
    e.reset(seed=0)
    assert e.possible_agents == AGENTS
    assert e.agents == AGENTS


def test_doc_card_matches_the_spaces():
    """The env docstring's table states the jj action count and observation size."""
    e = raw_env()
    doc = baohuang_env.aec_env.__doc__
    n_actions = int(re.search(r"\| Actions \| Discrete \((\d+)", doc).group(1))
    obs_len = int(re.search(r"\| Observation shape \| \((\d+),\)", doc).group(1))
    assert n_actions == e.action_space("player_0").n
    assert obs_len == Encoder(e.rules).size == e.observation_space("player_0")["observation"].shape[0]


def test_pettingzoo_make_from_registry():
    e = pettingzoo.make("aec", "baohuang/baohuang-v0")
    assert e.metadata["name"] == "baohuang_v0"
    e.reset(seed=1)
    assert e.agent_selection in AGENTS
    obs, reward, term, trunc, info = e.last()
    assert e.observation_space(e.agent_selection).contains(obs)
    assert reward == 0 and not term and not trunc and info == {}
    # keyword arguments reach the raw env
    assert pettingzoo.make("aec", "baohuang/baohuang-v0", reward_mode="win").unwrapped.reward_mode == "win"


# --------------------------------------------------------------------------- pickling


def _trajectory(env, rng: np.random.Generator, steps: int) -> list[tuple]:
    out = []
    for _ in range(steps):
        agent = env.agent_selection
        obs = env.observe(agent)
        out.append((agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(),
                    tuple(env._cumulative_rewards.values())))
        if all(env.terminations.values()):
            break
        env.step(int(rng.choice(_legal(obs["action_mask"]))))
    return out


def test_pickle_before_reset_keeps_constructor_args():
    """PettingZoo's pickle convention: the copy rebuilds from the constructor arguments."""
    e1 = baohuang_env.env(reward_mode="win", hold_sixes=False)
    e2 = pickle.loads(pickle.dumps(e1))
    assert e2.unwrapped.reward_mode == "win"
    assert e2.unwrapped.rules == e1.unwrapped.rules
    assert e2.unwrapped.rules.hold_sixes is False
    e1.reset(seed=42)
    e2.reset(seed=42)
    t1 = _trajectory(e1, np.random.default_rng(0), 400)
    t2 = _trajectory(e2, np.random.default_rng(0), 400)
    assert t1 == t2


def test_pickle_round_trip_of_a_reset_env_keeps_stepping_identically():
    """A reset (and part-played) env survives pickling: the copy continues the same game."""
    e1 = baohuang_env.env()
    e1.reset(seed=42)
    _trajectory(e1, np.random.default_rng(1), 20)  # into the play phase
    e2 = pickle.loads(pickle.dumps(e1))
    assert e2.agent_selection == e1.agent_selection
    t1 = _trajectory(e1, np.random.default_rng(2), 400)
    t2 = _trajectory(e2, np.random.default_rng(2), 400)
    assert t1 == t2


# --------------------------------------------------------------------------- spaces and masks


def test_spaces_are_cached_per_agent():
    e = baohuang_env.env()
    for a in e.possible_agents:
        assert e.observation_space(a) is e.observation_space(a)
        assert e.action_space(a) is e.action_space(a)
    space = e.observation_space("player_0")
    assert space["observation"].dtype == np.float32
    assert space["action_mask"].dtype == np.int8
    assert space["action_mask"].shape == (e.action_space("player_0").n,)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_observations_and_masks_during_random_games(seed):
    e = raw_env()
    space = e.observation_space("player_0")
    steps = []

    def check(env):
        game = env.game
        assert env.agents == AGENTS  # nobody leaves before the end
        assert env.agent_selection == AGENTS[game.current_player]  # turn order from the engine
        for a in env.agents:
            obs = env.observe(a)
            assert space.contains(obs), a
            assert obs["action_mask"].dtype == np.int8
            assert obs["observation"].dtype == np.float32
            np.testing.assert_array_equal(obs["observation"], env.encoder.encode(game, env.agent_name_mapping[a]))
            if a == env.agent_selection:
                assert obs["action_mask"].sum() >= 1  # the acting agent always has a move
                np.testing.assert_array_equal(obs["action_mask"], game.legal_mask())
            else:
                assert not obs["action_mask"].any()
        steps.append(game.phase)

    _play_random_game(e, seed, check)
    assert e.game.is_over
    for a in AGENTS:  # after the end: valid observations, nobody may act
        obs = e.observe(a)
        assert space.contains(obs) and not obs["action_mask"].any()
    assert "role" in steps and "play" in steps and len(steps) > 50


# --------------------------------------------------------------------------- rewards


@pytest.mark.parametrize("reward_mode", ["score", "win"])
@pytest.mark.parametrize("seed", [3, 4, 5, 6])
def test_rewards_zero_until_the_end_then_the_scores(seed, reward_mode):
    e = raw_env(reward_mode=reward_mode)

    def check(env):
        assert all(r == 0 for r in env.rewards.values())
        assert all(r == 0 for r in env._cumulative_rewards.values())
        assert not any(env.terminations.values()) and not any(env.truncations.values())

    _play_random_game(e, seed, check)
    scores = e.game.result.scores
    assert sum(scores) == 0
    expected = scores if reward_mode == "score" else [int(np.sign(s)) for s in scores]
    assert [e.rewards[a] for a in AGENTS] == expected
    for a in AGENTS:
        assert e.infos[a]["scores"] == scores
    # every agent collects its reward through last() on its dead step, then leaves
    collected = {}
    for agent in e.agent_iter():
        _, reward, term, _, _ = e.last()
        assert term
        collected[agent] = reward
        e.step(None)
    assert collected == dict(zip(AGENTS, expected, strict=True))
    assert e.agents == []


def test_win_mode_rewards_have_the_sign_of_the_scores_across_games():
    signs = set()
    for seed in range(10, 22):
        e = raw_env(reward_mode="win")
        _play_random_game(e, seed)
        for a, s in zip(AGENTS, e.game.result.scores, strict=True):
            assert e.rewards[a] in (-1, 0, 1)
            assert e.rewards[a] == (s > 0) - (s < 0)
            signs.add(e.rewards[a])
    assert {-1, 1} <= signs


# --------------------------------------------------------------------------- illegal actions


def _an_illegal_action(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask == 0)[0])


def test_env_terminates_with_the_illegal_reward_for_an_illegal_action():
    e = baohuang_env.env()
    e.reset(seed=7)
    offender = e.agent_selection
    obs, *_ = e.last()
    before = list(e.unwrapped.game.actions)
    e.step(_an_illegal_action(obs["action_mask"]))
    assert e.unwrapped.game.actions == before  # the game itself did not move
    assert all(e.terminations.values())
    assert e.rewards[offender] == -25  # jj's worst score, -24, minus 1
    assert all(e.rewards[a] == 0 for a in e.agents if a != offender)
    assert e._cumulative_rewards[offender] == -25


@pytest.mark.parametrize("action, words", [
    (99999, "cannot take action 99999 (not an action id) in the role phase: allowed now: 1 (ACCEPT)"),
    (-1, "cannot take action -1 (not an action id)"),
    (1.5, "an action is an integer action id (a Python or numpy int), got 1.5 (float)"),
    ("2", "got '2' (str)"),
])
def test_env_says_why_an_action_is_out_of_the_action_space(action, words):
    """As `Game.step` and `Baohuang-v0` say it (still an AssertionError, as PettingZoo's
    AssertOutOfBoundsWrapper raises), and the game does not move."""
    e = baohuang_env.env()
    e.reset(seed=7)
    agent = e.agent_selection
    before = list(e.unwrapped.game.actions)
    with pytest.raises(AssertionError) as info:
        e.step(action)
    message = str(info.value)
    assert message.startswith(f"{agent}'s action {action!r} is not in the action space: ")
    assert words in message and "action ids are 0..4035" in message
    assert e.unwrapped.game.actions == before and e.agent_selection == agent


def test_env_illegal_play_in_the_play_phase_also_terminates():
    e = baohuang_env.env()
    e.reset(seed=8)
    rng = np.random.default_rng(8)
    while e.unwrapped.game.phase != "play":
        obs, *_ = e.last()
        e.step(int(rng.choice(_legal(obs["action_mask"]))))
    offender = e.agent_selection
    obs, *_ = e.last()
    e.step(_an_illegal_action(obs["action_mask"]))
    assert all(e.terminations.values())
    assert e.rewards[offender] == -25


def test_raw_env_raises_illegal_action_error_and_keeps_the_state():
    e = raw_env()
    e.reset(seed=7)
    mask = e.observe(e.agent_selection)["action_mask"]
    snapshot = e.observe(e.agent_selection)["observation"].copy()
    bad = _an_illegal_action(mask)
    with pytest.raises(IllegalActionError, match="cannot take action"):
        e.step(bad)
    np.testing.assert_array_equal(e.observe(e.agent_selection)["observation"], snapshot)
    assert not any(e.terminations.values())
    e.step(int(_legal(mask)[0]))  # still playable


# --------------------------------------------------------------------------- constructor errors


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"preset": "nosuch"}, r"unknown preset 'nosuch'.*jj"),
        ({"reward_mode": "points"}, r"reward_mode 'points'.*score.*win"),
        ({"render_mode": "rgb_array"}, r"render_mode 'rgb_array'.*ansi"),
        ({"hold_sixs": True}, r"unknown rule flag.*hold_sixs.*hold_sixes"),
        ({"deck_size": 100}, r"deck_size.*168, 165, 216"),
        ({"deck_size": 216}, r"impossible rule combination.*hold_sixes"),
    ],
)
@pytest.mark.parametrize("factory", [baohuang_env.env, raw_env])
def test_bad_constructor_arguments_raise_value_error(factory, kwargs, message):
    with pytest.raises(ValueError, match=message):
        factory(**kwargs)


# --------------------------------------------------------------------------- determinism


def _hashes_with_global_noise(seed: int, noise: bool) -> list[str]:
    e = baohuang_env.env()
    e.reset(seed=seed)
    policy = np.random.default_rng(1234)
    out = []
    for agent in e.agent_iter():
        obs, reward, term, trunc, _ = e.last()
        h = hashlib.sha256()
        h.update(agent.encode())
        h.update(obs["observation"].tobytes())
        h.update(obs["action_mask"].tobytes())
        h.update(repr((reward, term, trunc)).encode())
        out.append(h.hexdigest())
        if noise:  # global RNG use between steps must not change anything
            random.random()
            np.random.rand()
            random.seed(len(out))
            np.random.seed(len(out) % 97)
        e.step(None if term or trunc else int(policy.choice(_legal(obs["action_mask"]))))
    return out


def test_same_seed_same_observations_despite_global_rng_noise():
    quiet = _hashes_with_global_noise(2024, noise=False)
    noisy = _hashes_with_global_noise(2024, noise=True)
    assert len(quiet) > 50
    assert quiet == noisy
    other = _hashes_with_global_noise(2025, noise=True)
    assert other != quiet  # the hashes do depend on the deal


# --------------------------------------------------------------------------- after the end


def _finished(e):
    """Play `e` (raw_env or env()) to the end with the first legal action, stepping the dead
    agents with None until PettingZoo has removed every agent."""
    e.reset(seed=11)
    for _ in e.agent_iter():
        obs, _, termination, truncation, _ = e.last()
        e.step(None if termination or truncation else int(_legal(obs["action_mask"])[0]))
    assert e.agents == []
    return e


def test_raw_env_says_the_game_is_over_after_the_end():
    e = _finished(raw_env())
    with pytest.raises(RuntimeError, match=r"^last\(\) called after the game ended and every agent was removed; "
                                           r"call reset\(\)$"):
        e.last()
    for action in (0, None):
        with pytest.raises(RuntimeError, match=r"^step\(\) called after the game ended.*call reset\(\)$"):
            e.step(action)
    e.reset(seed=1)  # and reset() starts a new game
    assert e.last()[2] is False


def test_env_last_says_the_game_is_over_after_the_end():
    e = _finished(baohuang_env.env())
    with pytest.raises(RuntimeError, match=r"^last\(\) called after the game ended.*call reset\(\)$"):
        e.last()
