"""`baohuang train`'s config errors say where the mistake is and what would be right, and
come before the run directory exists: an unknown key is blamed on the layer that gave it
(the YAML file or the command line) with the nearest key; a config of the other trainer is
named as such; an impossible value is refused with what is allowed."""

from __future__ import annotations

import pytest

from agents.training.config import UnknownKeys, load_config
from agents.dmc.config import DMCConfig
from agents.ppo.config import PPOConfig
from baohuang_cli.cli import main


def train(capsys, tmp_path, *args: str) -> str:
    """`baohuang train ARGS` refused (exit code 2) before it made a run directory: the error."""
    runs = tmp_path / "runs"
    assert main(["train", *args, f"runs_dir={runs}", "--no-eval"]) == 2
    assert not runs.exists()
    err = capsys.readouterr().err
    assert err.startswith("baohuang train: error: ") and err.count("\n") == 1
    return err.removeprefix("baohuang train: error: ").strip()


def test_a_typo_on_the_command_line_is_blamed_on_the_command_line(capsys, tmp_path):
    err = train(capsys, tmp_path, "dmc", "--config", "dmc_quick", "totl_minutes=1")
    assert err == "the command line: unknown key 'totl_minutes' (did you mean total_minutes?)"


def test_a_typo_in_the_yaml_file_is_blamed_on_the_file(tmp_path):
    path = tmp_path / "mine.yaml"
    path.write_text("total_minutes: 1\nlearning_rat: 0.01\nzzz: 1\n")
    with pytest.raises(UnknownKeys) as err:
        load_config(DMCConfig, path, ["total_frames=5"])
    assert err.value.source == str(path) and err.value.keys == ["learning_rat", "zzz"]
    assert str(err.value).startswith(f"{path}: unknown keys ['learning_rat', 'zzz'] (allowed keys: [")
    path.write_text("learning_rat: 0.01\n")
    with pytest.raises(ValueError, match=r"mine.yaml: unknown key 'learning_rat' \(did you mean learning_rate\?\)$"):
        load_config(DMCConfig, path, [])


def test_a_config_of_the_other_trainer_says_which_trainer_it_is_for(capsys, tmp_path):
    err = train(capsys, tmp_path, "ppo", "--config", "dmc_quick")
    assert err == ("dmc_quick: advice, epsilon, networks, target_lambda, teacher, teacher_frames are keys of "
                   "baohuang train dmc, not ppo: this looks like a DMC config; use baohuang train dmc")
    err = train(capsys, tmp_path, "dmc", "--config", "ppo_quick")
    assert err.endswith("this looks like a PPO config; use baohuang train ppo")
    err = train(capsys, tmp_path, "ppo", "teacher_frames=5")
    assert err == ("the command line: teacher_frames is a key of baohuang train dmc, not ppo: this looks like "
                   "a DMC config; use baohuang train dmc")


@pytest.mark.parametrize(("algo", "override", "message"), [
    ("dmc", "learning_rate=-1", "learning_rate must be >= 0, got -1.0"),
    ("ppo", "learning_rate=-1", "learning_rate must be >= 0, got -1.0"),
    ("dmc", "total_minutes=-2", "total_minutes must be >= 0, got -2.0"),
    ("dmc", "checkpoint_minutes=-1", "checkpoint_minutes must be >= 0, got -1.0"),
    ("dmc", "epsilon=1.5", "epsilon must be in [0, 1], got 1.5"),
    ("dmc", "max_grad_norm=0", "max_grad_norm must be > 0, got 0.0"),
    ("ppo", "snapshot_win_rate=2", "snapshot_win_rate must be in [0, 1], got 2.0"),
    ("ppo", "lr_final_fraction=-0.1", "lr_final_fraction must be in [0, 1], got -0.1"),
    ("ppo", "clip_coef=0", "clip_coef must be > 0, got 0.0"),
    ("ppo", "gamma=0", "gamma must be in (0, 1], got 0.0"),
    ("ppo", "ent_coef=nan", "ent_coef must be >= 0, got nan"),
    ("dmc", "reward_scale=0", "reward_scale must be > 0, got 0.0"),
    ("dmc", "seed=-1", "seed must be >= 0, got -1"),
    ("ppo", "eval_deals=0", "eval_deals must be > 0, got 0"),
])
def test_an_impossible_value_is_refused_before_the_run_directory_exists(algo, override, message, capsys, tmp_path):
    assert train(capsys, tmp_path, algo, override) == message


def test_the_bounds_hold_for_the_shipped_recipes_and_the_defaults():
    for cls in (DMCConfig, PPOConfig):
        load_config(cls)
    for name in ("dmc_quick", "dmc_jj", "dmc_kickstart"):
        load_config(DMCConfig, name)
    for name in ("ppo_quick", "ppo_jj"):
        load_config(PPOConfig, name)
