"""`baohuang serve` is safe: a player's payloads hold only what its seat may know, and one
player cannot act in or read another game.

Two kinds of check. Through the HTTP API, whole games with every payload checked: no other
seat's hand, no hidden guard, no seed (the seed is the whole deal) before the end. And
indistinguishable twins: two deals that differ only in what the human cannot see (two other
seats' hands swapped, and with them the guard card) must give byte-identical payloads and
hints as long as the public story is the same.
"""

from __future__ import annotations

import json
import random

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx2")

from baohuang_env import Game, get_rules
from baohuang_env.agent import make_agent
from baohuang_env.cards import NUM_SEATS
from baohuang_env.encoding import Encoder
from baohuang_env.game import IllegalActionError
from baohuang_env.text import hand_text
from baohuang_web.sessions import GameSession, SessionStore, step_logged
from baohuang_web.views import VIEW_KEYS, card_list

from web_helpers import client_for, play_game, seeded_store, start_game


def _leak_checker(store: SessionStore, game_id: str, seat: int, seen: dict):
    """A check for every payload of one game: only the seat's own hand, no hidden guard,
    no seed, before the end. `seen` counts what was checked."""
    session = store._games[game_id]

    def check(view: dict) -> None:
        game = session.game
        text = json.dumps(view, ensure_ascii=False)
        assert set(view) == VIEW_KEYS
        assert view["hand"] == card_list(game, seat)
        if game.is_over:
            return
        seen["payloads"] += 1
        assert str(game.seed) not in text, "the seed (the whole deal) is sent before the end"
        for s in range(NUM_SEATS):
            row = view["seats"][s]
            if s == seat:
                continue
            assert "hand" not in row
            assert "guard card" not in " ".join(row["marks"])
            other = hand_text(game, s)
            if len(other.split()) >= 3:  # short hands ("K") may match by chance
                assert other not in text, f"seat {s}'s hand is in seat {seat}'s payload"
        g = game.guard
        if g >= 0 and g not in (seat, game.emperor) and game.public_guard < 0:
            seen["hidden_guard"] += 1
            assert view["seats"][g]["role"] == "?", "the hidden guard is named"

    return check


@pytest.mark.parametrize("preset", ["jj", "lianzhong_classic"])
def test_no_payload_of_a_whole_game_shows_another_seats_cards_the_hidden_guard_or_the_seed(preset):
    store = seeded_store(hint_spec="greedy")
    client = client_for(store)
    rng = random.Random(5)
    seen = {"payloads": 0, "hidden_guard": 0}
    for seat in range(NUM_SEATS):
        game_id, headers, view = start_game(client, preset, seat, ["greedy", "random", "heuristic", "greedy"])
        final = play_game(client, game_id, headers, view, rng, _leak_checker(store, game_id, seat, seen))
        assert final["result"] is not None
        # at the end everything is public: every hand and every role
        assert all("hand" in row for row in final["seats"])
    assert seen["payloads"] > 100
    assert seen["hidden_guard"] > 0, "no payload was checked while a guard was hidden"


def _twin(game: Game, seat: int) -> tuple[Game, tuple[int, int]] | None:
    """A deal the human at `seat` cannot tell from `game`'s: two other seats with as many
    cards, neither holding the emperor card, swap their hands (the guard card goes with
    its hand). Prefers a pair that moves the guard card. None when no pair fits."""
    left, e, g = game.cards_left, game.emperor_card_seat, game.guard_card_seat
    pairs = [(a, b) for a in range(NUM_SEATS) for b in range(a + 1, NUM_SEATS)
             if seat not in (a, b) and e not in (a, b) and left[a] == left[b]]
    if not pairs:
        return None
    a, b = max(pairs, key=lambda p: g in p)
    hands = [list(h) for h in game.hands]
    hands[a], hands[b] = hands[b], hands[a]
    twin_guard = {a: b, b: a}.get(g, g)
    return Game.from_deal(hands, e, twin_guard, game.rules), (a, b)


def _session(game: Game, seat: int) -> GameSession:
    specs = {s: "greedy" for s in range(NUM_SEATS) if s != seat}
    return GameSession(game, seat, specs, {}, Encoder(game.rules))


@pytest.mark.parametrize("seat", range(NUM_SEATS))
def test_deals_a_seat_cannot_tell_apart_give_it_identical_payloads_and_hints(seat):
    rules = get_rules("jj")
    bots = [make_agent("greedy", rules) for _ in range(NUM_SEATS)]
    hinters = [make_agent("greedy", rules), make_agent("heuristic", rules)]
    encoder = Encoder(rules)
    compared = differing_hidden = 0
    for seed in range(40 + 10 * seat, 46 + 10 * seat):
        game = Game(rules, seed=seed)
        made = _twin(game, seat)
        if made is None:
            continue
        twin, (a, _) = made
        assert game.hands[a] != twin.hands[a]
        one, two = _session(game, seat), _session(twin, seat)
        while not game.is_over:
            if game.log[1:] != twin.log[1:]:  # the public story differs from here on
                break
            if game.current_player == seat:
                v1, v2 = one.view(), two.view()
                assert json.dumps(v1, ensure_ascii=False) == json.dumps(v2, ensure_ascii=False)
                for agent in hinters:
                    assert one.hint(agent) == two.hint(agent)
                compared += 1
                differing_hidden += game.guard != twin.guard or game.hands[a] != twin.hands[a]
            p = game.current_player
            action = bots[p].act(encoder.encode(game, p), game.legal_mask())
            step_logged(game, action, one.steps)
            try:
                step_logged(twin, action, two.steps)
            except IllegalActionError:  # the other hand cannot make this play: the twins part
                break
    assert compared >= 5
    assert differing_hidden == compared


def test_a_dmc_hint_is_the_same_for_deals_the_seat_cannot_tell_apart():
    torch = pytest.importorskip("torch")  # noqa: F841
    rules = get_rules("jj")
    agent = make_agent("dmc:agents/pretrained/dmc_jj.pt", rules)
    game = Game(rules, seed=11)
    seat = next(s for s in range(NUM_SEATS) if _twin(game, s) is not None)
    twin, _ = _twin(game, seat)
    one, two = _session(game, seat), _session(twin, seat)
    encoder, bot = Encoder(rules), make_agent("greedy", rules)
    while game.current_player != seat or game.phase == "role":
        action = bot.act(encoder.encode(game, game.current_player), game.legal_mask())
        step_logged(game, action, one.steps)
        step_logged(twin, action, two.steps)
    assert one.hint(agent) == two.hint(agent)
    assert one.hint(agent)["kind"] == "values"


def test_game_ids_and_player_tokens_are_long_random_and_never_repeat():
    client = client_for()
    made = [client.post("/api/games", json={"seat": 1}).json() for _ in range(20)]
    ids, tokens = [m["game_id"] for m in made], [m["token"] for m in made]
    assert len(set(ids)) == len(set(tokens)) == 20 and not set(ids) & set(tokens)
    assert min(map(len, ids)) >= 22 and min(map(len, tokens)) >= 32  # 128 and 192 random bits
    # one game's token opens no other game
    r = client.get(f"/api/games/{ids[1]}", headers={"X-Player-Token": tokens[0]})
    assert r.status_code == 403
