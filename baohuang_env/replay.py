"""Saving and loading replays: a game as JSON (rules, seed, actions[, custom deal, result]).

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
from typing import Any

from .game import Game


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


def save_replay(game: Game, path: str | os.PathLike) -> None:
    """Save `game` (finished or not) as a replay file."""
    write_json_atomic(path, game.to_replay())


def load_replay(path: str | os.PathLike) -> Game:
    """Rebuild the game of a replay file. Raises ValueError when the file cannot be read as
    a replay or does not reproduce its recorded result."""
    try:
        with open(path, encoding="utf-8") as f:
            record = json.load(f)
    except OSError as err:
        raise ValueError(f"cannot read replay {path}: {err.strerror}") from None
    except json.JSONDecodeError as err:
        raise ValueError(f"replay {path} is not valid JSON: {err}") from None
    if not isinstance(record, dict):
        raise ValueError(f"replay {path} is not a Baohuang replay (expected a JSON object)")
    return Game.from_replay(record)
