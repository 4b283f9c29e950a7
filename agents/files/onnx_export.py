"""ONNX export: a DMC or PPO checkpoint's network as an ONNX graph another runtime can run.

The graph is the network alone, the `agents.nets.networks.ActionScorer` the agents score with:

* inputs `observation` (B, O) float32, the acting seat's observation
  (`baohuang_env.encoding.Encoder.encode`), and `action_features` (B, A, F) float32, the row
  the agent's network reads for each of (up to) A legal actions per decision: what
  `DMCAgent.action_rows` builds (the static row `ActionFeatures.table[id]`, then the advice
  columns of agents trained with advice), or a PPO agent's static rows;
* output `values` (B, A) float32: DMC's Q of each action (the expected final score), or PPO's
  policy logit of it. Both agents play the legal action of the highest value.

B and A are dynamic. A decision with fewer legal actions than A is padded with rows of zeros,
whose values mean nothing: `decision_inputs` builds the inputs of a batch of decisions with the
agent's own feature builder and says which entries are real (`legal`, -1 on padding), and
`best_actions` picks each decision's action. A DMC checkpoint with one network per role
exports as one graph that picks each row's network from the observation's `my_role` slice as
the numpy agent does (`agents.dmc.model.role_indices`), so every checkpoint exports with the
same inputs and outputs. The graph's metadata (`metadata_props`) records the inputs and
outputs, the preset and rules fingerprint, the observation and action-feature layouts and the
checkpoint's arch, config and counters (`baohuang info` prints them).

Needs the `onnx` package (`pip install -e ".[onnx]"`, which also installs onnxruntime to run
the graph); the export uses torch's TorchScript-based exporter, which needs nothing more.
"""

from __future__ import annotations

import io
import json
import os
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from baohuang_env.observation import observation_layout
from baohuang_env.replay import atomic_path
from baohuang_env.rules import Rules

from ..nets.action_features import ActionFeatures
from ..nets.advice import HEURISTIC_COLUMNS, check_advice
from .checkpoint import load_checkpoint, sha256_of
from ..dmc.agent import DMCAgent
from ..dmc.config import checkpoint_networks
from ..dmc.model import role_indices
from ..ppo.agent import PPOAgent
from ..pretrained import checkpoint_path

ONNX_FORMAT = "baohuang-onnx"
ONNX_FORMAT_VERSION = 1
INPUTS = ("observation", "action_features")
OUTPUT = "values"
#: The ONNX operator set the graph is written for (onnxruntime >= 1.12 runs it).
OPSET = 17
#: What the install of the optional dependencies is, for every message that needs them.
INSTALL = 'pip install -e ".[onnx]"'
#: What `values` means, per algorithm.
VALUE_MEANING = {
    "dmc": "Q: the expected final score of the action (the agent plays the legal action of highest Q)",
    "ppo": "the policy's logit of the action (softmax over the legal ones; the agent plays the highest)",
}
#: The advice columns after the static action features, per `DMCConfig.advice` kind.
_ADVICE_COLUMNS = {"none": (), "heuristic": HEURISTIC_COLUMNS}


def require_onnx() -> Any:
    """The `onnx` module; ValueError saying how to install it when it is missing."""
    try:
        import onnx
    except ImportError:
        raise ValueError(f"ONNX export needs the onnx package: {INSTALL}") from None
    return onnx


def load_scoring_agent(checkpoint: str | os.PathLike, ckpt: dict[str, Any] | None = None) -> DMCAgent | PPOAgent:
    """The agent of a DMC or PPO checkpoint (training checkpoint or playing copy), for the
    rules it was trained for: what the exported graph computes, in numpy. `ckpt`: the
    checkpoint already loaded from that file, if it was."""
    ckpt = load_checkpoint(checkpoint) if ckpt is None else ckpt
    compat = ckpt.get("compat", {})
    rules = Rules.from_dict(compat["rules"])
    algo = compat.get("algo")
    if algo == "dmc":
        return DMCAgent.from_checkpoint(str(checkpoint), rules)
    if algo == "ppo":
        return PPOAgent.from_checkpoint(str(checkpoint), rules)
    raise ValueError(f"{checkpoint} is a {algo or 'non-DMC, non-PPO'} checkpoint; ONNX export takes DMC and PPO ones")


class ScoringGraph(nn.Module):
    """What the ONNX graph computes: forward(observation (B, O), action_features (B, A, F))
    -> values (B, A), through the agent's own networks. With several networks (DMC per role)
    each row is scored by the network of its `my_role` slice, as `DMCAgent.network_of`."""

    def __init__(self, nets: list[nn.Module], rules: Rules) -> None:
        super().__init__()
        self.nets = nn.ModuleList(nets)
        span = observation_layout(rules)["my_role"].span
        self.role_start, self.role_stop = span.start, span.stop
        width = span.stop - span.start
        # the network of each one-hot position of my_role, and of an all-zero slice
        self.register_buffer("role_net", torch.from_numpy(role_indices(np.eye(width, dtype=np.float32))))
        self.register_buffer("no_role_net", torch.from_numpy(role_indices(np.zeros((1, width), np.float32))))

    def forward(self, observation: torch.Tensor, action_features: torch.Tensor) -> torch.Tensor:
        obs = observation.unsqueeze(1)  # (B, 1, O): the state layers broadcast over the actions
        values = [net(obs, action_features) for net in self.nets]
        if len(values) == 1:
            return values[0]
        hot = (observation[:, self.role_start:self.role_stop] != 0).float()
        net = torch.where(hot.sum(1) > 0, self.role_net[hot.argmax(1)], self.no_role_net)
        stacked = torch.stack(values)  # (networks, B, A)
        return stacked.gather(0, net.view(1, -1, 1).expand(1, *stacked.shape[1:])).squeeze(0)


def _networks(agent: DMCAgent | PPOAgent) -> list[nn.Module]:
    """The scorers the graph holds: DMC's networks in `DMCAgent.network_of`'s order, or PPO's policy."""
    return list(agent.nets) if isinstance(agent, DMCAgent) else [agent.net.policy]


def action_feature_layout(rules: Rules, advice: str) -> list[dict[str, Any]]:
    """The columns of an action row, in order: the static slices (`ActionFeatures.slices`),
    then one column per advice feature (`agents.nets.advice`), each as {name, offset, size}."""
    check_advice(advice)
    layout = [{"name": name, "offset": off, "size": n} for name, off, n in ActionFeatures(rules).slices]
    off = layout[-1]["offset"] + layout[-1]["size"]
    for i, column in enumerate(_ADVICE_COLUMNS[advice]):
        layout.append({"name": f"advice.{column}", "offset": off + i, "size": 1})
    return layout


def export_metadata(checkpoint: str | os.PathLike, ckpt: dict[str, Any]) -> dict[str, str]:
    """The graph's `metadata_props`: every value a string (JSON for the structured ones)."""
    compat, arch = ckpt["compat"], ckpt["arch"]
    algo = compat["algo"]
    rules = Rules.from_dict(compat["rules"])
    advice = arch.get("advice", "none") if algo == "dmc" else "none"
    networks = checkpoint_networks(arch) if algo == "dmc" else "policy"
    obs, feats = compat["observation_size"], arch["action_size"]
    meta = {
        "baohuang_format": ONNX_FORMAT, "baohuang_format_version": ONNX_FORMAT_VERSION,
        "algo": algo, "values": VALUE_MEANING[algo], "preset": rules.preset,
        "rules_fingerprint": compat["rules_fingerprint"], "rules": compat["rules"],
        "layout_version": compat["layout_version"], "num_actions": compat["num_actions"],
        "action_feature_version": compat["action_feature_version"], "advice": advice, "networks": networks,
        "inputs": {"observation": ["batch", obs], "action_features": ["batch", "actions", feats]},
        "outputs": {OUTPUT: ["batch", "actions"]},
        "padding": "action rows past a decision's legal actions are zeros; their values mean nothing",
        "observation_layout": [list(s) for s in observation_layout(rules).spans],
        "action_feature_layout": action_feature_layout(rules, advice),
        "arch": arch, "config": ckpt.get("config", {}), "counters": ckpt.get("counters", {}),
        "source_sha256": sha256_of(checkpoint),
    }
    return {k: v if isinstance(v, str) else json.dumps(v) for k, v in meta.items()}


def export_onnx(checkpoint: str | os.PathLike, out: str | os.PathLike, force: bool = False) -> dict[str, str]:
    """Write the network of a DMC or PPO checkpoint to `out` (a .onnx file) as an ONNX graph
    (see the module docstring) and return its metadata. An existing `out` is replaced only
    with `force`; it is written to a temporary file and renamed, never left half written."""
    onnx = require_onnx()
    checkpoint = checkpoint_path(checkpoint)  # a shipped agent's path as the docs write it, from anywhere
    out = Path(out)
    if out.suffix != ".onnx":
        raise ValueError(f"the ONNX file must end in .onnx (got {out}); e.g. {out.with_suffix('.onnx')}")
    if out.exists() and not force:
        raise ValueError(f"{out} already exists; pass --force to replace it, or choose another file")
    ckpt = load_checkpoint(checkpoint)
    agent = load_scoring_agent(checkpoint, ckpt)
    meta = export_metadata(checkpoint, ckpt)
    graph = ScoringGraph(_networks(agent), agent.rules).eval()
    sizes = json.loads(meta["inputs"])
    example = (torch.zeros(2, sizes["observation"][1]), torch.zeros(2, 3, sizes["action_features"][2]))
    buffer = io.BytesIO()
    with warnings.catch_warnings(), torch.no_grad():
        # torch deprecates this exporter for its dynamo one (which needs onnxscript): not the user's to act on
        warnings.simplefilter("ignore", DeprecationWarning)
        torch.onnx.export(graph, example, buffer, dynamo=False, opset_version=OPSET, input_names=list(INPUTS),
                          output_names=[OUTPUT], dynamic_axes={"observation": {0: "batch"},
                                                               "action_features": {0: "batch", 1: "actions"},
                                                               OUTPUT: {0: "batch", 1: "actions"}})
    model = onnx.load_from_string(buffer.getvalue())
    model.producer_name = "baohuang"
    model.doc_string = (f"Baohuang {meta['algo'].upper()} agent for preset {meta['preset']} "
                        f"(rules fingerprint {meta['rules_fingerprint']}): values = {meta['values']}")
    for key, value in meta.items():
        model.metadata_props.add(key=key, value=value)
    onnx.checker.check_model(model)
    with atomic_path(out) as tmp:
        Path(tmp).write_bytes(model.SerializeToString())
    return meta


@dataclass(frozen=True)
class DecisionInputs:
    """The graph's inputs for B decisions, and which entries are real."""

    observation: np.ndarray
    """(B, O) float32."""
    action_features: np.ndarray
    """(B, A, F) float32: decision b's legal actions in rows 0 .. counts[b] - 1, zeros after."""
    legal: np.ndarray
    """(B, A) int64: the action id of each row, -1 on padding."""

    def feeds(self) -> dict[str, np.ndarray]:
        """The inputs by name, as `onnxruntime.InferenceSession.run` takes them."""
        return {"observation": self.observation, "action_features": self.action_features}


def decision_inputs(agent: DMCAgent | PPOAgent, observations: np.ndarray, masks: np.ndarray) -> DecisionInputs:
    """The graph's inputs for the decisions with these observations (B, O) and legal-action
    masks (B, num_actions), built by the agent's own feature builder (`DMCAgent.action_rows`:
    static rows and advice; a PPO agent's static rows), in action-id order."""
    observations = np.asarray(observations, dtype=np.float32)
    masks = np.asarray(masks)
    legal_ids = [np.flatnonzero(m) for m in masks]
    width = max((ids.size for ids in legal_ids), default=0)
    size = agent.row_size if isinstance(agent, DMCAgent) else agent.features.shape[1]
    features = np.zeros((len(masks), width, size), dtype=np.float32)
    legal = np.full((len(masks), width), -1, dtype=np.int64)
    for b, (obs, mask, ids) in enumerate(zip(observations, masks, legal_ids, strict=True)):
        rows = agent.action_rows(obs, mask, ids) if isinstance(agent, DMCAgent) else agent.features[ids]
        features[b, :ids.size] = rows
        legal[b, :ids.size] = ids
    return DecisionInputs(observations, features, legal)


def best_actions(values: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """The action id of each decision's highest value (B,), padding left out; the first best
    on ties, as the agents' np.argmax."""
    masked = np.where(legal >= 0, values, -np.inf)
    return legal[np.arange(len(legal)), masked.argmax(axis=1)]
