"""The state-action scorer both trainers learn, in torch for learning and in numpy for fast acting.

score(s, a) = head(relu(state(s) + W_a f(a) + b)), where f(a) is the action's feature row
(`agents.action_features.ActionFeatures`): the state part runs once per decision and only
the small head runs per legal action, which makes scoring 100+ legal leads cheap. (This is
an MLP on the concatenation [state embedding, action], with the first layer split.)
DMC reads the score as Q(s, a); PPO reads it as the policy's logit of a.

Agents evaluate it with numpy on views of the network's parameters: for these small matrices
numpy has a fraction of torch's per-call overhead, and when the parameters live in shared
memory (DMC's actors) the learner's updates show up without copying.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn


class ActionScorer(nn.Module):
    """Scores actions: forward(obs (B, O), actions (B, A)) -> (B,).

    Its state-dict keys (`state.*`, `action.*`, `head.*`) are what checkpoints hold; keep them.
    """

    def __init__(self, obs_size: int, action_size: int, hidden: int = 256, head: int = 128) -> None:
        super().__init__()
        self.state = nn.Sequential(nn.Linear(obs_size, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.action = nn.Linear(action_size, hidden)
        self.head = nn.Sequential(nn.ReLU(), nn.Linear(hidden, head), nn.ReLU(), nn.Linear(head, 1))

    def forward(self, obs: torch.Tensor, actions: torch.Tensor) -> torch.Tensor:
        return self.head(self.state(obs) + self.action(actions)).squeeze(-1)

    def score_segments(self, obs: torch.Tensor, counts: torch.Tensor, actions: torch.Tensor) -> torch.Tensor:
        """Scores of ragged action lists: row b of `obs` (B, O) has `counts[b]` actions, whose
        feature rows are `actions` (sum(counts), A), row after row. The state layers run once
        per row of `obs`."""
        seg = torch.repeat_interleave(torch.arange(obs.shape[0]), counts)
        return self.head(self.state(obs)[seg] + self.action(actions)).squeeze(-1)


class NumpyScorer:
    """The same function as `ActionScorer`, on numpy views of its parameters (no copies)."""

    def __init__(self, net: ActionScorer) -> None:
        p = [t.detach().numpy() for t in net.parameters()]
        self.w1, self.b1, self.w2, self.b2, self.wa, self.ba, self.w3, self.b3, self.w4, self.b4 = p

    def state(self, obs: np.ndarray) -> np.ndarray:
        """The state embedding (hidden,) of `obs` (O,): the state layers' output (also what
        the guard-belief head and the belief probes read)."""
        h = np.maximum(self.w1 @ obs + self.b1, 0.0)
        return np.maximum(self.w2 @ h + self.b2, 0.0)

    def scores(self, obs: np.ndarray, actions: np.ndarray) -> np.ndarray:
        """Score of each row of `actions` (L, A) in state `obs` (O,) -> (L,)."""
        h = self.state(obs)
        z = np.maximum(actions @ self.wa.T + (self.ba + h), 0.0)
        z = np.maximum(z @ self.w3.T + self.b3, 0.0)
        return z @ self.w4[0] + self.b4[0]

    def score_segments(self, obs: np.ndarray, counts: np.ndarray, actions: np.ndarray) -> np.ndarray:
        """`ActionScorer.score_segments` in numpy: row b of `obs` (B, O) has `counts[b]` of the
        action rows `actions` (sum(counts), A), row after row -> (sum(counts),). One matrix
        product per layer for the whole batch: at 16+ decisions it costs about half as much
        per decision as `scores` one decision at a time (measured: `baohuang bench --actors`)."""
        h = np.maximum(obs @ self.w1.T + self.b1, 0.0)
        h = np.maximum(h @ self.w2.T + self.b2, 0.0)
        h += self.ba
        z = actions @ self.wa.T
        z += np.repeat(h, counts, axis=0)
        np.maximum(z, 0.0, out=z)
        z = z @ self.w3.T
        z += self.b3
        np.maximum(z, 0.0, out=z)
        return z @ self.w4[0] + self.b4[0]
