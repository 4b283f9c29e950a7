"""Deep Monte-Carlo (DMC) self-play, DouZero's method, for Baohuang.

Q(s, a) networks (`agents.nets.networks.ActionScorer`) score each legal action from the seat's
observation and the action's features; actors play self-play games ε-greedily in separate
processes and write (observation, action features, final return) rows into shared buffers;
the learner regresses Q on those Monte-Carlo returns. One network per role the acting seat knows it has
(emperor, guard, rebel, solo), so role-phase decisions are learned too; or, with
`networks: shared`, one network for every role that reads the role from the observation.
"""

from .agent import DMCAgent
from .model import ROLES

__all__ = ["ROLES", "DMCAgent"]
