"""Evaluation protocol (agents/evaluate.py, agents/report.py, `baohuang eval`): the statistics
against hand-computed values, the duplicate rotation schedule, determinism, ratings on a
constructed dominance, an end-to-end CLI run, and the error messages; the same for the team
protocol (side duplicate)."""

from __future__ import annotations

import json
import math

import pytest

from agents import AutoPlayAgent, RandomAgent
from agents.evaluate import (
    TRAIN_SEED_START,
    DealSet,
    DuplicateStats,
    GameRecord,
    PairResult,
    Report,
    TeamPairResult,
    TeamRecord,
    _play_chunk,
    _play_team_chunk,
    agent_seed,
    agent_table,
    deal_range,
    default_roles,
    evaluate_against,
    evaluate_agents,
    evaluate_pair,
    format_markdown,
    load_deals,
    make_pairs,
    mean_interval,
    paired_difference,
    pair_schedule,
    rate_league,
    side_of,
    t_quantile,
    team_paired_difference,
    team_schedule,
    wilson_interval,
    write_deals,
)
from agents.report import to_markdown
from baohuang_env.encoding import Encoder
from baohuang_env.game import Game
from baohuang_env.actions import FIRST_PLAY
from baohuang_env.replay import load_replay
from baohuang_env.role_phase import ACCEPT, NO
from baohuang_env.rules import get_rules
from baohuang_cli.cli import main as cli_main

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
    from baohuang_env.agent import AGENT_KINDS

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


# ----------------------------------------------------------------------------- team protocol
#: Deals for the team tests; 1_000_004 is a hidden solo (emperor and guard card in one hand).
TEAM_DEALS = [1_000_003, 1_000_004, 1_000_005]


class _SpyAgent(RandomAgent):
    """A random agent that remembers every mask it was asked about."""

    def __init__(self, seed, masks: list) -> None:
        super().__init__(seed)
        self.masks = masks

    def act(self, observation, action_mask):
        self.masks.append(action_mask.copy())
        return super().act(observation, action_mask)


class _TeamSpySeats:
    def __init__(self, name: str, log: list, masks: list) -> None:
        self.name, self.log, self.masks = name, log, masks

    def get(self, seat: int, seed: int):
        self.log.append((self.name, seat, seed))
        return _SpyAgent(seed, self.masks)


def test_team_schedule_gives_two_games_per_deal_with_swapped_sides(tmp_path):
    assert team_schedule([5, 9]) == [(5, "A"), (5, "B"), (9, "A"), (9, "B")]
    log: list = []
    masks: list = []
    records = _play_team_chunk(RULES, Encoder(RULES), "A", "B", _TeamSpySeats("A", log, masks),
                               _TeamSpySeats("B", log, masks), TEAM_DEALS, tmp_path)
    assert [(r.deal, r.composition) for r in records] == team_schedule(TEAM_DEALS)
    for k, deal in enumerate(TEAM_DEALS):
        game_a, game_b = records[2 * k], records[2 * k + 1]
        # sides follow from the cards: first emperor-card holder and guard-card holder
        fresh = Game(RULES, seed=deal)
        for r in (game_a, game_b):
            assert (r.emperor, r.guard) == (fresh.first_emperor_card_seat, fresh.guard_card_seat)
        assert (game_a.emperor_agent, game_a.rebel_agent) == ("A", "B")
        assert (game_b.emperor_agent, game_b.rebel_agent) == ("B", "A")
        # who sits where: the emperor-side agent at the emperor's and guard's seats only
        for g, r in ((2 * k, game_a), (2 * k + 1, game_b)):
            seats = log[5 * g:5 * g + 5]
            assert [seat for _, seat, _ in seats] == [0, 1, 2, 3, 4]
            side = {r.emperor, r.guard}
            assert {seat for name, seat, _ in seats if name == r.emperor_agent} == side
            assert {seat for name, seat, _ in seats if name == r.rebel_agent} == set(range(5)) - side
            tag = f"team-{r.composition}"
            assert [seed for *_, seed in seats] == [agent_seed(deal, r.emperor, tag, q) for q in range(5)]
        # the role phase: ACCEPT from the first holder, then five NOs, the same in both games
        replays = [load_replay(tmp_path / f"d{deal}-team{c}-{c}-emperor-side.json") for c in "AB"]
        for game, r in zip(replays, (game_a, game_b), strict=True):
            assert game.actions[:6] == [ACCEPT] + [NO] * 5
            assert game.result.emperor == r.emperor and game.result.guard == r.guard
            assert game.result.solo == ("hidden" if r.solo else "none") and not game.result.open_guard
            assert r.score == game.result.scores[r.emperor] and r.place == game.result.places[r.emperor]
    assert [r.solo for r in records] == [False, False, True, True, False, False]
    assert records[2].guard_place == records[2].place
    # agents act only in the play phase: no mask ever offers a role decision
    assert masks and all(not m[1:FIRST_PLAY].any() for m in masks)
    start = default_roles(RULES, TEAM_DEALS[0])
    assert start.phase == "play" and start.current_player == start.emperor == records[0].emperor


def _team_records() -> list[TeamRecord]:
    # (deal, emperor's score with A on the emperor's side, with B on it)
    games = [(1, 6, -6), (2, 0, 2), (3, -12, -12)]
    out = []
    for deal, score_a, score_b in games:
        emp, guard = (0, 0) if deal == 3 else (0, 1)
        out += [TeamRecord("A", "B", deal, "A", emp, guard, 1, 2, score_a),
                TeamRecord("B", "A", deal, "B", emp, guard, 3, 4, score_b)]
    return out


def test_team_statistics_against_hand_computed_values():
    res = TeamPairResult("A", "B", _team_records())
    # A's side results: as emperor's side 6, 0, -12; as rebels 6, -2, 12
    assert res.side_results("A") == [("emperor_side", 6), ("rebel_side", 6), ("emperor_side", 0),
                                     ("rebel_side", -2), ("emperor_side", -12), ("rebel_side", 12)]
    t = res.table_a
    assert (t["overall"].games, t["overall"].wins, t["overall"].draws, t["overall"].losses) == (6, 3, 1, 2)
    assert t["overall"].win_rate == 0.5
    assert (t["overall"].win_low, t["overall"].win_high) == (pytest.approx(0.187616, abs=1e-6),
                                                             pytest.approx(0.812384, abs=1e-6))
    assert (t["emperor_side"].wins, t["emperor_side"].draws, t["emperor_side"].losses) == (1, 1, 1)
    assert t["emperor_side"].win_low == pytest.approx(0.061492, abs=1e-6)  # Wilson(1, 3)
    assert (t["rebel_side"].wins, t["rebel_side"].draws, t["rebel_side"].losses) == (2, 0, 1)
    assert t["rebel_side"].win_high == pytest.approx(0.938508, abs=1e-6)  # Wilson(2, 3)
    assert t["overall"].mean_score == pytest.approx(10 / 6)  # half the mean paired difference
    tb = res.table_b
    assert (tb["overall"].wins, tb["overall"].draws, tb["overall"].losses) == (2, 1, 3)
    assert (tb["emperor_side"].wins, tb["rebel_side"].wins) == (1, 1)
    # duplicate win rate: x = 3 + 0.5 = 3.5 of 6; Wilson: p = 0.583333, denom = 1.640243,
    # center = (0.583333 + 0.320122) / 1.640243 = 0.550806,
    # half = 1.194923 * sqrt(0.0405093 + 0.0266768) = 0.309728
    dup = res.duplicate
    assert dup.rate == pytest.approx(7 / 12)
    assert (dup.low, dup.high) == (pytest.approx(0.241078, abs=1e-6), pytest.approx(0.860533, abs=1e-6))
    rev = dup.reversed()
    assert (rev.rate, rev.low, rev.high, rev.wins) == (pytest.approx(5 / 12), 1 - dup.high, 1 - dup.low, 2)
    # paired difference per deal: d = 12, -2, 0; sd sqrt(57.3333), half = 4.302653 * sd / sqrt(3)
    ps = res.paired
    assert res.differences() == [12, -2, 0] and ps.n == 3 and ps.mean == pytest.approx(10 / 3)
    assert ps.sd == pytest.approx(math.sqrt(172 / 3))
    assert (ps.low, ps.high) == (pytest.approx(-15.476254, abs=1e-5), pytest.approx(22.142921, abs=1e-5))
    assert (ps.a_better, ps.ties, ps.b_better, ps.verdict) == (1, 1, 1, "=")
    assert res.win_rate == 0.5 and res.mean_diff == ps.mean
    # 3 won, 2 drawn, 1 lost: x = 4 of 6, center 0.601611, half 1.194923 * 0.252416 = 0.301618
    d2 = DuplicateStats.of(3, 2, 6)
    assert (d2.rate, d2.low, d2.high) == (pytest.approx(2 / 3), pytest.approx(0.299993, abs=1e-6),
                                          pytest.approx(0.903229, abs=1e-6))
    # a clean sweep keeps a proper interval (a normal approximation would give [0, 0])
    sweep = DuplicateStats.of(0, 0, 40)
    assert (sweep.low, sweep.high) == (0.0, pytest.approx(0.087622, abs=1e-6))
    assert math.isnan(DuplicateStats.of(0, 0, 0).rate)
    with pytest.raises(ValueError, match="one game of composition"):
        team_paired_difference(_team_records()[:-1])
    report = Report(["A", "B"], deal_range(3, 1), [res], protocol_name="team")
    assert report.tables["A"]["rebel_side"] == t["rebel_side"] and report.duplicate["B"].rate == pytest.approx(5 / 12)
    md = to_markdown(report)
    assert "| `A` | `B` | 3 | +3.33 [-15.48, +22.14] | 1 / 1 / 1 | 50.0% [18.8, 81.2] | 58.3% [24.1, 86.1] |" in md
    assert "| `A` | rebels | 3 | 2 / 0 / 1 | 66.7% [20.8, 93.9] |" in md and "1 of 3 deals are hidden solos" in md
    assert report.to_dict()["protocol"]["name"] == "team-duplicate"


def test_team_protocol_is_deterministic_and_works_in_process():
    seeds = TEAM_DEALS[:2]
    one = evaluate_pair("autoplay", "random", RULES, seeds, workers=1, protocol="team")
    two = evaluate_pair("autoplay", "random", RULES, seeds, workers=2, protocol="team")
    assert isinstance(one, TeamPairResult) and one.records == two.records and len(one.records) == 4
    live = evaluate_against(AutoPlayAgent(RULES), "random", RULES, seeds, name="live", protocol="team")
    assert [(r.deal, r.composition, r.score) for r in live.records] == \
        [(r.deal, r.composition, r.score) for r in one.records]
    assert live.records[0].emperor_agent == "live" and live.records[1].rebel_agent == "live"
    with pytest.raises(ValueError, match="protocol must be one of"):
        evaluate_pair("autoplay", "random", RULES, seeds, protocol="teams")


def test_team_protocol_first_pairing_with_three_agents(tmp_path, monkeypatch):
    from baohuang_env.agent import AGENT_KINDS

    monkeypatch.setitem(AGENT_KINDS, "random2", lambda arg, rules, seed: RandomAgent(seed))
    report = evaluate_agents(["random", "autoplay", "random2"], RULES, TEAM_DEALS[:2], pairs="first",
                             workers=1, log=None, out_dir=tmp_path / "eval", protocol="team")
    assert [(p.a, p.b) for p in report.pairs] == [("random", "autoplay"), ("random", "random2")]
    assert report.tables["random"]["overall"].games == 8 and report.timing["games"] == 8
    md = format_markdown(report)
    assert "Side results per agent" in md and "Head-to-head matrix" in md and "duplicate win rate" in md
    assert {p.name for p in (tmp_path / "eval").iterdir()} == {"report.json", "report.md", "report.png"}


def test_cli_team_protocol_end_to_end(tmp_path, capsys):
    out, replays = tmp_path / "eval", tmp_path / "replays"
    rc = cli_main(["eval", "--agents", "random", "autoplay", "--protocol", "team", "--deals", "3",
                   "--workers", "2", "--out", str(out), "--save-replays", str(replays)])
    assert rc == 0
    captured = capsys.readouterr()
    assert "## Head-to-head (team duplicate" in captured.out and "## Side results" in captured.out
    assert "6/6 games" in captured.err
    report = json.loads((out / "report.json").read_text())
    assert report["protocol"]["name"] == "team-duplicate" and report["deals"]["count"] == 3
    pair = report["pairs"][0]
    assert pair["games"] == 6 and pair["paired_difference"]["n"] == 3
    assert set(pair["side_a"]) == set(pair["side_b"]) == {"overall", "emperor_side", "rebel_side"}
    assert pair["side_a"]["overall"]["games"] == 6 and pair["side_a"]["emperor_side"]["games"] == 3
    assert set(pair["duplicate_win_rate_a"]) >= {"rate", "low", "high"}
    assert pair["records"]["composition"] == ["A", "B"] * 3
    assert set(report["sides"]) == set(report["duplicate_win_rate"]) == {"random", "autoplay"}
    assert (out / "report.md").read_text() == captured.out.rstrip("\n") + "\n"
    assert (out / "report.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    files = sorted((replays / "00-random-vs-autoplay").glob("*.json"))
    assert len(files) == 6 and all(load_replay(f).is_over for f in files)
