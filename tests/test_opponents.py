"""Checkpoint opponents in trainer configs: PPO's `opponent_mix` names a `dmc:path` (or
`ppo:path`) opponent on the command line (`spec=weight`, `spec@weight`) and in YAML, the
older `name:weight` entries still read, malformed entries are errors that show the accepted
forms, and TensorBoard tags name every opponent by one clean slug (no `/` or `:`)."""

from __future__ import annotations

import functools

import pytest
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

import agents.ppo.trainer as ppo_trainer
from agents.training.config import load_config
from agents.dmc.config import DMCConfig
from agents.training.opponents import opponent_tag
from agents.ppo.config import PPOConfig
from agents.training.run import CHECKPOINT_NAME, MODEL_NAME, RunClock
from baohuang_cli.cli import main

SHIPPED = "dmc:agents/pretrained/dmc_jj.pt"


def mix(text: str) -> dict[str, float]:
    return load_config(PPOConfig, None, [f"opponent_mix={text}"]).opponent_mix


def test_opponent_mix_forms_on_the_command_line_and_in_yaml(tmp_path):
    want = {"self": 0.5, "greedy": 0.3, SHIPPED: 0.2}
    assert mix(f"self=0.5,greedy=0.3,{SHIPPED}=0.2") == want
    assert mix(f"self@0.5, greedy@0.3, {SHIPPED}@0.2") == want
    assert mix(f"self:0.5,greedy:0.3,{SHIPPED}=0.2") == want  # the older form, for keys without ':'
    assert mix("self:0.5,greedy:0.5") == {"self": 0.5, "greedy": 0.5}
    as_mapping = tmp_path / "mapping.yaml"
    as_mapping.write_text(f"opponent_mix: {{self: 0.5, greedy: 0.3, {SHIPPED}: 0.2}}\n")
    as_line = tmp_path / "line.yaml"
    as_line.write_text(f"opponent_mix: self=0.5,greedy=0.3,{SHIPPED}=0.2\n")
    for path in (as_mapping, as_line):
        cfg = load_config(PPOConfig, path)
        assert cfg.opponent_mix == want and cfg.opponent_specs() == ["greedy", SHIPPED]


@pytest.mark.parametrize(("text", "error"), [
    (f"self=0.5,{SHIPPED}:0.5", rf"entry '{SHIPPED}:0.5' \(did you mean {SHIPPED}=VALUE\?\).*key=value.*key@value"),
    (f"self=0.5,{SHIPPED}", r"opponent_mix\.dmc' expects a number, got 'agents/pretrained/dmc_jj.pt'.*key=value"),
    ("self=0.5,greedy=", r"the entry 'greedy=' has no value.*key=value"),
    ("self=0.5,=0.5", r"the entry '=0.5' has no key"),
    ("self", r"cannot read the entry 'self' \(did you mean self=VALUE\?\)"),
    ("self=0.5,self@0.5", r"'self' is given twice"),
    ("self=0.5,greedy=lots", r"opponent_mix\.greedy' expects a number, got 'lots'"),
    ("self=1,dmc:runs/a/model.pt=1,dmc:b/a/checkpoint.pt=1",
     r"'dmc:runs/a/model.pt' and 'dmc:b/a/checkpoint.pt' would share the TensorBoard tag 'dmc-a'"),
])
def test_malformed_opponent_mixes_say_what_is_wrong(text, error):
    with pytest.raises(ValueError, match=error):
        mix(text)


def test_opponent_tags_are_short_and_clean():
    assert opponent_tag("greedy") == "greedy" and opponent_tag("self") == "self"
    assert opponent_tag(SHIPPED) == "dmc-dmc_jj"
    assert opponent_tag(f"ppo:runs/baohuang-jj__ppo__1__20260101-000000/{MODEL_NAME}") == \
        "ppo-baohuang-jj__ppo__1__20260101-000000"
    assert opponent_tag(f"dmc:C:\\runs\\run 7\\{CHECKPOINT_NAME}") == "dmc-run_7"
    assert opponent_tag("ppo:b/x.pt") != opponent_tag("dmc:a/x.pt")
    with pytest.raises(ValueError, match=r"eval_opponents: 'dmc:a/x\.pt' and 'dmc:b/x\.pt' would share"):
        load_config(DMCConfig, None, ["eval_opponents=random,dmc:a/x.pt,dmc:b/x.pt"])


def test_ppo_trains_against_the_shipped_dmc_agent_with_clean_tags(tmp_path, monkeypatch, capsys):
    """`baohuang train ppo opponent_mix=self=0.5,dmc:agents/pretrained/dmc_jj.pt=0.5` trains
    (a fake clock makes the evaluation during training fire at once, against the same agent)."""
    now = [0.0]

    def fake_clock() -> float:
        now[0] += 1.0
        return now[0]

    monkeypatch.setattr(ppo_trainer, "RunClock", functools.partial(RunClock, clock=fake_clock))
    code = main(["train", "ppo", "--no-eval", "num_games=8", "rollout_decisions=128", "minibatch_size=128",
                 "update_epochs=1", "hidden=32", "head=16", "value_hidden=32", "torch_threads=1",
                 f"opponent_mix=self=0.5,{SHIPPED}=0.5", f"eval_opponents=random,{SHIPPED}", "eval_deals=1",
                 "eval_minutes=0.01", "log_seconds=1", "total_frames=1500", f"runs_dir={tmp_path}"])
    assert code == 0, capsys.readouterr().err
    [run_dir] = tmp_path.iterdir()
    tags = EventAccumulator(str(run_dir)).Reload().Tags()["scalars"]
    assert {"charts/winrate_vs_dmc-dmc_jj", "eval/winrate_vs_dmc-dmc_jj", "eval/winrate_vs_random",
            "eval/mean_score_diff_vs_dmc-dmc_jj"} <= set(tags)
    assert all(tag.count("/") == 1 and ":" not in tag for tag in tags), sorted(tags)
