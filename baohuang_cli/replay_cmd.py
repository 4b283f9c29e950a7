"""`baohuang replay FILE`: step through a saved game, action by action, from the deal.

The replay is loaded with `load_replay`, which replays it and checks that it reproduces its
recorded result. Then the game is rebuilt from the deal and stepped again; after every
action the event is printed in words, followed by the table (`baohuang_env.text`): hands
(all of them for a spectator, only one with `--seat S`), cards left, the play to beat, and
the roles as the viewer knew them at that moment (a spectator sees every role, the hidden
ones marked "hidden"; from a seat, another seat's hidden guard is "?" until he declares
himself or plays the marked guard card). It ends with the result: places, roles and scores.

    baohuang replay game.json                 # everything, as a spectator
    baohuang replay game.json --seat 2 --step # seat 2's view, Enter for the next action
    baohuang replay game.json --delay 0.5     # an animation
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable

from baohuang_cli.argtypes import non_negative_float
from baohuang_cli.terminal import read_line
from baohuang_env.cards import NUM_SEATS
from baohuang_env.game import Game
from baohuang_env.replay import load_replay
from baohuang_env.text import describe_event, render_table, result_lines, role_step

InputFn = Callable[[str], str]


def add_parser(sub) -> None:
    p = sub.add_parser("replay", help="step through a saved game (replay file), action by action",
                       description=__doc__.splitlines()[0])
    p.add_argument("file", help="a replay file (written by `baohuang play --save` or save_replay)")
    p.add_argument("--seat", type=int, choices=range(NUM_SEATS), default=None,
                   help="view the game as this seat: its hand and the roles it knows (default: a spectator, "
                        "who sees everything)")
    p.add_argument("--step", action="store_true", help="wait for Enter after every action (q to quit)")
    p.add_argument("--delay", type=non_negative_float, default=0.0, metavar="SECONDS",
                   help="pause this long after every action when not stepping (default 0)")


def load_checked(path: str) -> tuple[Game, dict]:
    """Load and verify a replay; return the finished (or last) game and the file's record.
    Every way a file can be wrong becomes a ValueError naming the file."""
    try:
        game = load_replay(path)
    except KeyError as err:
        raise ValueError(f"replay {path} is missing the field {err}") from None
    except (TypeError, AttributeError) as err:
        raise ValueError(f"replay {path} is malformed: {err}") from None
    except ValueError as err:
        msg = str(err)
        raise ValueError(msg if str(path) in msg else f"replay {path}: {msg}") from None
    with open(path, encoding="utf-8") as f:
        record = json.load(f)
    return game, record


def main(args, input_fn: InputFn | None = None) -> int:
    read = input_fn or read_line
    final, record = load_checked(args.file)
    n = len(final.actions)
    where = f"seed {final.seed}" if "deal" not in record else "a hand-built deal"
    print(f"replay {args.file}: preset {final.rules.preset}, {where}, {n} actions")
    if "result" in record:
        print("checked: replaying the actions reproduces the recorded result")
    else:
        print("note: the file records no result (an unfinished game); its actions replay legally")

    start = {k: v for k, v in final.to_replay().items() if k != "result"}
    start["actions"] = []
    game = Game.from_replay(start)
    if args.seat is None:
        print("view: a spectator (every hand, every role; roles not yet public are marked hidden)")
    else:
        print(f"view: seat {args.seat} (only its hand; roles as it knew them at each moment, '?' = not known)")
    print()
    print(describe_event(game, game.log[0]))
    print(render_table(game, args.seat))
    shown = 1
    stepping = args.step
    for i, action in enumerate(final.actions, 1):
        step = role_step(game)
        if stepping:
            try:
                answer = read(f"[Enter] next action {i}/{n}, c = continue to the end, q = quit: ").strip().lower()
            except EOFError:
                print("\nend of input: stopped")
                return 0
            if answer in ("q", "quit", "exit"):
                print(f"stopped before action {i} of {n}")
                return 0
            if answer in ("c", "continue"):
                stepping = False
        game.step(action)
        print()
        for event in game.log[shown:]:
            print(f"[{i}/{n}] {describe_event(game, event, step)}")
        shown = len(game.log)
        print(render_table(game, args.seat))
        if args.delay and not stepping:
            time.sleep(args.delay)
    print()
    if game.is_over:
        for line in result_lines(game):
            print(line)
    else:
        print(f"the replay ends after {n} actions, before the game is over")
    return 0

