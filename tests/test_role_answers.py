"""`roles:SPEC` (`agents.bots.role_answers`: one agent's role answers with the heuristic's card play)
and `baohuang study roles` (`baohuang_study.role_rates`: how often an agent takes each role
option), on a few seeded deals."""

from __future__ import annotations

import copy
import json
from collections import Counter

import numpy as np
import pytest

from agents import HeuristicAgent
from agents.bots.role_answers import RoleAnswers
from agents.view import SeatView
from baohuang_cli.cli import main as cli_main
from baohuang_env import Game, get_rules
from baohuang_env.agent import NO_OBSERVATION, RandomAgent, make_agent
from baohuang_env.cards import NUM_SEATS
from baohuang_env.encoding import Encoder
from baohuang_env.game import PLAY
from baohuang_eval.play import SpecSeats, Table, agent_seed, game_agents, play_games, validate_specs
from baohuang_study import role_rates
from baohuang_study.report import json_safe

WEIHAI = get_rules("weihai")
#: weihai deals where the heuristic's fitted models grab and kick at the focal seat.
WEIHAI_DEALS = list(range(1000, 1006))


def game_actions(spec: str, rules, deals) -> list[list[int]]:
    """The actions of each deal's game with `spec` at every seat (the seat protocol's seeds)."""
    seats = SpecSeats(spec, rules)
    tables = [Table(deal, game_agents([seats] * NUM_SEATS, [agent_seed(deal, 0, "A", q) for q in range(NUM_SEATS)]),
                    [spec] * NUM_SEATS, f"deal {deal}") for deal in deals]
    return [played.record["actions"] for played in play_games(rules, tables, records=True)]


# --- roles:SPEC ---------------------------------------------------------------------------
@pytest.mark.parametrize("preset", ["jj", "lianzhong_classic"])
def test_roles_of_an_agent_differ_from_it_only_in_role_answers(preset):
    rules, deals = get_rules(preset), range(2000, 2004)
    assert game_actions("roles:heuristic", rules, deals) == game_actions("heuristic", rules, deals)
    # the auto-play bot's role answers are the defaults the heuristic gives with no models
    assert game_actions("roles:autoplay", rules, deals) == game_actions("heuristic:roles=none", rules, deals)


class Spy:
    """A role agent that records the phase of every decision it is asked and answers at random."""

    def __init__(self, rules, uses_observation: bool) -> None:
        self.rules, self.uses_observation = rules, uses_observation
        self.rng = np.random.default_rng(0)
        self.seen: list[str | None] = []

    def act(self, observation, mask) -> int:
        self.seen.append(SeatView(observation, self.rules).phase if self.uses_observation else
                         ("none" if observation is NO_OBSERVATION else "given"))
        return int(self.rng.choice(np.flatnonzero(mask)))


@pytest.mark.parametrize("preset", ["weihai", "lianzhong_classic", "qingdao"])
def test_the_role_agent_answers_every_role_decision_and_the_heuristic_plays(preset):
    rules = get_rules(preset)
    encoder, heuristic = Encoder(rules), HeuristicAgent(rules)
    for deal in range(3000, 3003):
        spy = Spy(rules, uses_observation=True)
        agent = RoleAnswers(spy, HeuristicAgent(rules), rules)
        game, role_decisions = Game(rules, seed=deal), 0
        while not game.is_over:
            obs, mask = encoder.encode(game, game.current_player), game.legal_mask()
            action = agent.act(obs, mask)
            if game.phase == PLAY:  # the heuristic's own move (the wind application too)
                assert action == heuristic.act(obs, mask)
            else:
                role_decisions += 1
            game.step(action)
        assert len(spy.seen) == role_decisions > 0 and PLAY not in spy.seen
        assert set(spy.seen) <= set(rules.role_steps)


def test_a_role_agent_that_reads_only_the_mask_gets_no_observation():
    spy = Spy(WEIHAI, uses_observation=False)
    agent = RoleAnswers(spy, HeuristicAgent(WEIHAI), WEIHAI)
    encoder, game = Encoder(WEIHAI), Game(WEIHAI, seed=3000)
    agent.act(encoder.encode(game, game.current_player), game.legal_mask())
    assert agent.uses_observation and spy.seen == ["none"]


def test_reset_gives_each_game_its_own_reset_copies():
    agent = make_agent("roles:random", WEIHAI, 0)
    first, second = copy.copy(agent), copy.copy(agent)
    first.reset(7)
    second.reset(7)
    assert first.role_agent is not second.role_agent and first.role_agent is not agent.role_agent
    assert isinstance(first.role_agent, RandomAgent) and first.card_agent is agent.card_agent  # no reset: shared
    mask = np.ones(5, dtype=np.int8)
    assert [first.role_agent.act(NO_OBSERVATION, mask) for _ in range(8)] == \
           [second.role_agent.act(NO_OBSERVATION, mask) for _ in range(8)]


@pytest.mark.parametrize("spec, message", [("roles", "needs the agent"), ("roles:roles:heuristic", "nests"),
                                           ("roles:nosuch", "unknown agent 'nosuch'")])
def test_bad_roles_specs_are_refused(spec, message):
    with pytest.raises(ValueError, match=message):
        make_agent(spec, WEIHAI, 0)
    with pytest.raises(ValueError, match=message):
        validate_specs([spec], WEIHAI)


# --- baohuang study roles -----------------------------------------------------------------
@pytest.fixture(scope="module")
def weihai_rates():
    return role_rates.role_rates_study(["heuristic", "heuristic:roles=none"], WEIHAI, WEIHAI_DEALS)


def test_the_counts_add_up(weihai_rates):
    for a in weihai_rates["agents"].values():
        assert a["games"] == len(WEIHAI_DEALS) * NUM_SEATS
        assert a["prompts"] == sum(k["offered"] for k in a["kinds"].values()) > 0
        for kind in a["kinds"].values():
            assert sum(c["taken"] for c in kind["classes"].values()) == kind["offered"]
            assert all(c["taken"] <= c["offered"] <= kind["offered"] for c in kind["classes"].values())
            assert sum(c["share"] for c in kind["classes"].values()) == pytest.approx(1.0)
        for r in a["options"].values():
            assert 0 <= r["taken"] <= r["offered"] <= a["prompts"]
            if r["offered"]:
                assert r["low"] <= r["rate"] <= r["high"]


def test_the_fitted_models_grab_and_kick_and_the_defaults_never_do(weihai_rates):
    fitted, defaults = (weihai_rates["agents"][s]["options"] for s in ("heuristic", "heuristic:roles=none"))
    assert fitted["grab"]["taken"] > 0 and fitted["kick"]["taken"] > 0
    for option in ("grab", "rebel", "kick"):
        assert defaults[option]["taken"] == 0
    assert defaults["grab"]["offered"] > 0 and defaults["rebel"]["offered"] > 0 and defaults["kick"]["offered"] > 0
    # the role answers of the heuristic in a roles agent: the heuristic's own rates
    again = role_rates.role_rates_study(["roles:heuristic"], WEIHAI, WEIHAI_DEALS)["agents"]["roles:heuristic"]
    assert json_safe(again) == json_safe(weihai_rates["agents"]["heuristic"])
    assert "| kick |" in role_rates.to_markdown(weihai_rates)
    assert role_rates.plot(weihai_rates)[:4] == b"\x89PNG"


def test_the_counts_do_not_depend_on_chunks_or_workers(weihai_rates):
    rules = get_rules("lianzhong_classic")
    whole = role_rates.rates_chunk("random", "heuristic", rules.to_dict(), WEIHAI_DEALS)
    parts = sum((role_rates.rates_chunk("random", "heuristic", rules.to_dict(), WEIHAI_DEALS[k:k + 2])
                 for k in range(0, len(WEIHAI_DEALS), 2)), Counter())
    assert +whole == parts and whole["prompts", "call"] > 0 and whole["option offered", "call"] > 0
    two = role_rates.role_rates_study(["heuristic", "heuristic:roles=none"], WEIHAI, WEIHAI_DEALS, workers=2)
    assert json.dumps(json_safe(two)) == json.dumps(json_safe(weihai_rates))


def test_the_command_writes_the_report(tmp_path, capsys):
    out = tmp_path / "roles"
    assert cli_main(["study", "roles", "--agents", "heuristic", "heuristic:roles=none", "--preset", "weihai",
                     "--deals", "3", "--deal-seed", "1000", "--workers", "1", "--out", str(out)]) == 0
    data = json.loads((out / "report.json").read_text())
    assert data["study"] == "roles" and data["opponent"] == "heuristic" and data["deals"] == 3
    grab = data["agents"]["heuristic:roles=none"]["options"]["grab"]
    assert grab["offered"] > 0 and grab["taken"] == 0
    assert (out / "report.png").read_bytes()[:4] == b"\x89PNG" and "| grab |" in (out / "report.md").read_text()
    assert cli_main(["study", "roles", "--agents", "roles:nosuch", "--deals", "2", "--out", str(tmp_path / "b")]) == 2
    assert "nosuch" in capsys.readouterr().err and not (tmp_path / "b").exists()
