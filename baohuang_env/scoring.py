"""Scoring schemes (docs/rules.md §6) as small pure functions of places, roles and multipliers.

Places are 1..5 in the order the players went out. `score_deal` scores every preset's scheme
("jj", "weihai", "qingdao"); `score_jj` is the jj-only form the engine has used so far. Every
scheme is zero-sum per player except qingdao, whose reward is the team score (§6.4).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from itertools import permutations, product
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .rules import Rules

#: Solo tables (docs/rules.md §6.1): (emperor, each other player).
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


# --------------------------------------------------------------------------- every preset

#: The scoring schemes `score_deal` knows (docs/rules.md §6; `Rules.scoring`). lianzhong_* and
#: generic216 are scored by "jj" (§6.3, §6.5).
SCHEMES = ("jj", "weihai", "qingdao")
SOLO_KINDS = ("none", "hidden", "open")
REBELLIONS = ("none", "failed", "succeeded", "declared")
REBELLION_EFFECTS = ("none", "open_guard", "double")
#: Which successful-rebellion effect each scheme can score (§8 "rebellion effect"): weihai's
#: "counts as open guard" (§6.2), lianzhong_simple's "x 2" (§6.3, scheme jj), none in qingdao
#: (§6.4, §9 #25).
_EFFECTS_OF_SCHEME = {"jj": ("none", "double"), "weihai": ("none", "open_guard"), "qingdao": ("none",)}

#: The tables of `DealScore.table`, and the reasons of `DealScore.factors` for a multiplier:
#: open guard (jj), a successful rebellion (lianzhong_simple; a hidden solo in weihai), a kick
#: (weihai), and qingdao's two doublings (an open solo; the royal pair in places 1-2 or 4-5).
TABLES = ("jj", "weihai_split", "open_solo", "hidden_solo", "qingdao", "surrender")
FACTORS = ("open_guard", "rebellion", "kick", "qingdao_open_solo", "qingdao_pair")

#: Qingdao place points, 1st..5th (docs/rules.md §6.4, the Qingdao page).
QINGDAO_PLACE_POINTS = (4, 2, 0, -2, -4)
#: Qingdao surrender (§6.4, the Qingdao page): (emperor, each other player), never doubled.
QINGDAO_SURRENDER = (-4, 1)


@dataclass(frozen=True)
class DealScore:
    """The outcome of one deal under a scoring scheme (docs/rules.md §6).

    scores:     per seat, the reward. For "jj" and "weihai" each player's deal score
                (zero-sum). For "qingdao" each seat's TEAM score (§6.4: the sum of its team's
                points, {E, G} or the rebels; in a solo E alone against the four others), so
                that a rebel is not rewarded for beating his own teammates; not zero-sum.
    points:     per seat, the individual points before team summing (qingdao place points x
                the multiplier); equal to `scores` in the other schemes.
    multiplier: the total multiplier applied on top of the base table (1 if none): open guard
                (jj), successful rebellion (lianzhong_simple; hidden solo in weihai), kick
                (weihai), the qingdao doubling rules. The weihai split table is a table of its
                own, not a multiplier.
    table:      the table the deal was scored by (`TABLES`): "jj" (the JJ formula), "weihai_split",
                "open_solo", "hidden_solo", "qingdao" (place points) or "surrender".
    base:       per seat, the table's value before the multiplier (qingdao: the place points).
    g:          the JJ formula's g = 6 - (p_E + p_G) where the table uses it ("jj", "weihai_split").
    factors:    why `multiplier` is what it is, one name per factor (`FACTORS`), in the order
                applied: what a reader is told ("x 2: open guard"), from the rule that applied it.
    """

    scores: list[int]
    points: list[int]
    multiplier: int
    table: str = "jj"
    base: list[int] | None = None
    g: int | None = None
    factors: tuple[str, ...] = ()


def _check_choice(name: str, value: object, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise ValueError(f"{name} must be one of {list(allowed)}, got {value!r}")


def _check_places(places: Sequence[int]) -> list[int]:
    p = list(places)
    if len(p) != 5 or sorted(p) != [1, 2, 3, 4, 5] or any(type(x) is bool for x in p):
        raise ValueError(f"places must give each of the 5 seats a distinct place 1..5, got {list(places)!r}")
    return [int(x) for x in p]


def score_deal(
    scheme: str,
    places: Sequence[int],
    emperor: int,
    guard: int,
    solo: str,
    *,
    open_guard: bool = False,
    rebellion: str = "none",
    rebellion_effect: str = "none",
    kicked: bool = False,
    surrendered: bool = False,
    open_guard_multiplier: int = 2,
) -> DealScore:
    """Score one finished deal under any preset's scheme (docs/rules.md §6).

    Arguments:
      scheme:      "jj" (jj, lianzhong_classic, lianzhong_simple, generic216: §6.1, §6.3, §6.5),
                   "weihai" (§6.2) or "qingdao" (§6.4).
      places:      places[s] = finishing place 1..5 of seat s (a permutation of 1..5; ignored
                   when `surrendered`).
      emperor, guard: seats 0..4; `guard == emperor` exactly when `solo != "none"` (a grab-solo
                   is an open solo of the grabber: pass him as both).
      solo:        "none", "hidden" or "open".
      open_guard:  the guard declared himself (明保). jj: every score x open_guard_multiplier
                   (§6.1); weihai: the split table E = G = 3g, rebel -2g (§6.2 item 2); qingdao:
                   no effect (§9 #26). Never applies to a solo (the solo values are fixed, §6.1),
                   so it is ignored there (a weihai open solo "counts as open guard" only for
                   the kick, §9 #19).
      rebellion:   "none", "failed", "succeeded" or "declared" (qingdao's identity declaration).
                   Only "succeeded" can change a score, and only through `rebellion_effect`.
      rebellion_effect: what a successful rebellion does in this preset (§8): "open_guard"
                   (weihai: counts as open guard -> split table; a hidden solo x 2, §6.2
                   items 2-3), "double" (lianzhong_simple: x 2, hidden solo included, §6.3) or
                   "none". A rebellion is asked only when the guard is hidden or E is a hidden
                   solo (§3.1 R5), so an effective one never meets open guard or an open solo.
      kicked:      weihai only: a successful kick (踢), x 2 on top of everything, solo included
                   (§6.2 item 4). Possible only after open guard, a successful rebellion or an
                   open solo (§3.1 R6).
      surrendered: qingdao only: the solo emperor surrendered before play (投降): E -4, every
                   other seat +1, never doubled (§6.4, §9 #29). These are the seed's per-player
                   results (the Qingdao page), so they are the reward as they stand (no team summing).
      open_guard_multiplier: the jj-scheme open-guard factor (`Rules.open_guard_multiplier`).

    Returns a `DealScore`. Raises ValueError for an unknown scheme or flag value, bad places or
    seats, or a combination no preset can produce.
    """
    _check_choice("scheme", scheme, SCHEMES)
    _check_choice("solo", solo, SOLO_KINDS)
    _check_choice("rebellion", rebellion, REBELLIONS)
    _check_choice("rebellion_effect", rebellion_effect, REBELLION_EFFECTS)
    for name, seat in (("emperor", emperor), ("guard", guard)):
        if type(seat) is bool or not isinstance(seat, int) or not 0 <= seat < 5:
            raise ValueError(f"{name} must be a seat 0..4, got {seat!r}")
    if type(open_guard_multiplier) is bool or not isinstance(open_guard_multiplier, int) or open_guard_multiplier < 1:
        raise ValueError(f"open_guard_multiplier must be an int >= 1, got {open_guard_multiplier!r}")
    if rebellion_effect not in _EFFECTS_OF_SCHEME[scheme]:
        raise ValueError(f"scheme {scheme!r} scores a successful rebellion only as "
                         f"{list(_EFFECTS_OF_SCHEME[scheme])}, got rebellion_effect={rebellion_effect!r} (rules.md §8)")
    if kicked and scheme != "weihai":
        raise ValueError(f"kick is weihai's (docs/rules.md §6.2 item 4); scheme {scheme!r} has none")
    if surrendered:
        if scheme != "qingdao":
            raise ValueError(f"surrender is qingdao's (docs/rules.md §6.4); scheme {scheme!r} has none")
        if guard != emperor:
            raise ValueError("only a solo emperor (guard == emperor) can surrender (docs/rules.md §3.6 R2)")
        if len(places) != 5:
            raise ValueError(f"places must have 5 entries, got {len(places)}")
        e, other = QINGDAO_SURRENDER
        pts = [e if s == emperor else other for s in range(5)]
        return DealScore(list(pts), pts, 1, "surrender", list(pts))

    p = _check_places(places)
    if (solo != "none") != (guard == emperor):
        raise ValueError(f"guard == emperor exactly in a solo; got solo={solo!r}, emperor={emperor}, guard={guard}")
    rebels_won = rebellion == "succeeded" and rebellion_effect != "none"
    if rebels_won and ((open_guard and solo == "none") or solo == "open"):
        raise ValueError("a rebellion is asked only when the guard is hidden or E is a hidden solo (rules.md §3.1 R5): "
                         "an effective successful rebellion cannot meet open guard or an open solo")
    if kicked and not (open_guard or rebellion == "succeeded" or solo == "open"):
        raise ValueError("a kick needs open guard, a successful rebellion or an open solo first (rules.md §3.1 R6)")

    if scheme == "qingdao":
        return _score_qingdao(p, emperor, guard, solo)

    mult, factors, g = 1, [], None
    if solo != "none":  # the fixed solo table (§6.1), the same for every non-qingdao preset
        table = f"{solo}_solo"
        e, other = solo_scores(solo, p[emperor])
        base = [e if s == emperor else other for s in range(5)]
        if rebels_won:  # hidden solo revealed by rebellion: x 2 (§6.2 item 3, §6.3, §9 #23)
            mult, factors = mult * 2, [*factors, "rebellion"]
    elif scheme == "weihai" and (open_guard or rebels_won):  # split table (§6.2 item 2)
        table, g = "weihai_split", 6 - (p[emperor] + p[guard])
        base = [3 * g if s in (emperor, guard) else -2 * g for s in range(5)]
    else:  # JJ formula (§6.1, §6.3)
        table = "jj"
        e, g, rebel = jj_team_scores(p[emperor], p[guard])
        base = [e if s == emperor else g if s == guard else rebel for s in range(5)]
        if open_guard and scheme == "jj":
            mult, factors = mult * open_guard_multiplier, [*factors, "open_guard"]
        if rebels_won:  # lianzhong_simple (§6.3)
            mult, factors = mult * 2, [*factors, "rebellion"]
    if kicked:  # weihai (§6.2 item 4)
        mult, factors = mult * 2, [*factors, "kick"]
    pts = [mult * x for x in base]
    return DealScore(list(pts), pts, mult, table, base, g, tuple(factors))


def _score_qingdao(places: list[int], emperor: int, guard: int, solo: str) -> DealScore:
    """Qingdao (docs/rules.md §6.4): place points, x 2 for {p_E, p_G} = {1, 2} or {4, 5} (unordered,
    §9 #27) or an open solo (all players doubled, §9 #28); reward = the team's summed points."""
    side = {places[emperor], places[guard]}
    factors = ("qingdao_open_solo",) if solo == "open" else \
        ("qingdao_pair",) if solo == "none" and side in ({1, 2}, {4, 5}) else ()
    mult = 2 if factors else 1
    base = [QINGDAO_PLACE_POINTS[places[s] - 1] for s in range(5)]
    pts = [mult * x for x in base]
    royal = {emperor, guard}
    royal_total = sum(pts[s] for s in royal)
    rebel_total = sum(pts) - royal_total
    scores = [royal_total if s in royal else rebel_total for s in range(5)]
    return DealScore(scores, pts, mult, "qingdao", base, None, factors)


def rebellion_effect(rules: Rules) -> str:
    """What a successful rebellion does to the score under `rules` (`score_deal`'s
    rebellion_effect): "open_guard" (weihai), "double" (lianzhong_simple) or "none"."""
    return rules.rebellion if rules.rebellion in _EFFECTS_OF_SCHEME[rules.scoring] else "none"


def score_finished_deal(rules: Rules, places: Sequence[int], emperor: int, guard: int, solo: str, *,
                        open_guard: bool = False, rebellion: str = "none", kicked: bool = False,
                        surrendered: bool = False) -> DealScore:
    """`score_deal` under `rules` (its scheme, rebellion effect and open-guard factor): what the
    engine scores a finished deal with, and what explains a result's scores afterwards (the web
    page's "how the scores come about") from the same facts."""
    return score_deal(rules.scoring, places, emperor, guard, solo, open_guard=open_guard, rebellion=rebellion,
                      rebellion_effect=rebellion_effect(rules), kicked=kicked, surrendered=surrendered,
                      open_guard_multiplier=rules.open_guard_multiplier)


@cache
@cache
def worst_score(rules: Rules) -> int:
    """The lowest deal score (the reward of `reward_mode="score"`) any seat can get under
    `rules`: the minimum of `score_deal` over every finishing order, solo kind, open guard,
    successful rebellion, kick and surrender that the preset's scheme and flags can score, and
    0 (a void deal). Combinations `score_deal` refuses are skipped; one the role phase never
    reaches only lowers the bound, so no legal deal scores below it. The envs use it so that
    an illegal move never pays better than the worst legal outcome (jj: -24, a lost open solo).
    Cached per rule set: every env built on the rules asks for it."""
    effect = rebellion_effect(rules)
    worst = 0  # a void deal (流局) scores nothing
    if rules.surrender:
        worst = min(worst, *score_deal(rules.scoring, [0] * 5, 0, 0, "hidden", surrendered=True).scores)
    for places, (guard, solo), open_guard, rebellion, kicked in product(
            permutations(range(1, 6)), ((1, "none"), (0, "hidden"), (0, "open")), (False, True),
            ("none", "succeeded") if effect != "none" else ("none",), (False, True) if rules.kick else (False,)):
        try:
            deal = score_deal(rules.scoring, places, 0, guard, solo, open_guard=open_guard, rebellion=rebellion,
                              rebellion_effect=effect, kicked=kicked,
                              open_guard_multiplier=rules.open_guard_multiplier)
        except ValueError:
            continue  # a combination no deal of these rules can produce
        worst = min(worst, *deal.scores)
    return worst
