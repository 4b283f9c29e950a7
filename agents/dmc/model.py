"""The Q(s, a) network, in torch for learning and in numpy for fast acting.

Q(s, a) = head(relu(state(s) + W_a a + b)): the state part runs once per decision and only
the small head runs per legal action, which makes scoring 100+ legal leads cheap. (This is
an MLP on the concatenation [state embedding, action], with the first layer split.)
Actors evaluate it with numpy on the learner's shared-memory weights: for these small
matrices numpy has a fraction of torch's per-call overhead.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

#: Networks, one per role the acting seat knows it has. The abdication decision is made by
#: the emperor-card holder before roles are fixed, with the emperor network.
ROLES = ("emperor", "guard", "rebel", "solo")
#: `DMCConfig.networks` -> the names of the networks an agent has ("shared": one network
#: that reads the role from the observation).
NETWORKS = {"per_role": ROLES, "shared": ("shared",)}
#: `my_role` one-hot order of the observation (baohuang_env.encoding.MY_ROLES) -> ROLES index.
_MY_ROLE_TO_NET = {"emperor": 0, "guard": 1, "solo": 3, "rebel": 2}


class QNetwork(nn.Module):
    """Scores actions: forward(obs (B, O), actions (B, A)) -> Q (B,)."""

    def __init__(self, obs_size: int, action_size: int, hidden: int = 256, head: int = 128) -> None:
        super().__init__()
        self.state = nn.Sequential(nn.Linear(obs_size, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.action = nn.Linear(action_size, hidden)
        self.head = nn.Sequential(nn.ReLU(), nn.Linear(hidden, head), nn.ReLU(), nn.Linear(head, 1))

    def forward(self, obs: torch.Tensor, actions: torch.Tensor) -> torch.Tensor:
        return self.head(self.state(obs) + self.action(actions)).squeeze(-1)


class NumpyQ:
    """The same function as `QNetwork`, on numpy views of its parameters (no copies: when
    the parameters live in shared memory, the learner's updates show up here)."""

    def __init__(self, net: QNetwork) -> None:
        p = [t.detach().numpy() for t in net.parameters()]
        self.w1, self.b1, self.w2, self.b2, self.wa, self.ba, self.w3, self.b3, self.w4, self.b4 = p

    def q_values(self, obs: np.ndarray, actions: np.ndarray) -> np.ndarray:
        """Q of each row of `actions` (L, A) in state `obs` (O,) -> (L,)."""
        h = np.maximum(self.w1 @ obs + self.b1, 0.0)
        h = np.maximum(self.w2 @ h + self.b2, 0.0)
        z = np.maximum(actions @ self.wa.T + (self.ba + h), 0.0)
        z = np.maximum(z @ self.w3.T + self.b3, 0.0)
        return z @ self.w4[0] + self.b4[0]


def network_names(networks: str) -> tuple[str, ...]:
    """The networks of a DMC agent: one per role (`per_role`, DouZero's layout) or one for
    every role (`shared`)."""
    if networks not in NETWORKS:
        raise ValueError(f"networks must be one of {', '.join(map(repr, NETWORKS))}, got {networks!r}")
    return NETWORKS[networks]


def role_index(my_role: np.ndarray) -> int:
    """The network to use from the observation's `my_role` slice (all zero -> emperor: only
    the emperor-card holder decides before the roles are fixed)."""
    from baohuang_env.encoding import MY_ROLES

    hot = np.flatnonzero(my_role)
    return _MY_ROLE_TO_NET[MY_ROLES[hot[0]]] if hot.size else 0
