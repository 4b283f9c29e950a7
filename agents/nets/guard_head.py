"""The guard-belief head: an auxiliary output of a learned agent that predicts which seat is
the guard, from the acting seat's own observation (docs/hidden_team.md, "Guard-belief head").

Why: the emperor does not know his guard (1 in 4 of the other seats) and a rebel does not
know which of the other three non-emperors is (1 in 3) until a reveal. A head trained to name
the guard makes the agent's belief measurable (`baohuang study belief`) and may help it learn
the team play.

How: a linear layer over the scorer's state embedding (`ActionScorer.state`, the part that
runs once per decision) gives 5 logits, one per relative seat (0 = me). It is trained by
cross-entropy against the true guard's relative seat, a hidden fact read from the game by the
trainer (`agents.guard_belief.guard_label`) only for the loss: the label never enters the acting input. Rows
before the roles are fixed carry no label (-1) and are left out. The trainers add
`guard_head_weight` x this loss to their own (0, the default, leaves the head out entirely).

As a belief (`guard_belief`) the head's softmax is restricted to the seats the observer
cannot rule out (`guard_candidates`: from the teams of `baohuang_env.knowledge` as decoded
by `SeatView`), so a known guard gets probability 1.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from baohuang_env.cards import NUM_SEATS

from ..guard_belief import NO_LABEL, guard_candidates, masked_softmax
from .networks import NumpyScorer
from ..view import SeatView

class GuardHead(nn.Module):
    """Linear map from a state embedding (B, hidden) to guard logits (B, 5)."""

    def __init__(self, hidden: int) -> None:
        super().__init__()
        self.linear = nn.Linear(hidden, NUM_SEATS)

    def forward(self, embedding: torch.Tensor) -> torch.Tensor:
        return self.linear(embedding)


def guard_hidden(obs: torch.Tensor, known_guard: slice) -> torch.Tensor:
    """(B,) bool: rows whose observation does not show the guard (its `known_guard` slice,
    `baohuang_env.observation`, is all zero): the rows where the head has work to do."""
    return obs[:, known_guard].sum(-1) == 0


def guard_head_loss(head: GuardHead, embedding: torch.Tensor, labels: torch.Tensor,
                    hidden: torch.Tensor | None = None) -> tuple[torch.Tensor, float, int]:
    """Cross-entropy of the head on the labelled rows (labels != NO_LABEL), and its top-1
    accuracy on those of them where the guard is `hidden` from the acting seat (all labelled
    rows when None; a known guard is in the input and trivially named): (loss, accuracy, rows
    the accuracy is over). With no labelled row the loss is a zero that still has a graph."""
    keep = labels != NO_LABEL
    if not bool(keep.any()):
        return embedding.sum() * 0.0, float("nan"), 0
    logits = head(embedding[keep])
    loss = nn.functional.cross_entropy(logits, labels[keep])
    scored = hidden[keep] if hidden is not None else torch.ones_like(labels[keep], dtype=torch.bool)
    n = int(scored.sum())
    right = (logits.argmax(-1) == labels[keep])[scored]
    return loss, float(right.float().mean()) if n else float("nan"), n


class NumpyGuardHead:
    """The head in numpy on views of its parameters, after a `NumpyScorer`'s state layers:
    the belief of a learned agent (`guard_belief`)."""

    def __init__(self, head: GuardHead) -> None:
        self.w, self.b = (t.detach().numpy() for t in head.linear.parameters())

    def belief(self, scorer: NumpyScorer, observation: np.ndarray, view: SeatView) -> np.ndarray:
        """P(guard = relative seat) over the observer's candidates."""
        logits = self.w @ scorer.state(observation) + self.b
        return masked_softmax(logits, guard_candidates(view))


__all__ = ["GuardHead", "NumpyGuardHead", "guard_head_loss", "guard_hidden"]
