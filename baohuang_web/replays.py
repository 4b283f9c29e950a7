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

from baohuang_env.cards import NUM_SEATS
from baohuang_env.game import Game
from baohuang_env.records import check_replay_record
from baohuang_env.replay import split_players
from baohuang_env.text import decision_words, own_role_text

from .errors import BadRequest, shown
from .sessions import step_logged
from .views import card_list, event_text, table_view

#: Actions a replay may have at most (a deal has a few hundred).
MAX_ACTIONS = 5000
_WRITERS = "written by `baohuang play --save`, the page's 'save replay', or `baohuang eval --save-replays`"


def check_record(record: Any) -> tuple[Game, list[str] | None]:
    """The finished (or last) game of a replay record and who played each seat (None when
    the record does not say), the one check of a record for both replay endpoints: the
    server's bound on its length, its players (`replay.split_players`), every other field's
    type and range (`records.check_replay_record`), then the replay itself
    (`Game.from_replay`: the moves and the result). BadRequest says what is wrong."""
    if not isinstance(record, dict):
        raise BadRequest(f"a replay is a JSON object ({_WRITERS})")
    actions = record.get("actions")
    if isinstance(actions, list) and len(actions) > MAX_ACTIONS:
        raise BadRequest(f'"actions" is a list of at most {MAX_ACTIONS} action ids, got {shown(actions)}')
    try:
        record, players = split_players(record)
        check_replay_record(record)
    except ValueError as err:
        raise BadRequest(str(err)) from None
    try:
        return Game.from_replay(record), players
    except ValueError as err:
        raise BadRequest(f"not a valid replay: {err}") from None


def parse_viewer(view: str | None) -> int | None:
    """"spectator" (or nothing) -> None; "0".."4" -> that seat; BadRequest otherwise."""
    if view in (None, "", "spectator"):
        return None
    if view in {str(s) for s in range(NUM_SEATS)}:
        return int(view)
    raise BadRequest(f"view is 'spectator' or a seat 0..{NUM_SEATS - 1}, got {shown(view)}")


def replay_frames(record: Any, viewer: int | None) -> dict[str, Any]:
    """Every frame of the replay as `viewer` saw it: `{"preset", "actions", "viewer",
    "players", "frames": [...]}`; frame i is the table after i actions with the events they
    caused. `players` names who played each seat (None when the record does not say); the
    frames' seats carry those names."""
    final, players = check_record(record)
    start = {k: v for k, v in final.to_replay().items() if k != "result"}
    start["actions"] = []
    game = Game.from_replay(start)
    names = players or [f"seat {s}" for s in range(NUM_SEATS)]
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
    return {"preset": final.rules.preset, "actions": len(final.actions), "viewer": viewer, "players": players,
            "frames": frames}


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
