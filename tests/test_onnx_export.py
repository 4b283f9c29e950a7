"""`baohuang export --onnx`: the exported graph computes what the numpy agents compute.

Parity on recorded decisions of seeded games (every decision with more than one legal action,
the agent playing all five seats): onnxruntime's values of each legal action equal the numpy
inference's (`DMCAgent.action_values`, `PPOAgent.logits`) within 1e-4, and the argmax is the
action the numpy agent plays, at every decision, for the shipped kickstart agent (one shared
network reading the heuristic's advice), a per-role DMC network (the graph picks the role's
network) and a PPO policy, with batches of 1, 7 and all decisions (so the batch and the
number of legal actions vary). Then the metadata, and the command's refusals.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from agents.training.config import load_config
from agents.dmc import DMCAgent
from agents.dmc.config import DMCConfig
from agents.dmc.trainer import train as train_dmc
from agents.files.onnx_export import best_actions, decision_inputs, export_onnx, load_scoring_agent
from agents.ppo.config import PPOConfig
from agents.ppo.trainer import train as train_ppo
from agents.pretrained import find
from baohuang_cli.cli import main as cli_main
from baohuang_env import Game
from baohuang_env.encoding import Encoder
from baohuang_env.observation import observation_layout

INSTALL = 'ONNX tests need onnx and onnxruntime: pip install -e ".[onnx]"'
ort = pytest.importorskip("onnxruntime", reason=INSTALL)
onnx = pytest.importorskip("onnx", reason=INSTALL)

SHIPPED = find("dmc_kickstart_jj").path
DMC_TINY = ["actors=0", "games_per_actor=2", "unroll_length=16", "slots_per_role=8", "batch_slots=2", "hidden=32",
            "head=16", "eval_minutes=0", "log_seconds=1000", "checkpoint_minutes=100", "total_frames=300"]
PPO_TINY = ["num_games=4", "rollout_decisions=128", "minibatch_size=64", "update_epochs=1", "hidden=32", "head=16",
            "value_hidden=32", "torch_threads=1", "eval_minutes=0", "log_seconds=1000", "checkpoint_minutes=100",
            "total_frames=200", "opponent_mix=self:1"]
#: Batch sizes the recorded decisions are run in (the last: all at once).
CHUNKS = (1, 7, None)


def record_decisions(agent, seeds: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """Observations and masks of every decision with a choice in the seeded games the agent
    plays at all five seats."""
    enc = Encoder(agent.rules)
    observations, masks = [], []
    for seed in seeds:
        game = Game(agent.rules, seed=seed)
        while not game.is_over:
            obs, mask = enc.encode(game, game.current_player).copy(), game.legal_mask().copy()
            if np.count_nonzero(mask) > 1:
                observations.append(obs)
                masks.append(mask)
            game.step(agent.act(obs, mask))
    return np.array(observations), np.array(masks)


def numpy_values(agent, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The numpy inference's values of the legal actions, in action-id order."""
    legal = np.flatnonzero(mask)
    return agent.action_values(obs, legal, mask) if isinstance(agent, DMCAgent) else agent.logits(obs, legal)


def parity(onnx_file: Path, agent, observations: np.ndarray, masks: np.ndarray) -> float:
    """Run the graph on the decisions in every chunk size of CHUNKS; assert the same argmax as
    the numpy agent at each and values within 1e-4; return the largest difference."""
    session = ort.InferenceSession(str(onnx_file), providers=["CPUExecutionProvider"])
    played = np.array([agent.act(o, m) for o, m in zip(observations, masks, strict=True)])
    worst = 0.0
    for chunk in CHUNKS:
        step = chunk or len(observations)
        for start in range(0, len(observations), step):
            obs, msk = observations[start:start + step], masks[start:start + step]
            inputs = decision_inputs(agent, obs, msk)
            (values,) = session.run(["values"], inputs.feeds())
            assert values.shape == inputs.legal.shape == (len(obs), int((msk != 0).sum(axis=1).max()))
            for b, (o, m) in enumerate(zip(obs, msk, strict=True)):
                want = numpy_values(agent, o, m)
                assert np.array_equal(inputs.legal[b, :want.size], np.flatnonzero(m))
                worst = max(worst, float(np.abs(values[b, :want.size] - want).max()))
            assert np.array_equal(best_actions(values, inputs.legal), played[start:start + step])
    assert worst < 1e-4
    return worst


@pytest.fixture(scope="module")
def shipped_onnx(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("onnx") / "dmc_kickstart_jj.onnx"
    export_onnx(SHIPPED, out)
    return out


def test_shipped_agent_with_advice_matches_the_numpy_inference(shipped_onnx):
    agent = load_scoring_agent(SHIPPED)
    assert agent.advice is not None and len(agent.nets) == 1  # the advice columns are part of the input
    observations, masks = record_decisions(agent, [1, 2])
    assert len(observations) > 100
    parity(shipped_onnx, agent, observations, masks)


def test_per_role_dmc_network_matches_the_numpy_inference(tmp_path):
    run_dir = train_dmc(load_config(DMCConfig, None, [*DMC_TINY, "networks=per_role", f"runs_dir={tmp_path}"]))
    out = tmp_path / "per_role.onnx"
    export_onnx(run_dir / "model.pt", out)
    agent = load_scoring_agent(run_dir / "model.pt")
    observations, masks = record_decisions(agent, [3])
    assert len(agent.nets) == 4 and len(set(agent.networks_of(observations).tolist())) >= 3
    parity(out, agent, observations, masks)


def test_ppo_policy_matches_the_numpy_inference(tmp_path):
    run_dir = train_ppo(load_config(PPOConfig, None, [*PPO_TINY, f"runs_dir={tmp_path}"]))
    out = tmp_path / "ppo.onnx"
    meta = export_onnx(run_dir / "checkpoint.pt", out)
    assert meta["algo"] == "ppo" and "logit" in meta["values"]
    agent = load_scoring_agent(run_dir / "checkpoint.pt")
    parity(out, agent, *record_decisions(agent, [4]))


def test_metadata_names_the_inputs_the_rules_and_the_layouts(shipped_onnx):
    model = onnx.load(str(shipped_onnx))
    meta = {p.key: p.value for p in model.metadata_props}
    agent = load_scoring_agent(SHIPPED)
    compat = torch.load(SHIPPED, weights_only=True)["compat"]
    assert (meta["preset"], meta["rules_fingerprint"], meta["algo"]) == ("jj", compat["rules_fingerprint"], "dmc")
    assert json.loads(meta["inputs"]) == {"observation": ["batch", 487], "action_features": ["batch", "actions", 44]}
    session = ort.InferenceSession(str(shipped_onnx), providers=["CPUExecutionProvider"])
    assert [(i.name, i.shape) for i in session.get_inputs()] == [
        ("observation", ["batch", 487]), ("action_features", ["batch", "actions", 44])]
    assert [(o.name, o.shape) for o in session.get_outputs()] == [("values", ["batch", "actions"])]
    columns = json.loads(meta["action_feature_layout"])
    assert sum(c["size"] for c in columns) == agent.row_size == 44
    assert [c["name"] for c in columns[-6:]] == ["advice.advised", "advice.nobeat", "advice.goes_out",
                                                 "advice.breaks_group", "advice.kept", "advice.groups_after"]
    spans = json.loads(meta["observation_layout"])
    assert sum(n for _, _, n in spans) == observation_layout(agent.rules).size == 487
    assert json.loads(meta["counters"])["frames"] == 30382080  # the last stage's frames


def test_cli_writes_the_graph_and_refuses_what_it_cannot_do(tmp_path, capsys):
    out = tmp_path / "agent.onnx"
    assert cli_main(["export", "--onnx", str(SHIPPED), str(out)]) == 0
    said = capsys.readouterr().out
    assert said.startswith(f"wrote {out}: dmc network (shared) for preset jj (rules fingerprint ")
    assert "action_features ['batch', 'actions', 44]" in said and "values ['batch', 'actions']" in said
    refusals = [
        (["export", "--onnx", str(SHIPPED), str(out)], "already exists; pass --force"),
        (["export", "--onnx", str(SHIPPED), str(tmp_path / "agent.pt")], "must end in .onnx"),
        (["export", "--onnx", __file__, str(tmp_path / "x.onnx")], "is not a checkpoint"),
    ]
    for argv, reason in refusals:
        assert cli_main(argv) == 2
        err = capsys.readouterr().err
        assert err.startswith("baohuang export: error: ") and reason in err and err.count("\n") == 1, err
    assert cli_main(["export", "--onnx", "--force", str(SHIPPED), str(out)]) == 0
    assert not (tmp_path / "x.onnx").exists() and not (tmp_path / "agent.pt").exists()


def test_a_missing_onnx_package_says_how_to_install_it(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "onnx", None)  # `import onnx` raises ImportError
    with pytest.raises(ValueError, match=r'pip install -e "\.\[onnx\]"'):
        export_onnx(SHIPPED, tmp_path / "agent.onnx")
