"""Load on `baohuang serve`: many games at once through the HTTP API, on loopback.

    python experiments/web_load.py [--games 50] [--opponents random,greedy] [--preset jj]

Starts `baohuang serve` (one process) on a free 127.0.0.1 port, then plays `--games` games
at once from this process, one client thread each: the human seat takes a random
legal move (`POST .../action`), the bots move in `POST .../advance` requests. A human action
request applies that action alone (the bots move only when asked), so its time is the
server's time per human action without any bot thinking, under the load of all the other
games (their bots included). Prints JSON: p50/p95/max of the human action round trip, the
same of the advance requests, and how many games finished with a replay that reproduces
its result. Bounded: every game stops after `--max-requests`, the whole run after
`--timeout` seconds.
"""

from __future__ import annotations

import argparse
import http.client
import json
import random
import socket
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Client:
    """One player's keep-alive connection to the server."""

    def __init__(self, port: int, timeout: float) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
        self.headers = {"Content-Type": "application/json"}

    def call(self, method: str, path: str, body: Any = None) -> tuple[Any, float]:
        """(JSON answer, seconds) of one request; RuntimeError on a non-2xx answer."""
        start = time.perf_counter()
        self.conn.request(method, path, body=None if body is None else json.dumps(body), headers=self.headers)
        response = self.conn.getresponse()
        data = json.loads(response.read())
        took = time.perf_counter() - start
        if response.status >= 300:
            raise RuntimeError(f"{method} {path}: {response.status} {data}")
        return data, took


def play_one(port: int, index: int, preset: str, opponents: list[str], max_requests: int,
             deadline: float) -> dict[str, Any]:
    """One game to its end: the times of its human actions and advance requests."""
    from baohuang_env import Game

    rng = random.Random(index)
    client = Client(port, timeout=60)
    seat = index % 5
    specs = [opponents[(index + k) % len(opponents)] for k in range(4)]
    created, _ = client.call("POST", "/api/games", {"preset": preset, "seat": seat, "opponents": specs})
    game_id, view = created["game_id"], created["view"]
    client.headers["X-Player-Token"] = created["token"]
    actions, advances = [], []
    for _ in range(max_requests):
        if view["over"] or time.monotonic() > deadline:
            break
        if view["your_turn"]:
            move = rng.choice(view["moves"])["id"]
            view, took = client.call("POST", f"/api/games/{game_id}/action?since={view['event_count']}",
                                     {"action": move})
            actions.append(took)
        else:
            view, took = client.call("POST", f"/api/games/{game_id}/advance?since={view['event_count']}", {})
            advances.append(took)
    replay_ok = False
    if view["over"]:
        record, _ = client.call("GET", f"/api/games/{game_id}/replay")
        replay_ok = Game.from_replay(record).is_over
    client.conn.close()
    return {"actions": actions, "advances": advances, "over": view["over"], "replay_ok": replay_ok}


def _ms(times: list[float]) -> dict[str, float]:
    if not times:
        return {"p50": None, "p95": None, "max": None}
    t = np.asarray(times) * 1000
    return {"p50": round(float(np.percentile(t, 50)), 2), "p95": round(float(np.percentile(t, 95)), 2),
            "max": round(float(t.max()), 2)}


def run(games: int, preset: str, opponents: list[str], max_requests: int, timeout: float) -> dict[str, Any]:
    port = _free_port()
    log = tempfile.TemporaryFile("w+")  # the server's errors, read if it stops early
    server = subprocess.Popen([sys.executable, "-m", "baohuang_cli.cli", "serve", "--port", str(port),
                               "--preset", preset, "--opponents", ",".join(opponents), "--hints", "none",
                               "--max-games", str(games)], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=log)
    try:
        for _ in range(300):
            if server.poll() is not None:
                log.seek(0)
                raise RuntimeError(f"baohuang serve exited: {log.read()}")
            try:
                Client(port, timeout=1).call("GET", "/api/options")
                break
            except OSError:
                time.sleep(0.1)
        else:
            raise RuntimeError("the server did not answer within 30 s")
        start = time.monotonic()
        deadline = start + timeout
        with ThreadPoolExecutor(max_workers=games) as pool:
            results = list(pool.map(lambda i: play_one(port, i, preset, opponents, max_requests, deadline),
                                    range(games)))
        wall = time.monotonic() - start
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.close()
    actions = [t for r in results for t in r["actions"]]
    advances = [t for r in results for t in r["advances"]]
    return {
        "games": games, "at_once": games, "preset": preset, "opponents": opponents,
        "games_finished": sum(r["over"] for r in results), "replays_reproduced": sum(r["replay_ok"] for r in results),
        "human_actions": len(actions), "human_action_ms": _ms(actions),
        "advance_requests": len(advances), "advance_ms": _ms(advances), "wall_s": round(wall, 2),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=50, help="games played at once (default 50)")
    p.add_argument("--preset", default="jj", help="rule preset (default jj)")
    p.add_argument("--opponents", default="random,greedy",
                   help="bot specs, cycled over the seats (default random,greedy)")
    p.add_argument("--max-requests", type=int, default=2000, help="requests one game makes at most (default 2000)")
    p.add_argument("--timeout", type=float, default=600, help="seconds the whole run may take (default 600)")
    args = p.parse_args(argv)
    if args.games < 1 or args.max_requests < 1 or args.timeout <= 0:
        p.error("--games, --max-requests and --timeout must be positive")
    report = run(args.games, args.preset, [s.strip() for s in args.opponents.split(",")], args.max_requests,
                 args.timeout)
    json.dump(report, sys.stdout, indent=2)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
