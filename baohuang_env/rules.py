"""Rule sets: the frozen `Rules` dataclass and the named presets.

Every rule flag the engine understands is a field of `Rules`. A preset is a named set of
field values (`PRESETS`); `get_rules(preset, **overrides)` builds one and validates it, so a
typo or an impossible combination fails loudly with the allowed values instead of silently
playing a different game. See RULES.md §8 for the table of presets against flags.

This module imports only the standard library (STYLE.md §1: the rules engine is pure).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass
from typing import Any

#: Role-phase steps the engine implements, in the order they may run (RULES.md §3.0).
#: A preset lists the steps it uses in `Rules.role_steps`; see `baohuang_env.role_phase`.
ROLE_STEPS = ("abdication", "declaration")
#: Sequences of role steps that form a complete role phase (each one fixes E and G).
ROLE_SEQUENCES = (("abdication", "declaration"),)


@dataclass(frozen=True)
class Rules:
    """One complete Baohuang rule set. Build it with `get_rules`, not directly."""

    preset: str = "jj"
    #: Cards in play: 168 = four 54-card decks without 3, 4, 5 (RULES.md §1.2).
    deck_size: int = 168
    #: Role-phase steps run before play, in order (names from `ROLE_STEPS`).
    role_steps: tuple[str, ...] = ("abdication", "declaration")
    #: Hold-the-sixes (憋6, §4.5): a play with a 6 must be the player's whole remaining hand.
    hold_sixes: bool = True
    #: Under hold-the-sixes, the final 6s may not carry jokers (jj reading of [001:L58]).
    six_no_jokers: bool = True
    #: Plays made only of jokers are allowed (§4.1, §9 #1). Every preset allows them; without
    #: them a leader holding only jokers would have no legal play, so only True is accepted.
    jokers_only_plays: bool = True
    #: Catch-the-wind (接风, §4.6): "auto" means the finisher's next active seat leads.
    catch_wind: str = "auto"
    #: Scoring scheme (§6): "jj" is the JJ formula plus the solo tables.
    scoring: str = "jj"
    #: Score multiplier when the guard declared himself openly (明保, §6.1).
    open_guard_multiplier: int = 2
    #: Seat dealt the first card (§1.3): it and the next two seats in play order get 34 cards.
    start_seat: int = 0

    def to_dict(self) -> dict[str, Any]:
        """A JSON-friendly dict; `get_rules(**rules.to_dict())` rebuilds the same rules."""
        d = dataclasses.asdict(self)
        d["role_steps"] = list(self.role_steps)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Rules:
        """Rebuild (and validate) rules written by `to_dict`."""
        d = dict(d)
        preset = d.pop("preset", "jj")
        return get_rules(preset, **d)

    def fingerprint(self, layout_version: int) -> str:
        """Short hash of the rules and the action-layout version; checkpoints store it."""
        blob = json.dumps({"rules": self.to_dict(), "layout": layout_version}, sort_keys=True)
        return hashlib.sha256(blob.encode()).hexdigest()[:16]


#: Named presets. Only `jj` (the default) is implemented so far; the other presets of
#: RULES.md §8 (weihai, lianzhong_classic, lianzhong_simple, qingdao, generic216) need
#: role-phase steps and decks the engine does not have yet.
PRESETS: dict[str, dict[str, Any]] = {
    "jj": {},
}

#: Values each flag may take in this version of the engine (checked by `get_rules`).
ALLOWED: dict[str, tuple[Any, ...] | type] = {
    "deck_size": (168,),
    "catch_wind": ("auto",),
    "scoring": ("jj",),
    "open_guard_multiplier": (1, 2),
    "start_seat": (0, 1, 2, 3, 4),
    "hold_sixes": bool,
    "six_no_jokers": bool,
    "jokers_only_plays": (True,),
}


def _check_value(name: str, value: Any) -> None:
    allowed = ALLOWED.get(name)
    if allowed is None:
        return
    if isinstance(allowed, type):
        if not isinstance(value, allowed):
            raise ValueError(f"rule flag {name!r} must be {allowed.__name__}, got {value!r}")
    elif value not in allowed or type(value) is not type(allowed[0]):  # 2.0 or True are not 2 or 1
        raise ValueError(f"rule flag {name!r} = {value!r} is not supported; allowed: {list(allowed)}")


def get_rules(preset: str = "jj", **overrides: Any) -> Rules:
    """Build the rules of a named preset, with optional per-flag overrides.

    >>> get_rules("jj", hold_sixes=False).hold_sixes
    False

    Raises `ValueError` naming the preset or flag and listing what is allowed.
    """
    if preset not in PRESETS:
        raise ValueError(f"unknown preset {preset!r}; available presets: {sorted(PRESETS)}")
    fields = {f.name for f in dataclasses.fields(Rules)} - {"preset"}
    unknown = sorted(set(overrides) - fields)
    if unknown:
        raise ValueError(f"unknown rule flag(s) {unknown}; allowed flags: {sorted(fields)}")
    values = {**PRESETS[preset], **overrides}
    if "role_steps" in values:
        steps = tuple(values["role_steps"])
        if steps not in ROLE_SEQUENCES:
            raise ValueError(
                f"role_steps {list(steps)} is not supported; a role phase must be one of "
                f"{[list(seq) for seq in ROLE_SEQUENCES]}"
            )
        values["role_steps"] = steps
    for name, value in values.items():
        _check_value(name, value)
    if values.get("six_no_jokers") is False and values.get("hold_sixes") is False:
        raise ValueError("six_no_jokers=False only makes sense with hold_sixes=True")
    return Rules(preset=preset, **values)
