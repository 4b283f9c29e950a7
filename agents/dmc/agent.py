"""A trained DMC checkpoint as an agent: greedy in Q over the legal actions."""

from __future__ import annotations

import numpy as np

from baohuang_env.observation import observation_layout
from baohuang_env.rules import Rules

from ..nets.action_features import ACTION_FEATURE_VERSION, ActionFeatures
from ..nets.advice import advice_size, make_advice
from ..files.checkpoint import compatibility, load_checkpoint
from ..nets.guard_head import GuardHead, NumpyGuardHead
from ..nets.networks import ActionScorer, NumpyScorer
from ..view import SeatView
from .config import checkpoint_networks
from .model import network_names, role_index, role_indices


def dmc_compatibility(rules: Rules) -> dict:
    return compatibility(rules, {"algo": "dmc", "action_feature_version": ACTION_FEATURE_VERSION})


def action_row_size(rules: Rules, advice: str) -> int:
    """Floats in the row the network reads per action: the static features, then the
    columns of `advice` (`DMCAgent.action_rows`)."""
    return ActionFeatures(rules).size + advice_size(advice)


class DMCAgent:
    """Acts with one Q network per role, or with one shared network when `nets` holds one;
    `epsilon` > 0 explores uniformly (for actors). An action is scored through its row: its
    static features, then the columns of `advice` (`agents.nets.advice`; "none": no columns)."""

    uses_observation = True

    def __init__(self, rules: Rules, nets: list[ActionScorer], epsilon: float = 0.0, seed: int | None = None,
                 guard_heads: list[GuardHead] | None = None, advice: str = "none") -> None:
        self.rules = rules
        self.features = ActionFeatures(rules).table
        self.advice = make_advice(advice, rules)
        self.row_size = action_row_size(rules, advice)
        self._role_slice = observation_layout(rules)["my_role"].span
        self.nets = nets
        # scoring by id (`NumpyScorer.score_ids`): the static part of the rows is a per-id table
        self._numpy = [NumpyScorer(net, static=self.features) for net in nets]
        self.epsilon = epsilon
        self.rng = np.random.default_rng(seed)
        self._guard = [NumpyGuardHead(h) for h in guard_heads] if guard_heads else None

    @classmethod
    def from_checkpoint(cls, path: str, rules: Rules) -> DMCAgent:
        """Load a DMC checkpoint; refuses one made for other rules or layouts.

        Also limits this process's BLAS to one thread: the per-decision matrices are tiny,
        and multithreaded BLAS makes them many times slower (worst with other busy processes).
        """
        from threadpoolctl import threadpool_limits

        threadpool_limits(1, user_api="blas")
        ckpt = load_checkpoint(path, expect=dmc_compatibility(rules))
        if ckpt.get("compat", {}).get("algo") != "dmc":
            raise ValueError(f"{path} is not a DMC checkpoint")
        arch = ckpt["arch"]
        nets, heads = [], []
        for name in network_names(checkpoint_networks(arch)):
            net = ActionScorer(arch["obs_size"], arch["action_size"], arch["hidden"], arch["head"])
            net.load_state_dict(ckpt["models"][name])
            net.eval()
            nets.append(net)
            if f"guard_head.{name}" in ckpt["models"]:  # trained with guard_head_weight > 0
                heads.append(GuardHead(arch["hidden"]))
                heads[-1].load_state_dict(ckpt["models"][f"guard_head.{name}"])
        return cls(rules, nets, guard_heads=heads or None, advice=arch.get("advice", "none"))

    def reset(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def network_of(self, observation: np.ndarray) -> int:
        """Index in `nets` of the network that scores this decision."""
        return 0 if len(self.nets) == 1 else role_index(observation[self._role_slice])

    def action_rows(self, observation: np.ndarray, action_mask: np.ndarray, legal: np.ndarray) -> np.ndarray:
        """The rows (len(legal), A) the network reads for the legal action ids `legal`."""
        rows = self.features[legal]
        if self.advice is None:
            return rows
        return np.concatenate([rows, self.advice.rows(observation, action_mask, legal)], axis=1)

    def action_values(self, observation: np.ndarray, legal: np.ndarray,
                      action_mask: np.ndarray | None = None) -> np.ndarray:
        """Q of each action id in `legal` (the expected final score) in this observation:
        what `act` maximizes, and what `baohuang serve`'s hints show. `action_mask`: the
        decision's mask when known (advice reads it; built from `legal` otherwise).
        ValueError when `legal` is not a list of distinct action ids (a mask passed in its
        place, say)."""
        legal = self._check_legal(legal)
        if action_mask is None and self.advice is not None:
            action_mask = np.zeros(len(self.features), dtype=np.int8)
            action_mask[legal] = 1
        return self.scores(observation, self.action_rows(observation, action_mask, legal))

    def _check_legal(self, legal: np.ndarray) -> np.ndarray:
        """`legal` as an int array of distinct action ids; ValueError says what it is instead."""
        legal = np.asarray(legal)
        n = len(self.features)
        if legal.dtype == bool or (legal.dtype == np.int8 and legal.size == n):
            raise ValueError(f"legal must be the legal action ids (np.flatnonzero(mask)), got what looks like a "
                             f"mask ({legal.dtype}, {legal.size} entries)")
        if legal.ndim != 1 or legal.dtype.kind not in "iu":
            raise ValueError(f"legal must be a 1-D array of integer action ids, got shape {legal.shape} "
                             f"of {legal.dtype}")
        if legal.size and (legal.min() < 0 or legal.max() >= n):
            raise ValueError(f"legal holds ids outside 0..{n - 1}: {legal[(legal < 0) | (legal >= n)][:5].tolist()}")
        if np.unique(legal).size != legal.size:
            raise ValueError("legal holds repeated action ids: pass each legal id once (np.flatnonzero(mask)), "
                             "not the mask")
        return legal

    def scores(self, observation: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """Q of each action row in `rows` (`action_rows`) in this observation."""
        return self._numpy[self.network_of(observation)].scores(observation, rows)

    @property
    def scorers(self) -> list[NumpyScorer]:
        """The numpy scorers of `nets`, in their order (what `choose_many` and `scores` call)."""
        return self._numpy

    @property
    def has_guard_head(self) -> bool:
        """Trained with the guard-belief head (`agents.nets.guard_head`)."""
        return self._guard is not None

    def state_features(self, observation: np.ndarray) -> np.ndarray:
        """The hidden activations of the state layers (what belief probes read)."""
        return self._numpy[self.network_of(observation)].state(observation)

    def guard_belief(self, observation: np.ndarray) -> np.ndarray:
        """P(guard = relative seat) from the guard-belief head; ValueError without one."""
        if self._guard is None:
            raise ValueError("this DMC agent was trained without the guard-belief head (guard_head_weight 0)")
        net = self.network_of(observation)
        return self._guard[net].belief(self._numpy[net], observation, SeatView(observation, self.rules))

    def networks_of(self, observations: np.ndarray) -> np.ndarray:
        """`network_of` of every row of `observations` (n, O) -> (n,) int64."""
        if len(self.nets) == 1:
            return np.zeros(len(observations), dtype=np.int64)
        return role_indices(observations[:, self._role_slice])

    def action_rows_many(self, observations: np.ndarray, masks: np.ndarray, legal: np.ndarray,
                         counts: np.ndarray) -> np.ndarray:
        """`action_rows` of n decisions at once, row after row (sum(counts), A): `observations`
        (n, O), their `masks` (n, N) and their legal ids ragged (`legal`, `counts[i]` of them
        for decision i)."""
        return self._rows(legal, self._advice_many(observations, masks, legal, counts))

    def _advice_many(self, observations: np.ndarray, masks: np.ndarray, legal: np.ndarray,
                     counts: np.ndarray) -> np.ndarray | None:
        """The advice columns of n decisions (sum(counts), A - S) (arguments as
        `action_rows_many`), or None without advice."""
        if self.advice is None:
            return None
        starts = (np.cumsum(counts) - counts).tolist()
        return np.concatenate([self.advice.rows(o, m, legal[a:a + c])
                               for o, m, a, c in zip(observations, masks, starts, counts.tolist(), strict=True)])

    def _rows(self, ids: np.ndarray, advice: np.ndarray | None) -> np.ndarray:
        """The rows of the actions `ids`: their static features, then their `advice` columns."""
        rows = self.features[ids]
        return rows if advice is None else np.concatenate([rows, advice], axis=1)

    def choose_many(self, observations: np.ndarray, masks: np.ndarray, legal: np.ndarray,
                    counts: np.ndarray, rows: str = "all") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """n decisions at once, ε-greedy in Q (arguments as `action_rows_many`). Returns the
        index of each choice within its decision's legal ids (n,), action rows: with `rows`
        "all", the rows the network read (sum(counts), A), as `act_with_row` gives one
        decision's; with "taken", the rows of the chosen actions only (n, A), what an actor
        stores for the learner, without building the static rows of the others; and the Q of
        each chosen action (n,), an explored one's too (what an actor's λ-returns bootstrap
        from, `agents.dmc.targets`). The network runs once per network for the whole batch,
        by action id (`NumpyScorer.score_ids`)."""
        if rows not in ("all", "taken"):
            raise ValueError(f"rows must be 'all' or 'taken', got {rows!r}")
        best, values, advice = self._choose(observations, masks, legal, counts)
        if rows == "all":
            return best, self._rows(legal, advice), values
        taken = np.cumsum(counts) - counts + best
        return best, self._rows(legal[taken], None if advice is None else advice[taken]), values

    def act_many(self, observations: np.ndarray, masks: np.ndarray, legal: np.ndarray,
                 counts: np.ndarray) -> np.ndarray:
        """The action ids (n,) of n decisions at once, ε-greedy in Q (arguments as
        `action_rows_many`): what a player of many games needs (a pool snapshot, a frozen
        opponent, a search's play-outs), without the rows or values `choose_many` returns."""
        best, _values, _advice = self._choose(observations, masks, legal, counts)
        return legal[np.cumsum(counts) - counts + best]

    def _choose(self, observations: np.ndarray, masks: np.ndarray, legal: np.ndarray,
                counts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """The ε-greedy choices (n,) of `choose_many`, their Q (n,), and the advice columns the
        network read (`_advice_many`)."""
        advice = self._advice_many(observations, masks, legal, counts)
        q = self._q_many(observations, legal, counts, advice)
        best = _padded(q, counts).argmax(axis=1)
        if self.epsilon:
            explore = np.flatnonzero(self.rng.random(len(counts)) < self.epsilon)
            best[explore] = (self.rng.random(explore.size) * counts[explore]).astype(np.int64)
        return best, q[np.cumsum(counts) - counts + best], advice

    def row_values(self, observations: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """Q of one action row per decision (n,): `rows` (n, A), built (`action_rows`), in
        `observations` (n, O), each network run once (the value of a move chosen elsewhere: a
        kickstarting teacher's)."""
        q = np.empty(len(observations), dtype=np.float32)
        nets = self.networks_of(observations)
        for net in np.unique(nets).tolist():
            mine = nets == net
            q[mine] = self._numpy[net].score_segments(observations[mine], np.ones(int(mine.sum()), dtype=np.int64),
                                                      rows[mine])
        return q

    def _q_many(self, observations: np.ndarray, legal: np.ndarray, counts: np.ndarray,
                advice: np.ndarray | None) -> np.ndarray:
        """Q of every legal action of n decisions, ragged (sum(counts),), each network run once."""
        if len(self._numpy) == 1:
            return self._numpy[0].score_ids(observations, counts, legal, advice)
        q = np.empty(len(legal), dtype=np.float32)
        nets = self.networks_of(observations)
        for net in np.unique(nets).tolist():
            mine = nets == net
            sel = np.repeat(mine, counts)
            q[sel] = self._numpy[net].score_ids(observations[mine], counts[mine], legal[sel],
                                                None if advice is None else advice[sel])
        return q

    def action_values_many(self, observations: np.ndarray,
                           masks: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Q of every legal action of n decisions at once: (q, legal, counts), ragged as in
        `action_rows_many` (decision i's `counts[i]` legal ids in `legal`, their Q in `q`, in
        order), each network run once (what a search's values and belief read)."""
        masks = np.asarray(masks)
        rows, legal = np.nonzero(masks)
        counts = np.bincount(rows, minlength=len(masks))
        q = self._q_many(observations, legal, counts, self._advice_many(observations, masks, legal, counts))
        return q, legal, counts

    def values_many(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The value of n decisions (n,): each one's best Q, the acting seat's expected result
        when it plays on by this network (what a search scores a cut-off rollout by)."""
        q, _legal, counts = self.action_values_many(observations, masks)
        return _padded(q, counts).max(axis=1)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = np.asarray(action_mask).view(bool).nonzero()[0]
        if legal.size == 1:
            return int(legal[0])
        return self.act_with_row(observation, action_mask, legal)[0]

    def act_with_row(self, observation: np.ndarray, action_mask: np.ndarray,
                     legal: np.ndarray) -> tuple[int, np.ndarray]:
        """The action (ε-greedy in Q) and the row the network read for it (what an actor
        stores for the learner's regression)."""
        rows = self.action_rows(observation, action_mask, legal)
        if self.epsilon and self.rng.random() < self.epsilon:
            i = int(self.rng.integers(legal.size))
        else:
            i = int(np.argmax(self.scores(observation, rows)))
        return int(legal[i]), rows[i]


def _padded(q: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Ragged scores (sum(counts),) as (n, max count) rows padded with -inf: a decision's argmax
    is the first best, as np.argmax of its own scores."""
    n = len(counts)
    starts = np.cumsum(counts) - counts
    padded = np.full((n, int(counts.max(initial=1))), -np.inf, dtype=np.float32)
    padded[np.repeat(np.arange(n), counts), np.arange(len(q)) - np.repeat(starts, counts)] = q
    return padded
