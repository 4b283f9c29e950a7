"""Every preset's scoring scheme (docs/rules.md §6) against every scoring row of the shared vectors
(tests/data/vectors.json, S01-S73), plus properties over all 120 finishing orders x roles.

Expected values come from the rows themselves (`scores_by_place`, `scores_by_role`,
`team_scores`, `multiplier`) by seating the players, never from the formula under test."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pytest

from baohuang_env import PRESETS, get_rules
from baohuang_env.scoring import (
    FACTORS,
    REBELLIONS,
    SCHEMES,
    TABLES,
    DealScore,
    score_deal,
    score_finished_deal,
    score_jj,
)

VECTORS = json.loads((Path(__file__).parent / "data" / "vectors.json").read_text(encoding="utf-8"))
ROWS = {row["id"]: row for row in VECTORS["scoring"]}

#: Preset -> scoring scheme (docs/rules.md §8 "scoring"; §6.3, §6.5).
SCHEME_OF = {"jj": "jj", "lianzhong_classic": "jj", "lianzhong_simple": "jj", "generic216": "jj",
             "weihai": "weihai", "qingdao": "qingdao"}
#: The open-guard factor of each jj-scheme preset (§8 "open guard effect": x 2).
OPEN_GUARD_X = {"jj": 2, "lianzhong_classic": 2, "lianzhong_simple": 2, "generic216": 2}

JJ_TABLE = [f"S{i:02d}" for i in range(1, 21)]  # §6.1 non-solo
JJ_SOLO = [f"S{i:02d}" for i in range(21, 31)]  # §6.1 solo table
WEIHAI_SPLIT = [f"S{i:02d}" for i in range(31, 51)]  # §6.2 item 2
LIANZHONG_SOLO = [f"S{i:02d}" for i in range(51, 59)]  # §6.3
REBELLION_DOUBLED = ["S59", "S60", "S61"]  # §6.3, lianzhong_simple hidden solo after rebellion
WORKED_EXAMPLE = ["S62"]  # §6.1 base 100, fee 20
QINGDAO_POINTS = ["S63"]  # §6.4 place points
QINGDAO_DEALS = [f"S{i}" for i in range(64, 73)]  # §6.4 deals, team scores, x 2 rules
QINGDAO_SURRENDER = ["S73"]  # §6.4 surrender
GROUPS = (JJ_TABLE + JJ_SOLO + WEIHAI_SPLIT + LIANZHONG_SOLO + REBELLION_DOUBLED + WORKED_EXAMPLE
          + QINGDAO_POINTS + QINGDAO_DEALS + QINGDAO_SURRENDER)

CASES = [(row["id"], preset) for row in VECTORS["scoring"] for preset in row["applies_to"]]

#: Seatings used for every row: (emperor seat, guard seat, rebel seats in place order). The
#: second rotates the table and reverses the rebels, so "by seat" vs "by place" mix-ups show.
SEATINGS = [(0, 1, (2, 3, 4)), (3, 0, (4, 2, 1))]


def test_every_scoring_row_is_classified_and_covered():
    assert GROUPS == [f"S{i:02d}" for i in range(1, 74)] == list(ROWS)
    presets = {p for _, p in CASES}
    assert presets == set(SCHEME_OF)
    # every row is tested for every preset in its applies_to (plus the jj/weihai rows ...)
    assert len(CASES) == sum(len(r["applies_to"]) for r in VECTORS["scoring"]) == 201


def seat(row_places: dict, seating: tuple) -> tuple[list[int], int, int]:
    """places per seat, emperor seat and guard seat for a row's {"emperor": p, "guard": p}."""
    e_seat, g_seat, rebel_seats = seating
    pe = row_places["emperor"]
    pg = row_places.get("guard")
    places = [0] * 5
    places[e_seat] = pe
    others = [g_seat, *rebel_seats] if pg is None else list(rebel_seats)
    if pg is not None:
        places[g_seat] = pg
    free = [p for p in range(1, 6) if p not in (pe, pg)]
    for s, p in zip(others, free, strict=True):
        places[s] = p
    return places, e_seat, (e_seat if pg is None else g_seat)


def by_place(values: list[int], places: list[int]) -> list[int]:
    return [values[places[s] - 1] for s in range(5)]


def check_roles(row: dict, expected: list[int], places: list[int], e: int, g: int) -> None:
    """The row's `scores_by_role` agrees with the seat-by-seat values built from places."""
    if "scores_by_role" not in row:
        assert row["id"] in WORKED_EXAMPLE  # the only row given by place alone
        return
    role = row["scores_by_role"]
    assert expected[e] == role["emperor"]
    others = sorted((s for s in range(5) if s != e and s != g), key=lambda s: places[s])
    if e != g:
        assert expected[g] == role["guard"]
        rebel = role["each_rebel"]
        want = rebel if isinstance(rebel, list) else [rebel] * 3
    else:
        others = sorted((s for s in range(5) if s != e), key=lambda s: places[s])
        want = role["others"] if "others" in role else [role["each_other"]] * 4
    assert [expected[s] for s in others] == want


def call(preset: str, places, e: int, g: int, solo: str, **kw) -> DealScore:
    scheme = SCHEME_OF[preset]
    if scheme == "jj":
        kw.setdefault("open_guard_multiplier", OPEN_GUARD_X[preset])
    return score_deal(scheme, places, e, g, solo, **kw)


def assert_score(result: DealScore, scores: list[int], multiplier: int, points: list[int] | None = None):
    assert isinstance(result, DealScore)
    assert result.scores == scores
    assert result.points == (scores if points is None else points)
    assert result.multiplier == multiplier


def jj_row_with_places(pe: int, pg: int) -> dict:
    (row,) = [ROWS[i] for i in JJ_TABLE if ROWS[i]["places"] == {"emperor": pe, "guard": pg}]
    return row


@pytest.mark.parametrize("seating", SEATINGS, ids=["E0G1", "E3G0"])
@pytest.mark.parametrize(("row_id", "preset"), CASES, ids=[f"{r}-{p}" for r, p in CASES])
def test_scoring_row(row_id, preset, seating):
    row = ROWS[row_id]
    scheme = SCHEME_OF[preset]

    if row_id in QINGDAO_POINTS:  # place points: every finishing order with no doubling
        pts = row["points_by_place"]
        e, g = seating[0], seating[1]
        for perm in itertools.permutations(range(1, 6)):
            places = list(perm)
            if {places[e], places[g]} in ({1, 2}, {4, 5}):
                continue
            for solo, gg in (("none", g), ("hidden", e)):
                assert score_deal(scheme, places, e, gg, solo).points == by_place(pts, places)
        return

    if row_id in QINGDAO_SURRENDER:
        e = seating[0]
        role = row["scores_by_role"]
        want = [role["emperor"] if s == e else role["each_other"] for s in range(5)]
        for solo in ("hidden", "open"):
            # places are ignored: none yet (all 0), or any order, even "E first in an open solo"
            for places in ([0] * 5, [1, 2, 3, 4, 5], [2, 3, 4, 5, 1]):
                assert_score(score_deal(scheme, places, e, e, solo, surrendered=True), want, 1)
        return

    places, e, g = seat(row["places"], seating)
    solo = row["solo"]
    expected = by_place(row["scores_by_place"], places)
    check_roles(row, expected, places, e, g)

    if row_id in QINGDAO_DEALS:
        teams = row["team_scores"]
        royal = {e, g}
        scores = [teams["emperor_team"] if s in royal else teams["rebel_team"] for s in range(5)]
        assert sum(expected[s] for s in royal) == teams["emperor_team"]  # the row is self-consistent
        assert sum(expected) - teams["emperor_team"] == teams["rebel_team"]
        result = score_deal(scheme, places, e, g, solo)
        assert_score(result, scores, row["multiplier"], expected)
        # open guard and rebellion have no score effect in qingdao (§6.4, §9 #25-26)
        if solo == "none":
            assert score_deal(scheme, places, e, g, solo, open_guard=True) == result
        for rebellion in REBELLIONS:
            assert score_deal(scheme, places, e, g, solo, rebellion=rebellion) == result
        return

    if row_id in WEIHAI_SPLIT:  # only after open guard or a successful rebellion (§6.2 item 2)
        assert_score(score_deal(scheme, places, e, g, "none", open_guard=True), expected, 1)
        rebel = dict(rebellion="succeeded", rebellion_effect="open_guard")
        assert_score(score_deal(scheme, places, e, g, "none", **rebel), expected, 1)
        doubled = [2 * x for x in expected]  # kick: x 2 on top (§6.2 item 4)
        assert_score(score_deal(scheme, places, e, g, "none", open_guard=True, kicked=True), doubled, 2)
        assert_score(score_deal(scheme, places, e, g, "none", kicked=True, **rebel), doubled, 2)
        # without either, weihai scores the JJ table (§6.2 item 1), the same places' S01-S20 row
        jj = by_place(jj_row_with_places(row["places"]["emperor"], row["places"]["guard"])["scores_by_place"], places)
        assert_score(score_deal(scheme, places, e, g, "none"), jj, 1)
        assert_score(score_deal(scheme, places, e, g, "none", rebellion="failed"), jj, 1)
        assert sum(expected) == 0
        return

    if row_id in REBELLION_DOUBLED:  # lianzhong_simple: hidden solo x 2 after a rebellion (§6.3)
        assert preset == "lianzhong_simple" and solo == "hidden"
        result = call(preset, places, e, g, solo, rebellion="succeeded", rebellion_effect="double")
        assert_score(result, expected, 2)
        base = ROWS[f"S{int(row_id[1:]) - 3}"]  # S56-S58: the same places, not doubled
        assert base["places"] == row["places"] and base["solo"] == "hidden"
        assert [2 * x for x in base["scores_by_place"]] == row["scores_by_place"]
        assert sum(expected) == 0
        return

    # S01-S30, S51-S58, S62: the base table, for every preset in applies_to
    assert_score(call(preset, places, e, g, solo), expected, 1)
    for rebellion in ("failed", "declared"):  # change nothing (§6.2 item 5)
        assert_score(call(preset, places, e, g, solo, rebellion=rebellion), expected, 1)
    assert sum(expected) == 0
    doubled = [2 * x for x in expected]
    if solo == "none":
        if scheme == "jj":  # open guard x 2 (§6.1, §6.3, §6.5)
            assert_score(call(preset, places, e, g, solo, open_guard=True), doubled, 2)
            if preset == "lianzhong_simple":  # a successful rebellion x 2 (§6.3)
                r = call(preset, places, e, g, solo, rebellion="succeeded", rebellion_effect="double")
                assert_score(r, doubled, 2)
    else:
        # the solo values are fixed: open guard cannot apply to them (§6.1)
        assert_score(call(preset, places, e, g, solo, open_guard=True), expected, 1)
        if preset == "weihai":
            if solo == "open":  # kick after an open solo (§9 #19): x 2
                assert_score(call(preset, places, e, g, solo, kicked=True), doubled, 2)
            else:  # hidden solo: x 2 after a successful rebellion (§6.2 item 3), x 2 more with a kick
                rebel = dict(rebellion="succeeded", rebellion_effect="open_guard")
                assert_score(call(preset, places, e, g, solo, **rebel), doubled, 2)
                assert_score(call(preset, places, e, g, solo, kicked=True, **rebel), [4 * x for x in expected], 4)
        if preset == "lianzhong_simple" and solo == "hidden":
            r = call(preset, places, e, g, solo, rebellion="succeeded", rebellion_effect="double")
            assert_score(r, doubled, 2)
    if row_id in WORKED_EXAMPLE:  # points = base x score - fee
        r = call(preset, places, e, g, solo)
        final = by_place(row["final_points_by_place"], places)
        assert [row["base"] * x - row["fee"] for x in r.scores] == final


# --------------------------------------------------------------------------- properties

PERMS = [list(p) for p in itertools.permutations(range(1, 6))]
ROLES = [(e, g) for e in range(5) for g in range(5)]  # g == e: a solo


def flag_sets(scheme: str, solo: str):
    """Every flag combination some preset of `scheme` can produce for this kind of deal."""
    rebellions = [("none", "none"), ("failed", "none"), ("declared", "none")]
    if scheme == "jj":
        out = [dict(open_guard=og, rebellion=r, rebellion_effect=fx)
               for og in (False, True) for r, fx in rebellions]
        if solo != "open":
            out.append(dict(rebellion="succeeded", rebellion_effect="double"))
        out.append(dict(rebellion="succeeded"))  # a rebellion with no effect changes nothing
        return out
    if scheme == "weihai":
        out = []
        for r, fx in [*rebellions, ("succeeded", "open_guard")]:
            for og in (False, True):
                if r == "succeeded" and ((og and solo == "none") or solo == "open"):
                    continue
                out.append(dict(open_guard=og, rebellion=r, rebellion_effect=fx))
                if og or r == "succeeded" or solo == "open":
                    out.append(dict(open_guard=og, rebellion=r, rebellion_effect=fx, kicked=True))
        return out
    return [dict(open_guard=og, rebellion=r) for og in (False, True) for r in REBELLIONS]


def test_zero_sum_for_jj_and_weihai_schemes():
    n = 0
    for scheme in ("jj", "weihai"):
        for places in PERMS:
            for e, g in ROLES:
                for solo in (("none",) if e != g else ("hidden", "open")):
                    for flags in flag_sets(scheme, solo):
                        r = score_deal(scheme, places, e, g, solo, **flags)
                        assert sum(r.scores) == 0, (scheme, places, e, g, solo, flags)
                        assert r.points == r.scores
                        n += 1
    assert n > 20_000


def test_qingdao_team_scores_are_opposite():
    pts_table = ROWS["S63"]["points_by_place"]
    for places in PERMS:
        for e, g in ROLES:
            for solo in (("none",) if e != g else ("hidden", "open")):
                royal = {e, g}
                rebels = [s for s in range(5) if s not in royal]
                base = score_deal("qingdao", places, e, g, solo)
                for flags in flag_sets("qingdao", solo):
                    r = score_deal("qingdao", places, e, g, solo, **flags)
                    assert r == base  # open guard and rebellion never change qingdao scores
                royal_score = base.scores[e]
                assert all(base.scores[s] == royal_score for s in royal)
                assert all(base.scores[s] == -royal_score for s in rebels)
                assert royal_score == sum(base.points[s] for s in royal)
                assert sum(base.points) == 0
                assert base.multiplier in (1, 2)
                assert base.points == [base.multiplier * x for x in by_place(pts_table, places)]
                # x 2 exactly for an open solo or E, G in the first two / last two (§6.4, §9 #27)
                top_or_bottom = solo == "none" and sorted((places[e], places[g])) in ([1, 2], [4, 5])
                assert (base.multiplier == 2) == (solo == "open" or top_or_bottom)


def test_multipliers_compose():
    for places in PERMS:
        for e, g in ROLES:
            if e != g:
                jj = score_deal("jj", places, e, g, "none")
                for m in (1, 2, 3):
                    r = score_deal("jj", places, e, g, "none", open_guard=True, open_guard_multiplier=m)
                    assert r.scores == [m * x for x in jj.scores] and r.multiplier == m
                r = score_deal("jj", places, e, g, "none", rebellion="succeeded", rebellion_effect="double")
                assert r.scores == [2 * x for x in jj.scores] and r.multiplier == 2
                # weihai: without open guard, the JJ table; the split table is JJ x 2 with the
                # emperor's side total shared equally (§6.2 item 2); kick x 2 on top
                assert score_deal("weihai", places, e, g, "none") == jj
                split = score_deal("weihai", places, e, g, "none", open_guard=True)
                assert split.scores[e] == split.scores[g] == jj.scores[e] + jj.scores[g]
                assert all(split.scores[s] == 2 * jj.scores[s] for s in range(5) if s not in (e, g))
                kick = score_deal("weihai", places, e, g, "none", open_guard=True, kicked=True)
                assert kick.scores == [2 * x for x in split.scores] and kick.multiplier == 2
            else:
                for solo in ("hidden", "open"):
                    base = score_deal("jj", places, e, e, solo)
                    assert score_deal("weihai", places, e, e, solo) == base
                    assert score_deal("jj", places, e, e, solo, open_guard=True) == base
                hidden = score_deal("weihai", places, e, e, "hidden")
                rebel = dict(rebellion="succeeded", rebellion_effect="open_guard")
                r = score_deal("weihai", places, e, e, "hidden", **rebel)
                assert r.scores == [2 * x for x in hidden.scores] and r.multiplier == 2
                r = score_deal("weihai", places, e, e, "hidden", kicked=True, **rebel)
                assert r.scores == [4 * x for x in hidden.scores] and r.multiplier == 4
                opened = score_deal("weihai", places, e, e, "open")
                r = score_deal("weihai", places, e, e, "open", kicked=True)
                assert r.scores == [2 * x for x in opened.scores] and r.multiplier == 2


def test_scores_follow_the_seats():
    """Renaming the seats renames the scores: only places and roles matter."""
    shift = [2, 3, 4, 0, 1]  # seat s -> seat shift[s]
    for scheme in SCHEMES:
        for places in PERMS[::7]:
            for e, g in ROLES:
                solo = "none" if e != g else "hidden"
                moved = [0] * 5
                for s in range(5):
                    moved[shift[s]] = places[s]
                a = score_deal(scheme, places, e, g, solo)
                b = score_deal(scheme, moved, shift[e], shift[g], solo)
                assert [b.scores[shift[s]] for s in range(5)] == a.scores
                assert [b.points[shift[s]] for s in range(5)] == a.points


def test_score_jj_is_unchanged_and_agrees_with_score_deal():
    for places in PERMS:
        for e, g in ROLES:
            for solo in (("none",) if e != g else ("hidden", "open")):
                for og in (False, True):
                    for m in (1, 2):
                        r = score_deal("jj", places, e, g, solo, open_guard=og, open_guard_multiplier=m)
                        assert score_jj(places, e, g, solo, og, m) == r.scores


def test_deal_score_is_frozen():
    r = score_deal("jj", [1, 2, 3, 4, 5], 0, 1, "none")
    with pytest.raises(AttributeError):
        r.multiplier = 3  # type: ignore[misc]


# --------------------------------------------------------------------------- validation

OK = ([1, 2, 3, 4, 5], 0, 1, "none")


def test_unknown_scheme_lists_the_allowed_ones():
    with pytest.raises(ValueError, match=r"jj.*weihai.*qingdao"):
        score_deal("lianzhong_simple", *OK)


@pytest.mark.parametrize("places", [[1, 2, 3, 4], [1, 2, 3, 4, 5, 6], [1, 1, 3, 4, 5], [0, 1, 2, 3, 4],
                                    [0, 0, 0, 0, 0], [1, 2, 3, 4, 6], [True, 2, 3, 4, 5]])
def test_bad_places_are_rejected(places):
    for scheme in SCHEMES:
        with pytest.raises(ValueError, match="places"):
            score_deal(scheme, places, 0, 1, "none")


@pytest.mark.parametrize(("emperor", "guard"), [(-1, 1), (5, 1), (0, 5), (True, 1), (0, 1.0)])
def test_bad_seats_are_rejected(emperor, guard):
    with pytest.raises(ValueError, match=r"emperor|guard"):
        score_deal("jj", [1, 2, 3, 4, 5], emperor, guard, "none")


@pytest.mark.parametrize(("kwargs", "match"), [
    (dict(solo="closed"), "solo"),
    (dict(rebellion="won"), "rebellion"),
    (dict(rebellion_effect="triple"), "rebellion_effect"),
    (dict(scheme="jj", rebellion_effect="open_guard"), "rebellion_effect"),
    (dict(scheme="weihai", rebellion_effect="double"), "rebellion_effect"),
    (dict(scheme="qingdao", rebellion_effect="double"), "rebellion_effect"),
    (dict(scheme="jj", kicked=True, open_guard=True), "kick"),
    (dict(scheme="qingdao", kicked=True), "kick"),
    (dict(scheme="weihai", kicked=True), "kick"),  # hidden guard, no rebellion: nothing to kick after
    (dict(scheme="jj", surrendered=True), "surrender"),
    (dict(scheme="qingdao", surrendered=True), "solo emperor"),  # guard != emperor
    (dict(guard=0), "solo"),  # guard == emperor but solo "none"
    (dict(solo="hidden"), "solo"),  # solo but guard != emperor
    (dict(open_guard_multiplier=0), "open_guard_multiplier"),
    (dict(scheme="weihai", open_guard=True, rebellion="succeeded", rebellion_effect="open_guard"), "rebellion"),
    (dict(scheme="jj", open_guard=True, rebellion="succeeded", rebellion_effect="double"), "rebellion"),
    (dict(scheme="jj", guard=0, solo="open", rebellion="succeeded", rebellion_effect="double"), "rebellion"),
])
def test_impossible_inputs_are_rejected(kwargs, match):
    args = dict(scheme="jj", places=[1, 2, 3, 4, 5], emperor=0, guard=1, solo="none") | kwargs
    pos = [args.pop(k) for k in ("scheme", "places", "emperor", "guard", "solo")]
    with pytest.raises(ValueError, match=match):
        score_deal(*pos, **args)


@pytest.mark.parametrize("preset", list(PRESETS))
def test_the_breakdown_of_every_score_is_the_score(preset):
    """`DealScore`'s table, base values and factors (what the web page's "how the scores come
    about" words) multiply out to the points, over every finish and role outcome."""
    rules = get_rules(preset)
    factor_of = {"open_guard": rules.open_guard_multiplier}
    seen = set()
    for places, (guard, solo), open_guard, rebellion, kicked in itertools.product(
            itertools.permutations(range(1, 6)), ((1, "none"), (0, "hidden"), (0, "open")), (False, True),
            ("none", "succeeded"), (False, True)):
        try:
            d = score_finished_deal(rules, places, 0, guard, solo, open_guard=open_guard, rebellion=rebellion,
                                    kicked=kicked)
        except ValueError:
            continue
        assert d.table in TABLES and set(d.factors) <= set(FACTORS)
        assert d.points == [d.multiplier * b for b in d.base]
        assert d.multiplier == np.prod([factor_of.get(f, 2) for f in d.factors])
        assert (d.g is not None) == (d.table in ("jj", "weihai_split"))
        seen.add(d.table)
    assert {"jj", "open_solo", "hidden_solo"} <= seen or seen == {"qingdao"}
