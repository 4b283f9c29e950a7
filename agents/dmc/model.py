"""DMC's networks: one `agents.nets.networks.ActionScorer` per role the acting seat knows it has,
or one shared by every role, and which of them scores a decision.
"""

from __future__ import annotations

import numpy as np

#: Networks, one per role the acting seat knows it has. The abdication decision is made by
#: the emperor-card holder before roles are fixed, with the emperor network.
ROLES = ("emperor", "guard", "rebel", "solo")
#: `DMCConfig.networks` -> the names of the networks an agent has ("shared": one network
#: that reads the role from the observation).
NETWORKS = {"per_role": ROLES, "shared": ("shared",)}
#: `my_role` one-hot order of the observation (baohuang_env.encoding.MY_ROLES) -> ROLES index.
_MY_ROLE_TO_NET = {"emperor": 0, "guard": 1, "solo": 3, "rebel": 2}


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


def role_indices(my_roles: np.ndarray) -> np.ndarray:
    """`role_index` of every row of `my_roles` (n, len(MY_ROLES)) at once -> (n,) int64."""
    from baohuang_env.encoding import MY_ROLES

    nets = np.array([_MY_ROLE_TO_NET[r] for r in MY_ROLES], dtype=np.int64)
    hot = my_roles != 0
    return np.where(hot.any(axis=1), nets[hot.argmax(axis=1)], 0)
