"""The state-action scorer both trainers learn, in torch for learning and in numpy for fast acting.

score(s, a) = head(relu(state(s) + W_a f(a) + b)), where f(a) is the action's feature row
(`agents.nets.action_features.ActionFeatures`): the state part runs once per decision and only
the small head runs per legal action, which makes scoring 100+ legal leads cheap. (This is
an MLP on the concatenation [state embedding, action], with the first layer split.)
DMC reads the score as Q(s, a); PPO reads it as the policy's logit of a.

Agents evaluate it with numpy on views of the network's parameters: for these small matrices
numpy has a fraction of torch's per-call overhead, and when the parameters live in shared
memory (DMC's actors) the learner's updates show up without copying. The batched scoring of
DMC's agents goes by action id (`NumpyScorer.score_ids`): the first action layer over an
action's static features is a per-id table (`StaticActionLayer`) that follows the weights.
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
    """The same function as `ActionScorer`, on numpy views of its parameters (no copies).

    `static` (num_ids, S), optional: the static feature row of every action id, the first S
    columns of an action row (`agents.nets.action_features.ActionFeatures.table`); with it,
    `score_ids` scores actions by id through a per-id table of the first action layer
    (`StaticActionLayer`) instead of a matrix product over their rows."""

    def __init__(self, net: ActionScorer, static: np.ndarray | None = None) -> None:
        p = [t.detach().numpy() for t in net.parameters()]
        self.w1, self.b1, self.w2, self.b2, self.wa, self.ba, self.w3, self.b3, self.w4, self.b4 = p
        self._zeros = _Zeros()
        self.static_layer = None if static is None else StaticActionLayer(static, self.wa[:, :static.shape[1]])

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
        z = actions @ self.wa.T
        z += np.repeat(self._states(obs), counts, axis=0)
        return self._head(z)

    def score_ids(self, obs: np.ndarray, counts: np.ndarray, ids: np.ndarray,
                  dynamic: np.ndarray | None = None) -> np.ndarray:
        """`score_segments` of the actions `ids` (sum(counts),) whose rows are their static
        rows followed by the columns `dynamic` (sum(counts), A - S), or by nothing when None:
        the same scores without building the rows. The static part of the first action layer
        is a lookup in the per-id table (`StaticActionLayer`). Needs `static`."""
        if self.static_layer is None:
            raise ValueError("score_ids needs the static feature rows: NumpyScorer(net, static=...)")
        size = self.static_layer.size
        given = 0 if dynamic is None else dynamic.shape[1]
        if given != self.wa.shape[1] - size:
            raise ValueError(f"the network reads {self.wa.shape[1] - size} columns after the {size} static ones, "
                             f"got {given}")
        z = self.static_layer.rows(ids)
        if given:
            z += dynamic @ self.wa[:, size:].T
        z += np.repeat(self._states(obs), counts, axis=0)
        return self._head(z)

    def _states(self, obs: np.ndarray) -> np.ndarray:
        """The state layers of the rows of `obs` (B, O), plus the action layer's bias -> (B, hidden)."""
        h = obs @ self.w1.T
        h += self.b1
        h = self._zeros.relu_(h) @ self.w2.T
        h += self.b2
        h = self._zeros.relu_(h)
        h += self.ba
        return h

    def _head(self, z: np.ndarray) -> np.ndarray:
        """The head over the first action layer's pre-activations `z` (L, hidden), in place -> (L,)."""
        z = self._zeros.relu_(z) @ self.w3.T
        z += self.b3
        return self._zeros.relu_(z) @ self.w4[0] + self.b4[0]


class StaticActionLayer:
    """The first action layer over the static features, one row per action id:
    `table[i] = static[i] @ weight.T`, where `weight` (hidden, S) is a live view of the
    network's weights over those columns (shared memory in DMC's actors: the learner updates
    it in place, and Ray actors load new weights into it).

    Why a table: an action's static row depends on its id alone, so its product with the
    layer's weights is the same in every decision until the weights change. Measured on the
    batches of a self-play actor (one core): the (L, S) @ (S, hidden) product over the built
    rows costs 250 ns per legal action, the table 55 while the weights stay, 125 when they
    change every sixth turn (a training run's pace: the learner updates them many times a
    second). So it is built lazily, only the ids asked for since the weights last changed,
    from a copy of the weights taken when they were last seen to differ from it: `rows`
    compares the live weights with that copy on every call, so the table is never used with
    weights it was not built from, whoever changed them (the learner in place, `load_state_dict`)."""

    def __init__(self, static: np.ndarray, weight: np.ndarray) -> None:
        if static.shape[1] != weight.shape[1]:
            raise ValueError(f"static rows have {static.shape[1]} columns, the weights {weight.shape[1]}")
        self.static = np.asarray(static, dtype=np.float32)
        self.size = static.shape[1]
        self.weight = weight
        self._seen = np.full_like(weight, np.nan)  # never equal to the weights: the first call copies them
        self.table = np.zeros((len(static), weight.shape[0]), dtype=np.float32)
        self._built = np.zeros(len(static), dtype=bool)
        self._wanted = np.zeros(len(static), dtype=bool)  # scratch: the ids to build, each once

    def rows(self, ids: np.ndarray) -> np.ndarray:
        """The layer's output (len(ids), hidden), a new array, for the action ids `ids`."""
        if not np.array_equal(self.weight, self._seen):
            np.copyto(self._seen, self.weight)
            self._built[:] = False
        missing = ids[~self._built[ids]]
        if missing.size:  # a turn repeats its ids (about 5 legal actions per distinct id in self-play)
            self._wanted[missing] = True
            need = np.flatnonzero(self._wanted)
            self._wanted[need] = False
            self.table[need] = self.static[need] @ self._seen.T
            self._built[need] = True
        return self.table[ids]


class _Zeros:
    """ReLU in place against cached zeros: numpy's maximum with the scalar 0 runs about three
    times slower than with an array of zeros of the same shape (measured: 53 against 16 µs on
    a 503 x 256 float32 array), and it is most of the elementwise work of a batch."""

    def __init__(self) -> None:
        self._cache: dict[tuple[int, np.dtype], np.ndarray] = {}

    def relu_(self, x: np.ndarray) -> np.ndarray:
        """`x` (n, w) with its negative entries set to 0, in place; returns `x`."""
        n, w = x.shape
        zeros = self._cache.get((w, x.dtype))
        if zeros is None or len(zeros) < n:
            rows = n if zeros is None else max(n, 2 * len(zeros))
            zeros = self._cache[(w, x.dtype)] = np.zeros((rows, w), dtype=x.dtype)
        return np.maximum(x, zeros[:n], out=x)
