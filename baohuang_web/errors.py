"""Errors a request can meet, each with its HTTP status and a message that says what was
wrong and what is allowed, and the checks of a client's values that raise them. The app
turns them into `{"error": message}` responses; nothing raises one after it has changed a
game."""

from __future__ import annotations

import reprlib
from typing import Any

_SHOWN = reprlib.Repr()
_SHOWN.maxstring = _SHOWN.maxother = 60
_SHOWN.maxlong = 40


class WebError(Exception):
    """A request the server refuses; `status` is the HTTP status code."""

    status = 400

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class BadRequest(WebError):
    status = 400


class Forbidden(WebError):
    status = 403


class NotFound(WebError):
    status = 404


class Conflict(WebError):
    """Well formed, but not now (not your turn, the game is over or still going)."""

    status = 409


class TooLarge(WebError):
    status = 413


def shown(value: Any) -> str:
    """A client's value as an error message quotes it: its repr, cut short, so a huge value
    neither floods the message nor costs much to write."""
    return _SHOWN.repr(value)


def check_int(value: Any, name: str, low: int, high: int) -> int:
    """`value` if it is a JSON integer in low..high; BadRequest otherwise. A bool, a float
    (even 2.0) or a string of digits is not an integer here: the client sent something else."""
    if type(value) is not int or not low <= value <= high:
        raise BadRequest(f"{name} must be an integer {low}..{high}, got {shown(value)}")
    return value


def check_fields(data: dict[str, Any], allowed: tuple[str, ...], what: str) -> None:
    """BadRequest when the JSON object `data` (the `what`) has a key outside `allowed`: a
    misspelt field would otherwise be ignored silently."""
    unknown = [k for k in data if k not in allowed]
    if unknown:
        raise BadRequest(f"{what} has unknown field(s) {shown(unknown)}; allowed: {', '.join(allowed)}")


def require_fields(data: dict[str, Any], required: tuple[str, ...], what: str) -> None:
    """BadRequest naming the fields of `required` that the JSON object `data` (the `what`) lacks."""
    missing = [k for k in required if k not in data]
    if missing:
        raise BadRequest(f"{what} is missing the field(s) {', '.join(missing)}")
