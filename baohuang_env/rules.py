"""Rule sets: the frozen `Rules` dataclass and the named presets.

Every rule flag of docs/rules.md §8 is a field of `Rules`. A preset is a named set of field
values (`PRESETS`); `get_rules(preset, **overrides)` builds one and validates it, so a typo
or an impossible combination fails loudly with the allowed values instead of silently
playing a different game. The role-phase steps (`Rules.role_steps`) follow from the flags.

This module imports only the standard library (the rules engine is pure).
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
from dataclasses import dataclass
from typing import Any

#: Role-phase steps the engine implements (docs/rules.md §3), see `baohuang_env.role_phase`:
#: R1 "abdication" / "decline" / "call"; R2+R3 as one five-seat "declaration" round, or
#: "solo" (the emperor), "grab" and "guard" when grab-solo sits between them; R5
#: "rebellion"; R6 "kick".
ROLE_STEPS = ("abdication", "decline", "call", "declaration", "solo", "grab", "guard", "rebellion", "kick")


@dataclass(frozen=True)
class Rules:
    """One complete Baohuang rule set. Build it with `get_rules`, not directly.

    Field defaults are the `jj` preset (the default rules).
    """

    preset: str = "jj"
    #: Cards in play (§1.2): 168 = four 54-card decks without 3, 4, 5; 165 = 168 minus three
    #: 6s (weihai); 216 = four full decks (generic216).
    deck_size: int = 168
    #: R1, who becomes emperor (§3): "abdicate" (accept, or pass the emperor card to the upper
    #: seat), "decline" (weihai: only a holder of both marked cards may decline), "call"
    #: (call a triple; the holder of the 4th copy is the guard), "none" (qingdao: h0 is emperor).
    emperor_selection: str = "abdicate"
    #: How the guard is chosen: "fixed_card" (the marked small joker) or "call_triple".
    guard_selection: str = "fixed_card"
    #: Abdicators from the second on add their highest non-joker card to the pile (贴牌).
    tribute: bool = False
    #: After a full circle of abdications in a calling preset (逼位): "none", "triple" (first
    #: seat with a triple must call), or "triple_no_quad" (first seat with a triple and no quad).
    forced_call: str = "none"
    #: Void deal (流局): "abdicate" ends void after two circles; "call" when nobody is forced.
    #: Without it, "abdicate" gives the throne back to h0 after one circle.
    void_deal: bool = False
    #: Jokers (BJ, SJ) count as suit-ranks that may be called.
    jokers_callable: bool = False
    #: In the call round the holder may declare an open solo with no card condition, and a
    #: called quad is a hidden solo (lianzhong_classic). Otherwise a called quad makes a solo
    #: whose open/hidden choice comes after the call (generic216).
    call_declares_solo: bool = False
    #: The called triple's 4th copy becomes the special card SP, above the big joker (特画).
    special_card: bool = False
    #: Grab-solo (抢独): after R1, the non-emperor seats in upper order may take the solo.
    grab_solo: bool = False
    #: A grab moves the marked emperor card (a BJ) into the grabber's hand (generic216).
    grab_moves_emperor_card: bool = False
    #: Rebellion (造反, R5): "none"; "open_guard" (weihai: 2+ rebels reveal the guard, scored as
    #: open guard); "double" (lianzhong_simple: 2+ rebels double the score); "declaration"
    #: (qingdao: each rebel only shows his identity).
    rebellion: str = "none"
    #: Kick (踢, R6, weihai): a successful kick doubles the score.
    kick: bool = False
    #: A solo emperor may surrender before play (投降, qingdao): he -4, each other +1.
    surrender: bool = False
    #: Hold-the-sixes (憋6, §4.5): a play with a 6 must be the player's whole remaining hand.
    hold_sixes: bool = True
    #: Under hold-the-sixes, the final 6s may not carry jokers (jj reading of the JJ page; the
    #: lianzhong presets read the Lianzhong page literally: False). No effect without hold_sixes.
    six_no_jokers: bool = True
    #: Plays made only of jokers are allowed (§4.1, §9 #1). Without them (qingdao, generic216: a
    #: play is N >= 1 cards of one rank plus jokers) a jokers-only play is legal only to a seat
    #: holding no rank card, so a hand of only jokers can still be played out.
    jokers_only_plays: bool = True
    #: Roasting (烤牌, §4.7): a joker-carrying play may be beaten by more jokers (lianzhong).
    roasting: bool = False
    #: Catch-the-wind (接风, §4.6): "auto" (the finisher's next active seat leads) or "apply"
    #: (qingdao: that seat may answer the final play with APPLY_WIND).
    catch_wind: str = "auto"
    #: End of the deal (§5.2): "one_side" (a whole side out; solo rules) or "four_out".
    end_rule: str = "one_side"
    #: Scoring scheme (§6): "jj" (JJ formula + solo tables), "weihai" (split table after open
    #: guard or rebellion), "qingdao" (place points, team sums).
    scoring: str = "jj"
    #: Score multiplier when the guard declared himself openly (明保, §6.1; jj scheme only).
    open_guard_multiplier: int = 2
    #: Seat dealt the first card (§1.3): it and the next seats in play order get the extra cards.
    start_seat: int = 0
    #: Which way play goes round the table, for display only (§2): the engine's seats are
    #: abstract play order either way.
    display_direction: str = "counterclockwise"

    @property
    def role_steps(self) -> tuple[str, ...]:
        """The role-phase steps of these rules, in order (names from `ROLE_STEPS`)."""
        steps = {"abdicate": ["abdication"], "decline": ["decline"], "call": ["call"], "none": []}[
            self.emperor_selection]
        if self.grab_solo:
            if not self.call_declares_solo:  # the emperor's open/hidden solo choice comes first
                steps.append("solo")
            steps += ["grab", "guard"]
        elif self.call_declares_solo:
            steps.append("guard")
        else:
            steps.append("declaration")
        if self.rebellion != "none":
            steps.append("rebellion")
        if self.kick:
            steps.append("kick")
        return tuple(steps)

    @property
    def suits_matter(self) -> bool:
        """Suits are tracked only where calling a triple needs them (§1.1)."""
        return self.guard_selection == "call_triple"

    def to_dict(self) -> dict[str, Any]:
        """A JSON-friendly dict; `get_rules(**rules.to_dict())` rebuilds the same rules (a new
        dict each call; every replay record holds one)."""
        return dict(_fields(self))

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Rules:
        """Rebuild (and validate) rules written by `to_dict`, also by an older version: flags
        added since take the preset's values, and its `role_steps` must match the flags."""
        d = dict(d)
        preset = d.pop("preset", "jj")
        steps = d.pop("role_steps", None)
        rules = get_rules(preset, **d)
        if steps is not None and tuple(steps) != rules.role_steps:
            raise ValueError(f"role_steps {list(steps)} do not match the rules' flags (they give "
                             f"{list(rules.role_steps)})")
        return rules

    @property
    def revision(self) -> int:
        """The last rules revision (`RULE_CHANGES`) that changed how this preset plays; 0 if none."""
        return max((c.revision for c in RULE_CHANGES if self.preset in c.presets), default=0)

    def fingerprint(self, layout_version: int) -> str:
        """Short hash of the rules, their revision and the action-layout version; checkpoints
        store it. (A preset no revision changed hashes as before revisions existed.)"""
        d: dict[str, Any] = {"rules": self.to_dict(), "layout": layout_version}
        if self.revision:
            d["revision"] = self.revision
        blob = json.dumps(d, sort_keys=True)
        return hashlib.sha256(blob.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class RuleChange:
    """A change of how a preset plays that its flags alone do not show: a game recorded
    before it may replay differently (or not at all) after it."""

    revision: int
    presets: tuple[str, ...]
    rule: str  # what changed, with its section of docs/rules.md


#: Every rule change since replay records carried a revision (records without one are
#: revision 0). A replay recorded under an older revision of its preset is refused, naming
#: what changed (`check_revision`), rather than replayed under rules it was not played by.
RULE_CHANGES: tuple[RuleChange, ...] = (
    RuleChange(1, ("weihai", "lianzhong_classic", "generic216"),
               "a hidden-solo emperor keeps priority over a grab: a GRAB against him fails and reveals his "
               "solo (docs/rules.md §3.1, §9 #15)"),
    RuleChange(1, ("qingdao", "generic216"),
               "plays of jokers only are not allowed, except to a seat holding no rank card "
               "(jokers_only_plays=False; docs/rules.md §4.1, §9 #1)"),
)
#: The revision that replay records written now carry.
RULES_REVISION = max(c.revision for c in RULE_CHANGES)


def check_revision(preset: str, revision: int) -> None:
    """ValueError unless a game of `preset` recorded under rules revision `revision` plays the
    same today: the message names each rule changed since."""
    if type(revision) is not int or revision < 0:
        raise ValueError(f"rules_revision is a non-negative integer, got {revision!r}")
    if revision > RULES_REVISION:
        raise ValueError(f"recorded under rules revision {revision}, newer than this version knows "
                         f"({RULES_REVISION}): replay it with the version that recorded it")
    changed = [c for c in RULE_CHANGES if c.revision > revision and preset in c.presets]
    if changed:
        what = "; ".join(f"revision {c.revision}: {c.rule}" for c in changed)
        raise ValueError(f"recorded under rules revision {revision} of preset {preset!r}, whose rules have changed "
                         f"since ({what}); the game may not replay the same, so it is refused: replay it with "
                         f"the version that recorded it")


_CALLING = {"emperor_selection": "call", "guard_selection": "call_triple", "void_deal": True,
            "jokers_callable": True, "grab_solo": True, "hold_sixes": False, "six_no_jokers": False}

#: Named presets (docs/rules.md §8): each one's differences from the `Rules` defaults (= jj).
PRESETS: dict[str, dict[str, Any]] = {
    "jj": {},
    "weihai": {"deck_size": 165, "emperor_selection": "decline", "grab_solo": True, "rebellion": "open_guard",
               "kick": True, "scoring": "weihai"},
    "lianzhong_classic": {**_CALLING, "forced_call": "triple_no_quad", "call_declares_solo": True,
                          "display_direction": "clockwise"},
    "lianzhong_simple": {"tribute": True, "void_deal": True, "rebellion": "double", "hold_sixes": False,
                         "six_no_jokers": False, "display_direction": "clockwise"},
    "qingdao": {"emperor_selection": "none", "rebellion": "declaration", "surrender": True, "hold_sixes": False,
                "six_no_jokers": False, "catch_wind": "apply", "end_rule": "four_out", "scoring": "qingdao",
                "open_guard_multiplier": 1, "jokers_only_plays": False},
    "generic216": {**_CALLING, "deck_size": 216, "tribute": True, "forced_call": "triple",
                   "special_card": True, "grab_moves_emperor_card": True, "jokers_only_plays": False},
}

#: Values each flag may take (checked by `get_rules`); a type means "any value of it".
ALLOWED: dict[str, tuple[Any, ...] | type] = {
    "deck_size": (168, 165, 216),
    "emperor_selection": ("abdicate", "decline", "call", "none"),
    "guard_selection": ("fixed_card", "call_triple"),
    "tribute": bool,
    "forced_call": ("none", "triple", "triple_no_quad"),
    "void_deal": bool,
    "jokers_callable": bool,
    "call_declares_solo": bool,
    "special_card": bool,
    "grab_solo": bool,
    "grab_moves_emperor_card": bool,
    "rebellion": ("none", "open_guard", "double", "declaration"),
    "kick": bool,
    "surrender": bool,
    "hold_sixes": bool,
    "six_no_jokers": bool,
    "jokers_only_plays": bool,
    "roasting": bool,
    "catch_wind": ("auto", "apply"),
    "end_rule": ("one_side", "four_out"),
    "scoring": ("jj", "weihai", "qingdao"),
    "open_guard_multiplier": (1, 2),
    "start_seat": (0, 1, 2, 3, 4),
    "display_direction": ("counterclockwise", "clockwise"),
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


def _check_combination(r: Rules) -> None:
    """Reject flag combinations that describe no playable game, saying why."""
    calling = r.emperor_selection == "call"

    def bad(why: str) -> None:
        raise ValueError(f"impossible rule combination: {why}")

    if calling != (r.guard_selection == "call_triple"):
        bad("emperor_selection='call' and guard_selection='call_triple' go together (the caller is emperor, "
            "the holder of the called card's 4th copy the guard)")
    if not calling:
        for flag in ("jokers_callable", "call_declares_solo", "special_card"):
            if getattr(r, flag):
                bad(f"{flag}=True needs emperor_selection='call'")
        if r.forced_call != "none":
            bad("forced_call needs emperor_selection='call'")
    else:
        if r.forced_call == "none" or not r.void_deal:
            bad("a calling preset needs a forced round (forced_call 'triple' or 'triple_no_quad') and "
                "void_deal=True for when nobody can be forced")
        if r.surrender:
            bad("surrender is an option of a fixed-guard-card solo (qingdao)")
    if r.tribute and r.emperor_selection not in ("abdicate", "call"):
        bad("tribute travels with abdications: it needs emperor_selection 'abdicate' or 'call'")
    if r.void_deal and r.emperor_selection not in ("abdicate", "call"):
        bad("void_deal needs emperor_selection 'abdicate' (two circles) or 'call' (nobody forced)")
    if r.special_card and (not calling or r.deck_size != 216 or r.call_declares_solo):
        bad("special_card (SP) is generic216's: deck_size=216, calling, and the quad solo chosen after the call")
    if r.roasting and r.special_card:
        bad("roasting (§4.7) is defined for the lianzhong decks; it says nothing about SP (special_card)")
    if r.grab_moves_emperor_card and not r.grab_solo:
        bad("grab_moves_emperor_card needs grab_solo=True")
    if r.kick and r.rebellion != "open_guard":
        bad("kick is weihai's: it needs rebellion='open_guard' (kick after a successful rebellion)")
    if r.surrender and r.grab_solo:
        bad("surrender and grab_solo come from different presets and their order is not specified")
    if r.hold_sixes and r.six_no_jokers and not r.jokers_only_plays:
        bad("hold_sixes with six_no_jokers needs jokers_only_plays=True: a hand of 6s and jokers could lead "
            "neither its 6s (they may not carry jokers) nor its jokers (not alone while it holds a 6)")
    if r.deck_size == 216 and r.hold_sixes:
        bad("hold_sixes needs 6 to be the lowest rank (deck 168 or 165); the 216-card deck has 3, 4 and 5")
    if r.scoring == "qingdao" and r.end_rule != "four_out":
        bad("qingdao scoring needs every place: end_rule='four_out'")
    if r.surrender and r.scoring != "qingdao":
        bad("surrender is scored by the qingdao scheme (-4 / +1)")
    if r.scoring == "weihai" and r.rebellion not in ("none", "open_guard"):
        bad("the weihai split table scores a successful rebellion as open guard: rebellion 'open_guard' or 'none'")
    if r.rebellion == "open_guard" and r.scoring != "weihai":
        bad("rebellion='open_guard' is scored by the weihai split table: scoring='weihai'")



#: The names a rule set can be built or overridden with: every field of `Rules` but `preset`
#: (`get_rules(preset, **flags)`; the env adapters' messages list them too).
RULE_FLAGS: tuple[str, ...] = tuple(sorted(f.name for f in dataclasses.fields(Rules) if f.name != "preset"))


@functools.cache
def _fields(rules: Rules) -> dict[str, Any]:
    """`dataclasses.asdict(rules)`, made once per rule set (its values are all scalars, so a
    shallow copy of it is a deep one)."""
    return dataclasses.asdict(rules)


def get_rules(preset: str = "jj", **overrides: Any) -> Rules:
    """Build the rules of a named preset, with optional per-flag overrides.

    >>> get_rules("jj", hold_sixes=False).hold_sixes
    False

    Raises `ValueError` naming the preset or flag and listing what is allowed.
    """
    if preset not in PRESETS:
        raise ValueError(f"unknown preset {preset!r}; available presets: {sorted(PRESETS)}")
    unknown = sorted(set(overrides) - set(RULE_FLAGS))
    if unknown:
        hint = " (role_steps follow from the flags)" if "role_steps" in unknown else ""
        raise ValueError(f"unknown rule flag(s) {unknown}{hint}; allowed flags: {list(RULE_FLAGS)}")
    values = {**PRESETS[preset], **overrides}
    for name, value in values.items():
        _check_value(name, value)
    rules = Rules(preset=preset, **values)
    _check_combination(rules)
    return rules
