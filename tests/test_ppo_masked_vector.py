"""experiments/ppo_masked_vector.py: the CleanRL-style masked PPO over the native vector env.

The pieces (the masked policy, GAE at an episode's end, the env refusing illegal actions), two
tiny runs (deterministic, CleanRL's TensorBoard names, the reset rows of next-step autoreset
dropped and none under same-step) and one short run that must learn: on 256 held-out deals
against random opponents the trained policy beats the one it started from by more than two
standard errors of the paired difference (about 40 s on one core).
"""

import json

import numpy as np
import pytest
import torch
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

from baohuang_env.game import IllegalActionError
from helpers import load_experiment

ppo = load_experiment("ppo_masked_vector")

CLEANRL_SCALARS = {"charts/episodic_return", "charts/learning_rate", "charts/SPS", "losses/value_loss",
                   "losses/policy_loss", "losses/entropy", "losses/approx_kl", "losses/clipfrac",
                   "losses/explained_variance"}
#: The figures of a result that depend on the clock or the folder, not on the seed.
TIMING = ("train_seconds", "sps", "out")
TINY = ["--num-envs", "8", "--num-steps", "64", "--total-timesteps", "1024", "--eval-episodes", "8", "--hidden", "32"]


def run(tmp_path, name: str, *extra: str) -> dict:
    return ppo.main([*TINY, "--out", str(tmp_path / name), *extra])


def without_timing(result: dict) -> dict:
    return {k: v for k, v in result.items() if k not in TIMING}


def test_the_masked_policy_is_the_full_tables_and_samples_legal_actions_only():
    torch.manual_seed(0)
    agent = ppo.Agent(obs_size=12, num_actions=40, hidden=16)
    x = torch.randn(64, 12)
    mask = torch.rand(64, 40) < 0.1
    mask[:, 0] |= ~mask.any(1)  # every row has a legal action
    mask[:4] = False
    mask[:4, 0] = True  # rows with PASS alone, as an ended episode shows
    full = ppo.CategoricalMasked(agent.actor_head(agent.actor_torso(x)), mask)
    for _ in range(20):
        action, logprob, entropy, value = agent.get_action_and_value(x, mask)
        assert mask[torch.arange(64), action].all()
        torch.testing.assert_close(logprob, full.log_prob(action))
        torch.testing.assert_close(entropy, full.entropy())
        assert value.shape == (64, 1)
    assert (entropy[:4] == 0).all() and (logprob[:4] == 0).all()
    legal = mask.sum(1).float()
    uniform = ppo.CategoricalMasked(torch.zeros(64, 40), mask)
    torch.testing.assert_close(uniform.entropy(), legal.log())  # the entropy counts the legal actions only


def test_gae_does_not_reach_past_an_ended_episode():
    """Rows of one env: a decision, the decision that ends the episode (reward 2), the reset
    row, the new episode's first decision. The two decisions' advantages do not depend on
    anything after the end."""
    rewards = torch.tensor([[0.0], [2.0], [0.0], [0.0]])
    dones = torch.tensor([[0.0], [1.0], [0.0], [0.0]])
    values = torch.tensor([[0.5], [0.8], [0.3], [-0.2]])
    adv, ret = ppo.compute_gae(rewards, values, dones, torch.tensor([[0.1]]), gamma=0.9, gae_lambda=0.8)
    assert adv[1, 0].item() == pytest.approx(2.0 - 0.8)
    assert adv[0, 0].item() == pytest.approx(0.9 * 0.8 - 0.5 + 0.9 * 0.8 * (2.0 - 0.8))
    torch.testing.assert_close(ret, adv + values)
    changed = values.clone()
    changed[2:] = torch.tensor([[5.0], [-7.0]])
    adv2, _ = ppo.compute_gae(rewards + torch.tensor([[0.0], [0.0], [0.0], [3.0]]), changed, dones,
                              torch.tensor([[9.0]]), gamma=0.9, gae_lambda=0.8)
    torch.testing.assert_close(adv2[:2], adv[:2])
    assert adv2[3, 0].item() != adv[3, 0].item()


def test_the_env_of_the_run_raises_on_an_illegal_action():
    """So a run that finishes took no illegal action."""
    envs = ppo.make_envs(ppo.parse_args([]), 2)
    _, info = envs.reset(seed=0)
    illegal = np.array([int(np.flatnonzero(row == 0)[0]) for row in info["action_mask"]])
    with pytest.raises(IllegalActionError):
        envs.step(illegal)


def test_tiny_runs_are_deterministic_log_cleanrl_names_and_drop_the_reset_rows(tmp_path, capsys):
    first = run(tmp_path, "a")
    printed = capsys.readouterr().out.strip().splitlines()
    assert printed[0].startswith("iteration 1/2 global_step=512 SPS=")
    assert json.loads(printed[-1]) == first
    second = run(tmp_path, "b")
    assert without_timing(first) == without_timing(second)
    tags = set(EventAccumulator(str(tmp_path / "a")).Reload().Tags()["scalars"])
    assert CLEANRL_SCALARS <= tags

    # next-step autoreset: the row after each ended episode (but those ended at the last step) is dropped
    assert first["global_step"] == 1024 and first["episodes"] > 0
    assert first["episodes"] - 8 <= first["reset_rows_dropped"] <= first["episodes"]
    assert first["reset_rows_dropped"] > 0
    same_step = run(tmp_path, "c", "--autoreset-mode", "same_step")
    assert same_step["episodes"] > 0 and same_step["reset_rows_dropped"] == 0

    evaluation = first["eval"]
    assert evaluation["episodes"] == 8 and set(evaluation) >= {"trained", "initial", "random", "trained_minus_initial"}
    assert all(0 <= evaluation[p]["win_rate"] <= 1 for p in ("trained", "initial", "random"))
    frozen = run(tmp_path, "d", "--learning-rate", "0")  # nothing learned: the same play as the start
    assert frozen["eval"]["trained"] == frozen["eval"]["initial"]
    assert frozen["eval"]["trained_minus_initial"] == {"mean": 0.0, "stderr": 0.0}


def test_a_short_run_learns_to_beat_its_starting_policy(tmp_path):
    result = run(tmp_path, "learn", "--num-envs", "32", "--num-steps", "32", "--total-timesteps", "49152",
                 "--learning-rate", "2e-3", "--hidden", "128", "--eval-episodes", "256")
    evaluation = result["eval"]
    gain = evaluation["trained_minus_initial"]
    assert gain["mean"] > 2 * gain["stderr"] > 0, evaluation
    assert evaluation["trained"]["mean_return"] > evaluation["random"]["mean_return"] + 1.0, evaluation
    assert evaluation["trained"]["win_rate"] > evaluation["initial"]["win_rate"], evaluation
