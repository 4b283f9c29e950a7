"""Errors a request can meet, each with its HTTP status and a message that says what was
wrong and what is allowed, and the checks of a client's values that raise them. The app
turns them into `{"error": message}` responses; nothing raises one after it has changed a
game."""

from __future__ import annotations

from typing import Any

from baohuang_env import records
from baohuang_env.records import shown

__all__ = ["BadRequest", "Conflict", "Forbidden", "NotFound", "TooLarge", "WebError", "check_fields", "check_int",
           "shown"]


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


def check_int(value: Any, name: str, low: int, high: int) -> int:
    """`value` if it is a JSON integer in low..high (`records.check_int`); BadRequest otherwise."""
    try:
        return records.check_int(value, name, low, high)
    except ValueError as err:
        raise BadRequest(str(err)) from None


def check_fields(data: dict[str, Any], allowed: tuple[str, ...], what: str) -> None:
    """BadRequest when the JSON object `data` (the `what`) has a key outside `allowed`
    (`records.check_fields`): a misspelt field would otherwise be ignored silently."""
    try:
        records.check_fields(data, allowed, what)
    except ValueError as err:
        raise BadRequest(str(err)) from None
