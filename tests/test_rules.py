"""`Rules` and `get_rules`: the jj preset's values, validation errors, serialization and the
fingerprint that checkpoints store."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from baohuang_env import LAYOUT_VERSION, PRESETS, Rules, get_rules


def test_default_is_jj_with_the_values_of_rules_md_section_8():
    r = get_rules()
    assert r == get_rules("jj")
    assert "jj" in PRESETS
    assert r.preset == "jj"
    assert r.deck_size == 168  # no 3, 4, 5 (the JJ page)
    assert r.role_steps == ("abdication", "declaration")  # §3.2 R1, then R2+R3 as one round (§3.8)
    assert r.hold_sixes is True  # the JJ page
    assert r.six_no_jokers is True  # the JJ page
    assert r.jokers_only_plays is True  # §9 #1
    assert r.catch_wind == "auto"  # the JJ page
    assert r.scoring == "jj"
    assert r.open_guard_multiplier == 2  # the JJ page
    assert r.start_seat == 0  # §1.3


def test_overrides_apply_one_by_one():
    r = get_rules("jj", hold_sixes=False, start_seat=3)
    assert r.hold_sixes is False and r.start_seat == 3
    assert r.jokers_only_plays is True and r.preset == "jj"
    assert get_rules(open_guard_multiplier=1).open_guard_multiplier == 1
    assert get_rules(six_no_jokers=False).six_no_jokers is False


def test_jokers_only_plays_are_off_where_a_play_needs_a_rank():
    # the Qingdao and 216-card pages: a play is N >= 1 cards of one rank plus jokers (§4.1, §9 #1);
    # the other pages allow jokers alone
    off = {p for p in PRESETS if not get_rules(p).jokers_only_plays}
    assert off == {"qingdao", "generic216"}
    assert get_rules("jj", hold_sixes=False, jokers_only_plays=False).jokers_only_plays is False
    assert get_rules("jj", six_no_jokers=False, jokers_only_plays=False).jokers_only_plays is False
    # jj's hold-the-sixes without jokers alone: a hand of 6s and jokers would have no lead
    with pytest.raises(ValueError, match="jokers_only_plays"):
        get_rules("jj", jokers_only_plays=False)


def test_rules_are_frozen_and_hashable():
    r = get_rules()
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.hold_sixes = False  # type: ignore[misc]
    assert hash(r) == hash(get_rules())
    assert len({get_rules(), get_rules(), get_rules(hold_sixes=False)}) == 2


# --------------------------------------------------------------------------- errors


def test_unknown_preset_lists_the_presets():
    with pytest.raises(ValueError, match="no_such_preset") as err:
        get_rules("no_such_preset")
    assert "jj" in str(err.value)


@pytest.mark.parametrize("flag", ["hold_six", "holdSixes", "deck", "seed"])
def test_unknown_flag_lists_the_allowed_flags(flag):
    with pytest.raises(ValueError, match=flag) as err:
        get_rules("jj", **{flag: True})
    message = str(err.value)
    for name in ("hold_sixes", "six_no_jokers", "jokers_only_plays", "start_seat"):
        assert name in message


@pytest.mark.parametrize(
    ("flag", "value"),
    [
        ("hold_sixes", "yes"),
        ("hold_sixes", 1),
        ("hold_sixes", None),
        ("six_no_jokers", 0),
        ("jokers_only_plays", "False"),
        ("open_guard_multiplier", True),  # a bool is not a multiplier
        ("open_guard_multiplier", "2"),
        ("start_seat", "1"),
        ("start_seat", True),
        ("start_seat", 2.0),  # a float seat: the deal indexes seats with it
        ("deck_size", "168"),
    ],
)
def test_wrong_type_is_rejected(flag, value):
    with pytest.raises(ValueError, match=flag):
        get_rules("jj", **{flag: value})


@pytest.mark.parametrize(
    ("flag", "value"),
    [
        ("start_seat", 5),
        ("start_seat", -1),
        ("open_guard_multiplier", 3),
        ("catch_wind", "sometimes"),
        ("scoring", "no_such_scheme"),
        ("deck_size", 100),
    ],
)
def test_unsupported_value_lists_the_allowed_values(flag, value):
    with pytest.raises(ValueError, match=flag) as err:
        get_rules("jj", **{flag: value})
    assert "allowed" in str(err.value)


def test_role_steps_are_not_a_flag_they_follow_from_the_flags():
    with pytest.raises(ValueError, match="role_steps follow from the flags"):
        get_rules("jj", role_steps=("abdication",))


#: docs/rules.md §3.2–3.7 and §3.8: each preset's role phase, step by step.
ROLE_PHASES = {
    "jj": ("abdication", "declaration"),
    "weihai": ("decline", "solo", "grab", "guard", "rebellion", "kick"),
    "lianzhong_classic": ("call", "grab", "guard"),  # the solo is chosen in the call round
    "lianzhong_simple": ("abdication", "declaration", "rebellion"),
    "qingdao": ("declaration", "rebellion"),  # h0 is emperor: no R1
    "generic216": ("call", "solo", "grab", "guard"),
}


@pytest.mark.parametrize("preset", sorted(ROLE_PHASES))
def test_each_preset_has_its_role_phase(preset):
    assert set(PRESETS) == set(ROLE_PHASES)
    assert get_rules(preset).role_steps == ROLE_PHASES[preset]


def test_room_options_change_the_role_phase():
    # lianzhong_simple with grab-solo (a room option, §3.4): the solo choice, grabs, then the guard
    assert get_rules("lianzhong_simple", grab_solo=True).role_steps == (
        "abdication", "solo", "grab", "guard", "rebellion")
    assert get_rules("lianzhong_classic", grab_solo=False).role_steps == ("call", "guard")
    assert get_rules("weihai", kick=False).role_steps[-1] == "rebellion"


def test_presets_follow_the_section_8_table():
    w, c, s, q, g = (get_rules(p) for p in ("weihai", "lianzhong_classic", "lianzhong_simple", "qingdao",
                                             "generic216"))
    assert (w.deck_size, c.deck_size, s.deck_size, q.deck_size, g.deck_size) == (165, 168, 168, 168, 216)
    assert w.hold_sixes and w.six_no_jokers and not (c.hold_sixes or s.hold_sixes or q.hold_sixes or g.hold_sixes)
    assert c.six_no_jokers is False and s.six_no_jokers is False  # literal (the Lianzhong page) when switched on
    assert [r.suits_matter for r in (w, c, s, q, g)] == [False, True, False, False, True]
    assert (s.tribute, g.tribute, c.tribute) == (True, True, False)
    assert (c.forced_call, g.forced_call) == ("triple_no_quad", "triple")
    assert (w.rebellion, s.rebellion, q.rebellion, c.rebellion, g.rebellion) == (
        "open_guard", "double", "declaration", "none", "none")
    assert w.kick and q.surrender and g.special_card and g.grab_moves_emperor_card and not w.grab_moves_emperor_card
    assert q.catch_wind == "apply" and q.end_rule == "four_out" and q.scoring == "qingdao"
    assert (w.scoring, c.scoring, g.scoring) == ("weihai", "jj", "jj")
    assert not any(r.roasting for r in (c, s)) and get_rules("lianzhong_simple", roasting=True).roasting
    assert [r.display_direction for r in (w, c, s, q, g)] == [  # §2: display only
        "counterclockwise", "clockwise", "clockwise", "counterclockwise", "counterclockwise"]


@pytest.mark.parametrize(
    ("preset", "overrides", "why"),
    [
        ("jj", {"emperor_selection": "call"}, "call_triple"),
        ("jj", {"tribute": True, "emperor_selection": "decline"}, "tribute"),
        ("jj", {"special_card": True}, "special_card"),
        ("jj", {"kick": True}, "kick"),
        ("jj", {"surrender": True}, "surrender"),
        ("jj", {"grab_moves_emperor_card": True}, "grab_moves_emperor_card"),
        ("jj", {"deck_size": 216}, "hold_sixes"),
        ("jj", {"scoring": "qingdao"}, "four_out"),
        ("jj", {"rebellion": "open_guard"}, "weihai"),
        ("weihai", {"rebellion": "double"}, "weihai"),
        ("lianzhong_classic", {"void_deal": False}, "void_deal"),
        ("lianzhong_classic", {"forced_call": "none"}, "forced"),
        ("generic216", {"deck_size": 168}, "special_card"),
        ("qingdao", {"grab_solo": True}, "surrender"),
        ("qingdao", {"void_deal": True}, "void_deal"),
        ("generic216", {"roasting": True}, "SP"),
    ],
)
def test_impossible_combinations_say_why(preset, overrides, why):
    with pytest.raises(ValueError, match="impossible rule combination") as err:
        get_rules(preset, **overrides)
    assert why in str(err.value)


def test_six_no_jokers_only_matters_with_hold_sixes():
    # both off is the lianzhong default; jj's hold-the-sixes may be switched off on its own
    assert get_rules("jj", hold_sixes=False, six_no_jokers=False).hold_sixes is False
    assert get_rules("jj", hold_sixes=False).six_no_jokers is True
    assert get_rules("lianzhong_simple", hold_sixes=True).six_no_jokers is False


def test_rules_written_before_the_presets_still_load():
    # a record from the first version: it had role_steps and none of the preset flags
    old = {"preset": "jj", "deck_size": 168, "role_steps": ["abdication", "declaration"], "hold_sixes": True,
           "six_no_jokers": True, "jokers_only_plays": True, "catch_wind": "auto", "scoring": "jj",
           "open_guard_multiplier": 2, "start_seat": 0}
    assert Rules.from_dict(old) == get_rules("jj")
    with pytest.raises(ValueError, match="role_steps"):
        Rules.from_dict({**old, "role_steps": ["abdication"]})


# --------------------------------------------------------------------------- serialization


VARIANTS = [
    {},
    {"hold_sixes": False},
    {"six_no_jokers": False},
    {"open_guard_multiplier": 1},
    {"start_seat": 4},
    {"hold_sixes": False, "open_guard_multiplier": 1, "start_seat": 2},
]


@pytest.mark.parametrize("overrides", VARIANTS)
def test_to_dict_from_dict_round_trip(overrides):
    r = get_rules("jj", **overrides)
    d = r.to_dict()
    assert Rules.from_dict(d) == r
    # through JSON as well (tuples become lists there)
    text = json.dumps(d)
    assert Rules.from_dict(json.loads(text)) == r
    assert d["preset"] == "jj"
    assert set(d) == {f.name for f in dataclasses.fields(Rules)}
    assert get_rules(**{k: v for k, v in d.items() if k != "preset"}) == r


def test_to_dict_is_a_copy():
    r = get_rules()
    d = r.to_dict()
    d["hold_sixes"] = False
    assert r.hold_sixes is True and r.to_dict()["hold_sixes"] is True


def test_from_dict_validates():
    d = get_rules().to_dict()
    d["start_seat"] = 9
    with pytest.raises(ValueError, match="start_seat"):
        Rules.from_dict(d)
    d = get_rules().to_dict()
    d["no_such_flag"] = 1
    with pytest.raises(ValueError, match="no_such_flag"):
        Rules.from_dict(d)


# --------------------------------------------------------------------------- fingerprint


def test_fingerprint_is_stable_for_equal_rules():
    a = get_rules("jj", hold_sixes=False, start_seat=2)
    b = get_rules("jj", start_seat=2, hold_sixes=False)
    fp = a.fingerprint(LAYOUT_VERSION)
    assert fp == b.fingerprint(LAYOUT_VERSION) == a.fingerprint(LAYOUT_VERSION)
    assert fp == Rules.from_dict(json.loads(json.dumps(a.to_dict()))).fingerprint(LAYOUT_VERSION)
    assert len(fp) == 16 and all(ch in "0123456789abcdef" for ch in fp)


def test_fingerprint_differs_when_anything_differs():
    fps = {get_rules(**o).fingerprint(LAYOUT_VERSION) for o in VARIANTS}
    assert len(fps) == len(VARIANTS)
    r = get_rules()
    assert r.fingerprint(LAYOUT_VERSION) != r.fingerprint(LAYOUT_VERSION + 1)


def test_fingerprint_is_the_same_in_another_process():
    # no dependence on hash randomization or on anything else of this process
    code = (
        "from baohuang_env import get_rules, LAYOUT_VERSION;"
        "print(get_rules('jj', hold_sixes=False, start_seat=2).fingerprint(LAYOUT_VERSION))"
    )
    root = Path(__file__).resolve().parent.parent
    outs = set()
    for hashseed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hashseed}
        res = subprocess.run([sys.executable, "-c", code], cwd=root, env=env, capture_output=True, text=True,
                             check=True)
        outs.add(res.stdout.strip())
    assert outs == {get_rules("jj", hold_sixes=False, start_seat=2).fingerprint(LAYOUT_VERSION)}


def test_to_dict_gives_a_new_dict_of_scalars_each_call():
    """`to_dict` is made once per rule set and copied shallowly: that is a deep copy only while
    every value is a scalar."""
    for preset in PRESETS:
        rules = get_rules(preset)
        d = rules.to_dict()
        assert all(isinstance(v, (bool, int, float, str, type(None))) for v in d.values()), preset
        d["preset"] = "changed"
        assert rules.to_dict()["preset"] == preset
        assert get_rules(**rules.to_dict()) == rules
