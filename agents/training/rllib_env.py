"""Baohuang for RLlib's current API stack (RLModule/Learner, EnvRunner/ConnectorV2), with a
masked PPO module. Needs `pip install -e ".[rllib]"` (which pins RLlib's Gymnasium); nothing
else in the project imports this module, so the main install never needs RLlib.
`experiments/rllib_ppo.py` trains one shared policy with it.

* `BaohuangMultiAgentEnv`: the PettingZoo AEC env (`baohuang_env.aec_env.raw_env`) as an
  RLlib `MultiAgentEnv`. Each step returns the observation of the seat to act next; at the
  end of the deal every seat's final observation and reward, all terminated. Observations
  are `{"observations": float32 vector, "action_mask": float32 0/1 vector}`, the keys RLlib's
  masked modules read. An illegal action raises `IllegalActionError` (raw_env): a masked
  policy never samples one, and if one did, training would stop, not learn from it.
* `MaskedPPOTorchRLModule`: RLlib's default PPO torch module on the "observations" part,
  with log(mask) added to the action logits (illegal actions get probability 0 in
  inference, exploration and training).
* `shared_policy_config(...)`: a PPOConfig with one policy for all five seats (the role is
  in the observation; hidden roles make a role-keyed mapping impossible anyway), counting
  every sampled action and the illegal ones (`count_illegal_actions`).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import torch
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.env.multi_agent_env import MultiAgentEnv
from ray.rllib.utils.torch_utils import FLOAT_MIN

from baohuang_env.aec_env import raw_env

#: The one policy every seat plays.
SHARED_POLICY = "shared"


class BaohuangMultiAgentEnv(MultiAgentEnv):
    """One Baohuang deal per episode. `config`: "preset" (default "jj") and "reward_mode"
    ("win", the default, or "score"), as for `baohuang_env.env`."""

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        super().__init__()
        config = dict(config or {})
        self.aec = raw_env(preset=config.get("preset", "jj"), reward_mode=config.get("reward_mode", "win"))
        self.possible_agents = list(self.aec.possible_agents)
        self.agents = list(self.possible_agents)
        inner = self.aec.observation_space(self.possible_agents[0])
        size, n_actions = inner["observation"].shape[0], self.aec.action_space(self.possible_agents[0]).n
        obs_space = gym.spaces.Dict({"observations": gym.spaces.Box(0.0, 1.0, (size,), dtype=np.float32),
                                     "action_mask": gym.spaces.Box(0.0, 1.0, (n_actions,), dtype=np.float32)})
        self.observation_spaces = dict.fromkeys(self.possible_agents, obs_space)
        self.action_spaces = {a: gym.spaces.Discrete(n_actions) for a in self.possible_agents}
        self.observation_space = gym.spaces.Dict(self.observation_spaces)
        self.action_space = gym.spaces.Dict(self.action_spaces)

    def _observe(self, agent: str) -> dict[str, np.ndarray]:
        obs = self.aec.observe(agent)
        return {"observations": obs["observation"], "action_mask": obs["action_mask"].astype(np.float32)}

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        self.aec.reset(seed=seed, options=options)
        self.agents = list(self.possible_agents)
        first = self.aec.agent_selection
        return {first: self._observe(first)}, {}

    def step(self, action_dict: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        agent = self.aec.agent_selection
        self.aec.step(int(action_dict[agent]))
        if all(self.aec.terminations.values()):  # the deal is over: every seat's last word
            seats = self.possible_agents
            self.agents = []
            return ({a: self._observe(a) for a in seats}, {a: float(self.aec.rewards[a]) for a in seats},
                    {**dict.fromkeys(seats, True), "__all__": True}, {**dict.fromkeys(seats, False), "__all__": False},
                    {a: dict(self.aec.infos[a]) for a in seats})
        nxt = self.aec.agent_selection
        # RLlib wants a reward with every observation of a seat that acted before: 0 until the end
        return {nxt: self._observe(nxt)}, {nxt: 0.0}, {"__all__": False}, {"__all__": False}, {}


class MaskedPPOTorchRLModule(DefaultPPOTorchRLModule):
    """PPO's default torch module built on the "observations" part of a Dict observation;
    the "action_mask" part is added to the logits as log(mask), clamped to the lowest float
    (illegal actions: probability 0)."""

    def __init__(self, *, observation_space: gym.spaces.Dict | None = None, **kwargs: Any) -> None:
        if not isinstance(observation_space, gym.spaces.Dict) or set(observation_space) != {"observations",
                                                                                               "action_mask"}:
            raise ValueError(f"MaskedPPOTorchRLModule needs a Dict observation space with the keys 'observations' "
                             f"and 'action_mask' (BaohuangMultiAgentEnv's), got {observation_space}")
        self._masked_space = observation_space
        super().__init__(observation_space=observation_space["observations"], **kwargs)

    def setup(self) -> None:
        super().setup()  # the networks, sized for the "observations" part
        self.observation_space = self._masked_space  # what the env (and the connectors) deliver

    @staticmethod
    def _split(batch: dict[str, Any]) -> tuple[torch.Tensor, dict[str, Any]]:
        """(the mask, the batch with only the observations as its OBS)."""
        obs = batch[Columns.OBS]
        return obs["action_mask"], {**batch, Columns.OBS: obs["observations"]}

    @staticmethod
    def _masked(out: dict[str, Any], mask: torch.Tensor) -> dict[str, Any]:
        out[Columns.ACTION_DIST_INPUTS] = out[Columns.ACTION_DIST_INPUTS] + torch.clamp(torch.log(mask), min=FLOAT_MIN)
        return out

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        mask, inner = self._split(batch)
        return self._masked(super()._forward(inner, **kwargs), mask)

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        mask, inner = self._split(batch)
        return self._masked(super()._forward_train(inner, **kwargs), mask)

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> torch.Tensor:
        if isinstance(batch[Columns.OBS], dict):
            _, batch = self._split(batch)
        return super().compute_values(batch, embeddings)


def illegal_actions(episode: Any) -> tuple[int, int]:
    """(actions taken, actions the mask before them forbade) in an RLlib MultiAgentEpisode
    (or a chunk of one)."""
    taken = illegal = 0
    for seat_episode in episode.agent_episodes.values():
        observations, actions = seat_episode.get_observations(), seat_episode.get_actions()
        # a finalized chunk holds arrays per key, an ongoing one a list of dicts
        masks = observations["action_mask"] if isinstance(observations, dict) else [o["action_mask"]
                                                                                    for o in observations]
        for mask, action in zip(masks, actions, strict=False):  # observation i comes before action i
            taken += 1
            illegal += int(mask[int(action)] == 0)
    return taken, illegal


def count_illegal_actions(*, metrics_logger: Any, samples: list, **_: Any) -> None:
    """RLlib `on_sample_end` callback: the actions in the sampled episode chunks (each step
    is in exactly one chunk) and those the mask before them forbade, summed over the run in
    the results' `env_runners` as "actions_taken" and "illegal_actions"."""
    counts = [illegal_actions(episode) for episode in samples]
    metrics_logger.log_value("actions_taken", sum(c[0] for c in counts), reduce="sum")
    metrics_logger.log_value("illegal_actions", sum(c[1] for c in counts), reduce="sum")


def shared_policy_config(env_config: dict[str, Any] | None = None, env_runners: int = 0,
                         hidden: tuple[int, ...] = (256, 128)) -> PPOConfig:
    """PPO on `BaohuangMultiAgentEnv` with one masked policy for all five seats, on the new
    API stack; `env_runners` 0 plays in the driver process. Training knobs (batch sizes,
    learning rate) are left to the caller's `.training(...)`."""
    spec = RLModuleSpec(module_class=MaskedPPOTorchRLModule, model_config={"fcnet_hiddens": list(hidden)})
    return (PPOConfig()
            # RLlib's env check steps random (unmasked) actions, which this env refuses
            .environment(BaohuangMultiAgentEnv, env_config=dict(env_config or {}), disable_env_checking=True)
            .env_runners(num_env_runners=env_runners)
            .callbacks(on_sample_end=count_illegal_actions)
            .multi_agent(policies={SHARED_POLICY}, policy_mapping_fn=lambda agent_id, episode, **kw: SHARED_POLICY)
            .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={SHARED_POLICY: spec})))
