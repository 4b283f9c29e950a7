"""The actor-critic, the masked categorical policy and GAE.

Policy: a logit per legal action, from the seat's observation and the action's features
(`agents.nets.action_features.ActionFeatures`): logit(s, a) = head(relu(state(s) + W_a f(a) + b)),
the scorer DMC learns as Q (`agents.nets.networks.ActionScorer`), so the state layers run once per
decision and only a small head per legal action. The role is part of the observation, so one
network serves every seat and role. Value: a separate MLP of the observation.

Legal actions are handled as ragged lists (a decision has 8 legal actions on average, out of
4,036): the logits of a batch are computed for its legal actions only, then laid out in a
padded (batch, most legal actions) matrix whose padding entries are masked. `MaskedCategorical`
is the usual masked distribution over such a matrix, or over the whole action table.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from ..nets.guard_head import GuardHead
from ..nets.networks import ActionScorer

#: Logit given to masked (illegal or padding) entries: exp(-1e8 - max) is exactly 0 in float32.
MASKED_LOGIT = -1e8


class MaskedCategorical:
    """A categorical distribution over the entries of `logits` where `mask` is True.

    Masked logits are replaced by `MASKED_LOGIT`, so their probability is 0 (not merely
    small), and their terms are left out of the entropy (0 * -1e8 would otherwise add
    nothing but risks NaN gradients). With one unmasked entry the entropy is exactly 0.
    """

    def __init__(self, logits: torch.Tensor, mask: torch.Tensor) -> None:
        self.mask = mask
        self.logits = torch.where(mask, logits, torch.full_like(logits, MASKED_LOGIT))
        self.log_probs = torch.log_softmax(self.logits, dim=-1)
        self.probs = self.log_probs.exp()

    def log_prob(self, index: torch.Tensor) -> torch.Tensor:
        return self.log_probs.gather(-1, index.unsqueeze(-1)).squeeze(-1)

    def entropy(self) -> torch.Tensor:
        return -torch.where(self.mask, self.probs * self.log_probs, torch.zeros_like(self.probs)).sum(-1)

    def sample(self) -> torch.Tensor:
        """Column indices drawn from torch's global generator (seeded by the trainer)."""
        return torch.multinomial(self.probs, 1).squeeze(-1)

    def mode(self) -> torch.Tensor:
        return self.logits.argmax(-1)


def pad_ragged(flat: torch.Tensor, counts: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Lay out `flat` (sum(counts),), the concatenated per-row values, as a (rows, max count)
    matrix padded with MASKED_LOGIT, and the mask of its real entries. Differentiable in `flat`."""
    rows = counts.numel()
    seg = torch.repeat_interleave(torch.arange(rows), counts)
    starts = torch.cumsum(counts, 0) - counts
    pos = torch.arange(flat.numel()) - starts[seg]
    width = int(counts.max()) if rows else 0
    padded = flat.new_full((rows, width), MASKED_LOGIT).index_put((seg, pos), flat)
    mask = torch.zeros(rows, width, dtype=torch.bool)
    mask[seg, pos] = True
    return padded, mask


class ActorCritic(nn.Module):
    """The policy (a scorer of state-action pairs) and the value network."""

    def __init__(self, obs_size: int, action_size: int, hidden: int = 256, head: int = 128,
                 value_hidden: int = 256, guard_head: bool = False) -> None:
        super().__init__()
        self.policy = ActionScorer(obs_size, action_size, hidden, head)
        #: the guard-belief head on the policy's state embedding (`agents.nets.guard_head`), if trained
        self.guard_head = GuardHead(hidden) if guard_head else None
        self.value = nn.Sequential(nn.Linear(obs_size, value_hidden), nn.ReLU(),
                                   nn.Linear(value_hidden, value_hidden), nn.ReLU(), nn.Linear(value_hidden, 1))
        # a near-uniform first policy over the legal actions (CleanRL's 0.01 output scale)
        last = self.policy.head[-1]
        nn.init.normal_(last.weight, std=0.01)
        nn.init.zeros_(last.bias)

    def action_logits(self, obs: torch.Tensor, counts: torch.Tensor, action_features: torch.Tensor) -> torch.Tensor:
        """Logits of the legal actions of every row of `obs` (B, O): `counts` (B,) legal actions
        per row, `action_features` (sum(counts), A) their feature rows, row after row."""
        return self.policy.score_segments(obs, counts, action_features)

    def distribution(self, obs: torch.Tensor, counts: torch.Tensor, action_features: torch.Tensor) -> MaskedCategorical:
        """The policy over each row's legal actions; index j of row b is its j-th legal action."""
        padded, mask = pad_ragged(self.action_logits(obs, counts, action_features), counts)
        return MaskedCategorical(padded, mask)

    def get_value(self, obs: torch.Tensor) -> torch.Tensor:
        return self.value(obs).squeeze(-1)


def gae(rewards: np.ndarray, values: np.ndarray, gamma: float, lam: float,
        last_value: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """Generalized advantage estimates of one trajectory that ends after its last step
    (`last_value` bootstraps a cut-off one). Returns (advantages, returns = advantages + values).

    delta_t = r_t + gamma V_{t+1} - V_t,  A_t = delta_t + gamma lam A_{t+1}.
    """
    T = len(rewards)
    adv = np.zeros(T, dtype=np.float32)
    running = 0.0
    for t in reversed(range(T)):
        next_value = values[t + 1] if t + 1 < T else last_value
        delta = rewards[t] + gamma * next_value - values[t]
        running = delta + gamma * lam * running
        adv[t] = running
    return adv, adv + np.asarray(values, dtype=np.float32)
