"""Scoring schemes (RULES.md §6) as small pure functions of places, roles and multipliers.

Places are 1..5 in the order the players went out. Every scheme here is zero-sum.
"""

from __future__ import annotations

from collections.abc import Sequence

#: Solo tables (RULES.md §6.1): (emperor, each other player).
OPEN_SOLO_SCORES = {True: (24, -6), False: (-24, 6)}  # keyed by "emperor went out first"
HIDDEN_SOLO_SCORES = {1: (12, -3), 2: (0, 0)}  # by the emperor's place; worse places: (-12, 3)
HIDDEN_SOLO_LOSS = (-12, 3)


def jj_team_scores(place_emperor: int, place_guard: int) -> tuple[int, int, int]:
    """JJ formula (§6.1): g = 6 - (p_E + p_G); emperor 2g, guard g, each rebel -g."""
    g = 6 - (place_emperor + place_guard)
    return 2 * g, g, -g


def solo_scores(kind: str, place_emperor: int) -> tuple[int, int]:
    """(emperor, each other player) for an "open" or "hidden" solo (§6.1)."""
    if kind == "open":
        return OPEN_SOLO_SCORES[place_emperor == 1]
    if kind == "hidden":
        return HIDDEN_SOLO_SCORES.get(place_emperor, HIDDEN_SOLO_LOSS)
    raise ValueError(f"solo kind must be 'open' or 'hidden', got {kind!r}")


def score_jj(
    places: Sequence[int], emperor: int, guard: int, solo: str, open_guard: bool, open_guard_multiplier: int = 2
) -> list[int]:
    """Scores of seats 0..4 under the JJ scheme.

    `places[s]` is seat s's finishing place; `guard == emperor` in a solo.
    """
    if solo != "none":
        e, other = solo_scores(solo, places[emperor])
        return [e if s == emperor else other for s in range(5)]
    e, g, rebel = jj_team_scores(places[emperor], places[guard])
    mult = open_guard_multiplier if open_guard else 1
    return [mult * (e if s == emperor else g if s == guard else rebel) for s in range(5)]
