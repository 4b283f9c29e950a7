"""The roles a seat can end a deal in, and the two sides they form.

One owner for these names: the game's result, the observation's `my_role` one-hot, the
evaluation tables and the per-role networks all use `ROLES` in this order.
"""

from __future__ import annotations

#: Every role, in the one order used everywhere (an emperor without guard is the "solo").
ROLES = ("emperor", "guard", "solo", "rebel")
#: The two sides: the emperor's (emperor, guard, or a solo alone) and the rebels'.
SIDES = ("emperor_side", "rebel_side")


def side_of(role: str) -> str:
    """The side a role plays on: "emperor_side" or "rebel_side"."""
    if role not in ROLES:
        raise ValueError(f"unknown role {role!r}; roles are {ROLES}")
    return "rebel_side" if role == "rebel" else "emperor_side"


__all__ = ["ROLES", "SIDES", "side_of"]
