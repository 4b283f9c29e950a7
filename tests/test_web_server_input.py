"""`baohuang serve` under malformed input, through real HTTP requests (Starlette's
TestClient): every request with a field of the wrong type, out of range, unknown, or a body
that is not the JSON the endpoint reads gets a 4xx and a JSON `{"error": ...}` saying what
was wrong, and changes no stored game."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx2")

from baohuang_env import Game, get_rules
from baohuang_env.agent import make_agent
from baohuang_env.encoding import Encoder

from web_helpers import client_for, seeded_store, start_game

DEEP = b"[" * 100_000 + b"]" * 100_000


def _finished(preset: str = "jj", seed: int = 4) -> dict[str, Any]:
    """A replay record of a whole greedy game."""
    rules = get_rules(preset)
    game, bot, enc = Game(rules, seed=seed), make_agent("greedy", rules), Encoder(rules)
    while not game.is_over:
        game.step(bot.act(enc.encode(game, game.current_player), game.legal_mask()))
    return game.to_replay()


def _dealt(preset: str, seed: int = 4) -> dict[str, Any]:
    """A replay record (no actions yet) of a hand-built deal: the deal of seed `seed`."""
    rules, game = get_rules(preset), Game(get_rules(preset), seed=seed)
    if rules.suits_matter:
        return Game.from_deal(None, game.emperor_card_seat, -1, rules, suits=game.suits).to_replay()
    return Game.from_deal(game.hands, game.emperor_card_seat, game.guard_card_seat, rules).to_replay()


RECORD = _finished()
DEALT = _dealt("jj")
CALLING = _dealt("lianzhong_classic")


#: `_with`'s value for "remove the field".
DELETE = object()


def _with(record: dict[str, Any], path: tuple, value: Any) -> bytes:
    """`record` as JSON with the field at `path` (keys and indices) set to `value`, or
    removed when `value` is DELETE."""
    changed = copy.deepcopy(record)
    *parents, last = path
    target = changed
    for key in parents:
        target = target[key]
    if value is DELETE:
        del target[last]
    else:
        target[last] = value
    return json.dumps(changed).encode()


def _raw(record: dict[str, Any], path: tuple, literal: str) -> bytes:
    """`record` as JSON with the field at `path` written as the JSON text `literal`
    (1e400, NaN: numbers json.dumps would not write)."""
    return _with(record, path, "@@").replace(b'"@@"', literal.encode())


# (name, method, path, body bytes or None, words of the error message). In paths, {game}
# stands for a stored game's id; its token goes with every request.
CASES: list[tuple[str, str, str, bytes | None, str]] = [
    # new games
    ("preset list", "POST", "/api/games", b'{"preset": []}', "unknown preset"),
    ("preset object", "POST", "/api/games", b'{"preset": {}}', "unknown preset"),
    ("preset number", "POST", "/api/games", b'{"preset": 1}', "unknown preset"),
    ("preset null", "POST", "/api/games", b'{"preset": null}', "unknown preset"),
    ("seat bool", "POST", "/api/games", b'{"seat": true}', "seat must be an integer 0..4"),
    ("seat float", "POST", "/api/games", b'{"seat": 1.0}', "seat must be an integer 0..4"),
    ("seat string", "POST", "/api/games", b'{"seat": "1"}', "seat must be an integer 0..4"),
    ("seat negative", "POST", "/api/games", b'{"seat": -1}', "seat must be an integer 0..4"),
    ("seat null", "POST", "/api/games", b'{"seat": null}', "seat must be an integer 0..4"),
    ("seat 1e400", "POST", "/api/games", b'{"seat": 1e400}', "finite"),
    ("seat NaN", "POST", "/api/games", b'{"seat": NaN}', "finite"),
    ("seat Infinity", "POST", "/api/games", b'{"seat": -Infinity}', "finite"),
    ("seat of 5000 digits", "POST", "/api/games", b'{"seat": ' + b"9" * 5000 + b"}", "must be JSON"),
    ("opponents object", "POST", "/api/games", b'{"opponents": {"1": "greedy"}}', "opponents is one agent spec"),
    ("opponents numbers", "POST", "/api/games", b'{"opponents": [1, 2, 3, 4]}', "opponents is one agent spec"),
    ("opponents lists", "POST", "/api/games", b'{"opponents": [[], [], [], []]}', "opponents is one agent spec"),
    ("opponents three", "POST", "/api/games", b'{"opponents": ["greedy", "greedy", "greedy"]}', "list of 4"),
    ("opponents number", "POST", "/api/games", b'{"opponents": 5}', "opponents is one agent spec"),
    ("opponent not offered", "POST", "/api/games", b'{"opponents": "dmc:/etc/passwd"}', "not offered"),
    ("a seed from the page", "POST", "/api/games", b'{"seed": 1}', "unknown field"),
    ("a misspelt field", "POST", "/api/games", b'{"opponent": "greedy"}', "allowed: preset, seat, opponents"),
    ("a list body", "POST", "/api/games", b"[]", "JSON object"),
    ("a text body", "POST", "/api/games", b"preset=jj", "must be JSON"),
    ("not UTF-8", "POST", "/api/games", b'{"preset": "\xff"}', "must be JSON"),
    ("nested 100000 deep", "POST", "/api/games", DEEP, "more than 10 deep"),
    ("objects nested 11 deep", "POST", "/api/games", b'{"a": ' * 11 + b"1" + b"}" * 11, "more than 10 deep"),
    # one game
    ("since negative", "GET", "/api/games/{game}?since=-1", None, "since must be an integer"),
    ("since float", "GET", "/api/games/{game}?since=1.5", None, "since must be an integer"),
    ("since 1e400", "GET", "/api/games/{game}?since=1e400", None, "since must be an integer"),
    ("since word", "GET", "/api/games/{game}?since=True", None, "since must be an integer"),
    ("since underscored", "GET", "/api/games/{game}?since=1_0", None, "since must be an integer"),
    ("since of 5000 digits", "GET", "/api/games/{game}?since=" + "9" * 5000, None, "since must be an integer"),
    ("steps bool", "POST", "/api/games/{game}/advance", b'{"steps": true}', "steps must be an integer 1..500"),
    ("steps float", "POST", "/api/games/{game}/advance", b'{"steps": 1.5}', "steps must be an integer 1..500"),
    ("steps string", "POST", "/api/games/{game}/advance", b'{"steps": "1"}', "steps must be an integer 1..500"),
    ("steps zero", "POST", "/api/games/{game}/advance", b'{"steps": 0}', "steps must be an integer 1..500"),
    ("steps too many", "POST", "/api/games/{game}/advance", b'{"steps": 501}', "steps must be an integer 1..500"),
    ("steps null", "POST", "/api/games/{game}/advance", b'{"steps": null}', "steps must be an integer 1..500"),
    ("steps 1e400", "POST", "/api/games/{game}/advance", b'{"steps": 1e400}', "finite"),
    ("steps misspelt", "POST", "/api/games/{game}/advance", b'{"step": 1}', "unknown field"),
    ("advance deep", "POST", "/api/games/{game}/advance", DEEP, "deep"),
    ("action bool", "POST", "/api/games/{game}/action", b'{"action": true}', "integer action id"),
    ("action float", "POST", "/api/games/{game}/action", b'{"action": 1.0}', "integer action id"),
    ("action string", "POST", "/api/games/{game}/action", b'{"action": "1"}', "integer action id"),
    ("action list", "POST", "/api/games/{game}/action", b'{"action": [1]}', "integer action id"),
    ("action huge", "POST", "/api/games/{game}/action", b'{"action": ' + b"9" * 40 + b"}", "illegal move"),
    ("action 1e400", "POST", "/api/games/{game}/action", b'{"action": 1e400}', "finite"),
    ("move number", "POST", "/api/games/{game}/action", b'{"move": 5}', '"move" is text'),
    ("move too long", "POST", "/api/games/{game}/action", b'{"move": "' + b"8" * 201 + b'"}', "at most 200"),
    ("move and action", "POST", "/api/games/{game}/action", b'{"move": "pass", "action": 0}', "exactly one"),
    ("action misspelt", "POST", "/api/games/{game}/action", b'{"actoin": 0}', "allowed: action, move"),
    ("action deep", "POST", "/api/games/{game}/action", DEEP, "deep"),
    # a posted replay
    ("replay seed 1e400", "POST", "/api/replays/view", _raw(RECORD, ("seed",), "1e400"), "finite"),
    ("replay seed NaN", "POST", "/api/replays/view", _raw(RECORD, ("seed",), "NaN"), "finite"),
    ("replay seed negative", "POST", "/api/replays/view", _with(RECORD, ("seed",), -1), '"seed" must be an integer'),
    ("replay seed 2**63", "POST", "/api/replays/view", _with(RECORD, ("seed",), 2**63), '"seed" must be an integer'),
    ("replay seed huge", "POST", "/api/replays/view", _with(RECORD, ("seed",), 10**30), '"seed" must be an integer'),
    ("replay seed float", "POST", "/api/replays/view", _with(RECORD, ("seed",), 4.0), '"seed" must be an integer'),
    ("replay seed string", "POST", "/api/replays/view", _with(RECORD, ("seed",), "4"), '"seed" must be an integer'),
    ("replay seed bool", "POST", "/api/replays/view", _with(RECORD, ("seed",), True), '"seed" must be an integer'),
    ("replay seed null", "POST", "/api/replays/view", _with(RECORD, ("seed",), None), '"seed" must be an integer'),
    ("replay seed missing", "POST", "/api/replays/view", _with(RECORD, ("seed",), DELETE), "missing the field(s) seed"),
    ("replay actions object", "POST", "/api/replays/view", _with(RECORD, ("actions",), {}), '"actions" is a list'),
    ("replay actions too many", "POST", "/api/replays/view", _with(RECORD, ("actions",), [1] * 5001), "at most 5000"),
    ("replay action bool", "POST", "/api/replays/view", _with(RECORD, ("actions", 0), True), '"actions"[0] must be'),
    ("replay action float", "POST", "/api/replays/view", _with(RECORD, ("actions", 3), 1.0), '"actions"[3] must be'),
    ("replay action string", "POST", "/api/replays/view", _with(RECORD, ("actions", 0), "1"), '"actions"[0] must be'),
    ("replay action null", "POST", "/api/replays/view", _with(RECORD, ("actions", 0), None), '"actions"[0] must be'),
    ("replay action huge", "POST", "/api/replays/view", _with(RECORD, ("actions", 0), 10**30), '"actions"[0] must be'),
    ("replay action negative", "POST", "/api/replays/view", _with(RECORD, ("actions", 0), -1), '"actions"[0] must be'),
    ("replay action 1e400", "POST", "/api/replays/view", _raw(RECORD, ("actions", 0), "1e400"), "finite"),
    ("replay illegal action", "POST", "/api/replays/view", _with(RECORD, ("actions", 0), 5), "not a valid replay"),
    ("replay rules null", "POST", "/api/replays/view", _with(RECORD, ("rules",), None), '"rules" is an object'),
    ("replay rules text", "POST", "/api/replays/view", _with(RECORD, ("rules",), "jj"), '"rules" is an object'),
    ("replay rules list", "POST", "/api/replays/view", _with(RECORD, ("rules",), []), '"rules" is an object'),
    ("replay preset list", "POST", "/api/replays/view", _with(RECORD, ("rules", "preset"), []), "unknown preset"),
    ("replay preset unknown", "POST", "/api/replays/view", _with(RECORD, ("rules", "preset"), "x"), "unknown preset"),
    ("replay flag wrong", "POST", "/api/replays/view", _with(RECORD, ("rules", "hold_sixes"), "x"), "must be bool"),
    ("replay flag unknown", "POST", "/api/replays/view", _with(RECORD, ("rules", "x"), 1), "unknown rule flag"),
    ("replay role steps", "POST", "/api/replays/view", _with(RECORD, ("rules", "role_steps"), 5), "role_steps"),
    ("replay rules missing", "POST", "/api/replays/view", _with(RECORD, ("rules",), DELETE), "field(s) rules"),
    ("replay result list", "POST", "/api/replays/view", _with(RECORD, ("result",), []), '"result" is an object'),
    ("replay result wrong", "POST", "/api/replays/view", _with(RECORD, ("result", "scores"), {}), "does not reproduce"),
    ("replay format", "POST", "/api/replays/view", _with(RECORD, ("format",), []), "not a Baohuang replay"),
    ("replay version", "POST", "/api/replays/view", _with(RECORD, ("version",), "1"), "version"),
    ("replay unknown field", "POST", "/api/replays/view", _with(RECORD, ("extra",), 1), "unknown field"),
    ("replay a list", "POST", "/api/replays/view", b"[1, 2]", "JSON object"),
    ("replay deep", "POST", "/api/replays/view", DEEP, "more than 10 deep"),
    ("replay deep inside", "POST", "/api/replays/view", _raw(RECORD, ("result",), "[" * 20 + "]" * 20), "deep"),
    ("replay viewer", "POST", "/api/replays/view?view=7", json.dumps(RECORD).encode(), "view is 'spectator' or a seat"),
    # a posted replay's hand-built deal
    ("deal null", "POST", "/api/replays/view", _with(DEALT, ("deal",), None), '"deal" is an object'),
    ("deal list", "POST", "/api/replays/view", _with(DEALT, ("deal",), []), '"deal" is an object'),
    ("deal empty", "POST", "/api/replays/view", _with(DEALT, ("deal",), {}), '"deal" is missing the field(s) hands'),
    ("deal unknown field", "POST", "/api/replays/view", _with(DEALT, ("deal", "x"), 1), "unknown field"),
    ("deal emperor seat 5", "POST", "/api/replays/view", _with(DEALT, ("deal", "emperor_card_seat"), 5),
     "emperor_card_seat must be an integer 0..4"),
    ("deal emperor seat bool", "POST", "/api/replays/view", _with(DEALT, ("deal", "emperor_card_seat"), True),
     "emperor_card_seat must be an integer 0..4"),
    ("deal emperor seat string", "POST", "/api/replays/view", _with(DEALT, ("deal", "emperor_card_seat"), "0"),
     "emperor_card_seat must be an integer 0..4"),
    ("deal emperor seat huge", "POST", "/api/replays/view", _with(DEALT, ("deal", "emperor_card_seat"), 10**30),
     "emperor_card_seat must be an integer 0..4"),
    ("deal guard seat -1", "POST", "/api/replays/view", _with(DEALT, ("deal", "guard_card_seat"), -1),
     "guard_card_seat must be an integer 0..4"),
    ("deal guard seat float", "POST", "/api/replays/view", _with(DEALT, ("deal", "guard_card_seat"), 1.5),
     "guard_card_seat must be an integer 0..4"),
    ("deal hands text", "POST", "/api/replays/view", _with(DEALT, ("deal", "hands"), "x"), "5 x 12 nested lists"),
    ("deal hands short", "POST", "/api/replays/view", _with(DEALT, ("deal", "hands", 0), [1, 2]), "hands[0] is"),
    ("deal count float", "POST", "/api/replays/view", _with(DEALT, ("deal", "hands", 0, 0), 1.5), "hands[0][0] is"),
    ("deal count bool", "POST", "/api/replays/view", _with(DEALT, ("deal", "hands", 1, 2), True), "hands[1][2] is"),
    ("deal count string", "POST", "/api/replays/view", _with(DEALT, ("deal", "hands", 0, 0), "1"), "card counts"),
    ("deal count negative", "POST", "/api/replays/view", _with(DEALT, ("deal", "hands", 0, 0), -1), "card counts"),
    ("deal count huge", "POST", "/api/replays/view", _with(DEALT, ("deal", "hands", 0, 0), 10**30), "card counts"),
    ("deal count 1e400", "POST", "/api/replays/view", _raw(DEALT, ("deal", "hands", 0, 0), "1e400"), "finite"),
    ("deal too many cards", "POST", "/api/replays/view", _with(DEALT, ("deal", "hands", 0, 0), 8),
     "more copies of a card than the deck has"),
    ("deal suits for jj", "POST", "/api/replays/view", _with(DEALT, ("deal", "suits"), CALLING["deal"]["suits"]),
     "does not track suits"),
    ("deal suits flat", "POST", "/api/replays/view", _with(DEALT, ("deal", "suits"), [1]), "5 x 12 x 4"),
    ("calling deal no suits", "POST", "/api/replays/view", _with(CALLING, ("deal", "suits"), DELETE),
     "missing the field(s) suits"),
    ("calling deal suits flat", "POST", "/api/replays/view", _with(CALLING, ("deal", "suits", 0, 0), 1),
     "suits[0][0] is"),
    ("calling deal guard seat", "POST", "/api/replays/view", _with(CALLING, ("deal", "guard_card_seat"), 2),
     "no guard card"),
    # the replay files given to the server
    ("given replay index negative", "GET", "/api/replays/-1", None, "replay index must be an integer"),
    ("given replay index float", "GET", "/api/replays/0.0", None, "replay index must be an integer"),
    ("given replay index huge", "GET", "/api/replays/" + "9" * 5000, None, "replay index must be an integer"),
    ("given replay missing", "GET", "/api/replays/9", None, "no replay 9"),
    ("given replay deep", "GET", "/api/replays/0", None, "replay a_deep.json nests lists and objects"),
    ("given replay seed 1e400", "GET", "/api/replays/1", None, "finite"),
    ("given replay seed float", "GET", "/api/replays/2", None, '"seed" must be an integer'),
]


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> tuple[Any, Any, dict[str, str], str]:
    """(client, store, token header, game id): a seeded server with a game at the human's
    turn, and three broken replay files given to it: replays 0, 1, 2 (too deep, a seed of
    1e400, a float seed)."""
    folder = tmp_path_factory.mktemp("given")
    (folder / "a_deep.json").write_bytes(DEEP)
    (folder / "b_inf.json").write_bytes(_raw(RECORD, ("seed",), "1e400"))
    (folder / "c_float.json").write_bytes(_with(RECORD, ("seed",), 4.5))
    store = seeded_store(hint_spec="greedy")
    client = client_for(store, replays=[str(folder)])
    game_id, headers, view = start_game(client, seat=2)
    while not view["your_turn"]:
        view = client.post(f"/api/games/{game_id}/advance", headers=headers, json={"steps": 1}).json()
    return client, store, headers, game_id


def _stored(store) -> dict[str, tuple]:
    """What the store holds: each game's actions, log and seat, by id."""
    return {gid: (tuple(s.game.actions), len(s.game.log), s.seat) for gid, s in store._games.items()}


@pytest.mark.parametrize("name, method, path, body, words", CASES, ids=[c[0] for c in CASES])
def test_a_malformed_request_gets_a_4xx_json_error_saying_what_is_wrong_and_changes_nothing(
        server, name, method, path, body, words):
    client, store, headers, game_id = server
    before = _stored(store)
    send: Callable = client.post if method == "POST" else client.get
    kwargs = {"content": body} if body is not None else {}
    r = send(path.replace("{game}", game_id), headers={**headers, "Content-Type": "application/json"}, **kwargs)
    assert 400 <= r.status_code < 500, (r.status_code, r.text[:300])
    error = r.json()["error"]
    assert isinstance(error, str) and words in error, error
    assert len(error) < 1000, "the message quotes the client's value whole"
    assert _stored(store) == before


def test_the_valid_records_the_cases_change_are_accepted(server):
    """Each broken record above differs from one the server takes in the one field named."""
    client = server[0]
    for record in (RECORD, DEALT, CALLING):
        r = client.post("/api/replays/view", json=record)
        assert r.status_code == 200, r.text
