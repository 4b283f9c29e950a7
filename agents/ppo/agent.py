"""A trained PPO checkpoint as an agent: the policy's most likely legal action (or a sample)."""

from __future__ import annotations

import numpy as np

from baohuang_env.rules import Rules

from ..files.checkpoint import compatibility, load_checkpoint
from ..nets.action_features import ACTION_FEATURE_VERSION, ActionFeatures
from ..nets.guard_head import NumpyGuardHead
from ..nets.networks import NumpyScorer
from ..view import SeatView
from .model import ActorCritic

#: Bump when the network's layout or meaning changes; checkpoints record it.
PPO_MODEL_VERSION = 1


def ppo_compatibility(rules: Rules) -> dict:
    return compatibility(rules, {"algo": "ppo", "action_feature_version": ACTION_FEATURE_VERSION,
                                 "ppo_model_version": PPO_MODEL_VERSION})


def load_ppo_checkpoint(path: str, rules: Rules) -> dict:
    """Load a PPO checkpoint for `rules`; a checkpoint of another algorithm, other rules or
    another layout is refused with a message saying what differs."""
    ckpt = load_checkpoint(path)
    algo = ckpt.get("compat", {}).get("algo")
    if algo != "ppo":
        hint = f" (play it as {algo}:{path})" if algo else ""
        raise ValueError(f"{path} is a {algo or 'non-PPO'} checkpoint, not a PPO one{hint}")
    return load_checkpoint(path, expect=ppo_compatibility(rules))  # rules, layout, features


class PPOAgent:
    """Plays with the policy network, scored in numpy on views of its parameters (a live
    network's updates show up without copying). `sample=False` takes the most likely legal
    action (the default for evaluation); `sample=True` draws from the policy."""

    uses_observation = True

    def __init__(self, rules: Rules, net: ActorCritic, sample: bool = False, seed: int | None = None) -> None:
        self.rules = rules
        self.features = ActionFeatures(rules).table
        self.net = net
        self._policy = NumpyScorer(net.policy)
        self.sample = sample
        self.rng = np.random.default_rng(seed)
        self._guard = NumpyGuardHead(net.guard_head) if net.guard_head is not None else None

    @classmethod
    def from_checkpoint(cls, path: str, rules: Rules, sample: bool = False) -> PPOAgent:
        """Load a PPO checkpoint (training checkpoint or model.pt). Limits this process's BLAS
        to one thread: per-decision matrices are tiny (see DMCAgent.from_checkpoint)."""
        from threadpoolctl import threadpool_limits

        threadpool_limits(1, user_api="blas")
        ckpt = load_ppo_checkpoint(path, rules)
        net = ActorCritic(**ckpt["arch"])
        net.load_state_dict(ckpt["models"]["actor_critic"])
        net.eval()
        return cls(rules, net, sample=sample)

    def reset(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def logits(self, observation: np.ndarray, legal: np.ndarray) -> np.ndarray:
        """The policy's logits of the legal action ids `legal` in this observation."""
        return self._policy.scores(np.asarray(observation, dtype=np.float32), self.features[legal])

    @property
    def has_guard_head(self) -> bool:
        """Trained with the guard-belief head (`agents.nets.guard_head`)."""
        return self._guard is not None

    def state_features(self, observation: np.ndarray) -> np.ndarray:
        """The hidden activations of the policy's state layers (what belief probes read)."""
        return self._policy.state(np.asarray(observation, dtype=np.float32))

    def guard_belief(self, observation: np.ndarray) -> np.ndarray:
        """P(guard = relative seat) from the guard-belief head; ValueError without one."""
        if self._guard is None:
            raise ValueError("this PPO agent was trained without the guard-belief head (guard_head_weight 0)")
        obs = np.asarray(observation, dtype=np.float32)
        return self._guard.belief(self._policy, obs, SeatView(obs, self.rules))

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = np.asarray(action_mask).view(bool).nonzero()[0]
        if legal.size == 1:
            return int(legal[0])
        z = self.logits(observation, legal)
        if not self.sample:
            return int(legal[int(np.argmax(z))])
        p = np.exp(z - z.max())
        return int(legal[self.rng.choice(legal.size, p=p / p.sum())])
