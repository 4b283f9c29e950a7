"""Guard beliefs without torch: who may be the guard as a seat knows it, the hidden label the
guard-belief head (`agents.nets.guard_head`) is trained on, and the masked softmax that turns
scores into a belief. A belief is a (5,) array over relative seats (0 = the observer),
zero outside the observer's candidates; agents that have one expose it as
`guard_belief(observation)` (the heuristic bot's partner inference, a learned agent's head).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from baohuang_env.cards import NUM_SEATS
from baohuang_env.game import Game
from baohuang_env.knowledge import UNKNOWN

from .view import SeatView

if TYPE_CHECKING:
    from baohuang_env.batched.games import RowRoles

#: Label of a row whose guard is not fixed yet (ignored by the loss).
NO_LABEL = -1


def guard_label(game: Game | RowRoles, seat: int) -> int:
    """The true guard's seat relative to `seat` (0: `seat` itself; the emperor in a solo), or
    NO_LABEL while the roles are not fixed. Hidden information: for the loss only."""
    guard = game.guard
    return (guard - seat) % NUM_SEATS if guard >= 0 and game.emperor >= 0 else NO_LABEL


def guard_candidates(view: SeatView) -> np.ndarray:
    """(5,) bool over relative seats: who may be the guard as the observer knows it. The
    known guard alone when known (the guard knows himself); else every seat whose side is
    unknown to the observer (`SeatView.team`): the four others for an emperor, the three
    non-emperors for a rebel. All False while the roles are not fixed."""
    out = np.zeros(NUM_SEATS, dtype=bool)
    if view.role is None or view.emperor < 0:
        return out
    if view.guard >= 0:
        out[view.guard] = True
        return out
    out[:] = view.team == UNKNOWN
    return out


def masked_softmax(logits: np.ndarray, candidates: np.ndarray) -> np.ndarray:
    """Softmax of `logits` over the `candidates` entries (zero elsewhere); uniform over all
    five seats when there are no candidates."""
    if not candidates.any():
        return np.full(len(logits), 1.0 / len(logits))
    z = np.where(candidates, logits, -np.inf)
    z = np.exp(z - z[candidates].max())
    return z / z.sum()


__all__ = ["NO_LABEL", "guard_candidates", "guard_label", "masked_softmax"]
