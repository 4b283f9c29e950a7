"""The hidden-teammate research kit (`baohuang_study`, `baohuang study`): each study on tiny
settings, checked on constructed cases with known answers."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from agents import HeuristicAgent
from agents.guard_belief import guard_candidates
from agents.view import SeatView
from baohuang_cli.cli import main as cli_main
from baohuang_env import Game, get_rules
from baohuang_env.agent import AGENT_KINDS, register_agent
from baohuang_env.encoding import Encoder
from baohuang_env.rules import PRESETS
from baohuang_eval.team import default_roles
from baohuang_study import belief, crossplay, leak, teamplay
from baohuang_study.collect import GameLog, collect
from baohuang_study.metrics import belief_scores, chance_test, uniform_beliefs
from baohuang_study.probe import LogisticProbe, probe_beliefs, split_by_deal

RULES = get_rules("jj")
SEEDS = list(range(1_000_000, 1_000_012))


def onehot(labels: np.ndarray) -> np.ndarray:
    out = np.zeros((len(labels), 5))
    out[np.arange(len(labels)), labels] = 1.0
    return out


@pytest.fixture(scope="module")
def heuristic_decisions():
    return collect("heuristic", RULES, tuple(SEEDS))[0]


# --- metrics and probes on constructed cases ----------------------------------------------
def test_an_oracle_scores_perfectly_and_uniform_scores_the_base_rate():
    rng = np.random.default_rng(0)
    cand = np.zeros((400, 5), dtype=bool)
    cand[:200, 1:] = True  # emperors: four candidates
    cand[200:, [1, 3, 4]] = True  # rebels: three
    labels = np.array([rng.choice(np.flatnonzero(c)) for c in cand])
    oracle = belief_scores(onehot(labels), labels, cand)
    assert oracle["top1"] == 1.0 and oracle["brier"] == 0.0 and oracle["ece"] == 0.0
    assert oracle["log_loss"] == pytest.approx(0.0, abs=1e-9)
    uniform = belief_scores(uniform_beliefs(cand), labels, cand)
    base = (0.25 + 1 / 3) / 2
    assert uniform["top1"] == pytest.approx(base) == uniform["base_top1"]
    assert uniform["log_loss"] == pytest.approx((math.log(4) + math.log(3)) / 2)
    assert uniform["brier"] == pytest.approx(uniform["base_brier"])
    # a confident wrong belief: accuracy 0, confidence 1 -> ECE 1
    wrong = onehot((labels % 4) + 1 - (labels % 4 + 1 == labels))
    assert belief_scores(wrong, labels, cand)["ece"] == pytest.approx(1.0 - belief_scores(wrong, labels, cand)["top1"])


def test_chance_test_flags_a_real_signal_and_not_noise():
    rng = np.random.default_rng(1)
    n = 600
    cand = np.zeros((n, 5), dtype=bool)
    cand[:, 1:] = True
    labels = rng.integers(1, 5, n)
    deals = np.repeat(np.arange(n // 3), 3)
    assert chance_test(uniform_beliefs(cand), labels, cand, deals)["at_chance"]
    assert not chance_test(onehot(labels), labels, cand, deals)["at_chance"]


def test_the_probe_finds_an_encoded_label_and_splits_by_deal():
    rng = np.random.default_rng(2)
    n = 800
    cand = np.zeros((n, 5), dtype=bool)
    cand[:, 1:] = True
    labels = rng.integers(1, 5, n)
    deals = np.repeat(np.arange(n // 4), 4)
    x = np.concatenate([onehot(labels), rng.normal(size=(n, 20))], axis=1)
    train = split_by_deal(deals)
    assert not set(deals[train]) & set(deals[~train]) and train.mean() == 0.5
    p = probe_beliefs(x, labels, cand, train, deals)
    assert belief_scores(p[~train], labels[~train], cand[~train])["top1"] == 1.0
    noise = probe_beliefs(x[:, 5:], labels, cand, train, deals)
    assert chance_test(noise[~train], labels[~train], cand[~train], deals[~train])["at_chance"]
    with pytest.raises(ValueError, match="fit the probe"):
        LogisticProbe().predict(x, cand)


# --- guard beliefs of the agents ----------------------------------------------------------
def test_heuristic_belief_is_over_its_candidates_and_does_not_change_its_play():
    enc = Encoder(RULES)
    for deal in SEEDS[:6]:
        plain, probed = Game(RULES, seed=deal), Game(RULES, seed=deal)
        a, b = HeuristicAgent(RULES), HeuristicAgent(RULES)
        while not plain.is_over:
            seat = plain.current_player
            obs = enc.encode(probed, seat)
            belief_ = b.guard_belief(obs)
            view = SeatView(obs, RULES)
            cand = guard_candidates(view)
            assert belief_.sum() == pytest.approx(1.0)
            if cand.any():
                assert (belief_[~cand] == 0).all()
            if view.guard >= 0:
                assert belief_[view.guard] == 1.0
            probed.step(b.act(obs, probed.legal_mask()))
            plain.step(a.act(enc.encode(plain, seat), plain.legal_mask()))
        assert plain.actions == probed.actions


def test_heuristic_belief_starts_uniform_and_learns_from_overtakes(heuristic_decisions):
    d = heuristic_decisions
    first = d.guard_plays == 0
    fresh = first & (d.progress == 0.0)  # the emperor's first lead: nobody has played yet
    assert fresh.any() and np.allclose(d.own[fresh], uniform_beliefs(d.candidates[fresh]))
    moved = (~d.revealed) & ~np.isclose(d.own, uniform_beliefs(d.candidates)).all(axis=1)
    assert moved.any()  # overtakes of the emperor's plays moved some beliefs


# --- the belief study ---------------------------------------------------------------------
def test_belief_breakdown_scores_an_oracle_at_one_and_uniform_at_the_base(heuristic_decisions):
    d = heuristic_decisions
    oracle = belief.breakdown(d, onehot(d.label))
    assert oracle["hidden"]["top1"] == 1.0 and oracle["hidden_emperor"]["top1"] == 1.0
    uniform = belief.breakdown(d, uniform_beliefs(d.candidates))
    assert uniform["hidden_emperor"]["top1"] == pytest.approx(0.25)
    assert uniform["hidden_rebel"]["top1"] == pytest.approx(1 / 3)
    assert uniform["revealed"]["top1"] == 1.0  # one candidate once the guard is public
    assert len(uniform["deciles_rebel"]) == 10


def test_no_probe_without_a_hidden_guard_in_the_training_deals(heuristic_decisions):
    d = heuristic_decisions
    train = split_by_deal(d.deal)
    assert "probe_observation" in belief.sources(d, train)
    revealed = d.select(np.ones(len(d), dtype=bool))
    revealed.revealed = np.ones(len(d), dtype=bool)  # as if every guard declared
    assert set(belief.sources(revealed, train)) == {"own", "uniform"}


def test_belief_study_end_to_end():
    result = belief.belief_study(["heuristic"], RULES, SEEDS[:8])
    src = result["agents"]["heuristic"]["sources"]
    assert set(src) == {"own", "probe_observation", "uniform"}
    assert src["uniform"]["hidden_emperor"]["top1"] == pytest.approx(0.25)
    assert "| own | rebel |" in belief.to_markdown(result)
    assert belief.plot(result)[:4] == b"\x89PNG"


# --- cross-play ---------------------------------------------------------------------------
def test_crossplay_of_twins_has_xp_equal_to_sp():
    from agents.bots.greedy import GreedyAgent

    register_agent("greedytwin", lambda arg, rules, seed: GreedyAgent(rules))
    try:
        result = crossplay.crossplay_study(["greedy", "greedytwin"], RULES, SEEDS[:6], reference="autoplay",
                                           modes=("reference", "mixed"))
    finally:
        del AGENT_KINDS["greedytwin"]
    for mode in ("reference", "mixed"):
        m = result["modes"][mode]
        cells = [c["mean_score"] for row in m["cells"] for c in row]
        assert len(set(cells)) == 1  # the same player under two names: every cell alike
        assert m["xp"]["minus_sp"]["mean"] == 0.0 and m["xp"]["ratio_win_rate"] == pytest.approx(1.0)
        starts = [default_roles(RULES, s) for s in SEEDS[:6]]
        assert m["deals"] == sum(1 for g in starts if g.guard != g.emperor)
    assert "XP/SP" in crossplay.to_markdown(result)
    assert crossplay.plot(result)[:4] == b"\x89PNG"


def test_crossplay_summary_on_a_constructed_matrix():
    # two deals, 2 agents of one family + 1 of another: scores = 10*i + j on deal 0, 0 on deal 1
    rows = [(d, "reference", i, j, (10 * i + j) if d == 0 else 0) for d in (0, 1) for i in range(3) for j in range(3)]
    s = crossplay.summarize(["dmc:a", "dmc:b", "ppo:c"], rows, "reference")
    assert s["sp"]["mean_score"] == pytest.approx((0 + 11 + 22) / 6)
    assert s["xp"]["mean_score"] == pytest.approx((1 + 2 + 10 + 12 + 20 + 21) / 12)
    assert s["xp_same_family"]["mean_score"] == pytest.approx((1 + 10) / 4)
    assert s["xp_other_family"]["mean_score"] == pytest.approx((2 + 12 + 20 + 21) / 8)
    with pytest.raises(ValueError, match="distinct"):
        crossplay.crossplay_study(["greedy", "greedy"], RULES, SEEDS[:2])


# --- the hidden-information audit ---------------------------------------------------------
def _leaky(rules):
    """An encoder that leaks the guard card's holder into the last entry."""
    enc = Encoder(rules)

    def observe(game, seat):
        v = enc.encode(game, seat).copy()
        v[-1] = float(game.guard_card_seat == (seat + 1) % 5)
        return v

    return observe


@pytest.mark.parametrize("preset", list(PRESETS))
def test_audit_finds_no_leak_in_any_preset(preset):
    rules = get_rules(preset)
    audit = leak.audit_preset(rules, 400)
    assert audit["resamples"] >= 400 and audit["failures"] == 0, audit["examples"]


def test_audit_catches_a_leaking_observation():
    # (the sampler's own checks, that it moves the guard card and the hands: tests/test_resample.py)
    rules = get_rules("jj")
    audit = leak.audit_preset(rules, 400, observe=_leaky(rules), agents=("autoplay",))
    assert audit["failures"] > 0 and "observation differs" in audit["examples"][0]


def test_first_decision_probe_is_at_chance_unless_the_observation_leaks():
    seeds = range(1_000_000, 1_000_240)
    clean = leak.first_decision_probe(RULES, seeds)
    assert clean["at_chance"] is True and clean["n"] > 100
    leaky = leak.first_decision_probe(RULES, seeds, observe=_leaky(RULES))
    assert leaky["at_chance"] is False and leaky["top1"] > 0.45


# --- team play ----------------------------------------------------------------------------
def test_follow_rates_and_reveal_timing_on_constructed_logs():
    logs = [
        GameLog(0, 0, 1, 2, True, 0.0, 0, [("guard", "emperor", False), ("guard", "rebel", True),
                                            ("rebel", "rebel", True), ("rebel", "emperor", True)]),
        GameLog(1, 0, 1, -2, False, 0.5, 3, [("guard", "emperor", True), ("rebel", "rebel", False)]),
        GameLog(2, 0, 1, 0, False, None, None, [("emperor", "guard", False)]),
    ]
    f = teamplay.follow_rates(logs)
    assert f["overtake_guard_over_emperor"]["rate"] == 0.5 and f["overtake_guard_over_emperor"]["n"] == 2
    assert f["block_guard_over_rebel"]["rate"] == 1.0 and f["overtake_rebel_over_rebel"]["rate"] == 0.5
    assert f["overtake_emperor_over_guard"]["rate"] == 0.0
    r = teamplay.reveal_timing(logs)
    assert r["before play"]["n"] == 1 and r["before play"]["rate"] == 1.0 and r["before play"]["open_guard"] == 1
    assert r["second third"]["rate"] == 0.0 and r["never"]["rate"] == 0.5


def test_teamplay_study_end_to_end():
    result = teamplay.teamplay_study(["heuristic"], RULES, SEEDS[:8])
    a = result["agents"]["heuristic"]
    assert a["games"] == 8 and sum(b["n"] for b in a["reveal"].values()) <= 8
    assert set(a["leakage"]) == {"probe_observation_rebel", "probe_observation_emperor", "own_rebel", "own_emperor"}
    assert "block_guard_over_rebel" in teamplay.to_markdown(result)
    assert teamplay.plot(result)[:4] == b"\x89PNG"


def test_report_names_and_json_are_safe():
    from baohuang_study.report import json_safe, short_name

    assert short_name("dmc:runs/baohuang-jj__dmc_s1__1__20261130-200510/model.pt") == "dmc:baohuang-jj__dmc_s1__1__202…"
    assert short_name("heuristic") == "heuristic" and short_name("ppo:x/agent.pt") == "ppo:agent.pt"
    assert json_safe({"a": float("nan"), "b": [np.float32(0.5), np.int64(3)]}) == {"a": None, "b": [0.5, 3]}


# --- the command --------------------------------------------------------------------------
def test_cli_writes_the_three_files_and_refuses_bad_input(tmp_path, capsys):
    out = tmp_path / "leak"
    assert cli_main(["study", "leak", "--presets", "jj", "qingdao", "--resamples", "100", "--deals", "30",
                     "--workers", "2", "--out", str(out)]) == 0
    data = json.loads((out / "report.json").read_text())
    assert data["passed"] and [p["audit"]["failures"] for p in data["presets"].values()] == [0, 0]
    assert (out / "report.png").read_bytes()[:4] == b"\x89PNG" and "PASSED" in (out / "report.md").read_text()
    assert cli_main(["study", "belief", "--agents", "nosuch", "--deals", "2", "--out", str(tmp_path / "b")]) == 2
    assert "nosuch" in capsys.readouterr().err and not (tmp_path / "b").exists()
    with pytest.raises(SystemExit):
        cli_main(["study", "leak", "--presets", "nowhere"])
