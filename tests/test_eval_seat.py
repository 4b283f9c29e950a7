"""The seat protocol (baohuang_eval.seat, duplicate rotation): focal tables and the paired
difference against hand-computed values, ratings on a constructed dominance, the rotation
schedule, who sits where, determinism over worker counts, the in-process evaluation and the
mask-only shortcut."""

from __future__ import annotations

import math

import pytest

from agents import RandomAgent
from baohuang_env.encoding import Encoder
from baohuang_env.roles import side_of
from baohuang_env.rules import get_rules
from baohuang_env.seeds import TRAIN_SEED_START
from baohuang_eval import (
    SEAT,
    GameRecord,
    PairResult,
    Report,
    agent_seed,
    deal_range,
    evaluate_against,
    evaluate_pair,
    make_pairs,
    rate_league,
    to_markdown,
)
from baohuang_eval.seat import agent_table, pair_schedule, paired_difference

RULES = get_rules("jj")


def rec(agent: str, deal: int, seat: int, score: int, role: str = "rebel", comp: str = "A",
        opp: str = "x") -> GameRecord:
    return GameRecord(agent, opp, deal, seat, comp, role, side_of(role), 1, score)



def test_paired_difference_matches_by_deal_and_seat():
    a = [rec("A", 1, 0, 3), rec("A", 1, 1, -1), rec("A", 2, 0, 2), rec("A", 2, 1, 0)]
    # B's records in another order: pairing is by (deal, seat), not by position
    b = [rec("B", 2, 1, 2, comp="B"), rec("B", 1, 0, 1, comp="B"), rec("B", 2, 0, -2, comp="B"),
         rec("B", 1, 1, -1, comp="B")]
    ps = paired_difference(a, b)  # d = 2, 0, 4, -2
    assert ps.n == 4 and ps.mean == 1
    assert ps.sd == pytest.approx(math.sqrt(20 / 3))
    half = 3.182446 * math.sqrt(20 / 3) / 2
    assert (ps.low, ps.high) == (pytest.approx(1 - half, abs=1e-5), pytest.approx(1 + half, abs=1e-5))
    assert (ps.a_better, ps.ties, ps.b_better) == (2, 1, 1)
    assert ps.verdict == "="
    r = ps.reversed()
    assert (r.mean, r.low, r.high, r.a_better, r.b_better) == (-1, -ps.high, -ps.low, 1, 2)
    with pytest.raises(ValueError, match="same"):
        paired_difference(a, b[:3])


def test_agent_table_rows_by_side_and_role():
    records = [rec("A", 1, 0, 4, "emperor"), rec("A", 1, 1, -2, "guard"), rec("A", 1, 2, 0, "rebel"),
               rec("A", 1, 3, 1, "rebel"), rec("A", 1, 4, -8, "solo")]
    t = agent_table(records)
    assert (t["overall"].games, t["overall"].wins, t["overall"].draws) == (5, 2, 1)
    assert t["emperor_side"].games == 3 and t["emperor_side"].wins == 1
    assert t["rebel_side"].games == 2 and t["rebel_side"].win_rate == 0.5
    assert t["solo"].mean_score == -8 and t["guard"].games == 1
    assert t["overall"].mean_score == pytest.approx(-1)


def _pair(a: str, b: str, a_minus_b: list[int]) -> PairResult:
    records = []
    for i, d in enumerate(a_minus_b):
        records += [rec(a, i, 0, d, comp="A", opp=b), rec(b, i, 0, 0, comp="B", opp=a)]
    return PairResult(a, b, records)


def test_openskill_orders_a_constructed_dominance():
    # a ladder: strong beats mid 9 of 10, mid beats weak 9 of 10, never compared directly
    pairs = [_pair("strong", "mid", [1] * 9 + [-1]), _pair("mid", "weak", [2] * 9 + [0])]
    ratings = rate_league(pairs)
    assert ratings["strong"].ordinal > ratings["mid"].ordinal > ratings["weak"].ordinal
    assert ratings["strong"].mu > 25 > ratings["weak"].mu
    tied = rate_league([_pair("p", "q", [0] * 10)])
    assert tied["p"].mu == pytest.approx(tied["q"].mu) == pytest.approx(25)
    report = Report(["strong", "mid", "weak"], deal_range(10), pairs)
    m = report.matrix()
    assert m["mid"]["strong"].mean == pytest.approx(-0.8) and m["strong"]["weak"] is None
    assert "| 1 | `strong` |" in to_markdown(report)



def test_schedule_covers_every_seat_of_every_deal_in_both_compositions():
    seeds = [5, 9, 11]
    sched = pair_schedule(seeds)
    assert len(sched) == len(set(sched)) == 10 * len(seeds)
    assert set(sched) == {(d, s, c) for d in seeds for s in range(5) for c in "AB"}
    assert make_pairs(["a", "b", "c"]) == [("a", "b"), ("b", "c")]
    assert make_pairs(["a", "b", "c"], "all") == [("a", "b"), ("a", "c"), ("b", "c")]


class _SpySeats:
    """Records which seats a side is asked to fill, and plays randomly."""

    def __init__(self, name: str, log: list) -> None:
        self.name, self.log = name, log

    def get(self, seat: int, seed: int):
        self.log.append((self.name, seat, seed))
        return RandomAgent(seed)


def test_focal_agent_sits_at_the_focal_seat_and_the_other_fills_the_rest():
    log: list = []
    records = SEAT.play_chunk(RULES, "A", "B", _SpySeats("A", log), _SpySeats("B", log), [3, 4], None)
    assert len(records) == 20
    for g, r in enumerate(records):
        game = log[5 * g:5 * g + 5]
        assert [seat for _, seat, _ in game] == [0, 1, 2, 3, 4]
        focal_name = {"A": "A", "B": "B"}[r.composition]
        assert r.agent == focal_name and r.opponent == ("B" if focal_name == "A" else "A")
        assert [name for name, seat, _ in game if seat == r.seat] == [focal_name]
        assert {name for name, seat, _ in game if seat != r.seat} == {r.opponent}
    assert {(r.deal, r.seat, r.composition) for r in records} == set(pair_schedule([3, 4]))
    assert agent_seed(TRAIN_SEED_START + 7, 2, "B", 4) != agent_seed(TRAIN_SEED_START + 7, 2, "A", 4)


def test_results_are_deterministic_for_the_same_seeds_and_any_worker_count():
    seeds = [1_000_000, 1_000_001]
    one = evaluate_pair("random", "autoplay", RULES, seeds, workers=1)
    again = evaluate_pair("random", "autoplay", RULES, seeds, workers=1)
    two = evaluate_pair("random", "autoplay", RULES, seeds, workers=2)
    assert one.records == again.records == two.records
    assert {(r.deal, r.seat, r.composition) for r in one.records} == set(pair_schedule(seeds))
    assert one.paired.n == 10


def test_evaluate_against_an_in_process_agent():
    live = RandomAgent(0)  # stands in for a model being trained
    res = evaluate_against(live, "random", RULES, [1_000_000, 1_000_001], name="live")
    spec = evaluate_pair("random", "random", RULES, [1_000_000, 1_000_001])
    assert res.a == "live" and len(res.records_a) == len(res.records_b) == 10
    # reset(seed) per game: where the object holds one seat (composition A) it plays exactly
    # like the spec; holding four seats it shares one RNG among them, so those games differ
    assert [r.score for r in res.records_a] == [r.score for r in spec.records_a]


class _MaskOnly(RandomAgent):
    uses_observation = False
    sizes: set

    def act(self, observation, action_mask):
        self.sizes.add(observation.size)
        return super().act(observation, action_mask)


def test_mask_only_agents_skip_the_encoder():
    class Seats:
        def __init__(self, cls):
            self.agent = cls(0)
            self.agent.sizes = set()

        def get(self, seat, seed):
            return self.agent

    class Observing(_MaskOnly):
        uses_observation = True

    enc = Encoder(RULES)
    mask_only, observing = Seats(_MaskOnly), Seats(Observing)
    SEAT.play_chunk(RULES, "m", "o", mask_only, observing, [1], None)
    assert mask_only.agent.sizes == {0} and observing.agent.sizes == {enc.size}


def test_a_void_deal_counts_as_no_score_and_no_side():
    # lianzhong_classic deal 11000145: random abdications can leave nobody to force (流局)
    from baohuang_eval.evaluate import evaluate_pair

    pair = evaluate_pair("random", "autoplay", get_rules("lianzhong_classic"), [11000145])
    void = [r for r in pair.records if r.role == "none"]
    assert void and all(r.side == "none" and r.score == 0 and r.place == 0 for r in void)
    assert pair.table_a["overall"].games + pair.table_b["overall"].games == len(pair.records) == 10
    sides = sum(pair.table_a[s].games + pair.table_b[s].games for s in ("emperor_side", "rebel_side"))
    assert sides == len(pair.records) - len(void)
