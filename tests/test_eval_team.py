"""The team protocol (baohuang_eval.team, side duplicate): who sits where and the role phase
answered by the auto-play bot, the side tables, duplicate win rate and paired difference
against hand-computed values, determinism, the in-process evaluation, and the CLI."""

from __future__ import annotations

import json
import math

import pytest

from agents import AutoPlayAgent, RandomAgent
from baohuang_cli.cli import main as cli_main
from baohuang_env.actions import FIRST_PLAY
from baohuang_env.game import PLAY, Game
from baohuang_env.replay import load_replay, read_replay
from baohuang_env.role_phase import ACCEPT, NO
from baohuang_env.rules import get_rules
from baohuang_eval import (
    TEAM,
    DuplicateStats,
    Report,
    TeamPairResult,
    TeamRecord,
    agent_seed,
    deal_range,
    evaluate_against,
    evaluate_agents,
    evaluate_pair,
    to_markdown,
    write_report,
)
from baohuang_eval.team import default_roles, team_paired_difference

RULES = get_rules("jj")

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


def test_team_games_two_per_deal_with_swapped_sides(tmp_path):
    log: list = []
    masks: list = []
    records = TEAM.play_chunk(RULES, "A", "B", _TeamSpySeats("A", log, masks),
                              _TeamSpySeats("B", log, masks), TEAM_DEALS, tmp_path)
    assert [(r.deal, r.composition) for r in records] == [(d, c) for d in TEAM_DEALS for c in "AB"]
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
    assert start.phase == PLAY and start.current_player == start.emperor == records[0].emperor


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
    assert res.duplicate_win_rate == pytest.approx(7 / 12)  # what the trainers log as eval/winrate_vs_B
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
    report = Report(["A", "B"], deal_range(3, 1), [res], protocol=TEAM)
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
                             workers=1, log=None, protocol="team")
    assert not (tmp_path / "eval").exists()  # computing a report writes nothing
    write_report(report, tmp_path / "eval")
    assert [(p.a, p.b) for p in report.pairs] == [("random", "autoplay"), ("random", "random2")]
    assert report.tables["random"]["overall"].games == 8 and report.timing["games"] == 8
    md = to_markdown(report)
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
    for f in files:  # the emperor's side is the agent the file names, the rebels the other
        replay = read_replay(f)
        side = {q for q, role in enumerate(replay.game.result.roles) if role != "rebel"}
        emperor_side = f.name.split("-")[2]
        assert {replay.players[q] for q in side} == {emperor_side}
        assert {replay.players[q] for q in range(5) if q not in side} == {"random", "autoplay"} - {emperor_side}
