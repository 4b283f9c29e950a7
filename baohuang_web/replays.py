"""The replay viewer's data: a replay record (`Game.to_replay`, `baohuang_env.replay`) as a
list of frames, one before the first action and one after each, as one viewer saw them.

A replay file holds the whole deal (seed or hand-built deal, and every action), so its
reader may see every hand: the spectator's view (`viewer` None) shows them all; a seat's
view shows that seat's hand and the roles as it knew them at each moment. Records are
checked by replaying them (`Game.from_replay`), so a frame never shows an illegal state.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from baohuang_env.actions import action_table
from baohuang_env.cards import NUM_SEATS, NUM_SUITS, dealt_counts
from baohuang_env.game import Game
from baohuang_env.rules import PRESETS, Rules
from baohuang_env.text import decision_words, own_role_text

from .errors import BadRequest, check_fields, check_int, require_fields, shown
from .sessions import step_logged
from .views import card_list, event_text, table_view

#: Actions a replay may have at most (a deal has a few hundred).
MAX_ACTIONS = 5000
#: Largest seed a replay may name: deals are drawn from seeds below 2**63 (`Game.reset`).
MAX_SEED = 2**63 - 1
#: The fields of a replay record (`Game.to_replay`) and of its hand-built deal.
RECORD_FIELDS = ("format", "version", "rules", "seed", "actions", "deal", "result")
DEAL_FIELDS = ("hands", "suits", "emperor_card_seat", "guard_card_seat")
_WRITERS = "written by `baohuang play --save`, the page's 'save replay', or `baohuang eval --save-replays`"


def check_record(record: Any) -> Game:
    """The finished (or last) game of a replay record, the one check of a record for both
    replay endpoints: every field's type and range first, so that replaying it can fail
    only as the rules refuse a move or a result (BadRequest says which field is wrong)."""
    if not isinstance(record, dict):
        raise BadRequest(f"a replay is a JSON object ({_WRITERS})")
    check_fields(record, RECORD_FIELDS, "the replay")
    require_fields(record, ("rules", "actions") if "deal" in record else ("rules", "seed", "actions"), "the replay")
    rules = _check_rules(record["rules"])
    if "seed" in record:
        check_int(record["seed"], '"seed"', 0, MAX_SEED)
    if "deal" in record:
        _check_deal(record["deal"], rules)
    _check_actions(record["actions"], rules)
    if not isinstance(record.get("result", {}), dict):
        raise BadRequest(f'"result" is an object (the recorded result), got {shown(record["result"])}')
    try:
        return Game.from_replay(record)
    except ValueError as err:
        raise BadRequest(f"not a valid replay: {err}") from None


def _check_rules(rules: Any) -> Rules:
    """The rules of a record's "rules" object (`Rules.to_dict`); BadRequest says what is wrong."""
    if not isinstance(rules, dict):
        raise BadRequest(f'"rules" is an object of rule flags, got {shown(rules)}')
    preset = rules.get("preset", "jj")
    if not isinstance(preset, str) or preset not in PRESETS:
        raise BadRequest(f'"rules" has an unknown preset {shown(preset)}; presets: {", ".join(PRESETS)}')
    steps = rules.get("role_steps", [])
    if not isinstance(steps, list) or not all(isinstance(s, str) for s in steps):
        raise BadRequest(f'"rules" role_steps is a list of step names, got {shown(steps)}')
    try:
        return Rules.from_dict(rules)
    except ValueError as err:
        raise BadRequest(f'"rules": {err}') from None


def _check_actions(actions: Any, rules: Rules) -> None:
    """A record's "actions": a list of at most MAX_ACTIONS action ids of `rules`' table."""
    if not isinstance(actions, list) or len(actions) > MAX_ACTIONS:
        raise BadRequest(f'"actions" is a list of at most {MAX_ACTIONS} action ids, got {shown(actions)}')
    last = action_table(rules).num_actions - 1
    for i, action in enumerate(actions):
        check_int(action, f'"actions"[{i}]', 0, last)


def _check_deal(deal: Any, rules: Rules) -> None:
    """A record's hand-built "deal" (`Game.from_deal`): the seats of the marked cards and
    the card counts, per seat and kind ("hands") or per seat, kind and suit ("suits", the
    calling presets). Whether the counts make a deal of these rules is `Game.from_deal`'s
    check."""
    if not isinstance(deal, dict):
        raise BadRequest(f'"deal" is an object with {", ".join(DEAL_FIELDS)}, got {shown(deal)}')
    check_fields(deal, DEAL_FIELDS, '"deal"')
    counts = "suits" if rules.suits_matter else "hands"
    require_fields(deal, (counts, "emperor_card_seat", "guard_card_seat"), '"deal"')
    check_int(deal["emperor_card_seat"], '"deal" emperor_card_seat', 0, NUM_SEATS - 1)
    # a calling deal has no guard card: -1 there (`Game.from_deal` says so), a seat elsewhere
    check_int(deal["guard_card_seat"], '"deal" guard_card_seat', -1 if rules.suits_matter else 0, NUM_SEATS - 1)
    kinds, most = action_table(rules).kinds.num_kinds, int(dealt_counts(rules).max())
    for name, shape in (("hands", (NUM_SEATS, kinds)), ("suits", (NUM_SEATS, kinds, NUM_SUITS))):
        if name in deal:
            _check_counts(deal[name], shape, f'"deal" {name}', most)


def _check_counts(value: Any, shape: tuple[int, ...], name: str, most: int) -> None:
    """`value` is nested lists of exactly `shape` whose entries are counts 0..`most`."""
    wanted = f"{name} must be {' x '.join(map(str, shape))} nested lists of card counts 0..{most}"
    todo = [(value, 0, name)]
    while todo:
        item, depth, where = todo.pop()
        if depth == len(shape):
            if type(item) is not int or not 0 <= item <= most:
                raise BadRequest(f"{wanted}; {where} is {shown(item)}")
        elif not isinstance(item, list) or len(item) != shape[depth]:
            raise BadRequest(f"{wanted}; {where} is {shown(item)}")
        else:
            todo += [(child, depth + 1, f"{where}[{i}]") for i, child in enumerate(item)]


def parse_viewer(view: str | None) -> int | None:
    """"spectator" (or nothing) -> None; "0".."4" -> that seat; BadRequest otherwise."""
    if view in (None, "", "spectator"):
        return None
    if view in {str(s) for s in range(NUM_SEATS)}:
        return int(view)
    raise BadRequest(f"view is 'spectator' or a seat 0..{NUM_SEATS - 1}, got {shown(view)}")


def replay_frames(record: Any, viewer: int | None) -> dict[str, Any]:
    """Every frame of the replay as `viewer` saw it: `{"preset", "actions", "viewer",
    "frames": [...]}`; frame i is the table after i actions with the events they caused."""
    final = check_record(record)
    start = {k: v for k, v in final.to_replay().items() if k != "result"}
    start["actions"] = []
    game = Game.from_replay(start)
    names = [f"seat {s}" for s in range(NUM_SEATS)]
    steps: list[str | None] = [None] * len(game.log)

    def frame(first_event: int) -> dict[str, Any]:
        events = [event_text(game, e, steps[i]) for i, e in enumerate(game.log[first_event:], first_event)]
        f = table_view(game, viewer, names, events)
        if viewer is not None:
            f["hand"] = card_list(game, viewer)
            f["own_role"] = own_role_text(game, viewer)
        return f

    frames = [frame(0)]
    for action in final.actions:
        n, words = len(game.log), decision_words(game, action)  # as everyone heard it
        step_logged(game, action, steps)
        frames.append(frame(n))
        frames[-1]["action"] = words
    return {"preset": final.rules.preset, "actions": len(final.actions), "viewer": viewer, "frames": frames}


def replay_files(paths: list[str]) -> list[Path]:
    """The replay files a server was given: files, and the *.json files of folders (sorted);
    ValueError for a path that does not exist."""
    out: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            out += sorted(p.rglob("*.json"))
        elif p.is_file():
            out.append(p)
        else:
            raise ValueError(f"--replays: {p} is neither a replay file nor a folder")
    return out


def load_file(path: Path) -> bytes:
    """The bytes of a replay file the server was given (the app reads them as JSON, as it
    reads a request body); BadRequest when unreadable."""
    try:
        return path.read_bytes()
    except OSError as err:
        raise BadRequest(f"cannot read replay {path.name}: {err.strerror}") from None
