"""The heuristic bot's role models: the fitter's samples and fits, the shipped data files, and
the look-up by (preset, prompt kind) that the bot decides with."""

from __future__ import annotations

import json

import numpy as np
import pytest

from agents import make_agent
from agents.bots.heuristic import HeuristicAgent
from agents.bots.role_fit import Sample, collect, fit_model, gains, play_out
from agents.bots.role_policy import RolePolicy, load_models, model_file, role_choices
from agents.bots.role_prompts import HAND_FEATURES, PromptReader, feature_names
from agents.view import SeatView
from baohuang_cli.cli import main as cli_main
from baohuang_env import Game, get_rules
from baohuang_env.actions import DECISION_ID as D
from baohuang_env.autoplay import RoleDefaults
from baohuang_env.encoding import Encoder
from baohuang_env.rules import PRESETS

SEEDS = range(30_000_000, 30_000_003)


def test_each_sample_scores_every_answer_by_playing_it_out():
    """Deterministic, and each class's score is the deciding seat's score of the deal played
    out after that answer (replayed here from the deal's start with the default answers,
    the one changed answer, then the bot)."""
    rules = get_rules("weihai")
    samples = collect(rules, SEEDS)
    again = collect(rules, SEEDS)
    assert [(s.deal, s.kind, s.x.tolist(), s.scores) for s in samples] == \
        [(s.deal, s.kind, s.x.tolist(), s.scores) for s in again]
    assert {s.kind for s in samples} >= {"grab", "rebellion"}
    assert all(set(s.scores) == {"no", s.kind if s.kind != "rebellion" else "rebel"}
               for s in samples if s.kind in ("grab", "rebellion"))
    # the first prompt of the first deal, redone by hand
    first = samples[0]
    bot, enc = HeuristicAgent(rules, roles="none"), Encoder(rules)
    reader = PromptReader(rules)
    game = Game(rules, seed=first.deal)
    while True:
        obs, mask = enc.encode(game, game.current_player), game.legal_mask()
        prompt = reader.prompt(SeatView(obs, rules), obs, mask)
        if prompt is not None:
            break
        game.step(bot.act(obs, mask))
    assert prompt.kind == first.kind
    seat = game.current_player
    for name, answer in prompt.answers.items():
        other = game.copy()
        other.step(answer)
        play_out(other, bot, enc)
        assert other.result.scores[seat] == first.scores[name]
    assert len({v for s in samples for v in s.scores.values()}) > 1  # the answers' scores differ somewhere


def test_fit_recovers_a_linear_score_and_prefers_the_better_answer():
    rng = np.random.default_rng(0)
    true = {"no": np.array([1.0, 0.5, -0.5]), "grab": np.array([-4.0, 3.0, 0.0])}
    samples = []
    for i in range(400):
        x = np.array([1.0, *rng.integers(0, 4, size=2)])
        samples.append(Sample(i, "grab", x, "no", {a: float(x @ c + rng.normal(0, 0.1)) for a, c in true.items()}))
    model, counts = fit_model("grab", ("1", "BJ", "SJ"), samples)
    assert model.choose(np.array([1.0, 0.0, 0.0]), {"no": 0, "grab": 1}, "no") == "no"
    assert counts == {"grab": 400, "no": 400}
    for a, c in true.items():
        np.testing.assert_allclose(model.answers[a], c, atol=0.1)
    g = gains(model, samples)
    assert g.min() > -0.5 and g.mean() > 0.5  # it grabs where 2.5 BJ + 0.5 SJ > 5, i.e. with 2+ BJs
    assert model.choose(np.array([1.0, 3.0, 0.0]), {"no": 0, "grab": 1}, "no") == "grab"
    assert model.choose(np.array([1.0, 0.0, 3.0]), {"no": 0, "grab": 1}, "no") == "no"


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_preset_ships_models_fitted_on_its_own_rules(preset):
    data = model_file(preset)
    rules = get_rules(preset)
    assert data["preset"] == preset
    assert {k: v for k, v in rules.to_dict().items() if k != "display_direction"} == data["rules"]
    models = load_models(rules)
    for kind, entry in data["models"].items():
        assert entry["features"] == list(feature_names(rules, kind))
        assert all(len(c) == len(entry["features"]) for c in entry["answers"].values())
        assert (kind in models) == entry["use"]
        if entry["use"]:
            assert len(entry["answers"]) >= 2 and set(entry["default"].split("|")) <= set(entry["answers"])
    assert role_choices(rules) == ("all", "none", *sorted(models))
    # other rules than the ones fitted on: no model
    assert load_models(get_rules(preset, start_seat=1) if preset != "jj" else get_rules("jj", tribute=True)) == {}


def test_jj_keeps_the_legacy_models():
    data = model_file("jj")
    m = data["models"]
    assert m["declaration.solo"]["answers"]["open_solo"] == [-37.0, 12.66, 6.60, 2.56, 2.44, 1.05, -1.93, 0.85]
    assert m["abdication.both_cards"]["answers"]["abdicate"] == [-0.11, 0.69, 0.41, 0.20, 0.04, -0.03, -0.19, -0.04]
    assert m["declaration.guard"]["answers"]["open_guard"] == [0.46, 0.52, 0.60, 0.13, -0.02, 0.06, -0.28, -0.16]
    assert {k for k, e in m.items() if e["use"]} == {"abdication.both_cards", "declaration.solo", "declaration.guard"}
    assert "refit" in data and data["refit"]["provenance"]["deals"] > 0


def test_hand_features_follow_the_deck():
    """216 cards: 13 ranks 3..2, the lowest rank is the 3, and SP is a feature; 168: 6..2."""
    for preset, lowest in (("generic216", "3"), ("jj", "6")):
        rules = get_rules(preset)
        enc = Encoder(rules)
        game = Game(rules, seed=5)
        v = SeatView(enc.encode(game, 0), rules)
        names = feature_names(rules, "guard")
        x = PromptReader(rules).features(v, enc.encode(game, 0), names)
        kinds = game.kinds
        assert kinds.names[0] == lowest and kinds.num_ranks == (13 if preset == "generic216" else 10)
        assert names[:len(HAND_FEATURES)] == HAND_FEATURES and (("SP" in names) == (preset == "generic216"))
        hand = game.hand(0)
        assert x[names.index("lowest")] == hand[0] and x[names.index("2")] == hand[kinds.num_ranks - 1]
        assert x[names.index("BJ")] == hand[kinds.bj]


def test_roles_none_gives_the_defaults_and_a_bad_value_lists_the_allowed():
    rules = get_rules("jj")
    enc, defaults = Encoder(rules), RoleDefaults(rules)
    none, every = RolePolicy(rules, "none"), RolePolicy(rules, "all")
    differ = 0
    for seed in range(40):
        game = Game(rules, seed=seed)
        while game.phase == "role":
            obs, mask = enc.encode(game, game.current_player), game.legal_mask()
            assert none.choose(obs, mask) == defaults.choose(obs, mask)
            differ += every.choose(obs, mask) != defaults.choose(obs, mask)
            game.step(defaults.choose(obs, mask))
    assert differ > 0
    with pytest.raises(ValueError, match=r"allowed: \['all', 'none', 'abdication.both_cards'"):
        make_agent("heuristic:roles=grab", rules)
    with pytest.raises(ValueError, match="heuristic:roles=X"):
        make_agent("heuristic:fast", rules)
    assert make_agent("heuristic:roles=none", rules).roles.models == {}
    both = make_agent("heuristic:roles=declaration.solo,declaration.guard", rules).roles.models
    assert sorted(both) == ["declaration.guard", "declaration.solo"]


def test_fit_command_writes_a_data_file(tmp_path, capsys):
    out = tmp_path / "m.json"
    assert cli_main(["fit", "--preset", "qingdao", "--deals", "2", "--deal-seed", "30000000",
                     "--out", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["provenance"]["deal_seeds"] == [30_000_000, 30_000_001] and data["provenance"]["deals"] == 2
    assert "fit qingdao: 2/2 deals" in capsys.readouterr().err
    assert data["models"] and all(not m["use"] for m in data["models"].values())  # too few samples


def test_the_bot_answers_a_grab_by_the_weihai_model():
    rules = get_rules("weihai")
    models = load_models(rules)
    if "grab" not in models:
        pytest.skip("weihai ships no grab model")
    enc, bot, reader = Encoder(rules), HeuristicAgent(rules, roles="grab"), PromptReader(rules)
    seen = set()
    for seed in range(60):
        game = Game(rules, seed=seed)
        while game.phase == "role":
            obs, mask = enc.encode(game, game.current_player), game.legal_mask()
            v = SeatView(obs, rules)
            prompt = reader.prompt(v, obs, mask)
            if prompt is not None and prompt.kind == "grab":
                x = reader.features(v, obs, models["grab"].features)
                want = D["GRAB"] if x @ models["grab"].answers["grab"] > x @ models["grab"].answers["no"] else D["NO"]
                assert bot.act(obs, mask) == want
                seen.add(want)
            game.step(RoleDefaults(rules).choose(obs, mask))
    assert seen
