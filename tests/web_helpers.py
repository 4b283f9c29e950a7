"""Shared by the web tests: a seeded server store with fast bots (every test deals the same
games on every run), and a whole game played through the HTTP API (the bots move through
`advance`, the human picks a move at random)."""

from __future__ import annotations

import random
import subprocess
from collections.abc import Callable
from typing import Any

from baohuang_web.app import create_app
from baohuang_web.sessions import SessionStore

SPECS = ["greedy", "random", "heuristic"]
#: The seed of every test store's deals (`SessionStore(seed=...)`).
STORE_SEED = 2024


def seeded_store(**options: Any) -> SessionStore:
    """A store offering SPECS whose games are dealt from STORE_SEED (`options`: the other
    SessionStore settings)."""
    return SessionStore(SPECS, seed=STORE_SEED, **options)


def stop_server(proc: subprocess.Popen) -> None:
    """End a `baohuang serve` process the test started: politely, then for sure."""
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def client_for(store: SessionStore | None = None, replays: list[str] | None = None):
    from starlette.testclient import TestClient

    return TestClient(create_app(store if store is not None else seeded_store(hint_spec="greedy"), replays))


def start_game(client, preset: str = "jj", seat: int = 0, opponents: Any = "greedy") -> tuple[str, dict, dict]:
    """(game id, token header, first view) of a new game."""
    r = client.post("/api/games", json={"preset": preset, "seat": seat, "opponents": opponents})
    assert r.status_code == 201, r.text
    data = r.json()
    return data["game_id"], {"X-Player-Token": data["token"]}, data["view"]


def play_game(client, game_id: str, headers: dict, view: dict, rng: random.Random,
              check: Callable[[dict], None] = lambda view: None, max_requests: int = 2000) -> dict:
    """Play to the end through the API: the human takes a random legal move, the bots move
    one request at a time (`steps` 1 or all); every payload goes through `check`."""
    check(view)
    for _ in range(max_requests):
        if view["over"]:
            return view
        if view["your_turn"]:
            r = client.post(f"/api/games/{game_id}/action", headers=headers,
                            json={"action": rng.choice(view["moves"])["id"]})
        else:
            r = client.post(f"/api/games/{game_id}/advance", headers=headers, json={"steps": rng.choice([1, 500])})
        assert r.status_code == 200, r.text
        view = r.json()
        check(view)
    raise AssertionError(f"no end after {max_requests} requests")
