"""The web app (Starlette): two static pages and a small JSON API, in one process.

    GET  /                          the game page (static/index.html)
    GET  /replay                    the replay viewer (static/replay.html)
    GET  /api/options               presets, offered opponents (and those of each preset, its default first),
                                    hints (and the presets they serve), replay files
    POST /api/games                 {"preset", "seat", "opponents"} -> {"game_id", "token", "view"}
                                    (no "opponents": the preset's default opponent in every seat)
    GET  /api/games/{id}?since=N    the player's view (log lines from N on)
    POST /api/games/{id}/action     {"action": id} or {"move": "888+SJ"} -> the view
    POST /api/games/{id}/advance    {"steps": n} bots move until the player's turn -> the view
    GET  /api/games/{id}/hints      an agent's top moves for the player's seat
    GET  /api/games/{id}/replay     the replay JSON with who played each seat, once the game is over
    GET  /api/replays               names of the replay files given to the server
    GET  /api/replays/{i}?view=V    frames of given file i, V = spectator or a seat
    POST /api/replays/view?view=V   frames of the replay record in the body

Every game request carries the player's token (header X-Player-Token). Errors are JSON
`{"error": message}` with a 4xx status, and change nothing. Game work runs in the thread
pool, under the game's lock, so the event loop stays free.
"""

from __future__ import annotations

import json
import math
from collections.abc import Awaitable, Callable
from importlib.resources import files
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from baohuang_env.replay import replay_with_players
from baohuang_env.rules import PRESETS

from .errors import BadRequest, Conflict, NotFound, TooLarge, WebError, check_fields, check_int, shown
from .replays import load_file, parse_viewer, replay_files, replay_frames
from .sessions import MAX_ADVANCE, SessionStore

#: Largest request body accepted (a replay of a few hundred actions is ~10 KB).
MAX_BODY = 1_000_000
#: Deepest nesting of lists and objects accepted (a replay's deal per suit is 5 deep).
MAX_DEPTH = 10
#: Longest integer a query parameter may have (digits).
MAX_DIGITS = 10
TOKEN_HEADER = "x-player-token"
STATIC = Path(str(files("baohuang_web") / "static"))


def _finite(text: str) -> float:
    """A JSON number with a fraction or exponent, refused when not finite (1e400 reads as inf)."""
    number = float(text)
    if not math.isfinite(number):
        raise ValueError(f"numbers must be finite, got {shown(text)}")
    return number


def _no_constant(name: str) -> None:
    """NaN, Infinity and -Infinity, which Python's reader accepts but JSON has not."""
    raise ValueError(f"numbers must be finite, got {name}")


def _depth(value: Any) -> int:
    """How deeply lists and objects nest in `value` (0 for a plain value), walked without
    recursion; stops once past MAX_DEPTH."""
    deepest, todo = 0, [(value, 1)]
    while todo and deepest <= MAX_DEPTH:
        item, depth = todo.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, depth)
            todo += [(child, depth + 1) for child in (item.values() if isinstance(item, dict) else item)]
    return deepest


def parse_json(data: bytes, what: str) -> Any:
    """`data` read as strict JSON: finite numbers only, lists and objects at most MAX_DEPTH
    deep (no request needs more, and deeper input exhausts the reader's recursion).
    BadRequest says what is wrong with `what` (the request body, a replay file)."""
    too_deep = BadRequest(f"{what} nests lists and objects more than {MAX_DEPTH} deep")
    try:
        value = json.loads(data, parse_float=_finite, parse_constant=_no_constant)
    except RecursionError:
        raise too_deep from None
    except ValueError as err:
        raise BadRequest(f"{what} must be JSON: {err}") from None
    if _depth(value) > MAX_DEPTH:
        raise too_deep
    return value


async def _json_body(request: Request) -> Any:
    body = await request.body()
    if len(body) > MAX_BODY:
        raise TooLarge(f"request body over {MAX_BODY} bytes")
    return parse_json(body or b"{}", "the request body")


async def _object_body(request: Request, allowed: tuple[str, ...]) -> dict[str, Any]:
    """The request's JSON object, whose fields are all in `allowed`."""
    data = await _json_body(request)
    if not isinstance(data, dict):
        raise BadRequest(f"the request body must be a JSON object with the fields {', '.join(allowed)}")
    check_fields(data, allowed, "the request body")
    return data


def _int_query(text: str | None, name: str, low: int, high: int, default: int) -> int:
    """An integer query or path parameter written in plain digits, in low..high (`default`
    when absent); BadRequest otherwise ("1.0", "-1", "1_0", " 1" are not plain digits)."""
    if text is None:
        return default
    if not (text.isascii() and text.isdigit() and len(text) <= MAX_DIGITS):
        raise BadRequest(f"{name} must be an integer {low}..{high}, got {shown(text)}")
    return check_int(int(text), name, low, high)


Handler = Callable[[Request], Awaitable[Response]]


def _errors(handler: Handler) -> Handler:
    """Turn a WebError into its JSON response."""
    async def wrapped(request: Request) -> Response:
        try:
            return await handler(request)
        except WebError as err:
            return JSONResponse({"error": err.message}, status_code=err.status)
    return wrapped


def create_app(store: SessionStore, replays: list[str] | None = None) -> Starlette:
    """The app serving the games of `store` and the replay `replays` (files or folders)."""
    given = replay_files(replays or [])

    def session_of(request: Request):
        return store.get(request.path_params["game_id"], request.headers.get(TOKEN_HEADER))

    def since_of(request: Request) -> int:
        return _int_query(request.query_params.get("since"), "since", 0, 10**9, 0)

    async def options(request: Request) -> Response:
        # the first calls may load checkpoints
        hint_presets = await run_in_threadpool(store.hint_presets)
        by_preset = await run_in_threadpool(store.preset_opponents)
        preset_opponents = {preset: {"opponents": specs, "default": store.default_opponent(preset)}
                            for preset, specs in by_preset.items()}
        return JSONResponse({"presets": list(PRESETS), "preset": store.default_preset, "opponents": store.specs,
                             "preset_opponents": preset_opponents, "hints": store.hint_spec,
                             "hint_presets": hint_presets, "replays": [p.name for p in given]})

    async def new_game(request: Request) -> Response:
        data = await _object_body(request, ("preset", "seat", "opponents"))
        preset = data.get("preset", store.default_preset)
        seat = data.get("seat", 0)
        opponents = data.get("opponents")

        def create() -> dict[str, Any]:
            game_id, session = store.create(preset, seat, opponents)
            return {"game_id": game_id, "token": session.token, "view": session.view()}

        return JSONResponse(await run_in_threadpool(create), status_code=201)

    async def get_game(request: Request) -> Response:
        session, since = session_of(request), since_of(request)

        def view() -> dict[str, Any]:
            with session.lock:
                return session.view(since)

        return JSONResponse(await run_in_threadpool(view))

    async def act(request: Request) -> Response:
        session, since = session_of(request), since_of(request)
        data = await _object_body(request, ("action", "move"))

        def run() -> dict[str, Any]:
            with session.lock:
                session.act(data.get("action"), data.get("move"))
                return session.view(since)

        return JSONResponse(await run_in_threadpool(run))

    async def advance(request: Request) -> Response:
        session, since = session_of(request), since_of(request)
        data = await _object_body(request, ("steps",))
        steps = check_int(data.get("steps", MAX_ADVANCE), "steps", 1, MAX_ADVANCE)

        def run() -> dict[str, Any]:
            with session.lock:
                session.advance(steps)
                return session.view(since)

        return JSONResponse(await run_in_threadpool(run))

    async def hints(request: Request) -> Response:
        session = session_of(request)

        def run() -> dict[str, Any]:
            spec, agent = store.hint_agent(session.game.rules)
            with session.lock:
                return {"agent": spec, **session.hint(agent)}

        return JSONResponse(await run_in_threadpool(run))

    async def game_replay(request: Request) -> Response:
        session = session_of(request)
        with session.lock:
            if not session.game.is_over:
                raise Conflict("the replay is available once the game is over (it holds every hand)")
            record = replay_with_players(session.game, session.names)
        return JSONResponse(record)

    async def list_replays(request: Request) -> Response:
        return JSONResponse({"replays": [p.name for p in given]})

    async def given_replay(request: Request) -> Response:
        index = _int_query(request.path_params["index"], "replay index", 0, 10**9, 0)
        if index >= len(given):
            raise NotFound(f"no replay {index}: the server was given {len(given)} replay file(s)")
        viewer = parse_viewer(request.query_params.get("view"))
        record = parse_json(await run_in_threadpool(load_file, given[index]), f"replay {given[index].name}")
        frames = await run_in_threadpool(replay_frames, record, viewer)
        return JSONResponse({"name": given[index].name, **frames})

    async def posted_replay(request: Request) -> Response:
        viewer = parse_viewer(request.query_params.get("view"))
        record = await _json_body(request)
        return JSONResponse(await run_in_threadpool(replay_frames, record, viewer))

    async def index_page(request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    async def replay_page(request: Request) -> Response:
        return FileResponse(STATIC / "replay.html")

    async def no_icon(request: Request) -> Response:
        return Response(status_code=204)

    routes = [
        Route("/", index_page),
        Route("/favicon.ico", no_icon),
        Route("/replay", replay_page),
        Route("/api/options", _errors(options)),
        Route("/api/games", _errors(new_game), methods=["POST"]),
        Route("/api/games/{game_id}", _errors(get_game)),
        Route("/api/games/{game_id}/action", _errors(act), methods=["POST"]),
        Route("/api/games/{game_id}/advance", _errors(advance), methods=["POST"]),
        Route("/api/games/{game_id}/hints", _errors(hints)),
        Route("/api/games/{game_id}/replay", _errors(game_replay)),
        Route("/api/replays", _errors(list_replays)),
        Route("/api/replays/view", _errors(posted_replay), methods=["POST"]),
        Route("/api/replays/{index}", _errors(given_replay)),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    return Starlette(routes=routes)
