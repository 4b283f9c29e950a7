"""Readable text views of a game: hands in card notation, the table as one seat or a
spectator sees it, the result, and every decision and event in plain words with the Chinese
term once in brackets ("abdicate (让位)", "call ♠K (叫牌)", "void deal (流局)").

Used by the envs' `render()` (ansi / human), `baohuang replay` and `baohuang play`, which
only read and print, and by the web page, which shows the same words: who won a deal
(`winner_text`) and why the scores are what they are (`score_lines`) have their one wording
here. What a viewer knows of the roles comes from `baohuang_env.knowledge`.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

from .actions import DECISION_ID, DECISIONS, FIRST_PLAY, PASS, format_play
from .cards import NUM_SEATS, SUITS
from .game import PLAY, ROLE, Game
from .knowledge import GUARD, REBEL, SOLO, known_role, own_role, public_role
from .scoring import QINGDAO_PLACE_POINTS, DealScore, score_finished_deal

#: Chinese names of the roles, shown once beside the English ones ("none": a void deal).
ROLE_NAMES = {"emperor": "emperor 皇帝", "guard": "guard 侍卫", "rebel": "rebel 革命党", "solo": "solo emperor 独保",
              "none": "none (void deal 流局)"}

#: Role-phase decisions in plain words (docs/rules.md §3.9). NO depends on the question: see
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
#: NO in a declaration step as it means to the seat answering, by its own role.
PRIVATE_NO_WORDS = {GUARD: "hidden guard (暗保)", SOLO: "hidden solo (暗独)"}
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
#: Display width of the table's role column: the longest label ("solo emperor 独保 (grabbed 抢独)") and a space.
ROLE_WIDTH = 33


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


def format_suited_hand(suit_counts: Sequence[Sequence[int]], names: Sequence[str]) -> str:
    """A hand with suits, low to high and suits in `cards.SUITS` order: "♣6 ♠6x2 ♥Kx3 SJ BJx2"
    (jokers have no suit). The calling presets' view while suits matter: the suit-rank called
    decides the guard, the holder of its fourth copy."""
    parts = []
    for name, per_suit in zip(names, suit_counts, strict=True):
        sym = "T" if name == "10" else name
        if len(sym) > 1:  # a joker (or SP): one suit-rank, counted in suit 0
            count = sum(per_suit)
            if count:
                parts.append(sym if count == 1 else f"{sym}x{count}")
            continue
        parts += [f"{suit}{sym}" + (f"x{c}" if c > 1 else "") for suit, c in zip(SUITS, per_suit, strict=True) if c]
    return " ".join(parts) or "-"


def hand_text(game: Game, seat: int) -> str:
    """`seat`'s hand as the table shows it: with suits while they matter (a calling preset
    before the call, `Game.suits`), else in plain card notation (`format_hand`)."""
    if game.suits is not None:
        return format_suited_hand(game.suits[seat], game.kinds.names)
    return format_hand(game.hands[seat], game.kinds.names)


def seat_status(game: Game, seat: int, to_act: str = "<- to act") -> str:
    """A seat's public status: out with its place, the place of a seat that still held cards
    when the deal ended (it never went out), passed, or `to_act` (the terminal table's
    marker by default)."""
    if not game.is_over and seat == game.current_player:
        return to_act
    place = game.places[seat]
    if place:
        left = game.cards_left[seat]
        return f"place {place} (still held {left})" if left else f"out #{place}"
    return "passed" if game.passed[seat] else ""


def role_step(game: Game) -> str | None:
    """The role step being decided now (a name of `Rules.role_steps`), or None after it."""
    if game.phase != ROLE:
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
    if private and step in ("declaration", "solo", "guard"):
        role = own_role(game, seat) if seat is not None else None
        return PRIVATE_NO_WORDS.get(role, "no (nothing to declare)")
    return NO_WORDS.get(step, "no")


def role_label(game: Game, seat: int, viewer: int | None = None) -> str:
    """The role of `seat` as `viewer` knows it (`knowledge.known_role`; a spectator when
    None), in words, with how it is known: "(hidden 暗保)" when it is not public, "(造反)"
    for a declared rebel, "?" while unknown. At the end of a deal every role is shown."""
    if game.result is not None:
        return ROLE_NAMES[game.result.roles[seat]]
    role = known_role(game, seat, viewer)
    if role is None:
        return "?"
    name = ROLE_NAMES[role]
    public = public_role(game, seat) == role
    if role == SOLO:
        if game.solo == "open":
            return name + (" (grabbed 抢独)" if game.grabbed else " (open)")
        return name + (" (revealed)" if public else " (hidden 暗独)")
    if role == GUARD and not public:
        return name + " (hidden 暗保)"
    if role == REBEL and seat in game.rebels:
        return name + " (造反)"
    return name


def own_role_text(game: Game, seat: int) -> str:
    """What `seat` itself knows of its role now, in words (its own hand tells it whether it
    holds the guard card)."""
    if game.result is not None:
        return ROLE_NAMES[game.result.roles[seat]]
    role = own_role(game, seat)
    if role is None:
        return "not decided yet" + (" (you hold the guard card 侍卫牌)" if game.guard_card_seat == seat else "")
    name = ROLE_NAMES[role]
    if role == SOLO:
        if game.solo == "open":
            return name + " (open)"
        if game.public_guard == seat:
            return name + " (revealed)"
        return name + " (you also hold the guard card; hidden unless you play it)"
    if role == GUARD:
        return name + (" (open)" if game.open_guard or game.public_guard == seat else " (hidden: only you know)")
    return name


def render_for_mode(game: Game, render_mode: str | None) -> str | None:
    """What an env's render() does: "ansi" returns the spectator's table with the last event,
    "human" prints it."""
    if render_mode is None:
        import logging

        logging.getLogger("baohuang_env").warning("render() called without a render_mode; nothing to show")
        return None
    text = render_table(game)
    if len(game.log) > 1:
        text += "\nlast: " + describe_event(game, game.log[-1])
    if render_mode == "ansi":
        return text
    print(text)
    return None


def render_table(game: Game, viewer: int | None = None) -> str:
    """The table as `viewer` sees it: a seat (marked "*") sees its own hand (with suits while
    they matter, `hand_text`) and the roles as it knows them (`role_label`); a spectator
    (`viewer` None) sees every hand and every role. Seats that went out show their place
    ("out #2"); at the end, those that still held cards show it too ("place 4 (still held 7)").
    Then the play to beat or the role step, and the scores once the deal is over."""
    kinds = game.kinds.names
    header = f"Baohuang [{game.rules.preset}, play goes {game.rules.display_direction}]  phase: {game.phase}"
    if not game.is_over:
        header += f"  to act: seat {game.current_player}"
    statuses = [seat_status(game, s) for s in range(NUM_SEATS)]
    width = max(12, *(len(st) + 2 for st in statuses))
    lines = [header, f"{'seat':<6}{_pad('role', ROLE_WIDTH)}{'cards':>5}  {'status':<{width}}hand"]
    for s, status in enumerate(statuses):
        sees = viewer in (None, s)
        hand = hand_text(game, s) if sees else "(hidden)"
        marks = []
        if game.phase == ROLE and s == game.emperor_card_seat:
            marks.append("holds the emperor card")
        if sees and s == game.guard_card_seat:
            marks.append("holds the guard card")
        seat = f"{s}{'*' if s == viewer else ''}"
        lines.append(f"{seat:<6}{_pad(role_label(game, s, viewer), ROLE_WIDTH)}{game.cards_left[s]:>5}  "
                     f"{status:<{width}}{hand}" + (f"  [{', '.join(marks)}]" if marks else ""))
    trick = game.trick
    if trick is not None:
        play, by = trick
        lines.append(f"to beat: {format_play(play)} by seat {by}")
    elif game.phase == PLAY:
        lines.append(f"seat {game.current_player} leads a new trick")
    elif game.phase == ROLE:
        if any(game.pile):
            pile_suits = game.cards.pile_suits
            pile = format_hand(game.pile, kinds) if pile_suits is None else format_suited_hand(pile_suits, kinds)
            lines.append(f"tribute pile (贴牌) with the emperor card: {pile}")
        lines.append(f"role phase, {STEP_WORDS[role_step(game)]}")
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
        "GRAB": "he becomes the emperor, an open solo with no guard, unless the emperor plays a hidden solo "
                "(then the grab fails and reveals it)",
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
    if kind == "grab_failed":
        return (f"seat {event[1]} tried to grab the solo (抢独), but the emperor (seat {event[2]}) plays a hidden "
                "solo, which comes first: the grab fails and everyone now knows he plays alone")
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


def _place(n: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(n, f"{n}th")


def winner_text(game: Game) -> str:
    """Who won the finished deal, in words, read from the engine's scores (docs/rules.md §6):
    the emperor's side, the rebels, a draw (a score of 0), or the solo emperor alone."""
    res = game.result
    assert res is not None
    e, g = res.emperor, res.guard
    if res.end == "void":
        return "No winner: a void deal (流局); nobody became emperor, the cards are dealt again."
    rebels = ", ".join(str(s) for s in range(NUM_SEATS) if res.roles[s] == "rebel")
    score = res.scores[e]
    if res.end == "surrender":
        return f"The other four win: seat {e}, the solo emperor, surrendered (投降) before play."
    if res.solo != "none":
        if score > 0:
            return f"Seat {e}, the solo emperor, wins alone against the other four."
        if score < 0:
            return f"The other four (seats {rebels}) win against seat {e}, the solo emperor."
        return f"A draw: seat {e}, the solo emperor, came {_place(res.places[e])}: nobody scores."
    if score > 0:
        return f"The emperor's side wins: emperor seat {e} and guard seat {g}."
    if score < 0:
        return f"The rebels win: seats {rebels}."
    return "A draw: neither side scores."


#: The words of each reason for a multiplier (`scoring.FACTORS`); "qingdao_pair" names the
#: places the emperor and the guard took (`_factor_words`).
FACTOR_WORDS = {"open_guard": "open guard 明保", "rebellion": "successful rebellion 造反", "kick": "kick 踢",
                "qingdao_open_solo": "open solo 明独",
                "qingdao_pair": "the emperor and the guard took places {} and {}, the two first or the two last"}


def deal_score(game: Game) -> DealScore:
    """The finished deal's score with its breakdown (table, base values, g, the multiplier's
    reasons), from the engine's own scoring of the result's facts."""
    res = game.result
    assert res is not None and res.end != "void"
    return score_finished_deal(game.rules, res.places, res.emperor, res.guard, res.solo, open_guard=res.open_guard,
                               rebellion=res.rebellion, kicked=res.kicked, surrendered=res.end == "surrender")


def _factor_words(game: Game, factor: str) -> str:
    """Why the scores are multiplied, in words (`FACTOR_WORDS`), with this deal's places."""
    res = game.result
    assert res is not None
    return FACTOR_WORDS[factor].format(*sorted((res.places[res.emperor], res.places[res.guard])))


def _times(game: Game, score: DealScore) -> str:
    return f"× {score.multiplier} ({', '.join(_factor_words(game, f) for f in score.factors)})"


def score_lines(game: Game) -> list[str]:
    """Why the scores are what they are: the preset's scoring rule (docs/rules.md §6) with
    this deal's numbers, all read from the engine's scoring of the deal (`deal_score`: the
    table it used, its base values and the reasons for its multiplier), so these words never
    disagree with the scores."""
    res = game.result
    assert res is not None
    if res.end == "void":
        return []
    d = deal_score(game)
    e, g, s, p = res.emperor, res.guard, d.scores, res.places
    other = next(x for x in range(NUM_SEATS) if x not in (e, g))
    if d.table == "surrender":
        return [f"Surrender (投降): the emperor scores {s[e]:+d}, every other seat {s[other]:+d}; never doubled."]
    if d.table == "qingdao":
        return _qingdao_lines(game, d)
    if d.table in ("open_solo", "hidden_solo"):
        table = ("open solo (明独): the emperor +24 and each other −6 if he goes out first, else −24 / +6"
                 if d.table == "open_solo" else
                 "hidden solo (暗独), by the emperor's place: 1st +12 / −3, 2nd 0 / 0, 3rd or later −12 / +3")
        lines = [f"Solo table: {table}.",
                 f"Seat {e} came {_place(p[e])}: emperor {d.base[e]:+d}, each other player {d.base[other]:+d}."]
        if d.multiplier != 1:
            lines.append(f"{_times(game, d)}: emperor {s[e]:+d}, each other player {s[other]:+d}.")
        return lines
    sum_text = f"g = 6 − (emperor's place {p[e]} + guard's place {p[g]}) = {d.g}"
    scores = f"emperor {s[e]:+d}, guard {s[g]:+d}, each rebel {s[other]:+d}"
    if d.table == "weihai_split":
        why = "open guard 明保" if res.open_guard else "successful rebellion 造反, which counts as open guard"
        kick = " with the kick's (踢) × 2" if "kick" in d.factors else ""
        return [f"Weihai split table ({why}): {sum_text}; emperor = guard = 3g, each rebel −2g.",
                f"Scores{kick}: {scores}."]
    lines = [f"JJ formula: {sum_text}; emperor 2g = {d.base[e]:+d}, guard g = {d.base[g]:+d}, "
             f"each rebel −g = {d.base[other]:+d}."]
    if d.g == 0:
        return [*lines, "g = 0: nobody scores."]
    if d.multiplier == 1:
        return [*lines, f"Scores: {scores}."]
    return [*lines, f"{_times(game, d)}: {scores}."]


def _qingdao_lines(game: Game, d: DealScore) -> list[str]:
    """Qingdao (docs/rules.md §6.4): place points, maybe doubled, summed per team."""
    res = game.result
    assert res is not None
    table = ", ".join(f"{_place(i + 1)} {v:+d}" for i, v in enumerate(QINGDAO_PLACE_POINTS))
    lines = [f"Qingdao place points: {table}."]
    if d.multiplier != 1:
        lines.append(f"{_times(game, d)}: every player's points are doubled.")
    lines.append("Points: " + ", ".join(f"seat {x} {d.points[x]:+d}" for x in range(NUM_SEATS)) + ".")
    e = res.emperor
    side = "the solo emperor alone" if res.solo != "none" else "the emperor's side"
    rebel = next(x for x in range(NUM_SEATS) if x not in (e, res.guard))
    lines.append(f"Each seat scores its team's sum: {side} {d.scores[e]:+d}, the rebels {d.scores[rebel]:+d}.")
    return lines


def result_text(game: Game) -> list[str]:
    """The whole result of a finished game as the terminal shows it: the table and summary
    (`result_lines`), who won (`winner_text`) and why the scores are what they are
    (`score_lines`), the words the web page shows too."""
    if game.result is None:
        return result_lines(game)
    return [*result_lines(game), winner_text(game), *score_lines(game)]


def decision_help(game: Game, seat: int, action: int) -> str:
    """A role decision in words for the deciding seat: the plain words with the Chinese
    term, then what it does."""
    action = int(action)
    words = decision_words(game, action, seat, private=True)
    rules, table = game.rules, game.table
    step = role_step(game)
    up, ll = (seat - 1) % NUM_SEATS, (seat + 2) % NUM_SEATS
    if table.is_call(action):
        card = table.describe(action).replace("CALL ", "")
        what = "you become the emperor; the holder of the fourth copy is your guard, or you play a hidden solo " \
               "(暗独) if you hold all four"
        if rules.special_card:
            what += "; that fourth copy becomes the special card SP (特画)"
        return f"{words}: {card} shown to everyone; {what}"
    name = table.describe(action)
    solo_warning = " (you also hold the guard card: you would play alone, a solo)" \
        if seat == game.guard_card_seat and rules.guard_selection == "fixed_card" else ""
    tribute = ""
    if rules.tribute and game.abdications >= 1:
        tribute = "; you add your highest non-joker card (a 2 if you have one) to the tribute pile (贴牌)"
    open_guard_effect = {"weihai": "scored by the Weihai split table, and the rebels may kick (踢)",
                         "qingdao": "no score effect in qingdao"}.get(rules.scoring,
                                                                      "every score of the deal is doubled")
    texts = {
        "ACCEPT": "become the emperor and lead the first trick" + solo_warning
        + (" and take the tribute pile (贴牌)" if any(game.pile) else ""),
        "ABDICATE": f"pass the emperor card to your upper seat (seat {up}), who decides next" + tribute,
        "DECLINE": f"the emperor card goes to seat {ll}, who must accept; you stay the guard (everyone learns it)",
        "OPEN_GUARD": f"reveal yourself as the guard: {open_guard_effect}",
        "OPEN_SOLO": "announce that you play alone: +24 if you go out first, else -24; ends at the first player out"
        if rules.scoring != "qingdao" else "announce that you play alone: every point is doubled",
        "GRAB": "become an open-solo emperor with no guard (+24 if you go out first, else -24); if the emperor "
                "plays a hidden solo his comes first: the grab fails and reveals him",
        "REBEL": "declare yourself a rebel: one alone fails and is marked; two or more reveal the guard"
        if rules.rebellion != "declaration" else "show everyone you are a rebel (no score effect)",
        "KICK": "double the score; "
        + ("one kick of the emperor or guard is enough" if game.rebellion == "succeeded" else "two kicks are needed"),
        "SURRENDER": "give up before play: you pay 4, every other seat gets 1",
        "APPLY_WIND": "lead next if nobody beats the finisher's last play (接风)",
    }
    if name == "NO":
        if words == PRIVATE_NO_WORDS[GUARD]:
            return f"{words}: stay a hidden guard, only you know"
        if words == PRIVATE_NO_WORDS[SOLO]:
            return f"{words}: play a hidden solo: +12 / 0 / -12 by your place"
        return {"declaration": "nothing to declare", "guard": "nothing to declare",
                "solo": "nothing to declare"}.get(step or "", words)
    return f"{words}: {texts[name]}" if name in texts else words


def turn_hint(game: Game, seat: int) -> str:
    """What the seat to move is asked to do, in words."""
    if game.phase == ROLE:
        step = game.rules.role_steps[game.step_index]
        if step == "abdication":
            text = "You hold the emperor card: accept the throne (登基) or abdicate (让位)."
            if game.rules.void_deal:
                text += f" Abdications so far: {game.abdications} (ten make a void deal 流局)."
            return text
        if step == "decline":
            return "You were dealt the emperor card: accept the throne (登基)" + (
                ", or decline (让位给隔一家) since you also hold the guard card." if game.guard_card_seat == seat
                else ".")
        if step == "call":
            if game.abdications >= NUM_SEATS:  # five abdications start the forced round
                return "Forced call (逼位): you hold a triple, so you must call (叫牌) one."
            return ("Calling round (叫牌): call a suit-rank you hold three times (its fourth copy's holder is your "
                    "guard) or four times (a solo), or abdicate (让位).")
        if step == "declaration":
            return f"Declaration round (asked of every seat from the emperor, seat {game.emperor})."
        where = f" The emperor is seat {game.emperor}." if game.emperor >= 0 else ""
        return f"Role phase: {STEP_WORDS[step]}.{where}"
    trick = game.trick
    if trick is None:
        return "You lead: play anything (no pass)."
    play, by = trick
    text = (f"To beat: {format_play(play)} by seat {by}: {play.size} card{'s' * (play.size > 1)}, "
            "each higher once sorted, or pass.")
    if game.legal_mask()[DECISION_ID["APPLY_WIND"]]:
        text += f" Seat {by} is out: you may apply for the wind (申请接风)."
    return text


def move_list(game: Game, legal: Sequence[int]) -> list[int]:
    """Legal action ids in the order they are listed (numbered by `baohuang play`, buttons
    in `baohuang serve`): pass, decisions, plain plays by rank and size, jokers-only plays,
    then plays with jokers added."""
    table = game.table

    def key(a: int) -> tuple:
        if a < FIRST_PLAY or table.is_call(a):
            return (0, a)
        p = a - FIRST_PLAY
        n, jokers = int(table.n[p]), int(table.small[p]) + int(table.big[p])
        group = 1 if jokers == 0 else 2 if n == 0 else 3
        return (group, int(table.rank[p]), n, int(table.big[p]), int(table.small[p]))

    return sorted((int(a) for a in legal), key=key)
