"""Who knows what (`baohuang_env.knowledge`): every user of the information model agrees.

At every decision of random games of every preset, for every seat, these must say the same:
the knowledge functions, the observation vector (`known_guard` and `my_role` one-hots,
decoded with `Encoder.decode`), the bots' `SeatView` (role, guard, emperor, team), and the
text views (the table as each seat and as a spectator sees it, the seat's own role in words,
what NO means to the seat answering).
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from agents.view import SeatView
from baohuang_env import get_rules
from baohuang_env.cards import NUM_SEATS
from baohuang_env.encoding import MY_ROLES, Encoder
from baohuang_env.knowledge import (
    PARTNER, UNKNOWN, guard_and_role, known_guard, known_role, own_role, public_role, seat_teams, teams,
)
from baohuang_env.roles import side_of
from baohuang_env.rules import PRESETS
from baohuang_env.text import (
    PRIVATE_NO_WORDS, ROLE_NAMES, decision_words, own_role_text, render_table, role_label, role_step,
)
from baohuang_env.actions import DECISION_ID
from tests.helpers import random_game

SEEDS = range(4)


def _one_hot_seat(vector: np.ndarray, seat: int) -> int:
    """Absolute seat of a relative one-hot seen from `seat`, -1 when none is set."""
    hot = np.flatnonzero(vector)
    assert len(hot) <= 1
    return int((seat + hot[0]) % NUM_SEATS) if len(hot) else -1


def _role_of_label(label: str) -> str | None:
    """The role a table label names ("?" names none)."""
    if label == "?":
        return None
    named = [r for r, name in ROLE_NAMES.items() if label.startswith(name)]
    assert len(named) == 1, label
    return named[0]


def _table_rows(game, viewer):
    lines = render_table(game, viewer).splitlines()
    return lines[2:2 + NUM_SEATS]


class Checker:
    """Checks one game state; counts the situations seen."""

    def __init__(self, rules) -> None:
        self.rules, self.enc, self.seen = rules, Encoder(rules), Counter()

    def __call__(self, game) -> None:
        tables = {viewer: _table_rows(game, viewer) for viewer in (None, *range(NUM_SEATS))}
        for seat in range(NUM_SEATS):
            self.check_seat(game, seat, tables)
        self.check_no_words(game)

    def check_seat(self, game, seat: int, tables) -> None:
        guard, role = known_guard(game, seat), own_role(game, seat)
        assert guard_and_role(game, seat) == (guard, role)
        # the observation vector
        obs = self.enc.encode(game, seat)
        d = self.enc.decode(obs)
        assert _one_hot_seat(d["known_guard"], seat) == guard
        hot = np.flatnonzero(d["my_role"])
        assert (MY_ROLES[hot[0]] if len(hot) else None) == role
        # the bots' view (relative seats)
        view = SeatView(obs, self.rules)
        rel = {s: (s - seat) % NUM_SEATS for s in range(NUM_SEATS)} | {-1: -1}
        assert view.role == role and view.guard == rel[guard] and view.emperor == rel[game.emperor]
        team = seat_teams(game, seat)
        assert view.team.tolist() == [team[(seat + r) % NUM_SEATS] for r in range(NUM_SEATS)]
        assert team == teams(seat, role, game.emperor, guard)
        # the roles as known, and the teams they imply
        assert known_role(game, seat, seat) == role == known_role(game, seat, None)
        for s in range(NUM_SEATS):
            known, truth, public = known_role(game, s, seat), own_role(game, s), public_role(game, s)
            # a viewer knows the truth, or nothing, or that a hidden solo is the emperor
            assert known in (None, truth) or (known, truth) == ("emperor", "solo"), (s, known, truth)
            assert public in (None, known) or (public, known) == ("emperor", "solo"), (s, public, known)
            if s == seat:
                assert team[s] == PARTNER
            elif team[s] != UNKNOWN:
                assert known is not None and (team[s] == PARTNER) == (side_of(known) == side_of(role))
            elif s not in game.rebels:  # declared rebels are not used by `teams`
                assert known is None, (s, known, team)
            self.seen["hidden from me" if truth is not None and known is None else "known"] += 1
        # the text views: the table as each viewer sees it, my own role in words
        for viewer, rows in tables.items():
            label = role_label(game, seat, viewer)
            assert rows[seat].startswith(f"{seat}{'*' if seat == viewer else ''}".ljust(6) + label)
            known = known_role(game, seat, viewer)
            assert _role_of_label(label) == known, (viewer, label, known)
            if known in ("guard", "solo"):  # the emperor's side not yet public is marked hidden
                assert ("(hidden" in label) == (public_role(game, seat) != known), label
        text = own_role_text(game, seat)
        assert text.startswith("not decided yet" if role is None else ROLE_NAMES[role]), text
        if role is not None and public_role(game, seat) != role:
            self.seen[f"private {role}"] += 1

    def check_no_words(self, game) -> None:
        """What NO means to the seat answering a declaration: its own role."""
        step, seat = role_step(game), game.current_player
        if step in ("declaration", "solo", "guard") and game.legal_mask()[DECISION_ID["NO"]]:
            words = decision_words(game, DECISION_ID["NO"], seat, private=True)
            assert words == PRIVATE_NO_WORDS.get(own_role(game, seat), "no (nothing to declare)")
            if own_role(game, seat) in PRIVATE_NO_WORDS:
                self.seen["hidden NO"] += 1


@pytest.mark.parametrize("preset", tuple(PRESETS))
def test_every_user_of_the_information_model_agrees(preset):
    rules = get_rules(preset)
    check = Checker(rules)
    for seed in SEEDS:
        game = random_game(rules, seed, policy_seed=100 + seed, check=check)
        for viewer in (None, *range(NUM_SEATS)):  # at the end every role is public
            for s, row in enumerate(_table_rows(game, viewer)):
                assert row.split()[1] == ROLE_NAMES[game.result.roles[s]].split()[0], row
    assert check.seen["hidden from me"], check.seen
    if "declaration" in rules.role_steps:  # always reached: someone is its guard or a hidden solo
        assert check.seen["hidden NO"], check.seen


def test_teams_from_plain_values():
    """`teams` as `SeatView` calls it (relative seats, me = 0) and for absolute seats."""
    assert teams(0, None, -1, -1) == [PARTNER, 0, 0, 0, 0]
    assert teams(0, "emperor", 0, -1) == [PARTNER, 0, 0, 0, 0]  # a hidden guard
    assert teams(0, "emperor", 0, 3) == [PARTNER, -1, -1, PARTNER, -1]
    assert teams(2, "guard", 4, 2) == [-1, -1, PARTNER, -1, PARTNER]
    assert teams(1, "solo", 1, 1) == [-1, PARTNER, -1, -1, -1]
    assert teams(3, "rebel", 0, -1) == [-1, 0, 0, PARTNER, 0]
    assert teams(3, "rebel", 0, 4) == [-1, PARTNER, PARTNER, PARTNER, -1]
    assert teams(3, "rebel", 0, 0) == [-1, PARTNER, PARTNER, PARTNER, PARTNER]  # a public solo
