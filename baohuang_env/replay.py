"""Saving and loading replays: a game as JSON (rules, seed, actions[, custom deal, result]),
with who played each seat ("players": agent specs, "you" for a human) where the writer
knows it (`baohuang play --save`, the web page's saved replays). The field is optional:
files from before it load as they did, and it is checked when read (`split_players`).

Files are written atomically (a temporary file in the same folder, then a rename), so a
crash never leaves a half-written replay behind; the helpers for that (and for output
folders of their own, `fresh_folder`) serve every writer of the project.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from dataclasses import dataclass
from typing import Any

from .cards import NUM_SEATS
from .game import Game
from .records import PLAYERS_FIELD, shown

#: Longest name of a player a record may hold (an agent spec with a checkpoint's path).
MAX_PLAYER_CHARS = 1000


def set_default_mode(path: str | os.PathLike) -> None:
    """Give a file made by mkstemp (0600) the mode a plain open() would have given it."""
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(path, 0o666 & ~umask)


@contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[str]:
    """Yield a temporary file name beside `path`; once the block finishes, the file gets
    the usual mode and is renamed over `path`. On an error it is removed and `path` is left
    as it was, so a crash never leaves a half-written file behind."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    try:
        yield tmp
        set_default_mode(tmp)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def fresh_folder(parent: str | os.PathLike, name: str) -> Path:
    """Create and return a new folder `parent/name`, or `name-2`, `name-3` ... when that one
    exists: mkdir fails on an existing folder, so two processes asking for the same name at
    once (two runs started in the same second) each get a folder of their own."""
    parent = Path(parent)
    parent.mkdir(parents=True, exist_ok=True)
    for n in range(1, 10_000):
        path = parent / (name if n == 1 else f"{name}-{n}")
        try:
            path.mkdir()
        except FileExistsError:
            continue
        return path
    raise ValueError(f"cannot make a new folder {parent / name}: names up to {name}-9999 are taken")


def write_json_atomic(path: str | os.PathLike, data: Any) -> None:
    """Write JSON to `path` through a temporary file and a rename."""
    with atomic_path(path) as tmp, open(tmp, "w", encoding="utf-8") as f:
        json.dump(data, f, ensure_ascii=False)


def check_players(players: Any) -> list[str]:
    """`players` if it names who played each seat (NUM_SEATS non-empty strings of at most
    MAX_PLAYER_CHARS characters); ValueError otherwise."""
    if not (isinstance(players, list) and len(players) == NUM_SEATS and all(
            isinstance(p, str) and 0 < len(p) <= MAX_PLAYER_CHARS for p in players)):
        raise ValueError(f'"{PLAYERS_FIELD}" is a list of {NUM_SEATS} names (who played each seat, at most '
                         f"{MAX_PLAYER_CHARS} characters each), got {shown(players)}")
    return list(players)


def replay_with_players(game: Game, players: list[str] | None = None) -> dict[str, Any]:
    """`game`'s replay record (`Game.to_replay`) with who played each seat, when given."""
    record = game.to_replay()
    if players is not None:
        record[PLAYERS_FIELD] = check_players(players)
    return record


def split_players(record: dict[str, Any]) -> tuple[dict[str, Any], list[str] | None]:
    """A replay record as the engine reads it (`Game.from_replay`, `records.check_replay_record`:
    without "players") and its players, checked (`check_players`), or None for a record
    without them (files from before the field)."""
    if PLAYERS_FIELD not in record:
        return record, None
    return {k: v for k, v in record.items() if k != PLAYERS_FIELD}, check_players(record[PLAYERS_FIELD])


def save_replay(game: Game, path: str | os.PathLike, players: list[str] | None = None) -> None:
    """Save `game` (finished or not) as a replay file, with who played each seat when given."""
    write_json_atomic(path, replay_with_players(game, players))


@dataclass(frozen=True)
class Replay:
    """A replay file, read and checked: the finished (or last) game, its record as the
    engine reads it, and who played each seat (None when the file does not say)."""

    game: Game
    record: dict[str, Any]
    players: list[str] | None


def read_replay(path: str | os.PathLike) -> Replay:
    """Read a replay file and rebuild its game. Raises ValueError when the file cannot be read
    as a replay, names its players wrongly, or does not reproduce its recorded result."""
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except OSError as err:
        raise ValueError(f"cannot read replay {path}: {err.strerror}") from None
    except json.JSONDecodeError as err:
        raise ValueError(f"replay {path} is not valid JSON: {err}") from None
    if not isinstance(data, dict):
        raise ValueError(f"replay {path} is not a Baohuang replay (expected a JSON object)")
    record, players = split_players(data)
    return Replay(Game.from_replay(record), record, players)


def load_replay(path: str | os.PathLike) -> Game:
    """The game of a replay file (`read_replay`)."""
    return read_replay(path).game
