"""The JSON a browser gets: one seat's view of a game (or the spectator's, for replays).

Every payload is computed from what its viewer may know and nothing else: the viewer's own
hand (`text.hand_text`, with suits while they matter), public counts, passes, places and
the play to beat, and the roles as `baohuang_env.knowledge` says the viewer knows them
(`text.role_label`). Other seats' hands appear only for the spectator (`viewer` None: a
replay, whose file holds the whole deal) or once the deal is over. The event log is the
public story in words (`text.describe_event`) except that the deal's seed, from which every
hand could be recomputed, is left out until the game is over.
"""

from __future__ import annotations

from typing import Any

from baohuang_env.actions import FIRST_PLAY, PASS, format_play
from baohuang_env.cards import NUM_SEATS, SUITS
from baohuang_env.game import PLAY, ROLE, Game
from baohuang_env.text import (
    ROLE_NAMES, STEP_WORDS, decision_help, decision_words, describe_event, hand_text, move_list, own_role_text,
    result_lines, role_label, role_step, score_lines, seat_status, turn_hint, winner_text,
)

#: Payload fields of a seat's view; tests check that nothing else is sent.
VIEW_KEYS = frozenset({
    "preset", "direction", "phase", "seat", "to_act", "your_turn", "hand", "hand_text", "own_role", "seats",
    "trick", "step", "hint_text", "moves", "events", "event_count", "result", "over",
})


def card_list(game: Game, seat: int) -> list[str]:
    """`seat`'s cards one by one, low to high, as the page draws them: "8", "T", "SJ"; with
    the suit in front ("♠K") while suits matter (`Game.suits`)."""
    names = game.kinds.names
    cards: list[str] = []
    for kind, count in enumerate(game.hands[seat]):
        sym = "T" if names[kind] == "10" else names[kind]
        if game.suits is not None and kind < game.kinds.num_ranks:
            for suit, n in zip(SUITS, game.suits[seat][kind], strict=True):
                cards += [f"{suit}{sym}"] * n
        else:
            cards += [sym] * count
    return cards


def seat_rows(game: Game, viewer: int | None, names: list[str]) -> list[dict[str, Any]]:
    """The table, one row per seat, as `viewer` sees it (a spectator when None)."""
    rows = []
    last_plays = trick_plays(game)
    for s in range(NUM_SEATS):
        marks = []
        if game.phase == ROLE and s == game.emperor_card_seat:
            marks.append("holds the emperor card")
        if viewer in (None, s) and s == game.guard_card_seat:
            marks.append("holds the guard card")
        row = {"seat": s, "name": names[s], "role": role_label(game, s, viewer), "cards_left": game.cards_left[s],
               "status": seat_status(game, s, to_act="to act"), "marks": marks, "last_play": last_plays[s]}
        if viewer is None or game.is_over:
            row["hand"] = hand_text(game, s)
        rows.append(row)
    return rows


def play_cards(label: str) -> list[str]:
    """The cards of a play in card notation ("888+SJ") one by one, as the page draws them:
    rank symbols are one character each ("T" for 10), jokers two ("SJ", "BJ", "SP")."""
    cards: list[str] = []
    for part in label.split("+"):
        cards += [part] if part in ("SJ", "BJ", "SP") else list(part)
    return cards


def trick_plays(game: Game) -> list[dict[str, Any] | None]:
    """Each seat's last play in the trick on the table (public: everyone saw it), read
    from the log back to the trick's start: `{"label": "888+SJ", "cards": [...]}`, a pass
    (`{"label": "pass", "cards": []}`), or None for a seat that has not played in it."""
    out: list[dict[str, Any] | None] = [None] * NUM_SEATS
    for event in reversed(game.log):
        kind = event[0]
        if kind in ("trick", "roles", "deal"):  # the trick (or the play phase) started here
            break
        seat = event[1] if kind in ("play", "pass", "apply_wind") else None
        if seat is None or out[seat] is not None:
            continue
        if kind == "play":
            label = game.describe(event[2])
            out[seat] = {"label": label, "cards": play_cards(label)}
        else:
            out[seat] = {"label": "pass" if kind == "pass" else "applies for the wind (申请接风)", "cards": []}
    return out


def event_text(game: Game, event: tuple, step: str | None) -> str:
    """One log event in words as every seat hears it: the deal event without its seed
    while the game goes on (the seed is the whole deal)."""
    if event[0] == "deal" and not game.is_over:
        return f"deal; seat {event[2]} holds the emperor card"
    return describe_event(game, event, step)


def move_rows(game: Game, seat: int) -> list[dict[str, Any]]:
    """The legal moves of `seat` (empty when it is not to act), in `move_list` order: id,
    label, kind ("pass", "decision", "call" or "play") and, for decisions, what they do."""
    if game.is_over or game.current_player != seat:
        return []
    rows = []
    for a in move_list(game, game.legal_actions()):
        if a == PASS:
            rows.append({"id": a, "label": "pass", "kind": "pass"})
        elif a < FIRST_PLAY or game.table.is_call(a):
            rows.append({"id": a, "label": decision_words(game, a, seat, private=True),
                         "kind": "call" if game.table.is_call(a) else "decision",
                         "help": decision_help(game, seat, a)})
        else:
            rows.append({"id": a, "label": game.describe(a), "kind": "play"})
    return rows


def sixes_note(game: Game, seat: int) -> str | None:
    """Why `seat`'s 6s are not among its moves under hold-the-sixes (憋6, docs/rules.md
    §4.5), or None when that does not apply: a 6 may only be played as the whole remaining
    hand (and, with `six_no_jokers`, without jokers)."""
    rules, table = game.rules, game.table
    if not rules.hold_sixes or game.phase != PLAY or game.current_player != seat:
        return None
    hand = game.hands[seat]
    sixes = hand[0]  # hold-the-sixes needs 6 to be the lowest rank (kind 0)
    if not sixes:
        return None
    for a in game.legal_actions():
        if a >= FIRST_PLAY and not table.is_call(a) and table.rank[a - FIRST_PLAY] == 0 and table.n[a - FIRST_PLAY]:
            return None  # the 6s can be played now
    others = sum(hand) - sixes
    rule = "Hold-the-sixes (憋6): a 6 may only be played as your whole remaining hand"
    if rules.six_no_jokers:
        rule += ", never with jokers"
    if others == 0:  # only 6s left while following
        return f"{rule}. You hold only 6s: you may play them all when you lead; now you can only pass."
    only_jokers = sum(hand[:game.kinds.num_ranks]) == sixes
    if only_jokers and rules.six_no_jokers:
        return f"{rule}. Play your jokers first; your 6s come last."
    return f"{rule}, so your 6s are not among your moves until every other card is gone."


def result_view(game: Game) -> dict[str, Any] | None:
    """The result once the deal is over: the score table, who won, why the scores are what
    they are (`score_lines`) and the summary lines."""
    res = game.result
    if res is None:
        return None
    rows = [{"seat": s, "place": res.places[s], "role": ROLE_NAMES[res.roles[s]], "score": res.scores[s]}
            for s in range(NUM_SEATS)]
    # result_lines: a title, a header and one line per seat (the rows above), then the summary
    return {"rows": rows, "lines": result_lines(game)[2 + NUM_SEATS:], "end": res.end,
            "winner": winner_text(game), "score_lines": score_lines(game)}


def trick_view(game: Game) -> dict[str, Any] | None:
    trick = game.trick
    if trick is None:
        return None
    play, by = trick
    return {"play": format_play(play), "by": by}


def table_view(game: Game, viewer: int | None, names: list[str], events: list[str]) -> dict[str, Any]:
    """What `viewer` (a seat, or None for the spectator) sees of `game` now; `events` are
    the log lines to send (`event_text`)."""
    step = role_step(game)
    return {
        "preset": game.rules.preset,
        "direction": game.rules.display_direction,
        "phase": game.phase,
        "to_act": None if game.is_over else game.current_player,
        "seats": seat_rows(game, viewer, names),
        "trick": trick_view(game),
        "step": STEP_WORDS[step] if step else None,
        "events": events,
        "event_count": len(game.log),
        "over": game.is_over,
        "result": result_view(game),
    }


def seat_view(game: Game, seat: int, names: list[str], steps: list[str | None], since: int = 0) -> dict[str, Any]:
    """The payload for the human at `seat`: the table as it sees it, its hand and role, the
    legal moves on its turn, and the log lines from `since` on. `steps[i]` is the role step
    that `game.log[i]` answered (for the words of a NO)."""
    since = max(0, min(since, len(game.log)))
    events = [event_text(game, e, steps[i]) for i, e in enumerate(game.log[since:], since)]
    view = table_view(game, seat, names, events)
    your_turn = not game.is_over and game.current_player == seat
    view.update({
        "seat": seat,
        "your_turn": your_turn,
        "hand": card_list(game, seat),
        "hand_text": hand_text(game, seat),
        "own_role": own_role_text(game, seat),
        "hint_text": " ".join(filter(None, (turn_hint(game, seat), sixes_note(game, seat)))) if your_turn else None,
        "moves": move_rows(game, seat),
    })
    return view
