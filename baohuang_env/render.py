"""Readable text views of a game: hands in card notation and a spectator table.

Used by the env's `render()` (ansi / human), `baohuang replay` and `baohuang play`.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

from .cards import NUM_SEATS
from .game import Game
from .melds import format_play

#: Chinese names of the roles, shown once beside the English ones.
ROLE_NAMES = {"emperor": "emperor 皇帝", "guard": "guard 侍卫", "rebel": "rebel 革命党", "solo": "solo emperor 独保"}


def _pad(text: str, width: int) -> str:
    """Left-justify by display width: CJK characters take two terminal columns."""
    shown = sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)
    return text + " " * max(width - shown, 1)


def format_hand(counts: Sequence[int], names: Sequence[str]) -> str:
    """A hand in card notation, low to high: "666 77 8x5 SJ BJx2" ('T' for ten)."""
    parts = []
    for name, c in zip(names, counts, strict=True):
        if c:
            sym = "T" if name == "10" else name
            if len(sym) > 1:  # jokers
                parts.append(sym if c == 1 else f"{sym}x{c}")
            else:
                parts.append(sym * c if c <= 3 else f"{sym}x{c}")
    return " ".join(parts) or "-"


def public_role(game: Game, seat: int) -> str:
    """What everyone knows of a seat's role right now."""
    if game.result is not None:
        return ROLE_NAMES[game.result.roles[seat]]
    if seat == game.emperor:
        return ROLE_NAMES["solo"] + " (open)" if game.solo == "open" else ROLE_NAMES["emperor"]
    if seat == game.public_guard:
        return ROLE_NAMES["guard"]
    return "?"


def render_for_mode(game: Game, render_mode: str | None) -> str | None:
    """What an env's render() does: "ansi" returns the table, "human" prints it."""
    if render_mode is None:
        import logging

        logging.getLogger("baohuang_env").warning("render() called without a render_mode; nothing to show")
        return None
    text = render_table(game)
    if render_mode == "ansi":
        return text
    print(text)
    return None


def render_table(game: Game, viewer: int | None = None) -> str:
    """A table of the game. `viewer=None` is a spectator who sees every hand and the hidden
    roles (marked "hidden"); with a seat, only that seat's hand and what it may know."""
    kinds = game.kinds.names
    header = f"Baohuang [{game.rules.preset}]  phase: {game.phase}"
    if not game.is_over:
        header += f"  to act: seat {game.current_player}"
    lines = [header, f"{'seat':<5}{_pad('role', 28)}{'cards':>5}  {'status':<12}hand"]
    for s in range(NUM_SEATS):
        role = public_role(game, s)
        if viewer is None and game.result is None and role == "?" and game.guard >= 0:
            role = ROLE_NAMES["guard"] + " (hidden)" if s == game.guard else ROLE_NAMES["rebel"]
        if viewer is None and game.result is None and s == game.emperor and game.solo == "hidden":
            role = ROLE_NAMES["solo"] + " (hidden)"
        status = ""
        if game.places[s]:
            status = f"out #{game.places[s]}"
        elif game.passed[s]:
            status = "passed"
        if not game.is_over and s == game.current_player:
            status = "<- to act"
        hand = format_hand(game.hands[s], kinds) if viewer in (None, s) else "(hidden)"
        marks = []
        if game.phase == "role" and s == game.emperor_card_seat:
            marks.append("holds emperor card")
        if viewer in (None, s) and s == game.guard_card_seat:
            marks.append("holds guard card")
        lines.append(f"{s:<5}{_pad(role, 28)}{game.cards_left[s]:>5}  {status:<12}{hand}"
                     + (f"  [{', '.join(marks)}]" if marks else ""))
    trick = game.trick
    if trick is not None:
        play, by = trick
        lines.append(f"to beat: {format_play(play)} by seat {by}")
    elif game.phase == "play":
        lines.append(f"seat {game.current_player} leads a new trick")
    if game.log and len(game.log) > 1:
        lines.append("last: " + describe_event(game, game.log[-1]))
    if game.result is not None:
        lines.append("scores: " + "  ".join(f"seat {s}: {v:+d}" for s, v in enumerate(game.result.scores)))
    return "\n".join(lines)


def describe_event(game: Game, event: tuple) -> str:
    """One event of `Game.log` in words."""
    kind = event[0]
    if kind == "deal":
        return f"deal (seed {event[1]}); seat {event[2]} holds the emperor card"
    if kind == "decide":
        return f"seat {event[1]}: {game.describe(event[2])}"
    if kind == "roles":
        text = f"seat {event[1]} is the emperor"
        if event[2] == "open":
            text += ", playing an open solo (明独)"
        elif event[3] is not None and event[3] >= 0:
            text += f"; seat {event[3]} is the open guard (明保)"
        return text
    if kind == "play":
        return f"seat {event[1]} plays {game.describe(event[2])}"
    if kind == "pass":
        return f"seat {event[1]} passes"
    if kind == "guard_card":
        return f"seat {event[1]} played the marked guard card: the guard is known"
    if kind == "emperor_card":
        return f"seat {event[1]} played the marked emperor card"
    if kind == "out":
        return f"seat {event[1]} is out, place {event[2]}"
    if kind == "trick":
        return f"seat {event[1]} wins the trick; seat {event[2]} leads"
    if kind == "over":
        return "game over: scores " + " ".join(f"{v:+d}" for v in event[1])
    return repr(event)
