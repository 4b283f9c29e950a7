"""Evaluation protocol (agents/evaluate.py, agents/report.py, `baohuang eval`): the statistics
against hand-computed values, the duplicate rotation schedule, determinism, ratings on a
constructed dominance, an end-to-end CLI run, and the error messages."""

from __future__ import annotations

import json
import math

import pytest

from agents import RandomAgent
from agents.evaluate import (
    TRAIN_SEED_START,
    DealSet,
    GameRecord,
    PairResult,
    Report,
    _play_chunk,
    agent_seed,
    agent_table,
    deal_range,
    evaluate_against,
    evaluate_agents,
    evaluate_pair,
    load_deals,
    make_pairs,
    mean_interval,
    paired_difference,
    pair_schedule,
    rate_league,
    side_of,
    t_quantile,
    wilson_interval,
    write_deals,
)
from agents.report import to_markdown
from baohuang_env.encoding import Encoder
from baohuang_env.replay import load_replay
from baohuang_env.rules import get_rules
from experiments.cli import main as cli_main

RULES = get_rules("jj")


def rec(agent: str, deal: int, seat: int, score: int, role: str = "rebel", comp: str = "A",
        opp: str = "x") -> GameRecord:
    return GameRecord(agent, opp, deal, seat, comp, role, side_of(role), 1, score)


# ----------------------------------------------------------------------------- statistics
def test_wilson_interval_hand_computed():
    # p = 0.7, n = 10, z = 1.959964: center = (0.7 + 0.19208) / 1.384146 = 0.644498,
    # half = 1.959964 / 1.384146 * sqrt(0.021 + 0.00960366) = 0.247721
    lo, hi = wilson_interval(7, 10)
    assert lo == pytest.approx(0.396778, abs=1e-6)
    assert hi == pytest.approx(0.892209, abs=1e-6)
    assert wilson_interval(0, 10) == (0.0, pytest.approx(0.277533, abs=1e-6))
    assert wilson_interval(10, 10) == (pytest.approx(0.722467, abs=1e-6), 1.0)
    assert all(math.isnan(x) for x in wilson_interval(0, 0))


@pytest.mark.parametrize("df, expected", [(1, 12.7062), (2, 4.3027), (4, 2.7764), (10, 2.2281),
                                          (30, 2.0423), (1000, 1.9623)])
def test_t_quantile_matches_tables(df, expected):
    assert t_quantile(0.975, df) == pytest.approx(expected, abs=1e-4)


def test_mean_interval_hand_computed():
    # mean 3, sd sqrt(2.5) = 1.581139, half = 2.776445 * 1.581139 / sqrt(5) = 1.963243
    mean, lo, hi = mean_interval([1, 2, 3, 4, 5])
    assert mean == 3
    assert (lo, hi) == (pytest.approx(1.036757, abs=1e-5), pytest.approx(4.963243, abs=1e-5))
    m1, lo1, hi1 = mean_interval([4])
    assert m1 == 4 and math.isnan(lo1) and math.isnan(hi1)


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


# ----------------------------------------------------------------------------- rotation
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
    records = _play_chunk(RULES, Encoder(RULES), "A", "B", _SpySeats("A", log), _SpySeats("B", log), [3, 4], None)
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


# ----------------------------------------------------------------------------- deal files
def test_deal_file_round_trip(tmp_path):
    deals = deal_range(3, 42)
    write_deals(tmp_path / "d.json", deals)
    loaded = load_deals(tmp_path / "d.json")
    assert loaded.seeds == (42, 43, 44) and loaded.rules == deals.rules
    assert loaded.fingerprint == deals.fingerprint


@pytest.mark.parametrize("content, message", [
    (None, "cannot read deal file"),
    ("{not json", "is not valid JSON"),
    ('{"format": "baohuang-replay"}', "is not a Baohuang deal file"),
    ('{"format": "baohuang-deals", "version": 1, "rules": {"deck_size": 1}, "seeds": [1]}', "invalid rules"),
    ('{"format": "baohuang-deals", "version": 1, "rules": {}, "seeds": [1, -2]}', "non-negative"),
    ('{"format": "baohuang-deals", "version": 1, "rules": {}, "seeds": []}', "empty"),
])
def test_bad_deal_files_name_the_file_and_what_is_expected(tmp_path, content, message):
    path = tmp_path / "deals.json"
    if content is not None:
        path.write_text(content)
    with pytest.raises(ValueError, match=message) as err:
        load_deals(path)
    assert str(path) in str(err.value)


# ----------------------------------------------------------------------------- CLI
def test_cli_end_to_end_writes_all_three_outputs(tmp_path, capsys):
    out, replays = tmp_path / "eval", tmp_path / "replays"
    rc = cli_main(["eval", "--agents", "random", "autoplay", "--deals", "5", "--workers", "2",
                   "--out", str(out), "--save-replays", str(replays)])
    assert rc == 0
    captured = capsys.readouterr()
    assert "## Head-to-head" in captured.out and "`random`" in captured.out
    assert "50/50 games" in captured.err
    report = json.loads((out / "report.json").read_text())
    assert report["deals"]["count"] == 5 and report["deals"]["first_seed"] == 1_000_000
    pair = report["pairs"][0]
    assert pair["games"] == 50 and pair["paired_difference"]["n"] == 25
    assert set(pair["focal_a"]) == {"overall", "emperor_side", "rebel_side", "emperor", "guard", "solo", "rebel"}
    assert set(report["ratings"]) == {"random", "autoplay"}
    assert (out / "report.md").read_text() == captured.out.rstrip("\n") + "\n"
    assert (out / "report.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    files = sorted((replays / "00-random-vs-autoplay").glob("*.json"))
    assert len(files) == 50
    game = load_replay(files[0])
    assert game.is_over and game.seed == 1_000_000


def test_cli_deal_file_written_then_read(tmp_path, capsys):
    deals = tmp_path / "deals.json"
    assert cli_main(["eval", "--write-deals", str(deals), "--deals", "2", "--deal-seed", "77"]) == 0
    loaded = load_deals(deals)
    assert loaded.seeds == (77, 78)
    report = evaluate_agents(["autoplay", "random"], loaded, workers=1, log=None)
    assert isinstance(report.deals, DealSet) and report.deals.source == str(deals)
    assert report.timing["games"] == 20


def test_cli_unknown_agent_is_a_clear_error(tmp_path, capsys):
    rc = cli_main(["eval", "--agents", "random", "no_such_bot", "--deals", "1", "--out", str(tmp_path)])
    err = capsys.readouterr().err
    assert rc == 2
    assert "no_such_bot" in err and "available agents" in err and "'random'" in err and "autoplay" in err
    assert not (tmp_path / "report.json").exists()


def test_cli_unreadable_deal_file_is_a_clear_error(tmp_path, capsys):
    missing = tmp_path / "missing.json"
    rc = cli_main(["eval", "--agents", "random", "autoplay", "--deal-file", str(missing)])
    err = capsys.readouterr().err
    assert rc == 2 and f"cannot read deal file {missing}" in err and "baohuang-deals" in err


def test_api_rejects_bad_agent_lists():
    with pytest.raises(ValueError, match="at least two"):
        evaluate_agents(["random"], RULES, [1])
    with pytest.raises(ValueError, match="once"):
        evaluate_agents(["random", "random"], RULES, [1])
    with pytest.raises(ValueError, match="distinct"):
        evaluate_pair("random", "autoplay", RULES, [1, 1])


def test_missing_checkpoint_is_a_clear_error_listing_the_accepted_agents(monkeypatch):
    from agents.base import AGENT_KINDS

    def fake_checkpoint_agent(arg, rules, seed):
        raise ValueError(f"checkpoint {arg} does not exist")

    monkeypatch.setitem(AGENT_KINDS, "fakeckpt", fake_checkpoint_agent)
    with pytest.raises(ValueError, match=r"missing\.pt does not exist; accepted agents: .*'random'"):
        evaluate_pair("fakeckpt:missing.pt", "random", RULES, [1])


def test_first_pairing_and_trainer_helpers(tmp_path):
    report = evaluate_agents(["autoplay", "random"], RULES, [5],
                             pairs="first", workers=1, log=None, out_dir=tmp_path / "eval")
    assert make_pairs(["ckpt", "a", "b"], "first") == [("ckpt", "a"), ("ckpt", "b")]
    assert {p.name for p in (tmp_path / "eval").iterdir()} == {"report.json", "report.md", "report.png"}
    pair = report.pairs[0]
    assert pair.win_rate == pair.table_a["overall"].win_rate and pair.mean_diff == pair.paired.mean
    with pytest.raises(ValueError, match="consecutive"):
        evaluate_agents(["autoplay", "random"], RULES, [5], pairs="ladder")


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
    _play_chunk(RULES, enc, "m", "o", mask_only, observing, [1], None)
    assert mask_only.agent.sizes == {0} and observing.agent.sizes == {enc.size}
