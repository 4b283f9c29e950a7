"""`baohuang replay FILE`: step through a saved game, action by action, from the deal.

The replay is loaded with `load_replay`, which replays it and checks that it reproduces its
recorded result. Then the game is rebuilt from the deal and stepped again; after every
action the event is printed in words, followed by the table (`baohuang_env.text`): hands
(all of them for a spectator, only one with `--seat S`), cards left, the play to beat, and
the roles as the viewer knew them at that moment (a spectator sees every role, the hidden
ones marked "hidden"; from a seat, another seat's hidden guard is "?" until he declares
himself or plays the marked guard card). It ends with the result: places, roles and scores,
who won and why the scores are what they are. Who played each seat is named when the file
records it (`baohuang play --save`, the web page's saved replays).

With `--step` it waits after every action, as the web replay viewer's buttons do: Enter or
n for the next action, b to go back one, a number to jump to the table after that action
(0: the deal), c to continue to the end, q to quit.

    baohuang replay game.json                 # everything, as a spectator
    baohuang replay game.json --seat 2 --step # seat 2's view, stepping forward, back and jumping
    baohuang replay game.json --delay 0.5     # an animation
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from baohuang_cli.argtypes import non_negative_float
from baohuang_cli.terminal import read_line
from baohuang_env.cards import NUM_SEATS
from baohuang_env.game import Game
from baohuang_env.replay import Replay, read_replay
from baohuang_env.text import describe_event, render_table, result_text, role_step

InputFn = Callable[[str], str]


def add_parser(sub) -> None:
    p = sub.add_parser("replay", help="step through a saved game (replay file), action by action",
                       description=__doc__.splitlines()[0])
    p.add_argument("file", help="a replay file (written by `baohuang play --save` or save_replay)")
    p.add_argument("--seat", type=int, choices=range(NUM_SEATS), default=None,
                   help="view the game as this seat: its hand and the roles it knows (default: a spectator, "
                        "who sees everything)")
    p.add_argument("--step", action="store_true",
                   help="wait after every action: Enter or n next, b back, a number jumps to that action, "
                        "c continues to the end, q quits")
    p.add_argument("--delay", type=non_negative_float, default=0.0, metavar="SECONDS",
                   help="pause this long after every action when not stepping (default 0)")


def load_checked(path: str) -> Replay:
    """Load and verify a replay: the finished (or last) game, its record and its players.
    Every way a file can be wrong becomes a ValueError naming the file."""
    try:
        return read_replay(path)
    except KeyError as err:
        raise ValueError(f"replay {path} is missing the field {err}") from None
    except (TypeError, AttributeError) as err:
        raise ValueError(f"replay {path} is malformed: {err}") from None
    except ValueError as err:
        msg = str(err)
        raise ValueError(msg if str(path) in msg else f"replay {path}: {msg}") from None


def players_line(players: list[str] | None) -> str:
    """Who played each seat, as the replay file records it."""
    if players is None:
        return "players: not recorded in this file"
    return "players: " + ", ".join(f"seat {s}: {name}" for s, name in enumerate(players))


class Walk:
    """A position in the replay: the game after `at` of its actions. Forward is one step;
    back and jumps rebuild the game from the deal (a few hundred actions at most)."""

    def __init__(self, start: dict[str, Any], actions: list[int]) -> None:
        self.start, self.actions = start, actions
        self.game, self.at = Game.from_replay(start), 0

    def go(self, k: int) -> list[str]:
        """Move to the table after `k` actions; the lines that tell what action k did (the
        deal for 0), each marked [k/n]."""
        if k != self.at + 1:
            self.game = Game.from_replay({**self.start, "actions": self.actions[:max(k - 1, 0)]})
        self.at = k
        game = self.game
        if k == 0:
            return [describe_event(game, game.log[0])]
        step, shown = role_step(game), len(game.log)
        game.step(self.actions[k - 1])
        return [f"[{k}/{len(self.actions)}] {describe_event(game, e, step)}" for e in game.log[shown:]]


def ask(read: InputFn, walk: Walk) -> int | str:
    """Read the next place to go in step mode: an action count 0..n, or "continue" / "quit".
    Raises EOFError at the end of the input."""
    n, at = len(walk.actions), walk.at
    where = f"next action {at + 1}/{n}" if at < n else f"the end ({n}/{n}): Enter quits"
    prompt = f"[Enter/n] {where}, b = back, 0-{n} = jump, c = continue to the end, q = quit: "
    while True:
        answer = read(prompt).strip().lower()
        if answer in ("q", "quit", "exit") or (answer in ("", "n", "next") and at == n):
            return "quit"
        if answer in ("c", "continue"):
            return "continue"
        if answer in ("", "n", "next"):
            return at + 1
        if answer in ("b", "back"):
            if at > 0:
                return at - 1
            print("  ! this is the deal, the first position: nothing to go back to")
        elif answer.isdigit():
            if int(answer) <= n:
                return int(answer)
            print(f"  ! there is no action {answer}: jump to 0 (the deal) .. {n}")
        else:
            print(f"  ! type Enter or n (next), b (back), a number 0-{n} (jump), c (continue) or q (quit)")


def main(args, input_fn: InputFn | None = None) -> int:
    read = input_fn or read_line
    replay = load_checked(args.file)
    final, record = replay.game, replay.record
    n = len(final.actions)
    where = f"seed {final.seed}" if "deal" not in record else "a hand-built deal"
    print(f"replay {args.file}: preset {final.rules.preset}, {where}, {n} actions")
    print(players_line(replay.players))
    if "result" in record:
        print("checked: replaying the actions reproduces the recorded result")
    else:
        print("note: the file records no result (an unfinished game); its actions replay legally")

    start = {k: v for k, v in final.to_replay().items() if k != "result"}
    start["actions"] = []
    if args.seat is None:
        print("view: a spectator (every hand, every role; roles not yet public are marked hidden)")
    else:
        print(f"view: seat {args.seat} (only its hand; roles as it knew them at each moment, '?' = not known)")
    walk = Walk(start, final.actions)
    stepping = args.step
    target: int | str = 0
    while True:
        print()
        for line in walk.go(target):
            print(line)
        print(render_table(walk.game, args.seat))
        if walk.at == n:
            print()
            print_end(walk.game, n)
        if stepping:
            try:
                target = ask(read, walk)
            except EOFError:
                print("\nend of input: stopped")
                return 0
            if target == "quit":
                print(f"stopped before action {walk.at + 1} of {n}" if walk.at < n else "stopped at the end")
                return 0
            if target == "continue":
                if walk.at == n:
                    return 0
                stepping, target = False, walk.at + 1
        elif walk.at < n:
            if args.delay:
                time.sleep(args.delay)
            target = walk.at + 1
        else:
            return 0


def print_end(game: Game, n: int) -> None:
    """The result of a finished replay, or the note that it stops before the end."""
    if game.is_over:
        for line in result_text(game):
            print(line)
    else:
        print(f"the replay ends after {n} actions, before the game is over")
