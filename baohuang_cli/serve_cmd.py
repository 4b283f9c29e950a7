"""`baohuang serve`: play Baohuang against bots and watch replays in a web browser.

    baohuang serve                                   # http://127.0.0.1:8000
    baohuang serve --opponents heuristic,greedy,random,pretrained:dmc_kickstart_jj
    baohuang serve --port 8080 --replays runs/eval/x/replays

One local process (Starlette on uvicorn) owns every game; a page only ever gets its seat's
view. `/` sets up a game (rules, your seat, an opponent for each other seat from
`--opponents`, offered in a preset only where it plays it, the first that does preselected:
by default `pretrained`, the preset's strongest shipped agent, else the heuristic bot) and
plays it; `/replay` steps through a replay file (picked in the page or given with
`--replays`). `--hints SPEC[,SPEC...]` names the agent whose top moves the page can show for
your seat, the first of the list that plays the game's preset (default: the strongest shipped
agent of each preset, `pretrained`, else the heuristic bot, so every preset has hints).
Needs the web extra: pip install "baohuang-rl[web]" (in a clone: pip install -e ".[web]").
"""

from __future__ import annotations

import errno
import importlib.util
import socket

from baohuang_cli.argtypes import positive_int

#: The hint agents by default, the first that plays the game's preset: the strongest shipped
#: agent of the preset (package data, found from any directory), else the heuristic bot.
DEFAULT_HINTS = "pretrained,heuristic"
#: The opponents a page may choose by default, in the presets each plays, the first that plays
#: the game's preset preselected: the same preference as the hints (and as `baohuang play`'s
#: `agents.pretrained.default_opponent`), then the weaker bots.
DEFAULT_OPPONENTS = f"{DEFAULT_HINTS},greedy,autoplay,random"
#: Connections the listening socket queues before the server accepts them (uvicorn's default).
LISTEN_BACKLOG = 2048
INSTALL = 'pip install "baohuang-rl[web]" (in a clone: pip install -e ".[web]")'


def add_parser(sub) -> None:
    p = sub.add_parser("serve", help="play against bots and watch replays in a web browser",
                       description=f"{__doc__.splitlines()[0]} Needs the web extra: {INSTALL}.")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1: this machine only; 0.0.0.0 opens it to the network)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    p.add_argument("--preset", default="jj", help="the rule preset selected at first in the page (default jj)")
    p.add_argument("--opponents", default=DEFAULT_OPPONENTS,
                   help="comma-separated agent specs a page may choose as opponents, each offered in the presets "
                        "it plays, the first that plays the game's preset preselected (default "
                        f"{DEFAULT_OPPONENTS}: pretrained is the preset's strongest shipped agent, offered where "
                        "one is shipped); checkpoints as kind:path, e.g. pretrained:dmc_kickstart_jj or "
                        "dmc:runs/RUN/model.pt; your own class as python:MODULE:CLASS")
    p.add_argument("--hints", default=DEFAULT_HINTS, metavar="SPEC[,SPEC...]",
                   help=f"agent whose top moves the page shows on request, the first of the list that plays the "
                        f"game's preset (default {DEFAULT_HINTS}: the strongest shipped agent of the preset, else "
                        "the heuristic bot); 'none' turns hints off")
    p.add_argument("--replays", nargs="*", default=[], metavar="PATH",
                   help="replay files or folders of them to offer in the replay viewer")
    p.add_argument("--seed", type=int, default=None,
                   help="seed of the deals (game n's deal follows from it and n), for tests and demos; "
                        "default: unpredictable deals")
    p.add_argument("--max-games", type=positive_int, default=500,
                   help="games kept at once; the least recently used is dropped past it (default 500)")


def main(args) -> int:
    missing = [m for m in ("starlette", "uvicorn") if importlib.util.find_spec(m) is None]
    if missing:
        raise ValueError(f"baohuang serve needs {' and '.join(missing)}: install the web extra with {INSTALL}")
    if not 0 <= args.port <= 65535:
        raise ValueError(f"--port must be 0..65535, got {args.port}")
    import uvicorn

    from baohuang_env.rules import get_rules
    from baohuang_web.app import create_app
    from baohuang_web.sessions import SessionStore, hint_specs

    get_rules(args.preset)  # ValueError lists the presets
    specs = [s.strip() for s in args.opponents.split(",") if s.strip()]
    hints = args.hints
    for spec in [*specs, *(hint_specs(hints) if hints != "none" else [])]:
        check_spec(spec)
    store = SessionStore(specs, args.preset, None if hints == "none" else hints, args.max_games, seed=args.seed)
    app = create_app(store, args.replays)
    sock = listen_socket(args.host, args.port)  # before anything slow, and before a URL is printed
    with sock:
        # load the hint agent and the opponents of each preset now, not in the first page's request
        store.hint_presets()
        store.preset_opponents()
        port = sock.getsockname()[1]  # the port the system chose for --port 0
        print(f"Baohuang: open http://{args.host}:{port}/ to play, /replay for replays (Ctrl-C stops)", flush=True)
        uvicorn.Server(uvicorn.Config(app, log_level="warning")).run(sockets=[sock])
    return 0


def listen_socket(host: str, port: int) -> socket.socket:
    """A TCP socket bound to (host, port) and listening, for the server to accept on (bound as
    uvicorn binds its own: SO_REUSEADDR, so a port left in TIME_WAIT by a stopped server is
    free again); a browser that connects before the server runs waits in its queue.
    ValueError in one line when the port is in use or the address cannot be had."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(LISTEN_BACKLOG)
    except OSError as err:
        sock.close()
        if err.errno == errno.EADDRINUSE:
            raise ValueError(f"port {port} on {host} is in use (another server?); pass --port with a free port, "
                             f"e.g. --port {port + 1 if port < 65535 else 8000}") from None
        raise ValueError(f"cannot listen on {host}:{port}: {err.strerror or err}") from None
    return sock


def check_spec(spec: str) -> None:
    """Fail now, not in the first game, on an unknown agent kind, a missing checkpoint or a
    user's module or class that is missing (whether a checkpoint fits a preset is checked when a
    game under it starts)."""
    from baohuang_env.agent import agent_kinds, available_agents
    from baohuang_env.user_agent import user_class

    from agents.pretrained import checkpoint_path, find

    kind, _, arg = spec.partition(":")
    if kind not in agent_kinds():
        raise ValueError(f"unknown agent {spec!r}; {available_agents()}")
    if kind == "pretrained" and arg:
        find(arg)  # ValueError names the shipped agents
    elif kind == "python":
        user_class(arg)  # ValueError: the module or the class is missing, or it makes no agents
    elif arg and kind in ("dmc", "ppo") and not checkpoint_path(arg).is_file():
        raise ValueError(f"agent {spec!r}: no checkpoint file {arg}")
