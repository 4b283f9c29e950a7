"""`baohuang serve`'s JSON API in process (Starlette's TestClient): whole games, typed moves,
hints, the replay viewer's frames, and every refused request (4xx, a clear message, nothing
changed)."""

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
from baohuang_env.replay import MAX_PLAYER_CHARS, save_replay
from baohuang_env.rules import PRESETS
from baohuang_web.sessions import SessionStore

from helpers import ship_jj_agents_only
from web_helpers import SPECS, client_for, play_game, seeded_store, start_game


def test_options_list_the_presets_the_offered_opponents_and_the_hint_agent():
    data = client_for().get("/api/options").json()
    assert data["opponents"] == SPECS and data["hints"] == "greedy" and data["preset"] == "jj"
    assert "weihai" in data["presets"] and data["replays"] == []
    assert data["hint_presets"] == data["presets"]  # a scripted bot plays every preset
    assert data["preset_opponents"]["weihai"] == {"opponents": SPECS, "default": "greedy"}


def test_options_list_no_hint_presets_when_hints_are_off():
    assert client_for(seeded_store()).get("/api/options").json()["hint_presets"] == []


def test_hint_presets_are_exactly_the_presets_whose_games_get_hints():
    """The shipped DMC checkpoint plays jj only: the page offers its hints there alone, and
    a game of any other preset is refused hints (409)."""
    pytest.importorskip("torch")
    client = client_for(seeded_store(hint_spec="dmc:agents/pretrained/dmc_jj.pt"))
    options = client.get("/api/options").json()
    assert options["hint_presets"] == ["jj"]
    for preset in options["presets"]:
        game_id, headers, _ = start_game(client, preset, seat=0)
        _to_human_turn(client, game_id, headers)
        status = client.get(f"/api/games/{game_id}/hints", headers=headers).status_code
        assert status == (200 if preset in options["hint_presets"] else 409), preset


@pytest.fixture(params=["every preset", "jj only"])
def shipped_presets(request, monkeypatch) -> set[str]:
    """The presets with a shipped agent: as shipped (every preset), and with the agents of jj
    alone (`agents.pretrained.SHIPPED` cut down), which stands for a preset without one."""
    from agents import pretrained

    if request.param == "jj only":
        ship_jj_agents_only(monkeypatch)
    return {p.preset for p in pretrained.SHIPPED.values()}


def test_the_default_hints_fall_back_to_the_heuristic_where_no_agent_is_shipped(shipped_presets):
    """`pretrained,heuristic` (the serve default): in every preset a hint for a real decision,
    the shipped agent's Q values where one is shipped, the heuristic's choice elsewhere (with
    jj's agents alone), each answer naming the agent that gave it."""
    pytest.importorskip("torch")
    from baohuang_cli.serve_cmd import DEFAULT_HINTS

    client = client_for(seeded_store(hint_spec=DEFAULT_HINTS))
    options = client.get("/api/options").json()
    assert options["presets"] == list(PRESETS) and options["hint_presets"] == options["presets"]
    assert "jj" in shipped_presets
    for preset in PRESETS:
        game_id, headers, _ = start_game(client, preset, seat=0)
        view = _to_human_turn(client, game_id, headers)
        while len(view["moves"]) == 1:  # a forced move is no real decision: play it
            client.post(f"/api/games/{game_id}/action", headers=headers, json={"action": view["moves"][0]["id"]})
            view = _to_human_turn(client, game_id, headers)
        hint = client.get(f"/api/games/{game_id}/hints", headers=headers).json()
        shipped = preset in shipped_presets
        assert hint["agent"] == ("pretrained" if shipped else "heuristic"), preset
        assert hint["kind"] == ("values" if shipped else "choice") and hint["moves"], preset
        assert {m["id"] for m in hint["moves"]} <= {m["id"] for m in view["moves"]}, preset


#: The default opponents of `baohuang serve` (serve_cmd.DEFAULT_OPPONENTS), without autoplay.
PREFERRING_SHIPPED = ["pretrained", "heuristic", "greedy", "random"]


def test_options_offer_in_each_preset_the_opponents_that_play_it_the_shipped_agent_first(shipped_presets):
    """`pretrained` plays only a preset with a shipped agent: there it is offered and the
    default; elsewhere (with jj's agents alone) the page is not offered it and the heuristic is
    the default."""
    pytest.importorskip("torch")
    options = client_for(SessionStore(PREFERRING_SHIPPED, seed=1)).get("/api/options").json()
    assert options["opponents"] == PREFERRING_SHIPPED
    assert set(options["preset_opponents"]) == set(PRESETS)
    for preset, offered in options["preset_opponents"].items():
        if preset in shipped_presets:
            assert offered == {"opponents": PREFERRING_SHIPPED, "default": "pretrained"}, preset
        else:
            assert offered == {"opponents": PREFERRING_SHIPPED[1:], "default": "heuristic"}, preset
    assert options["preset_opponents"]["jj"]["default"] == "pretrained"


def test_options_offer_an_explicit_list_as_given_where_it_plays():
    """Bots play every preset: each preset offers the whole list, its first entry the default.
    A checkpoint is offered only in its own preset; a preset that no offered spec plays has
    no default, and a game of it without opponents is refused."""
    options = client_for().get("/api/options").json()
    assert options["preset_opponents"] == {p: {"opponents": SPECS, "default": SPECS[0]} for p in PRESETS}
    pytest.importorskip("torch")
    store = SessionStore(["dmc:agents/pretrained/dmc_jj.pt"], seed=1)
    client = client_for(store)
    by_preset = client.get("/api/options").json()["preset_opponents"]
    assert by_preset["jj"] == {"opponents": ["dmc:agents/pretrained/dmc_jj.pt"],
                               "default": "dmc:agents/pretrained/dmc_jj.pt"}
    assert by_preset["weihai"] == {"opponents": [], "default": None}
    r = client.post("/api/games", json={"preset": "weihai"})
    assert r.status_code == 400 and "no opponent offered by this server plays preset 'weihai'" in r.json()["error"]
    assert len(store) == 0


def test_a_new_game_without_opponents_plays_the_presets_default_in_every_seat(shipped_presets):
    pytest.importorskip("torch")
    store = SessionStore(PREFERRING_SHIPPED, seed=1)
    client = client_for(store)
    for preset in ("jj", "weihai", "generic216"):
        r = client.post("/api/games", json={"preset": preset, "seat": 2})
        assert r.status_code == 201, r.text
        expected = "pretrained" if preset in shipped_presets else "heuristic"
        assert store._games[r.json()["game_id"]].specs == {s: expected for s in (0, 1, 3, 4)}, preset
    if "weihai" not in shipped_presets:  # an offered opponent that cannot play the preset is still refused
        r = client.post("/api/games", json={"preset": "weihai", "opponents": "pretrained"})
        assert r.status_code == 400 and "cannot play preset 'weihai'" in r.json()["error"]


def test_a_seeded_store_deals_the_same_games_on_every_run_and_a_default_one_does_not():
    def seeds(store: SessionStore) -> list[int]:
        client = client_for(store)
        ids = [start_game(client, seat=s)[0] for s in range(3)]
        return [store._games[i].game.seed for i in ids]

    first = seeds(SessionStore(SPECS, seed=7))
    assert first == seeds(SessionStore(SPECS, seed=7)) and len(set(first)) == 3
    assert first != seeds(SessionStore(SPECS, seed=8))
    assert set(seeds(SessionStore(SPECS))).isdisjoint(seeds(SessionStore(SPECS)))  # fresh entropy per game


def test_the_pages_and_their_scripts_are_served():
    client = client_for()
    for path, needle in [("/", "game.js"), ("/replay", "replay.js"), ("/static/game.js", "X-Player-Token"),
                         ("/static/replay.js", "/api/replays"), ("/static/common.js", "function tableNode"),
                         ("/static/style.css", ".card")]:
        r = client.get(path)
        assert r.status_code == 200 and needle in r.text, path


@pytest.mark.parametrize("preset", ["jj", "weihai", "qingdao", "generic216"])
def test_a_whole_game_through_the_api_ends_with_the_result_and_a_replay_that_reproduces_it(preset):
    client = client_for()
    game_id, headers, view = start_game(client, preset, seat=3, opponents=["greedy", "random", "heuristic", "random"])
    assert [row["name"] for row in view["seats"]] == ["greedy", "random", "heuristic", "you", "random"]
    human_moves = []

    def check(v: dict) -> None:
        if v["your_turn"]:
            assert v["moves"] and v["hint_text"]
            human_moves.append(len(v["moves"]))
        else:
            assert v["moves"] == []

    final = play_game(client, game_id, headers, view, random.Random(1), check)
    assert human_moves, "the human never moved"
    result = final["result"]
    assert [row["seat"] for row in result["rows"]] == list(range(NUM_SEATS))
    record = client.get(f"/api/games/{game_id}/replay", headers=headers).json()
    game = Game.from_replay(record)
    assert game.is_over and [r["score"] for r in result["rows"]] == game.result.scores
    assert final["event_count"] == len(game.log)


def test_the_log_is_sent_from_since_on():
    client = client_for()
    game_id, headers, _ = start_game(client)
    full = client.post(f"/api/games/{game_id}/advance", headers=headers, json={}).json()
    tail = client.get(f"/api/games/{game_id}?since=2", headers=headers).json()
    assert tail["events"] == full["events"][2:] and len(full["events"]) == full["event_count"]


def _to_human_turn(client, game_id, headers, phase=None, max_requests=400):
    """Advance (playing the first legal move for the human) until it is the human's turn in `phase`."""
    view = client.get(f"/api/games/{game_id}", headers=headers).json()
    for _ in range(max_requests):
        if view["your_turn"] and (phase is None or view["phase"] == phase):
            return view
        if view["over"]:
            return None
        if view["your_turn"]:
            view = client.post(f"/api/games/{game_id}/action", headers=headers,
                               json={"action": view["moves"][0]["id"]}).json()
        else:
            view = client.post(f"/api/games/{game_id}/advance", headers=headers, json={}).json()
    raise AssertionError("no turn of the human")


def test_typed_moves_card_notation_pass_and_decision_names_are_understood():
    client = client_for()
    game_id, headers, view = start_game(client, seat=1)
    view = _to_human_turn(client, game_id, headers, phase="role")
    decision = view["moves"][0]
    name = {"no (nothing to declare)": "NO"}.get(decision["label"], decision["label"])
    after = client.post(f"/api/games/{game_id}/action", headers=headers, json={"move": name.lower()})
    assert after.status_code == 200, after.text
    view = _to_human_turn(client, game_id, headers, phase="play")
    play = next(m for m in view["moves"] if m["kind"] == "play")
    r = client.post(f"/api/games/{game_id}/action", headers=headers, json={"move": " " + play["label"] + " "})
    assert r.status_code == 200, r.text
    assert f"seat 1 plays {play['label']}" in r.json()["events"][-1] or any(
        f"seat 1 plays {play['label']}" in e for e in r.json()["events"])


def test_hints_show_an_agents_choice_from_the_seats_view():
    store = seeded_store(hint_spec="heuristic")
    client = client_for(store)
    game_id, headers, _ = start_game(client, seat=2)
    view = _to_human_turn(client, game_id, headers, phase="play")
    hint = client.get(f"/api/games/{game_id}/hints", headers=headers).json()
    game = store._games[game_id].game
    rules = game.rules
    expected = make_agent("heuristic", rules).act(Encoder(rules).encode(game, 2), game.legal_mask())
    assert hint["kind"] == "choice" and hint["choice"] == expected and hint["agent"] == "heuristic"
    assert hint["moves"][0]["label"] in [m["label"] for m in view["moves"]]


def test_dmc_hints_list_the_top_moves_with_their_q_values_best_first():
    pytest.importorskip("torch")
    store = seeded_store(hint_spec="dmc:agents/pretrained/dmc_jj.pt")
    client = client_for(store)
    game_id, headers, _ = start_game(client, seat=0)
    view = _to_human_turn(client, game_id, headers, phase="play")
    hint = client.get(f"/api/games/{game_id}/hints", headers=headers).json()
    values = [m["value"] for m in hint["moves"]]
    assert hint["kind"] == "values" and hint["value_name"].startswith("Q")
    assert values == sorted(values, reverse=True) and len(values) == min(5, len(view["moves"]))
    assert {m["id"] for m in hint["moves"]} <= {m["id"] for m in view["moves"]}
    assert hint["choice"] == hint["moves"][0]["id"]


def _refusals(client, game_id, headers, other_headers):
    """(request, expected status, words of the message) for one game at the human's turn."""
    url = f"/api/games/{game_id}"
    return [
        (lambda: client.get(url, headers={"X-Player-Token": "guess"}), 403, "token"),
        (lambda: client.get(url), 403, "token"),
        (lambda: client.get(url, headers=other_headers), 403, "token"),
        (lambda: client.post(f"{url}/action", headers=other_headers, json={"action": 1}), 403, "token"),
        (lambda: client.get("/api/games/no-such-game", headers=headers), 404, "no such game"),
        (lambda: client.post(f"{url}/action", headers=headers, content=b"{not json"), 400, "JSON"),
        (lambda: client.post(f"{url}/action", headers=headers, json=[1]), 400, "JSON object"),
        (lambda: client.post(f"{url}/action", headers=headers, json={}), 400, "exactly one"),
        (lambda: client.post(f"{url}/action", headers=headers, json={"action": "1"}), 400, "integer action id"),
        (lambda: client.post(f"{url}/action", headers=headers, json={"action": 1.0}), 400, "integer action id"),
        (lambda: client.post(f"{url}/action", headers=headers, json={"action": True}), 400, "integer action id"),
        (lambda: client.post(f"{url}/action", headers=headers, json={"action": 10**9}), 400, "illegal move"),
        (lambda: client.post(f"{url}/action", headers=headers, json={"move": "XYZ"}), 400, "cannot read"),
        (lambda: client.post(f"{url}/action", headers=headers, json={"move": "6x16+BJ"}), 400, "cannot play"),
        (lambda: client.post(f"{url}/action", headers=headers, json={"move": 5}), 400, "text"),
        (lambda: client.post(f"{url}/action", headers=headers, json={"move": "GRAB"}), 400, "not a choice"),
        (lambda: client.post(f"{url}/advance", headers=headers, json={"steps": 0}), 400, "steps"),
        (lambda: client.post(f"{url}/advance", headers=headers, json={"steps": "x"}), 400, "steps"),
        (lambda: client.get(f"{url}/replay", headers=headers), 409, "once the game is over"),
        (lambda: client.get(f"{url}?since=-1", headers=headers), 400, "since"),
    ]


def test_refused_requests_get_a_4xx_with_a_clear_message_and_change_nothing():
    store = seeded_store(hint_spec="greedy")
    client = client_for(store)
    game_id, headers, _ = start_game(client, seat=0)
    _, other_headers, _ = start_game(client, seat=0)
    _to_human_turn(client, game_id, headers, phase="play")
    game = store._games[game_id].game
    before = (json.dumps(client.get(f"/api/games/{game_id}", headers=headers).json()), list(game.actions))
    for request, status, words in _refusals(client, game_id, headers, other_headers):
        r = request()
        assert r.status_code == status, (words, r.text)
        assert words.lower() in r.json()["error"].lower(), (words, r.json())
        after = (json.dumps(client.get(f"/api/games/{game_id}", headers=headers).json()), list(game.actions))
        assert after == before, f"a refused request ({words}) changed the game"


def test_acting_out_of_turn_is_refused_and_changes_nothing():
    store = seeded_store()
    client = client_for(store)
    for seat in range(NUM_SEATS):  # a seat that is not to act first
        game_id, headers, view = start_game(client, seat=seat)
        if not view["your_turn"]:
            break
    game = store._games[game_id].game
    actions = list(game.actions)
    r = client.post(f"/api/games/{game_id}/action", headers=headers, json={"action": 0})
    assert r.status_code == 409 and "not your turn" in r.json()["error"]
    assert game.actions == actions
    assert client.get(f"/api/games/{game_id}/hints", headers=headers).status_code == 409


@pytest.mark.parametrize("body, words", [
    ({"preset": "nope"}, "unknown preset"),
    ({"seat": 5}, "seat must be"),
    ({"seat": "1"}, "seat must be"),
    ({"opponents": "dmc:/etc/passwd"}, "not offered"),
    ({"opponents": ["greedy"]}, "list of 4"),
])
def test_a_new_game_with_bad_settings_is_refused(body, words):
    store = seeded_store()
    r = client_for(store).post("/api/games", json=body)
    assert r.status_code == 400 and words in r.json()["error"]
    assert len(store) == 0


def test_an_oversized_body_is_refused():
    r = client_for().post("/api/replays/view", content=b" " * 1_000_001)
    assert r.status_code == 413


def test_the_store_keeps_at_most_max_games_and_drops_the_least_recently_used():
    store = seeded_store(max_games=2)
    client = client_for(store)
    first, h1, _ = start_game(client)
    second, h2, _ = start_game(client)
    client.get(f"/api/games/{first}", headers=h1)  # the first is now the more recently used
    start_game(client)
    assert client.get(f"/api/games/{second}", headers=h2).status_code == 404
    assert client.get(f"/api/games/{first}", headers=h1).status_code == 200


def _finished_replay(seed: int = 4) -> dict:
    rules = get_rules("jj")
    game, bot, enc = Game(rules, seed=seed), make_agent("greedy", rules), Encoder(rules)
    while not game.is_over:
        game.step(bot.act(enc.encode(game, game.current_player), game.legal_mask()))
    return game.to_replay()


def test_replay_frames_step_through_the_game_in_the_chosen_view():
    record = _finished_replay()
    client = client_for()
    spectator = client.post("/api/replays/view?view=spectator", json=record).json()
    seat = client.post("/api/replays/view?view=2", json=record).json()
    n = len(record["actions"])
    assert spectator["actions"] == n and len(spectator["frames"]) == len(seat["frames"]) == n + 1
    assert all("hand" in row for row in spectator["frames"][0]["seats"])
    first = seat["frames"][1]
    assert not any("hand" in row for row in first["seats"])
    assert first["hand"] and first["own_role"]
    assert seat["frames"][-1]["result"]["rows"] and seat["frames"][-1]["over"]
    events = [e for f in spectator["frames"] for e in f["events"]]
    assert any(e.startswith("roles fixed: seat") for e in events)
    assert spectator["frames"][1]["action"] in ("accept the throne (登基)", "abdicate (让位)")  # words, not ids
    assert sum(len(f["events"]) for f in spectator["frames"]) == len(Game.from_replay(record).log)


@pytest.mark.parametrize("record, words", [
    ([1, 2], "JSON object"),
    ({"format": "baohuang-replay"}, "missing the field(s) rules, seed, actions"),
    ({"format": "baohuang-replay", "actions": [], "rules": {}, "seed": 1, "version": 0}, "not a valid replay"),
    ("not json", "JSON"),
])
def test_a_bad_replay_is_refused_with_what_is_wrong(record, words):
    client = client_for()
    if isinstance(record, str):
        r = client.post("/api/replays/view", content=record.encode())
    else:
        r = client.post("/api/replays/view", json=record)
    assert r.status_code == 400 and words in r.json()["error"]


def test_a_replay_that_does_not_reproduce_its_result_is_refused():
    record = _finished_replay()
    record["result"]["scores"] = [9, 9, 9, 9, 9]
    r = client_for().post("/api/replays/view", json=record)
    assert r.status_code == 400 and "does not reproduce" in r.json()["error"]
    assert client_for().post("/api/replays/view?view=7", json=_finished_replay()).status_code == 400


def test_replay_files_given_to_the_server_are_listed_and_served(tmp_path):
    rules = get_rules("jj")
    game = Game.from_replay(_finished_replay(seed=9))
    (tmp_path / "more").mkdir()
    save_replay(game, tmp_path / "more" / "b.json")
    save_replay(Game(rules, seed=1), tmp_path / "a.json")
    client = client_for(replays=[str(tmp_path / "a.json"), str(tmp_path / "more")])
    assert client.get("/api/replays").json()["replays"] == ["a.json", "b.json"]
    frames = client.get("/api/replays/1?view=0").json()
    assert frames["name"] == "b.json" and len(frames["frames"]) == len(game.actions) + 1
    assert client.get("/api/replays/2").status_code == 404
    with pytest.raises(ValueError, match="neither a replay file nor a folder"):
        client_for(replays=[str(tmp_path / "missing.json")])


def test_a_games_replay_names_its_players_and_the_viewer_shows_them():
    """The page's saved replay records who played each seat ("you" for the person), the
    viewer's frames carry those names, and a record from before the field still loads."""
    client = client_for()
    game_id, headers, view = start_game(client, seat=1, opponents=["greedy", "random", "heuristic", "greedy"])
    play_game(client, game_id, headers, view, random.Random(5))
    record = client.get(f"/api/games/{game_id}/replay", headers=headers).json()
    assert record["players"] == ["greedy", "you", "random", "heuristic", "greedy"]
    frames = client.post("/api/replays/view?view=1", json=record).json()
    assert frames["players"] == record["players"]
    assert [row["name"] for row in frames["frames"][-1]["seats"]] == record["players"]

    old = {k: v for k, v in record.items() if k != "players"}
    frames = client.post("/api/replays/view", json=old).json()
    assert frames["players"] is None and frames["frames"][-1]["over"]


@pytest.mark.parametrize("players", [["you"] * 4, "you", ["you", 1, "a", "b", "c"], ["", "a", "b", "c", "d"],
                                     ["x" * (MAX_PLAYER_CHARS + 1), "a", "b", "c", "d"]])
def test_a_replay_with_wrong_players_is_refused(players):
    r = client_for().post("/api/replays/view", json={**_finished_replay(), "players": players})
    assert r.status_code == 400 and '"players" is a list of 5 names' in r.json()["error"]
