"""`baohuang replay FILE`: step through a saved game, action by action, from the deal.

The replay is loaded with `load_replay`, which replays it and checks that it reproduces its
recorded result. Then the game is rebuilt from the deal and stepped again; after every
action the event is printed in words, followed by a table of the seats: hands (all of them
for a spectator, only one with `--seat S`), cards left, the play to beat, and the roles as
they were public at that moment (a hidden guard is "?" until he declares himself or plays
the marked guard card). It ends with the result: places, roles and scores.

    baohuang replay game.json                 # everything, as a spectator
    baohuang replay game.json --seat 2 --step # seat 2's view, Enter for the next action
    baohuang replay game.json --delay 0.5     # an animation

The helpers `event_text`, `result_lines` and `private_role` are shared with `baohuang play`.
"""

from __future__ import annotations

import json
import time
import unicodedata
from collections.abc import Callable

from baohuang_cli.terminal import read_line
from baohuang_env.cards import NUM_SEATS
from baohuang_env.game import Game
from baohuang_env.actions import format_play
from baohuang_env.render import ROLE_NAMES, STEP_WORDS, describe_event, format_hand, public_role, role_step
from baohuang_env.replay import load_replay

InputFn = Callable[[str], str]


# ---------------------------------------------------------------- shared text helpers
def _pad(text: str, width: int) -> str:
    """Left-justify by display width (CJK characters take two columns)."""
    shown = sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)
    return text + " " * max(width - shown, 1)


def event_text(game: Game, event: tuple, step: str | None = None) -> str:
    """An event of `Game.log` in words (`describe_event`); `step` is the role step a decision
    answered (`role_step(game)` just before it), which says what a NO meant."""
    return describe_event(game, event, step)


def known_role(game: Game, seat: int) -> str:
    """`public_role`, plus what follows from it: a hidden solo who played the guard card, and
    the rebels once the emperor's side is known."""
    if (game.result is None and seat == game.emperor and game.solo == "hidden"
            and game.public_guard == seat):
        return ROLE_NAMES["solo"] + " (revealed)"
    role = public_role(game, seat)
    if role == "?" and game.emperor >= 0 and game.public_guard >= 0:
        return ROLE_NAMES["rebel"]  # emperor and guard (or an open solo) known: the rest are rebels
    return role


def private_role(game: Game, seat: int) -> str:
    """What `seat` itself knows of its role now (its own hand tells it whether it is the guard)."""
    holds_guard = seat == (game.guard if game.guard >= 0 else game.guard_card_seat)
    if game.result is not None:
        return ROLE_NAMES[game.result.roles[seat]]
    if game.emperor < 0:
        if holds_guard:
            return "not decided yet (you hold the guard card 侍卫牌)"
        return "not decided yet"
    if seat == game.emperor:
        if game.solo == "open":
            return ROLE_NAMES["solo"] + " (open)"
        if holds_guard:
            return ROLE_NAMES["solo"] + " (you also hold the guard card; hidden unless you play it)"
        return ROLE_NAMES["emperor"]
    if holds_guard:
        return ROLE_NAMES["guard"] + (" (open)" if game.open_guard or game.public_guard == seat
                                      else " (hidden: only you know)")
    return ROLE_NAMES["rebel"]


def table_text(game: Game, hands_of: set[int] | None = None, viewer: int | None = None) -> str:
    """The table with public roles only: hands of the seats in `hands_of` (all when None),
    cards left, status, and the play to beat. `viewer` marks a seat whose point of view
    this is (it also sees that it holds the guard card)."""
    names = game.kinds.names
    lines = [f"{'seat':<6}{_pad('role', 26)}{'cards':>5}  {'status':<11}hand"]
    for s in range(NUM_SEATS):
        status = ""
        if game.places[s]:
            status = f"out #{game.places[s]}"
        elif not game.is_over and s == game.current_player:
            status = "<- to act"
        elif game.passed[s]:
            status = "passed"
        hand = format_hand(game.hands[s], names) if hands_of is None or s in hands_of else "(hidden)"
        marks = []
        if game.phase == "role" and s == game.emperor_card_seat:
            marks.append("holds the emperor card")
        if s == viewer and s == game.guard_card_seat:
            marks.append("holds the guard card")
        seat = f"{s}{'*' if s == viewer else ''}"
        lines.append(f"{seat:<6}{_pad(known_role(game, s), 26)}{game.cards_left[s]:>5}  {status:<11}{hand}"
                     + (f"  [{', '.join(marks)}]" if marks else ""))
    trick = game.trick
    if trick is not None:
        lines.append(f"to beat: {format_play(trick[0])} by seat {trick[1]}")
    elif game.phase == "play":
        lines.append(f"seat {game.current_player} leads a new trick")
    elif game.phase == "role":
        if any(game.pile):
            lines.append(f"tribute pile (贴牌) with the emperor card: {format_hand(game.pile, names)}")
        step = game.rules.role_steps[game.step_index]
        lines.append(f"role phase, {STEP_WORDS[step]}: seat {game.current_player} decides")
    return "\n".join(lines)


def result_lines(game: Game) -> list[str]:
    """The result of a finished game: places, roles and scores per seat, then a summary."""
    res = game.result
    if res is None:
        return ["the game is not over"]
    points = res.points is not None
    head = f"{'seat':<6}{'place':<7}{_pad('role', 22)}{'score':>6}" + (f"{'points':>8}" if points else "")
    lines = ["Result:", head]
    for s in sorted(range(NUM_SEATS), key=lambda s: res.places[s]):
        lines.append(f"{s:<6}{res.places[s]:<7}{_pad(ROLE_NAMES[res.roles[s]], 22)}{res.scores[s]:>+6d}"
                     + (f"{res.points[s]:>+8d}" if points else ""))
    if res.end == "void":
        lines.append("void deal (流局): nobody became emperor; no score, the cards are dealt again")
        return lines
    if res.end == "surrender":
        lines.append(f"seat {res.emperor}, a solo emperor, surrendered (投降) before play")
    elif res.solo != "none":
        how = "grabbed the solo (抢独) and played it openly" if res.grabbed else f"played a {res.solo} solo"
        lines.append(f"seat {res.emperor} {how} against the other four")
    else:
        note = ""
        if res.open_guard:
            note = {"weihai": " (open guard 明保: Weihai split table)", "qingdao": " (open guard 明保)"}.get(
                game.rules.scoring, " (open guard 明保: scores doubled)")
        lines.append(f"emperor: seat {res.emperor}, guard: seat {res.guard}{note}")
    if res.rebellion != "none":
        lines.append(f"rebellion (造反): {res.rebellion}")
    if res.kicked:
        lines.append("kick (踢): scores doubled")
    if points:
        lines.append("score = the team's sum of the place points (qingdao)")
    return lines


# ---------------------------------------------------------------- the command
def add_parser(sub) -> None:
    p = sub.add_parser("replay", help="step through a saved game (replay file), action by action",
                       description=__doc__.splitlines()[0])
    p.add_argument("file", help="a replay file (written by `baohuang play --save` or save_replay)")
    p.add_argument("--seat", type=int, choices=range(NUM_SEATS), default=None,
                   help="show only this seat's hand (default: every hand, as a spectator)")
    p.add_argument("--step", action="store_true", help="wait for Enter after every action (q to quit)")
    p.add_argument("--delay", type=float, default=0.0, metavar="SECONDS",
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
    if args.delay < 0:
        raise ValueError("--delay must be >= 0")
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
    hands_of = None if args.seat is None else {args.seat}
    view = "a spectator (every hand)" if args.seat is None else f"seat {args.seat} (only its hand)"
    print(f"view: {view}; roles are shown as they were public at each moment ('?' = not known)")
    print()
    print(event_text(game, game.log[0]))
    print(table_text(game, hands_of, args.seat))
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
            print(f"[{i}/{n}] {event_text(game, event, step)}")
        shown = len(game.log)
        print(table_text(game, hands_of, args.seat))
        if args.delay and not stepping:
            time.sleep(args.delay)
    print()
    if game.is_over:
        for line in result_lines(game):
            print(line)
    else:
        print(f"the replay ends after {n} actions, before the game is over")
    return 0

