"""`baohuang serve`: play Baohuang against bots and watch replays in a web browser.

    baohuang serve                                   # http://127.0.0.1:8000
    baohuang serve --opponents heuristic,greedy,random,dmc:agents/pretrained/dmc_jj.pt
    baohuang serve --port 8080 --replays runs/eval/x/replays

One local process (Starlette on uvicorn) owns every game; a page only ever gets its seat's
view. `/` sets up a game (rules, your seat, an opponent for each other seat from
`--opponents`) and plays it; `/replay` steps through a replay file (picked in the page or
given with `--replays`). `--hints SPEC` names the agent whose top moves the page can show
for your seat. Needs the web extra: pip install -e ".[web]".
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from baohuang_cli.argtypes import positive_int

#: The shipped DMC agent (jj rules), offered when the file is where the repository keeps it.
PRETRAINED = "agents/pretrained/dmc_jj.pt"
INSTALL = 'pip install -e ".[web]"'


def _default_hints() -> str:
    return f"dmc:{PRETRAINED}" if Path(PRETRAINED).is_file() else "heuristic"


def add_parser(sub) -> None:
    p = sub.add_parser("serve", help="play against bots and watch replays in a web browser",
                       description=__doc__.splitlines()[0])
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1: this machine only; 0.0.0.0 opens it to the network)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    p.add_argument("--preset", default="jj", help="the rule preset selected at first in the page (default jj)")
    p.add_argument("--opponents", default="heuristic,greedy,autoplay,random",
                   help="comma-separated agent specs a page may choose as opponents (default "
                        "heuristic,greedy,autoplay,random; checkpoints as kind:path, e.g. "
                        f"dmc:{PRETRAINED})")
    p.add_argument("--hints", default=None, metavar="SPEC",
                   help=f"agent whose top moves the page shows on request (default dmc:{PRETRAINED} when that file "
                        "exists, else heuristic); 'none' turns hints off")
    p.add_argument("--replays", nargs="*", default=[], metavar="PATH",
                   help="replay files or folders of them to offer in the replay viewer")
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
    from baohuang_web.sessions import SessionStore

    get_rules(args.preset)  # ValueError lists the presets
    specs = [s.strip() for s in args.opponents.split(",") if s.strip()]
    hints = args.hints if args.hints is not None else _default_hints()
    for spec in [*specs, *([hints] if hints != "none" else [])]:
        check_spec(spec)
    store = SessionStore(specs, args.preset, None if hints == "none" else hints, args.max_games)
    app = create_app(store, args.replays)
    print(f"Baohuang: open http://{args.host}:{args.port}/ to play, /replay for replays (Ctrl-C stops)")
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0


def check_spec(spec: str) -> None:
    """Fail now, not in the first game, on an unknown agent kind or a missing checkpoint
    (whether a checkpoint fits a preset is checked when a game under it starts)."""
    from baohuang_env.agent import agent_kinds

    kind, _, path = spec.partition(":")
    if kind not in agent_kinds():
        raise ValueError(f"unknown agent {spec!r}; available agents: {agent_kinds()} (checkpoints as kind:path)")
    if path and not Path(path).is_file():
        raise ValueError(f"agent {spec!r}: no checkpoint file {path}")
