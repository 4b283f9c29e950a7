"""Evaluation games played at once (`baohuang_eval.play.play_games`) are the games played one at
a time: the same moves in every game, so the same records, for bots that read the observation
and bots that read only the mask, agents with and without `reset`, the seat and the team
protocol, an in-process agent object, and batches small enough to refill their rows."""

from __future__ import annotations

import pytest

from agents import RandomAgent
from baohuang_env.agent import NO_OBSERVATION, make_agent
from baohuang_env.cards import NUM_SEATS
from baohuang_env.encoding import Encoder
from baohuang_env.game import ROLE, Game
from baohuang_env.roles import side_of
from baohuang_env.rules import get_rules
from baohuang_eval import SEAT, TEAM, agent_seed, evaluate_against, evaluate_pair
from baohuang_eval.play import ObjectSeats, SpecSeats, Table, play_games
from baohuang_eval.seat import GameRecord, pair_schedule
from baohuang_eval.team import TeamRecord

DEALS = [1_000_000, 1_000_001, 1_000_002]


class _OneAtATime:
    """The agents of one spec as evaluation built them before games were batched: one per seat,
    reset before each game (rebuilt when it cannot reset)."""

    def __init__(self, spec, rules):
        self.spec, self.rules, self.agents = spec, rules, {}

    def get(self, seat, seed):
        agent = self.agents.get(seat)
        if agent is None or not hasattr(agent, "reset"):
            agent = self.agents[seat] = make_agent(self.spec, self.rules, seed)
        if hasattr(agent, "reset"):
            agent.reset(seed)
        return agent


def _play_alone(game: Game, agents, encoder: Encoder) -> Game:
    """One game to its end on the scalar Game, every move encoded for the agents that read it."""
    while not game.is_over:
        seat = game.current_player
        obs = encoder.encode(game, seat) if agents[seat].uses_observation else NO_OBSERVATION
        game.step(int(agents[seat].act(obs, game.legal_mask())))
    return game


def _seat_records_alone(rules, a, b, seats_a, seats_b, deals) -> list[GameRecord]:
    encoder, records = Encoder(rules), []
    for deal, focal, comp in pair_schedule(deals):
        focal_seats, other_seats = (seats_a, seats_b) if comp == "A" else (seats_b, seats_a)
        names = (a, b) if comp == "A" else (b, a)
        agents = [(focal_seats if q == focal else other_seats).get(q, agent_seed(deal, focal, comp, q))
                  for q in range(NUM_SEATS)]
        res = _play_alone(Game(rules, seed=deal), agents, encoder).result
        role = res.roles[focal]
        records.append(GameRecord(*names, deal, focal, comp, role, side_of(role), res.places[focal],
                                  int(res.scores[focal])))
    return records


@pytest.mark.parametrize(("preset", "a", "b"), [("jj", "heuristic", "random"), ("jj", "greedy", "autoplay"),
                                                ("lianzhong_classic", "autoplay", "heuristic")])
def test_seat_games_at_once_are_the_games_one_at_a_time(preset, a, b):
    rules = get_rules(preset)
    alone = _seat_records_alone(rules, a, b, _OneAtATime(a, rules), _OneAtATime(b, rules), DEALS)
    together = SEAT.play_chunk(rules, a, b, SpecSeats(a, rules), SpecSeats(b, rules), DEALS, None)
    assert together == alone
    assert len({r.score for r in together}) > 1  # real games, not a constant


@pytest.mark.parametrize("preset", ["jj", "lianzhong_classic"])
def test_team_games_at_once_are_the_games_one_at_a_time(preset):
    rules = get_rules(preset)
    encoder, auto = Encoder(rules), make_agent("autoplay", rules)
    seats = {"greedy": _OneAtATime("greedy", rules), "random": _OneAtATime("random", rules)}
    alone = []
    for deal in DEALS:
        start = Game(rules, seed=deal)
        while start.phase == ROLE:
            start.step(auto.act(encoder.encode(start, start.current_player), start.legal_mask()))
        if start.is_over:
            continue
        side = (start.emperor, start.guard)
        for comp, (emp, reb) in zip("AB", [("greedy", "random"), ("random", "greedy")], strict=True):
            agents = [seats[emp if q in side else reb].get(q, agent_seed(deal, start.emperor, f"team-{comp}", q))
                      for q in range(NUM_SEATS)]
            res = _play_alone(start.copy(), agents, encoder).result
            alone.append(TeamRecord(emp, reb, deal, comp, start.emperor, start.guard, res.places[start.emperor],
                                    res.places[start.guard], int(res.scores[start.emperor])))
    together = TEAM.play_chunk(rules, "greedy", "random", SpecSeats("greedy", rules), SpecSeats("random", rules),
                               DEALS, None)
    assert together == alone and together


def test_an_object_with_reset_plays_each_game_as_it_did_alone():
    """evaluate_against: the one object holds four seats of a composition-B game and shares one
    RNG among them, reset for each seat in turn: as when it played game after game."""
    rules = get_rules("jj")

    class Shared:
        def __init__(self):
            self.agent = RandomAgent(0)

        def get(self, seat, seed):
            self.agent.reset(seed)
            return self.agent

    alone = _seat_records_alone(rules, "live", "heuristic", Shared(), _OneAtATime("heuristic", rules), DEALS[:2])
    res = evaluate_against(RandomAgent(0), "heuristic", rules, DEALS[:2], name="live")
    assert res.records == alone
    # each game gets its own copy, shared by that game's seats
    seats = ObjectSeats(RandomAgent(0))
    seats.new_game()
    first = [seats.get(q, q) for q in range(2)]
    seats.new_game()
    assert first[0] is first[1] and seats.get(0, 0) is not first[0]


def test_refilled_rows_play_the_same_games():
    rules = get_rules("jj")
    seats = SpecSeats("random", rules)

    def tables():
        for deal in range(1_000_000, 1_000_011):
            agents = [seats.get(q, agent_seed(deal, 0, "A", q)) for q in range(NUM_SEATS)]
            yield Table(deal, agents, ["random"] * NUM_SEATS, f"deal {deal}")

    wide = play_games(rules, tables(), records=True)
    narrow = play_games(rules, tables(), records=True, rows=3)  # 11 games through 3 rows
    assert [p.record for p in narrow] == [p.record for p in wide]
    assert [p.record["seed"] for p in wide] == list(range(1_000_000, 1_000_011))


def test_results_pinned_from_the_games_played_one_at_a_time():
    """Scores that evaluation gave before its games were batched (the same seeds)."""
    seat = evaluate_pair("heuristic", "random", get_rules("jj"), [1_000_000, 1_000_001])
    assert [r.score for r in seat.records] == [0, 1, 3, -1, 6, -1, 0, -3, 4, -4, 1, 1, 1, -3, 12, -2, 6, -1, 1, 1]
    team = evaluate_pair("greedy", "random", get_rules("lianzhong_classic"), range(1_000_000, 1_000_004),
                         protocol="team")
    assert [r.score for r in team.records] == [6, -6] * 4


def test_an_illegal_move_names_the_agent_and_the_game():
    rules = get_rules("jj")

    class Stubborn(RandomAgent):
        def act(self, observation, action_mask):
            return int(action_mask.argmin())  # an action the mask refuses

    agents = [RandomAgent(q) for q in range(NUM_SEATS - 1)] + [Stubborn(0)]
    names = ["random"] * (NUM_SEATS - 1) + ["stubborn"]
    with pytest.raises(ValueError, match=r"agent 'stubborn' chose an illegal action \(deal 7, a test\)"):
        play_games(rules, [Table(7, agents, names, "deal 7, a test")])
