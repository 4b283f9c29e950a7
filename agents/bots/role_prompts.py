"""Role-phase prompts as a card player names them, and the hand features their models read.

A role prompt (docs/rules.md §3.9) is named by its *kind*: the role step (`Rules.role_steps`)
plus, where one step asks different questions, the question ("declaration.solo" for a solo
emperor's open/hidden/surrender choice, "declaration.guard" for the guard's, "abdication.both_cards"
for an emperor-card holder who also holds the guard card, "forced_call" for the forced round).
Its legal answers are grouped into *answer classes* ("accept", "abdicate", "no", "grab",
"call_low" ...): a call round offers a CALL per triple, and the classes keep the few that differ
in kind (the lowest triple, the highest triple, a quad = hidden solo, an open solo, abdicating).

Everything is read from the seat's own observation (`SeatView`, the observation layout), so
a model sees exactly what the deciding seat may see.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from baohuang_env.actions import DECISION_ID, action_table
from baohuang_env.autoplay import RoleDefaults
from baohuang_env.observation import observation_layout
from baohuang_env.rules import Rules

from ..view import SeatView

ACCEPT, ABDICATE, DECLINE, NO = (DECISION_ID[n] for n in ("ACCEPT", "ABDICATE", "DECLINE", "NO"))
OPEN_SOLO, OPEN_GUARD, GRAB = (DECISION_ID[n] for n in ("OPEN_SOLO", "OPEN_GUARD", "GRAB"))
REBEL, KICK, SURRENDER = (DECISION_ID[n] for n in ("REBEL", "KICK", "SURRENDER"))

#: Hand features every model may read (`hand_features`): a constant, big and small jokers,
#: 2s, aces, kings, weak groups (how many ranks between the lowest rank and the queen are
#: held: 7..Q in the 168/165-card decks, 4..Q in the 216-card deck), cards of the lowest
#: rank (6s, or 3s in the 216-card deck: the cards hardest to shed, and under hold-the-sixes
#: the last play), and SP (特画, only in a deck with it).
HAND_FEATURES = ("1", "BJ", "SJ", "2", "A", "K", "weak", "lowest")
#: Prompt context a model may add (what the seat can see): abdications so far (with tribute
#: each one costs a card and the deal may end void), REBELs declared so far.
CONTEXT_FEATURES = ("SP", "declines", "rebels")

#: Per prompt kind: the context features its models read beyond the hand features.
CONTEXT_OF_KIND = {"abdication": ("declines",), "abdication.both_cards": ("declines",), "rebellion": ("rebels",)}


@dataclass(frozen=True)
class Prompt:
    """One role prompt of one seat: its kind, its answer classes (class -> action id, in a
    fixed order) and the auto-play default's class (`baohuang_env.autoplay.RoleDefaults`)."""

    kind: str
    answers: dict[str, int]
    default: str


def feature_names(rules: Rules, kind: str) -> tuple[str, ...]:
    """The features of `kind`'s models under `rules`: the hand features (plus SP in a deck
    with it) and the kind's context where the rules give it meaning (abdications count only
    with tribute or a void deal)."""
    names = [*HAND_FEATURES, *(("SP",) if rules.special_card else ())]
    for extra in CONTEXT_OF_KIND.get(kind, ()):
        if extra != "declines" or rules.tribute or rules.void_deal:
            names.append(extra)
    return tuple(names)


class PromptReader:
    """Names the role prompts of one rule set and reads their features from observations."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        table = action_table(rules)
        kinds = table.kinds
        self.R, self.SJ, self.BJ, self.SP = kinds.num_ranks, kinds.sj, kinds.bj, kinds.sp
        self.first_call, self.num_calls = table.first_call, table.num_calls
        self._layout = observation_layout(rules)
        self._defaults = RoleDefaults(rules)

    def prompt(self, v: SeatView, observation: np.ndarray, mask: np.ndarray) -> Prompt | None:
        """The prompt this role-phase mask asks, or None when it has a single answer or is
        not one the models name."""
        if np.count_nonzero(mask) < 2:
            return None
        phase = v.phase
        if phase == "abdication" and mask[ACCEPT] and mask[ABDICATE]:
            kind = "abdication.both_cards" if v.hold_guard_card else "abdication"
            return Prompt(kind, {"accept": ACCEPT, "abdicate": ABDICATE}, "accept")
        if phase == "decline" and mask[DECLINE]:
            return Prompt("decline", {"accept": ACCEPT, "decline": DECLINE}, "accept")
        if phase == "call":
            return self._call_prompt(observation, mask)
        if phase in ("declaration", "solo") and mask[OPEN_SOLO]:
            answers = {"no": NO, "open_solo": OPEN_SOLO}
            if mask[SURRENDER]:
                answers["surrender"] = SURRENDER
            return Prompt("declaration.solo" if phase == "declaration" else "solo", answers, "no")
        if phase in ("declaration", "guard") and mask[OPEN_GUARD]:
            return Prompt("declaration.guard" if phase == "declaration" else "guard",
                          {"no": NO, "open_guard": OPEN_GUARD}, "no")
        for step, action, name in (("grab", GRAB, "grab"), ("rebellion", REBEL, "rebel"), ("kick", KICK, "kick")):
            if phase == step and mask[action]:
                return Prompt(step, {"no": NO, name: action}, "no")
        return None

    def _call_prompt(self, observation: np.ndarray, mask: np.ndarray) -> Prompt | None:
        """The call round: the lowest and highest triple (in the default's order: ranks low
        to high, ties by suit, the jokers last), the lowest quad (a solo), an open solo
        (lianzhong_classic) and abdicating, where legal."""
        f = self.first_call
        calls = np.flatnonzero(mask[f:f + self.num_calls])
        groups = self._layout.read(observation, "my_groups")
        triples, quads = calls[groups[calls] == 3], calls[groups[calls] == 4]
        answers: dict[str, int] = {}
        if triples.size:
            answers["call_low"] = int(triples[0]) + f
            if triples.size > 1:
                answers["call_high"] = int(triples[-1]) + f
        if quads.size:
            answers["call_quad"] = int(quads[0]) + f
        if mask[OPEN_SOLO]:
            answers["open_solo"] = OPEN_SOLO
        if mask[ABDICATE]:
            answers["abdicate"] = ABDICATE
        if len(answers) < 2:
            return None
        chosen = self._defaults.choose(observation, mask)  # the auto-play answer: its one owner
        default = next(name for name, action in answers.items() if action == chosen)
        return Prompt("call" if mask[ABDICATE] else "forced_call", answers, default)

    def features(self, v: SeatView, observation: np.ndarray, names: tuple[str, ...]) -> np.ndarray:
        """The named features of this seat at this prompt, as float64 (the models' order)."""
        hand, R = v.hand, self.R
        values = {"1": 1.0, "BJ": hand[self.BJ], "SJ": hand[self.SJ], "2": hand[R - 1], "A": hand[R - 2],
                  "K": hand[R - 3], "weak": np.count_nonzero(hand[1:R - 3]), "lowest": hand[0]}
        for name in names[len(HAND_FEATURES):]:
            if name == "SP":
                values[name] = hand[self.SP]
            elif name == "declines":
                values[name] = v.declines
            elif name == "rebels":
                values[name] = float(self._layout.read(observation, "rebels").sum())
        return np.array([values[n] for n in names], dtype=np.float64)


__all__ = ["CONTEXT_FEATURES", "HAND_FEATURES", "Prompt", "PromptReader", "feature_names"]
