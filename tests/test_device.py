"""The trainers' `device` setting: auto | cpu | cuda[:N]. CI has no GPU, so the CUDA path is
checked here by what can be seen on a CPU: a CUDA request is refused before a run directory
exists, "auto" picks CUDA when torch reports one, and the learner-copy path (a learner on its
own device whose weights go back to the players' CPU copy after every update) trains and
checkpoints correctly when forced on with a CPU copy.
"""

from __future__ import annotations

import pytest
import torch

import agents.training.device as device_module
from agents.training.config import load_config
from agents.training.device import learner_copy, sync_to, training_device
from agents.dmc.config import DMCConfig
from agents.dmc.trainer import CHECKPOINT_NAME
from agents.dmc.trainer import train as train_dmc
from agents.nets.networks import ActionScorer
from agents.ppo.config import PPOConfig
from agents.ppo.trainer import train as train_ppo
from baohuang_cli.cli import main as cli_main

DMC_TINY = ["actors=0", "unroll_length=16", "slots_per_role=8", "batch_slots=2", "hidden=32", "head=16",
            "eval_minutes=0", "log_seconds=1000", "checkpoint_minutes=100", "total_frames=2000"]
PPO_TINY = ["num_games=8", "rollout_decisions=256", "minibatch_size=128", "update_epochs=1", "hidden=32",
            "head=16", "value_hidden=32", "torch_threads=1", "eval_minutes=0", "log_seconds=1000",
            "checkpoint_minutes=100", "total_frames=600"]


def test_the_default_is_auto_and_it_takes_the_cpu_without_cuda(monkeypatch):
    assert DMCConfig().device == PPOConfig().device == "auto"
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert training_device("auto") == torch.device("cpu") == training_device("cpu")


def test_auto_takes_the_first_cuda_device_when_torch_sees_one(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    assert training_device("auto") == torch.device("cuda:0") == training_device("cuda")
    assert training_device("cuda:1") == torch.device("cuda:1")
    with pytest.raises(ValueError, match=r"device='cuda:2': this machine has 2 CUDA device\(s\), cuda:0..cuda:1"):
        training_device("cuda:2")


@pytest.mark.parametrize("spec", ["gpu", "cuda:-1", "cuda:x", "CPU", "cuda0"])
def test_a_device_that_is_no_device_is_a_config_error(spec, tmp_path):
    with pytest.raises(ValueError, match="device must be auto, cpu, cuda or cuda:N"):
        load_config(DMCConfig, None, [f"device={spec}", f"runs_dir={tmp_path}"])


@pytest.mark.parametrize("algo", ["dmc", "ppo"])
def test_cuda_without_cuda_fails_before_a_run_directory_exists(algo, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    runs = tmp_path / "runs"
    assert cli_main(["train", algo, "device=cuda", f"runs_dir={runs}", "total_frames=100"]) == 2
    err = capsys.readouterr().err
    assert "device='cuda' asks for CUDA, but" in err and "use device=cpu or device=auto" in err
    assert not runs.exists()


def test_on_the_cpu_the_learner_is_the_players_copy():
    net = ActionScorer(10, 4, 8, 4)
    assert learner_copy(net, torch.device("cpu")) is net
    other = ActionScorer(10, 4, 8, 4)
    sync_to(other, net)
    assert all(torch.equal(a, b) for a, b in zip(other.state_dict().values(), net.state_dict().values(), strict=True))


def _separate_learner(monkeypatch) -> list[torch.nn.Module]:
    """Force the GPU code path on the CPU: the learner is a copy, as on a GPU."""
    made = []

    def copy_on_cpu(module, device):
        twin = device_module.copy.deepcopy(module)
        made.append((module, twin))
        return twin

    for mod in ("agents.dmc.trainer", "agents.ppo.trainer"):
        monkeypatch.setattr(f"{mod}.learner_copy", copy_on_cpu)
    return made


def test_dmc_with_a_separate_learner_brings_its_weights_to_the_actors(tmp_path, monkeypatch):
    made = _separate_learner(monkeypatch)
    run_dir = train_dmc(load_config(DMCConfig, None, [*DMC_TINY, f"runs_dir={tmp_path}", "device=cpu"]))
    (players, learner), = made
    assert players is not learner
    ckpt = torch.load(run_dir / CHECKPOINT_NAME, weights_only=True)
    assert ckpt["counters"]["updates"] > 0
    for key, value in learner.state_dict().items():
        assert torch.equal(players.state_dict()[key], value)  # synced after the last update
        assert torch.equal(ckpt["models"]["shared"][key], value)  # and what the checkpoint holds


def test_ppo_with_a_separate_learner_brings_its_weights_to_the_rollouts(tmp_path, monkeypatch):
    made = _separate_learner(monkeypatch)
    run_dir = train_ppo(load_config(PPOConfig, None, [*PPO_TINY, f"runs_dir={tmp_path}", "device=cpu"]))
    (players, learner), = made
    ckpt = torch.load(run_dir / CHECKPOINT_NAME, weights_only=True)
    assert ckpt["counters"]["updates"] > 0 and players is not learner
    for key, value in learner.state_dict().items():
        assert torch.equal(players.state_dict()[key], value)
        assert torch.equal(ckpt["models"]["actor_critic"][key], value)
