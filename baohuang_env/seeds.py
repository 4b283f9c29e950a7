"""The two seed ranges that keep training and evaluation deals apart.

A deal is `Game(rules, seed)`. Seeds in [0, 2**32) are reserved for evaluation deal sets
(the default set starts at `EVAL_SEED_START`); trainers draw every training deal from
`TRAIN_SEED_START` upwards, so no evaluation deal is ever trained on.
"""

from __future__ import annotations

#: First seed of the default evaluation deal set (`baohuang eval`, in-training evaluation).
EVAL_SEED_START = 1_000_000
#: Training deals use seeds from here up to 2**63 - 1; evaluation seeds stay below it.
TRAIN_SEED_START = 2**32

__all__ = ["EVAL_SEED_START", "TRAIN_SEED_START"]
