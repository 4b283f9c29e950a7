"""Readable text views of a game: hands in card notation, a spectator table, and every
decision and event in plain words with the Chinese term once in brackets ("abdicate (让位)",
"call ♠K (叫牌)", "void deal (流局)").

Used by the env's `render()` (ansi / human), `baohuang replay` and `baohuang play`.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

from .cards import NUM_SEATS
from .game import Game
from .actions import DECISIONS, FIRST_PLAY, PASS, format_play

#: Chinese names of the roles, shown once beside the English ones ("none": a void deal).
ROLE_NAMES = {"emperor": "emperor 皇帝", "guard": "guard 侍卫", "rebel": "rebel 革命党", "solo": "solo emperor 独保",
              "none": "none (void deal 流局)"}

#: Role-phase decisions in plain words (RULES.md §3.9). NO depends on the question: see
#: `NO_WORDS` (what everyone hears) and `decision_words(..., private=True)` (what it means
#: to the seat answering: a hidden guard or a hidden solo).
DECISION_WORDS = {
    "ACCEPT": "accept the throne (登基)",
    "ABDICATE": "abdicate (让位)",
    "DECLINE": "decline (让位给隔一家)",
    "NO": "no",
    "OPEN_SOLO": "open solo (明独)",
    "OPEN_GUARD": "open guard (明保)",
    "GRAB": "grab the solo (抢独)",
    "REBEL": "rebel (造反)",
    "KICK": "kick (踢)",
    "SURRENDER": "surrender (投降)",
    "APPLY_WIND": "apply for the wind (申请接风)",
}
#: NO as everyone hears it, per role step: it never tells whether the seat could have said yes.
NO_WORDS = {
    "declaration": "no open declaration",
    "solo": "no open solo",
    "guard": "no open declaration",
    "grab": "no grab (不抢)",
    "rebellion": "no rebellion (不造反)",
    "kick": "no kick (不踢)",
}
#: The role steps (`Rules.role_steps`) in words.
STEP_WORDS = {
    "abdication": "throne round: accept or abdicate (让位)",
    "decline": "throne round: accept, or decline (让位给隔一家) holding both marked cards",
    "call": "calling round (叫牌)",
    "declaration": "declaration round: open guard (明保) / open solo (明独)",
    "solo": "the emperor's solo choice: open solo (明独) or not",
    "grab": "grab-solo round (抢独)",
    "guard": "guard round: open guard (明保) or not",
    "rebellion": "rebellion round (造反)",
    "kick": "kick round (踢)",
}


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


def role_step(game: Game) -> str | None:
    """The role step being decided now (a name of `Rules.role_steps`), or None after it."""
    if game.phase != "role":
        return None
    return game.rules.role_steps[game.step_index]


def decision_words(game: Game, action: int, seat: int | None = None, step: str | None = None,
                   private: bool = False) -> str:
    """An action in plain words with its Chinese term: "abdicate (让位)", "call ♠K (叫牌)",
    a play in card notation, "pass". `step` (default: the current one) says what a NO
    answers. With `private`, a NO is what it means to `seat` itself ("hidden guard (暗保)",
    "hidden solo (暗独)"); otherwise only what everyone hears."""
    action = int(action)
    table = game.table
    if action == PASS:
        return "pass"
    if table.is_call(action):
        return f"{table.describe(action).replace('CALL', 'call', 1)} (叫牌)"
    if action >= FIRST_PLAY:
        return table.describe(action)
    name = DECISIONS[action - 1]
    if name != "NO":
        return DECISION_WORDS[name]
    step = step if step is not None else role_step(game)
    if private and seat is not None and step in ("declaration", "solo", "guard"):
        if seat == game.guard == game.emperor:
            return "hidden solo (暗独)"
        if seat == game.guard:
            return "hidden guard (暗保)"
    if private and step in ("declaration", "guard", "solo"):
        return "no (nothing to declare)"
    return NO_WORDS.get(step, "no")


def public_role(game: Game, seat: int) -> str:
    """What everyone knows of a seat's role right now."""
    if game.result is not None:
        return ROLE_NAMES[game.result.roles[seat]]
    if seat == game.emperor:
        if game.solo == "open":
            return ROLE_NAMES["solo"] + (" (grabbed 抢独)" if game.grabbed else " (open)")
        return ROLE_NAMES["emperor"]
    if seat == game.public_guard:
        return ROLE_NAMES["guard"]
    if seat in game.rebels:
        return ROLE_NAMES["rebel"] + " (造反)"
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
    header = f"Baohuang [{game.rules.preset}, play goes {game.rules.display_direction}]  phase: {game.phase}"
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
    elif game.phase == "role":
        if any(game.pile):
            lines.append(f"tribute pile (贴牌) with the emperor card: {format_hand(game.pile, kinds)}")
        lines.append(f"role phase, {STEP_WORDS[role_step(game)]}")
    if game.log and len(game.log) > 1:
        lines.append("last: " + describe_event(game, game.log[-1]))
    if game.result is not None:
        lines.append("scores: " + "  ".join(f"seat {s}: {v:+d}" for s, v in enumerate(game.result.scores)))
    return "\n".join(lines)


def _kind_name(game: Game, kind: int) -> str:
    name = game.kinds.names[kind]
    return "T" if name == "10" else name


def _marked_card(game: Game) -> str:
    if game.rules.special_card:
        return "the special card SP (特画)"
    if game.rules.guard_selection == "call_triple":
        called = game.table.describe(game.called).replace("CALL ", "") if game.called >= 0 else "called card"
        return f"the fourth {called}"
    return "the marked guard card"


def _roles_text(game: Game, event: tuple) -> str:
    """The end of the role phase, as public: emperor, open roles, rebellion and kick."""
    e, open_solo, guard = event[1], event[2], event[3]
    text = f"roles fixed: seat {e} is the emperor (皇帝)"
    if open_solo == "open":
        text += ", who grabbed the solo (抢独) and plays alone, openly" if game.grabbed else \
            ", playing an open solo (明独) against the other four"
    elif guard is not None and guard >= 0 and guard != e:
        how = "the open guard (明保)" if game.open_guard else "the guard (known)"
        text += f"; seat {guard} is {how}"
    elif guard == e and game.rebellion == "succeeded":
        text += ", revealed as a hidden solo (暗独)"
    else:
        text += "; the guard is hidden (暗保) or the emperor plays a hidden solo (暗独)"
    if game.rebellion == "failed":
        text += f"; the rebellion (造反) failed: seat {game.rebels[0]} is marked as a rebel"
    elif game.rebellion == "succeeded":
        text += f"; the rebellion (造反) succeeded: seats {', '.join(map(str, game.rebels))} rebelled"
    elif game.rebellion == "declared":
        text += f"; seats {', '.join(map(str, game.rebels))} declared themselves rebels (造反)"
    if game.kicked:
        text += "; kick (踢) succeeded: scores doubled"
    return text


def _decide_text(game: Game, event: tuple, step: str | None) -> str:
    seat, action = event[1], int(event[2])
    words = decision_words(game, action, seat, step=step or "")
    name = game.describe(action)
    up, ll = (seat - 1) % NUM_SEATS, (seat + 2) % NUM_SEATS
    notes = {
        "ACCEPT": "takes the throne",
        "ABDICATE": f"the emperor card passes to seat {up}",
        "DECLINE": f"the emperor card goes to seat {ll}, who must accept; seat {seat} stays the guard",
        "OPEN_GUARD": {"weihai": "he is the guard; scored by the Weihai split table",
                       "qingdao": "he is the guard (no score effect in qingdao)"}.get(
            game.rules.scoring, "he is the guard: all scores doubled"),
        "OPEN_SOLO": "the emperor plays alone, openly",
        "GRAB": "he becomes the emperor, an open solo with no guard",
        "SURRENDER": "the solo emperor gives up before play",
        "APPLY_WIND": "he asks to lead if nobody beats the finisher's last play",
    }
    if game.table.is_call(action):
        card = name.replace("CALL ", "")
        note = f"seat {seat} is the emperor; the holder of the fourth {card} is the guard (a hidden solo if " \
               "the caller holds all four)"
        if game.rules.special_card:
            note += f"; that fourth {card} becomes the special card SP (特画)"
        return f"seat {seat}: {words}: {note}"
    note = notes.get(name)
    return f"seat {seat}: {words}" + (f": {note}" if note else "")


def describe_event(game: Game, event: tuple, step: str | None = None) -> str:
    """One event of `Game.log` in words. `step` is the role step a "decide" event answered
    (it says what a NO meant); without it a NO reads "no"."""
    kind = event[0]
    if kind == "deal":
        return f"deal (seed {event[1]}); seat {event[2]} holds the emperor card"
    if kind == "decide":
        return _decide_text(game, event, step)
    if kind == "roles":
        return _roles_text(game, event)
    if kind == "tribute":
        return f"seat {event[1]} adds a {_kind_name(game, event[2])} to the tribute pile (贴牌)"
    if kind == "pile":
        return f"seat {event[1]} takes the tribute pile (贴牌): {format_hand(event[2], game.kinds.names)}"
    if kind == "forced":
        need = "a triple and no quad" if game.rules.forced_call == "triple_no_quad" else "a triple"
        return f"forced call (逼位): after five abdications seat {event[1]}, the first holding {need}, must call"
    if kind == "grab":
        return f"seat {event[1]} grabbed the solo (抢独)"
    if kind == "void":
        return "void deal (流局): nobody became emperor; no score, the cards are dealt again"
    if kind == "surrender":
        return "the solo emperor surrendered (投降): the deal ends before play"
    if kind == "apply_wind":
        return f"seat {event[1]} applies for the wind (申请接风)"
    if kind == "play":
        return f"seat {event[1]} plays {game.describe(event[2])}"
    if kind == "pass":
        return f"seat {event[1]} passes"
    if kind == "guard_card":
        return f"seat {event[1]} played {_marked_card(game)}: the guard is known"
    if kind == "emperor_card":
        return f"seat {event[1]} played the marked emperor card"
    if kind == "out":
        return f"seat {event[1]} is out, place {event[2]}"
    if kind == "trick":
        return f"seat {event[1]} wins the trick; seat {event[2]} leads"
    if kind == "over":
        return "game over: scores " + " ".join(f"{v:+d}" for v in event[1])
    return repr(event)


def story(game: Game) -> list[tuple[tuple, str | None]]:
    """Every event of a game's log with the role step its decision answered (None for
    other events), by replaying the game: what `describe_event` needs to word each NO."""
    rec = {k: v for k, v in game.to_replay().items() if k != "result"}
    actions, rec["actions"] = rec["actions"], []
    g = Game.from_replay(rec)
    out: list[tuple[tuple, str | None]] = [(e, None) for e in g.log]
    for a in actions:
        step = role_step(g)
        n = len(g.log)
        g.step(a)
        out += [(e, step if e[0] == "decide" else None) for e in g.log[n:]]
    return out
